"""The pages as a family meets them, in a real browser (Debian's chromium through Playwright):
a seat page opened on the player's own turn, people's words on the phones and the TV, the
pages in Japanese, the hub's standings on a TV, the report on a phone, and what a keyboard or
a screen reader needs. Every wait is for something on a page, never for time to pass."""

from __future__ import annotations

import itertools
import json
import queue
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import known_evening as K
import pytest
import test_hub_browser as hub_tests
import test_web_browser as web_tests
from browser import open_page
from web_harness import Client, WebDaemon, web_daemon

from table.hub.page import StandingsPage
from table.hub.service import Hub
from table.referee.announcements import Announcement

# The browser, the pages and the helpers of the web view's and the hub's browser tests.
browser = web_tests.browser
pages = web_tests.pages
hub_page = hub_tests.hub_page
seat_url, live, seen = web_tests.seat_url, web_tests.live, web_tests.seen


def says(page: Any, selector: str, text: str) -> None:
    """Until an element of ``selector`` on ``page`` says ``text``."""
    page.wait_for_function(
        "([s, text]) => [...document.querySelectorAll(s)].some(e => e.textContent.includes(text))",
        arg=[selector, text], polling=20)


def text(page: Any, selector: str) -> str:
    return str(page.eval_on_selector(selector, "e => e.textContent"))


def test_a_seat_page_opened_on_its_own_turn_shows_the_top_card_and_colour(
        tmp_path: Path, browser: Any, pages: list[Any]) -> None:
    with web_daemon(tmp_path) as t:
        t.tap("R5#1")  # the first card: Ken's turn, and Ken opens his link now
        ken = open_page(browser, pages, seat_url(t, 1))
        ken.wait_for_function("() => document.querySelector('#situation').dataset.key"
                              " === 'your-turn'", polling=20)
        seen(ken, "#top .card.red")
        seen(ken, "#facts .swatch.red")
        # The card is named on screen as a screen reader names it: "red 5"; a skip is "red
        # Skip" (its drawn symbols hidden from the reader).
        assert text(ken, "#top .card .name") == "red 5"
        assert ken.locator("#top .card [aria-hidden='true']").count() == 2
        t.tap("RS#1")
        says(ken, "#top .card .name", "red Skip")


def test_the_phones_and_the_tv_speak_people_s_words(
        tmp_path: Path, browser: Any, pages: list[Any]) -> None:
    with web_daemon(tmp_path) as t:
        base = f"http://127.0.0.1:{t.port}"
        tv = open_page(browser, pages, base + "/", 1920, 1080)
        aki = open_page(browser, pages, seat_url(t, 0))
        ken = open_page(browser, pages, seat_url(t, 1))
        for page in (tv, aki, ken):
            live(page)
        t.tap("R5#1")
        says(tv, "#verdict [data-verdict='accepted']", "card played")
        aki.bring_to_front()
        aki.click('button[data-button="pass"]')  # not her turn
        says(aki, "#mine [data-verdict='rejected']", "Sorry, it is not your turn.")
        says(tv, "#verdict [data-verdict='rejected']", "Sorry, it is not your turn.")
        for page, where in ((aki, "#mine"), (tv, "#verdict")):
            assert "not-your-turn" not in text(page, where)
            assert "card on" not in text(page, where)
        # Aki's catch button, pressed just after someone else caught (the button was still on
        # her screen): said so, not "It is not time to call UNO".
        aki.evaluate("press('catch')")
        says(aki, "#mine [data-verdict='rejected']", "Someone was quicker")
        assert "It is not time to call UNO" not in text(aki, "#mine")
        # Aki catches Ken's forgotten UNO: Ken's phone tells him, Aki's (the catcher's) not.
        caught = Announcement("caught", (("catcher", "Aki"), ("player", "Ken"), ("count", 2)), 2)
        t.daemon.loop.call(lambda: t.daemon._say(caught))
        says(ken, "#mine [data-notice='caught']", "You were caught: you forgot to call UNO.")
        says(tv, "#captions li", "Aki caught Ken!")
        assert aki.query_selector("#mine [data-notice]") is None


def test_the_pages_in_japanese_say_which_language_the_announcements_come_in(
        tmp_path: Path, browser: Any, pages: list[Any]) -> None:
    with web_daemon(tmp_path) as t:
        tv = open_page(browser, pages, f"http://127.0.0.1:{t.port}/?lang=ja", 1920, 1080)
        live(tv)
        assert tv.evaluate("document.documentElement.lang") == "ja"
        assert text(tv, "h2[data-t='players']") == "プレイヤー"
        assert text(tv, "h2[data-t='said']") == "アナウンス(テーブルの言葉、英語)"
        assert tv.get_attribute("a[data-t='stats']", "href") == "/stats?lang=ja"
        # A Japanese heading in a narrow box stays whole: no プレイヤ/ー.
        lines = tv.evaluate("""() => {
            const h = document.querySelector("h2[data-t='players']");
            h.style.width = '2em';
            const range = document.createRange();
            range.selectNodeContents(h);
            return new Set([...range.getClientRects()].map(r => Math.round(r.top))).size;
        }""")
        assert lines == 1
        assert Client(t.port).request("GET", "/favicon.ico")[0] == 200


def luminance(rgb: str) -> float:
    r, g, b = (int(v) / 255 for v in re.findall(r"\d+", rgb)[:3])

    def lin(c: float) -> float:
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b)


def contrast(a: str, b: str) -> float:
    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def test_yellow_cards_read_at_4_5_to_1_and_the_focus_ring_shows_on_a_playable_card(
        tmp_path: Path, browser: Any, pages: list[Any]) -> None:
    with web_daemon(tmp_path) as t:
        ken = open_page(browser, pages, seat_url(t, 1))
        live(ken)
        colours = ken.evaluate("""() => {
            const box = el('div', { class: 'hand myturn', id: 'probe' },
                           cardEl('Y5', { button: true, extra: 'playable' }));
            document.body.append(box);
            const card = box.querySelector('.card');
            const style = (e) => getComputedStyle(e);
            return { card: style(card).backgroundColor,
                     corner: style(card.querySelector('.corner')).color,
                     face: style(card.querySelector('.face')).color };
        }""")
        assert contrast(colours["corner"], colours["card"]) >= 4.5
        assert contrast(colours["face"], "rgb(255, 255, 255)") >= 4.5
        ken.bring_to_front()
        ken.keyboard.press("Tab")  # from the keyboard, as a focus ring is for
        ring = ken.evaluate("""() => {
            const card = document.querySelector('#probe .card');
            const outline = () => {
                const s = getComputedStyle(card);
                return s.outlineStyle + ' ' + s.outlineColor + ' ' + s.outlineWidth;
            };
            const before = outline();
            card.focus();
            return { before, focused: outline(), visible: card.matches(':focus-visible') };
        }""")
        assert ring["visible"]
        assert ring["focused"] != ring["before"] and not ring["focused"].startswith("none")


def test_the_admin_page_counts_one_page_in_the_singular(
        tmp_path: Path, browser: Any, pages: list[Any]) -> None:
    with web_daemon(tmp_path) as t:
        admin = open_page(browser, pages, f"http://127.0.0.1:{t.port}/admin", 1280, 800)
        live(admin)
        # The page shows the count it asked for as it opened (0: its stream was not open yet)
        # until the one it asks for on the snapshot comes, after the stream is live.
        admin.wait_for_function(
            "() => /^1 /.test(document.querySelector('#pages').textContent)", polling=20)
        assert text(admin, "#pages") == "1 page following"


@pytest.fixture
def stats_table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[WebDaemon]:
    """A daemon whose journal holds the scripted match of known_evening."""
    K.write(tmp_path / "journal.sqlite3", monkeypatch)
    with web_daemon(tmp_path) as daemon:
        yield daemon


def test_the_report_fits_a_phone_and_speaks_the_page_s_language(
        stats_table: WebDaemon, browser: Any, pages: list[Any]) -> None:
    pytest.importorskip("matplotlib")
    phone = open_page(browser, pages, f"http://127.0.0.1:{stats_table.port}/stats?lang=ja")
    seen(phone, "h1")
    assert phone.evaluate("document.documentElement.lang") == "ja"
    assert phone.title() == "今夜のUNO"
    assert "公式ルール" in phone.content() and "officialルール" not in phone.content()
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_the_hub_standings_on_a_tv_headers_apart_and_numbers_under_them(
        lang: str, browser: Any, pages: list[Any],
        hub_page: tuple[Hub, StandingsPage, queue.Queue[str]]) -> None:
    hub, served, _ = hub_page
    tv = open_page(browser, pages, f"http://127.0.0.1:{served.port}/?lang={lang}", 1920, 1080)
    live(tv)
    hub._heard("uno-table/2/result", json.dumps({
        "id": "2/7/1", "table": "2", "match": "7", "round": 1, "players": ["Aki", "Ken"],
        "winner": "Aki", "points": {"Aki": 1234, "Ken": -1234}, "totals": {"Aki": 1234,
                                                                          "Ken": -1234},
        "scoring": "japanese"}).encode())
    seen(tv, "#ranking li[data-player='Aki']")
    boxes = tv.evaluate("""() => [...document.querySelectorAll('#ranking li')].slice(0, 2).map(
        li => [...li.children].map(c => { const r = c.getBoundingClientRect();
                                          const range = document.createRange();
                                          range.selectNodeContents(c);
                                          const t = range.getBoundingClientRect();
                                          return [r.left, r.right, t.left, t.right]; }))""")
    head, row = boxes
    for (_, _, _, right), (_, _, next_left, _) in itertools.pairwise(head):
        assert right <= next_left, "two column headers overlap"
    for (_, cell_right, _, text_right), (_, _, _, number_right) in zip(
            head[2:], row[2:], strict=True):
        assert text_right <= cell_right + 0.5, "a header runs out of its column"
        assert abs(text_right - number_right) <= 2, "a number does not sit under its header"


def test_the_error_pages_write_japanese_in_kanji_as_the_pages_do(tmp_path: Path) -> None:
    with web_daemon(tmp_path) as t:
        status, _, body = Client(t.port).request("GET", "/seat/nope")
    page = body.decode("utf-8")
    assert status == 403
    assert "この試合の席ではありません" in page and "新しいコードを読み取ってください" in page
    assert "せきでは" not in page and "よみとって" not in page


def test_the_admin_page_of_a_japanese_table_shows_each_name_s_reading(
        tmp_path: Path, browser: Any, pages: list[Any], monkeypatch: pytest.MonkeyPatch) -> None:
    import web_harness

    plain = web_harness.sim_config

    def japanese(*args: Any, **kwargs: Any) -> str:
        text = plain(*args, **kwargs).replace('language = "en"', 'language = "ja"', 1)
        return text.replace('"Ken"', '"Yuta"', 1)

    monkeypatch.setattr(web_harness, "sim_config", japanese)
    with web_daemon(tmp_path) as t:
        admin = open_page(browser, pages, f"http://127.0.0.1:{t.port}/admin", 1280, 800)
        says(admin, "#names li", "Yuta: said ユタ")
        lines = admin.eval_on_selector_all("#names li", "items => items.map(i => i.textContent)")
        assert "Aki: said アキ" in lines
        assert any('Yuta = "ゆうた"' in line and line.startswith("warning") for line in lines)
