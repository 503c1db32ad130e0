"""The hub's standings page in a real browser (Debian's chromium, see ``browser.py``): it
follows the results live, resumes after a lost stream missing and doubling nothing, counts
the round down on the hub's clock whatever the TV's own clock says, and reads in Japanese on a
phone held upright."""

from __future__ import annotations

import json
import queue
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser import chromium, open_page
from mqtt_harness import free_port

from table.hub.config import HubPlan
from table.hub.page import StandingsPage, serve
from table.hub.service import Hub
from table.hub.store import HubStore
from table.mqtt.settings import MqttSettings

# Both clocks are the test's, so the timer reads the same however long the page takes to come
# up: the hub's stands still at HUB_NOW, and the TV's stands an hour fast (a Pi with no network
# to set it, say).
HUB_NOW = 1_900_000_000.0
TV_NOW = HUB_NOW + 3600


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium() as context:
        yield context


@pytest.fixture
def hub_page(tmp_path: Path) -> Iterator[tuple[Hub, StandingsPage, queue.Queue[str]]]:
    store = HubStore(tmp_path / "hub.sqlite3")
    store.seat(1, {"2": ["Aki", "Ken"], "5": ["Mio", "Sam"]}, HUB_NOW + 600)
    hub = Hub(MqttSettings("127.0.0.1", free_port()), store, HubPlan(scoring="japanese"))
    served = serve(hub, 0, "127.0.0.1", clock=lambda: HUB_NOW)
    ids: queue.Queue[str] = queue.Queue()
    # Told after the page (which listens first): what it published has reached its feed.
    hub.listeners.append(lambda standings: ids.put(str(standings["results"])))
    yield hub, served, ids
    served.close()


def result(hub_page: tuple[Hub, StandingsPage, queue.Queue[str]], n: int, winner: str,
           totals: dict[str, int]) -> str:
    """Table 2's round ``n`` heard; the id of the page's event for it."""
    hub, served, ids = hub_page
    loser = "Ken" if winner == "Aki" else "Aki"
    hub._heard("uno-table/2/result", json.dumps({
        "id": f"2/7/{n}", "table": "2", "match": "7", "round": n, "players": ["Aki", "Ken"],
        "winner": winner, "points": {winner: 12, loser: -12}, "totals": totals,
        "scoring": "japanese"}).encode())
    while ids.get(timeout=30) != str(n):
        pass
    return f"{served.feed.epoch}-{n}"


def text(page: Any, selector: str) -> str:
    return str(page.eval_on_selector(selector, "e => e.textContent"))


def test_the_standings_live_on_a_tv_with_its_clock_wrong(
        browser: Any, hub_page: tuple[Hub, StandingsPage, queue.Queue[str]]) -> None:
    served = hub_page[1]
    errors: list[str] = []
    opened: list[Any] = []
    try:
        tv = browser.new_page()
        opened.append(tv)
        tv.clock.set_fixed_time(TV_NOW)  # Date.now() stands still; the page's timers still run
        tv.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        # (A browser asks for /favicon.ico by itself: the one 404 expected.)
        tv.on("response", lambda r: errors.append(f"{r.status} {r.url}")
              if r.status >= 400 and not r.url.endswith("/favicon.ico") else None)
        tv.set_viewport_size({"width": 1920, "height": 1080})
        tv.goto(f"http://127.0.0.1:{served.port}/?lang=en")
        tv.wait_for_function("() => unoTable.stream && unoTable.stream.live", polling=20)
        tv.wait_for_function("() => document.querySelector('#timer').textContent !== ''",
                             polling=20)
        # Ten minutes left on the hub's clock, though the TV's is an hour ahead.
        assert text(tv, "#timer") == "10:00"
        assert text(tv, "#round") == "· Round 1"
        assert "Aki, Ken" in text(tv, "#tables li[data-table='2']")
        first = result(hub_page, 1, "Aki", {"Aki": 12, "Ken": -12})
        tv.wait_for_function("() => document.querySelector(\"#ranking li[data-player='Aki']\")",
                             polling=20)
        rows = tv.eval_on_selector_all(
            "#ranking li[data-player]",
            "rows => rows.map(r => [...r.children].map(c => c.textContent))")
        # rank, player, match wins, points, rounds, wins
        assert rows == [["1", "Aki", "0", "12", "1", "1"], ["2", "Ken", "0", "-12", "1", "0"]]
        # The stream lost, two rounds meanwhile, then taken up again after the last id.
        tv.evaluate("unoTable.stream.pause()")
        result(hub_page, 2, "Ken", {"Aki": 0, "Ken": 0})
        third = result(hub_page, 3, "Ken", {"Aki": -12, "Ken": 12})
        tv.evaluate("unoTable.stream.resume()")
        tv.wait_for_function("(id) => unoTable.stream.seen.includes(id)", arg=third, polling=20)
        seen = tv.evaluate("unoTable.stream.seen")
        assert seen == [first, f"{served.feed.epoch}-2", third]
        assert tv.eval_on_selector("#ranking li[data-player]", "r => r.dataset.player") == "Ken"
        # Nothing refused (by the content security policy, say), nothing missing.
        assert [e for e in errors if "favicon" not in e and "404" not in e] == []
        assert [e for e in errors if e[0].isdigit()] == []
    finally:
        for page in opened:
            page.close()


def test_the_page_in_japanese_on_a_phone(
        browser: Any, hub_page: tuple[Hub, StandingsPage, queue.Queue[str]]) -> None:
    served = hub_page[1]
    opened: list[Any] = []
    try:
        phone = open_page(browser, opened, f"http://127.0.0.1:{served.port}/?lang=ja")
        phone.wait_for_function("() => unoTable.stream && unoTable.stream.live", polling=20)
        result(hub_page, 1, "Aki", {"Aki": 12, "Ken": -12})
        phone.wait_for_function(
            "() => document.querySelector(\"#ranking li[data-player='Aki']\")", polling=20)
        assert text(phone, "h1").startswith("順位")
        assert text(phone, "#round") == "· 第1ラウンド"
        assert "テーブル2" in text(phone, "#tables")
        # Upright, the ranking keeps rank, player, match wins and points on one line.
        hidden = phone.eval_on_selector(
            "#ranking li[data-player='Aki'] .rounds", "e => getComputedStyle(e).display")
        assert hidden == "none"
        width = phone.evaluate("document.documentElement.scrollWidth")
        assert width <= 390  # nothing runs off the side of the screen
    finally:
        for page in opened:
            page.close()
