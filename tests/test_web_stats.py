"""``/stats`` on the web view: the evening's report of the journal a real daemon is writing,
checked against a scripted match whose every figure is known (tests/known_evening.py)."""

from __future__ import annotations

import html
import logging
import re
import statistics
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import known_evening as K
import pytest
import report_browser as browser
from web_harness import Client, WebDaemon, card_codes, web_daemon

from table.journal.store import Journal
from table.rules import make_options
from table.web.stats import FRESH, Report, build, build_in_child


@pytest.fixture
def table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[WebDaemon]:
    """A daemon whose journal holds the scripted match (over: the daemon begins match 2)."""
    K.write(tmp_path / "journal.sqlite3", monkeypatch)
    with web_daemon(tmp_path) as daemon:
        yield daemon


def get(daemon: WebDaemon, path: str = "/stats") -> tuple[int, dict[str, str], str]:
    status, headers, data = daemon.client.request("GET", path)
    return status, headers, data.decode("utf-8")


def section(page: str, heading: str) -> str:
    """The report's section whose heading starts with ``heading``."""
    found = re.search(r"<section><h2>" + re.escape(html.escape(heading)) + r".*?</section>",
                      page, re.S)
    assert found is not None, heading
    return found.group(0)


def tables(fragment: str) -> list[list[list[str]]]:
    """Every table of ``fragment``: rows of cells' text."""
    return [[[html.unescape(c) for c in re.findall(r"<t[hd]>(.*?)</t[hd]>", row)]
             for row in re.findall(r"<tr>(.*?)</tr>", table, re.S)]
            for table in re.findall(r"<table>(.*?)</table>", fragment, re.S)]


def rows_of(fragment: str, first_header: str, second_header: str) -> dict[str, list[str]]:
    """The table whose headers begin so, by its rows' first cell."""
    for table in tables(fragment):
        if table[0][:2] == [first_header, second_header]:
            return {row[0]: row[1:] for row in table[1:]}
    raise AssertionError(f"no table {first_header}, {second_header}")


def without_plots(page: str) -> str:
    return re.sub(r"<svg.*?</svg>", "", page, flags=re.S)


def test_stats_serves_the_journal_s_evening_with_the_known_figures(table: WebDaemon) -> None:
    status, headers, page = get(table)
    assert status == 200 and headers["content-type"].startswith("text/html")
    assert '<meta name="viewport" content="width=device-width' in page  # a phone's width
    match = section(page, "Match 1 (")
    assert "over, won by 美緒" in match
    players = rows_of(match, "player", "points")
    assert list(players) == list(K.PLAYERS)
    for name, row in players.items():
        points, won, paid, penalties, cards, catches, turns, mean, median = row
        assert int(points) == K.SCORES[name]
        assert int(won) == K.ROUNDS_WON[name]
        assert int(paid) == K.POINTS_PAID[name]
        assert int(penalties) == sum(K.PENALTIES[name].values())
        assert int(cards) == K.PENALTY_CARDS[name]
        assert int(catches) == K.CATCHES[name]
        assert int(turns) == len(K.TURNS[name])
        assert float(mean) == round(statistics.fmean(K.TURNS[name]), 2)
        assert float(median) == statistics.median(K.TURNS[name])
    kinds = rows_of(match, "player", "UNO not called")
    assert kinds["Ken"][0] == "1" and kinds["Aki"][1] == "1" and kinds["美緒"][2] == "1"
    assert "longest round: match 1, round 1, 52 s over 9 turns" in match
    # The match the daemon began after it, and the evening over both.
    assert "in progress" in section(page, "Match 2 (")
    evening = section(page, "The evening: 2 matches")
    assert "most played colour: blue (red 2, yellow 3, green 4, blue 5, wild 1)" in evening


def test_every_plot_is_inline_svg_and_nothing_hidden_or_outside_is_in_the_page(
        table: WebDaemon) -> None:
    pytest.importorskip("matplotlib")
    status, headers, page = get(table)
    assert status == 200
    # The evening's five plots and the score line of match 1; none yet for match 2, which has
    # no round finished (its plot would be one dot on empty axes).
    assert page.count("<figure") == page.count("<svg") == 6
    assert 'data-plot="Match 1: scores by round"' in page
    assert 'data-plot="Match 2: scores by round"' not in page
    for outside in ("src=", "<link", "<script", "@import", "url(http"):
        assert outside not in page
    assert "script-src" not in headers["content-security-policy"]  # none: default 'none'
    assert headers["cache-control"] == "no-store"
    # Public figures only: no card of any hand, no journal path.
    assert card_codes(re.sub(r"<[^>]+>", " ", without_plots(page))) == set()
    assert "journal.sqlite3" not in page and "No plots" not in page


def test_the_report_is_kept_until_the_journal_gains_an_input(table: WebDaemon) -> None:
    """Polled, the report is built once: kept as it is for FRESH seconds (of a clock the test
    holds), then again until the journal has moved on."""
    now = [0.0]
    table.web.stats.clock = lambda: now[0]
    first = get(table)[2]
    assert get(table)[2] == first
    assert table.web.stats.builds == 1
    assert table.tap("R5#1")["verdict"] == "accepted"  # turned up
    assert table.tap("R7#1")["verdict"] == "accepted"  # played: written before its verdict
    assert get(table)[2] == first and table.web.stats.builds == 1  # still fresh
    now[0] += FRESH
    later = get(table)[2]
    assert table.web.stats.builds == 2
    assert "most played colour: red (red 1, yellow 0, green 0, blue 0, wild 0)" in section(
        later, "Match 2 (")
    assert "(red 3, yellow 3, green 4, blue 5, wild 1)" in section(later, "The evening")
    now[0] += 2 * FRESH  # no new row: looked at, not built again
    assert get(table)[2] == later and table.web.stats.builds == 2


def test_a_page_polling_the_report_is_throttled_not_the_others(table: WebDaemon) -> None:
    table.web.stats.asks.clock = lambda: 0.0  # no time passes: 5 asks, then none
    statuses = [get(table)[0] for _ in range(6)]
    assert statuses == [200] * 5 + [429]
    status, headers, _ = table.client.request("GET", "/stats")
    assert status == 429 and int(headers["retry-after"]) >= 1
    other = Client(table.port, source="127.0.0.2")  # another device
    assert other.request("GET", "/stats")[0] == 200
    assert table.web.stats.builds == 1


def test_a_build_longer_than_the_wait_gives_a_page_that_reloads_itself(
        table: WebDaemon) -> None:
    """The first byte comes at once: a short page asking again in a moment while the report
    is built; then the report."""
    release = threading.Event()

    def held(journal: Path, lang: str) -> Report:
        assert release.wait(60)
        return build_in_child(journal, lang)

    table.web.stats.builder = held
    table.web.stats.wait = 0.0
    try:
        status, headers, page = get(table)
        assert status == 202 and headers["refresh"] == "2" and "being built" in page
    finally:
        release.set()
    table.web.stats.wait = 600.0
    status, _, page = get(table)
    assert status == 200 and "most played colour" in page and table.web.stats.builds == 1


def test_without_matplotlib_the_tables_and_how_to_get_plots(
        table: WebDaemon, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib: ImportError
    table.web.stats.builder = build  # in this process, where matplotlib is missing
    status, _, page = get(table)
    assert status == 200 and "<svg" not in page
    assert page.count("pip install &#x27;uno-table[stats]&#x27;") == 1
    assert rows_of(section(page, "Match 1 ("), "player", "points")["美緒"][0] == "71"


def test_the_stats_page_opens_in_chromium_with_every_plot_drawn(table: WebDaemon) -> None:
    pytest.importorskip("matplotlib")
    drawn = browser.rendered_plots(f"http://127.0.0.1:{table.port}/stats")
    assert len(drawn) == 6  # none yet for match 2, which has no round finished
    blank = [caption for caption, colours in drawn.items() if colours < 10]
    assert blank == []


def test_the_table_view_and_the_admin_page_link_to_it(table: WebDaemon) -> None:
    for path in ("/", "/admin"):
        status, _, page = get(table, path)
        assert status == 200 and 'href="/stats"' in page
    assert 'href="/"' in get(table)[2]


def test_a_table_without_a_journal_says_so() -> None:
    from sim.tabletop.virtual import SimTable
    from sim.tabletop.web_people import start_web

    table = SimTable(make_options("official"), ["Aki", "Ken", "Mio"], 1, hands="full")
    server, _ = start_web(table, "127.0.0.1:0", plays_cards=False)
    try:
        status, _, data = Client(server.port).request("GET", "/stats")
    finally:
        server.stop()
    page = data.decode("utf-8")
    assert status == 404 and "keeps no journal" in page and "--journal FILE" in page


def test_the_referee_and_the_other_pages_go_on_while_a_report_is_built(
        table: WebDaemon) -> None:
    """The build runs in a process of its own, waited for by a worker thread: held before it
    starts, a tap is refereed and the table view's API answers meanwhile; the report comes
    from the child when let go."""
    building, release = threading.Event(), threading.Event()

    def held(journal: Path, lang: str) -> Report:
        building.set()
        assert release.wait(30)
        return build_in_child(journal, lang)

    table.web.stats.builder = held
    answers: list[tuple[int, str]] = []
    asking = threading.Thread(target=lambda: answers.append(get(table)[::2]))
    asking.start()
    try:
        assert building.wait(30)
        assert table.tap("R5#1")["verdict"] == "accepted"
        status, state = table.client.get("/api/state")
        assert status == 200 and state["state"]["top"] == "R5"
    finally:
        release.set()
        asking.join(60)
    assert answers[0][0] == 200 and "most played colour" in answers[0][1]


def test_a_build_that_fails_is_a_503_page_and_one_log_line(
        table: WebDaemon, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.setattr(sys, "executable", "/nonexistent/python")
    with caplog.at_level(logging.WARNING, logger="table.web.stats"):
        status, _, page = get(table)
    assert status == 503 and "cannot be read just now" in page
    assert [r.getMessage() for r in caplog.records if r.name == "table.web.stats"] == [
        "/stats: the report could not be built: [Errno 2] No such file or directory: "
        "'/nonexistent/python'"]


def test_the_demo_with_a_journal_serves_its_report(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from sim.tabletop.virtual import SimTable
    from sim.tabletop.web_people import start_web

    path = tmp_path / "demo.sqlite3"
    K.write(path, monkeypatch)
    journal = Journal(path)
    table = SimTable(make_options("official"), ["Aki", "Ken", "Mio"], 1, hands="full",
                     journal=journal)
    server, _ = start_web(table, "127.0.0.1:0", plays_cards=False)
    server.web.stats.wait = 600.0  # the report, not the page that says it is being built
    try:
        status, _, data = Client(server.port).request("GET", "/stats")
    finally:
        server.stop()
        journal.close()
    page = data.decode("utf-8")
    assert status == 200
    assert rows_of(section(page, "Match 1 ("), "player", "points")["美緒"][0] == "71"


def test_a_japanese_table_serves_its_report_in_japanese(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """[web] language = "ja": /stats speaks the table's language, with the same figures."""
    K.write(tmp_path / "journal.sqlite3", monkeypatch)
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # tables only: quicker, and said so
    with web_daemon(tmp_path, 'language = "ja"') as daemon:
        daemon.web.stats.builder = build  # in this process, where matplotlib is missing
        status, _, page = get(daemon)
    assert status == 200 and '<html lang="ja">' in page
    match = section(page, "試合1 (")
    assert "美緒さんの勝ち" in match
    assert rows_of(match, "プレイヤー", "得点")["美緒"][0] == "71"
    assert "いちばん長いラウンド: 試合1のラウンド1、52秒、9手番" in match
    assert "進行中" in section(page, "試合2 (")
    assert "いちばん多く出た色: 青" in section(page, "今夜: 2試合")
    assert "グラフはありません" in page and "← テーブルへ" in page
    assert "longest round" not in page and "The evening" not in page
