"""Every page for everyone, in a real browser (Debian's chromium through Playwright): axe-core
(bundled by axe-playwright-python, never fetched at run time) finds no WCAG 2.1 A or AA
violation on the table view, the overlay, a seat page holding its hand, the admin page,
``/stats`` and the hub's standings; every control is reached by the keyboard and shows where
the focus is; a card is named the same for a screen reader as on screen."""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import test_hub_browser as hub_tests
import test_web_browser as web_tests
from browser import open_page
from web_harness import web_daemon

from sim.players.bots import make_bot, seat_rng
from sim.tabletop.match import Seat
from sim.tabletop.virtual import SimTable
from sim.tabletop.web_people import start_web
from table.hub.page import StandingsPage
from table.hub.service import Hub

browser = web_tests.browser
pages = web_tests.pages
hub_page = hub_tests.hub_page
live = web_tests.live

TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]


def violations(page: Any) -> list[str]:
    """axe-core's WCAG 2.1 A and AA violations on ``page``: each rule with the elements."""
    axe = pytest.importorskip("axe_playwright_python.sync_playwright")
    # label-content-name-mismatch (WCAG 2.5.3) is one of axe's experimental rules: asked for.
    results = axe.Axe().run(page, options={
        "runOnly": {"type": "tag", "values": TAGS}, "resultTypes": ["violations"],
        "rules": {"label-content-name-mismatch": {"enabled": True}}})
    found = results.response["violations"]
    return [f"{v['id']}: {[n['target'] for n in v['nodes']]}" for v in found]


@pytest.fixture
def mid_round(browser: Any, pages: list[Any]) -> Iterator[tuple[SimTable, Any, dict[str, Any]]]:
    """A four-player table on the web, paused mid-round: its pages, caught up."""
    table = web_tests.sim_table(seed=5, players=4)  # the screenshots' table and moment
    server, remote = start_web(table, "127.0.0.1:0", plays_cards=True)
    paused, go_on = threading.Event(), threading.Event()
    moved = iter(range(1, 10_000))

    def after_move(t: SimTable) -> None:
        if next(moved) == 10:
            paused.set()
            go_on.wait(60)

    bots: list[Seat] = [make_bot("heuristic", seat_rng(5, i)) for i in range(4)]

    def play() -> None:
        web_tests._play(table, bots, after_move)

    player = threading.Thread(target=play, daemon=True)
    base = server.base_url()
    try:
        shown = {
            "table": open_page(browser, pages, base + "/?pace=20", 1280, 800),
            "overlay": open_page(browser, pages, base + "/overlay", 1280, 240),
            "seat": open_page(browser, pages, server.web.seat_urls()[0][1] + "?lang=en&pace=20"),
            "admin": open_page(browser, pages, base + "/admin", 1280, 800),
        }
        for page in shown.values():
            live(page)
        player.start()
        assert paused.wait(60)
        newest = server.web.feed.snapshot_mark()[0]
        for page in shown.values():
            page.wait_for_function("(id) => unoTable.stream.seen.includes(id)", arg=newest,
                                   polling=20)
        shown["seat"].wait_for_function("(id) => unoTable.viewAfter === id", arg=newest,
                                        polling=20)
        yield table, server, shown
    finally:
        go_on.set()
        player.join(60)
        remote.over = True
        server.stop()


def test_the_table_s_pages_mid_round_pass_axe(
        mid_round: tuple[SimTable, Any, dict[str, Any]]) -> None:
    shown = mid_round[2]
    assert shown["seat"].locator("#hand .card").count() > 0  # a hand to name
    found = {name: violations(page) for name, page in shown.items()}
    assert found == {name: [] for name in shown}


def test_stats_and_the_hub_s_standings_pass_axe(
        tmp_path: Path, browser: Any, pages: list[Any],
        hub_page: tuple[Hub, StandingsPage, queue.Queue[str]]) -> None:
    with web_daemon(tmp_path) as t:
        t.tap("R5#1")
        t.tap("R7#1")
        stats = open_page(browser, pages, f"http://127.0.0.1:{t.port}/stats", 1280, 800)
        stats.wait_for_selector("h1")
        found = {"stats": violations(stats)}
        keyboard_reaches_every_control(stats, "stats")
    served = hub_page[1]
    hub_tests.result(hub_page, 1, "Aki", {"Aki": 12, "Ken": -12})
    standings = open_page(browser, pages, f"http://127.0.0.1:{served.port}/", 1280, 800)
    live(standings)
    standings.wait_for_selector("#ranking li[data-player='Aki']")
    found["standings"] = violations(standings)
    keyboard_reaches_every_control(standings, "standings")
    assert found == {"stats": [], "standings": []}


def test_every_control_is_reached_by_the_keyboard_and_shows_its_focus(
        mid_round: tuple[SimTable, Any, dict[str, Any]]) -> None:
    shown = mid_round[2]
    for name in ("seat", "table", "admin"):
        shown[name].bring_to_front()
        keyboard_reaches_every_control(shown[name], name)


def keyboard_reaches_every_control(page: Any, name: str) -> None:
    """Tab from the top reaches every visible control, each with a visible focus ring of at
    least 2 px."""
    controls = page.evaluate("""() => [...document.querySelectorAll(
        'button, select, input, summary, a[href]')]
        .filter((e) => e.offsetParent !== null).length""")
    reached: list[dict[str, Any]] = []
    page.evaluate("document.activeElement && document.activeElement.blur()")
    for _ in range(controls + 1):
        page.keyboard.press("Tab")
        reached.append(page.evaluate("""() => { const e = document.activeElement;
            const s = getComputedStyle(e);
            return { id: e.outerHTML.slice(0, 80), visible: e.matches(':focus-visible'),
                     ring: s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) >= 2 };
        }"""))
    ids = {r["id"] for r in reached}
    assert len(ids) >= controls, (name, controls, reached)  # every control, in one round
    missing = [r["id"] for r in reached if not (r["ring"] and r["visible"])
               and not r["id"].startswith("<body")]
    assert missing == [], (name, missing)
