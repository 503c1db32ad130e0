"""The web view in a real browser (Debian's chromium through Playwright), against real tables
served on a loopback port: phones playing seats, the spectator page showing every verdict,
the admin page's undo, a spectator that loses its connection, and the screens' sizes.

Every wait is for something on a page or at the table, never for time to pass.
"""

from __future__ import annotations

import os
import queue
import re
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser import chromium, open_page, png_alpha
from web_harness import Client, Sse, WebDaemon, card_codes, codes_outside_top, web_daemon

from sim.players.bots import SeatView, make_bot, seat_rng
from sim.tabletop.match import Command, Seat, play_match
from sim.tabletop.virtual import SimTable
from sim.tabletop.web_people import SimRemote, WebSeat, start_web
from table.referee.views import standing_json
from table.rules import Action, Phase, make_options


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium() as context:
        yield context


@pytest.fixture
def pages(browser: Any) -> Iterator[list[Any]]:
    opened: list[Any] = []
    yield opened
    for page in opened:
        page.close()


def seat_url(t: WebDaemon, seat: int) -> str:
    return f"http://127.0.0.1:{t.port}/seat/{t.token(seat)}"


def wait_situation(page: Any, key: str) -> None:
    page.wait_for_function("(key) => document.querySelector('#situation').dataset.key === key",
                           arg=key, polling=20)


def wait_caption(page: Any, text: str) -> None:
    page.wait_for_function(
        "(t) => [...document.querySelectorAll('#captions li')].some(l => l.textContent === t)",
        arg=text, polling=20)


def live(page: Any) -> None:
    """Until the page follows the table's events."""
    page.wait_for_function("() => window.unoTable && unoTable.stream && unoTable.stream.live",
                           polling=20)


def seen(page: Any, selector: str) -> None:
    """Until ``selector`` is on ``page`` (checked every 20 ms: a page in the background gets
    no animation frames to check on)."""
    page.wait_for_function("(s) => document.querySelector(s) !== null", arg=selector, polling=20)


def seen_text(page: Any, selector: str, text: str) -> None:
    """Until an element of ``selector`` on ``page`` says ``text``."""
    page.wait_for_function(
        "([s, text]) => [...document.querySelectorAll(s)].some(e => e.textContent.includes(text))",
        arg=[selector, text], polling=20)


def tap(page: Any, selector: str) -> None:
    """A tap on ``page``, brought to the front as a phone in a player's hand is."""
    page.bring_to_front()
    page.click(selector)


def test_colour_challenge_and_undo_from_the_pages_each_verdict_on_the_spectator_page(
        tmp_path: Path, browser: Any, pages: list[Any]) -> None:
    """Aki and Ken hold phones, Mio plays on the table's pad only; Ken's wild gets its colour
    on his phone, Aki challenges Mio's Wild Draw Four on hers, and the admin page takes the
    challenge back."""
    with web_daemon(tmp_path) as t:
        base = f"http://127.0.0.1:{t.port}"
        view = open_page(browser, pages, base + "/", 1280, 800)
        aki = open_page(browser, pages, seat_url(t, 0))
        ken = open_page(browser, pages, seat_url(t, 1))
        admin = open_page(browser, pages, base + "/admin", 1280, 800)
        for page in (view, aki, ken, admin):
            live(page)
        t.tap("R5#1")
        seen(view, '#top .card[data-code="R5"]')
        tap(aki, 'button[data-button="pass"]')  # not her turn: her phone says so
        seen_text(aki, '#mine [data-verdict="rejected"]', "Sorry, it is not your turn.")
        seen_text(view, '#verdict [data-verdict="rejected"]', "Aki")
        t.tap("W#1")  # Ken's wild, on the pad: its colour is his to name
        wait_situation(ken, "choose-color")
        tap(ken, '#colors button[data-color="red"]')
        seen_text(view, '#verdict [data-verdict="accepted"]', "Ken: red")
        seen(view, '#facts [data-color="red"]')
        wait_situation(ken, "wait")

        t.tap("W+4#1")  # Mio, on the pad: a Wild Draw Four on Aki, blue
        t.tap("token:color:blue")
        wait_situation(aki, "draw-or-challenge")
        seen(view, "#pending")
        tap(aki, 'button[data-button="challenge"]')
        seen_text(view, '#verdict [data-verdict="accepted"]', "Aki: Challenge")
        wait_caption(view, "Mio, please show your hand.")
        wait_situation(aki, "wait-show")

        tap(admin, 'button[data-action="undo"]')
        wait_caption(view, "Undone.")
        wait_situation(aki, "draw-or-challenge")  # back to the moment before the challenge
        assert admin.locator("#message").get_attribute("data-status") == "202"
        state = t.client.get("/api/state")[1]["state"]
        assert (state["pending_draw"], state["turn"], state["color"]) == (4, "Aki", "blue")


def test_a_press_made_too_fast_is_kept_and_sent_again_by_the_phone(
        tmp_path: Path, browser: Any, pages: list[Any]) -> None:
    """Two presses of Aki's closer together than her seat may press: the second is answered
    "too fast", and her phone sends it again by itself when the table says (not lost)."""
    with web_daemon(tmp_path) as t:
        aki = open_page(browser, pages, seat_url(t, 0))
        live(aki)
        t.tap("R5#1")  # the round begins; Ken's turn
        seen_text(aki, "#situation", "Ken's turn")  # the phone shows the table as it is now
        seats = t.web.seats
        now = [seats.clock()]  # the rate limit's clock stands still until moved here
        seats.clock, seats.rate, seats.burst = (lambda: now[0]), 1.0, 1.0  # one a second
        tap(aki, 'button[data-button="pass"]')
        assert t.wait("verdict", input="press")["verdict"] == "rejected"  # not her turn
        seen_text(aki, "#mine", "Sorry, it is not your turn.")  # (the page has heard it too)
        tap(aki, 'button[data-button="draw"]')  # within the same second
        seen_text(aki, "#mine", "Slow down a little")
        now[0] += 1.0  # the second passes: the phone's next try is taken
        event = t.wait("verdict", input="press")  # the phone's own second try
        assert (event["seat"], event["verdict"]) == ("Aki", "rejected")
        assert event["reason"] == "not-your-turn"
        seen_text(aki, f'#mine [data-verdict="rejected"][data-n="{event["n"]}"]',
                  "Sorry, it is not your turn.")


def sim_table(seed: int, players: int = 3) -> SimTable:
    names = ["Aki", "Ken", "Mio", "Rin"][:players]
    return SimTable(make_options("official"), names, seed, hands="full")


class Phone(WebSeat):
    """A seat played on its page; each move it is asked for is announced on ``turns``."""

    def __init__(self, remote: SimRemote, seat: int, turns: queue.Queue[int | None]) -> None:
        super().__init__(remote, seat)
        self.turns = turns

    def act(self, view: SeatView) -> Action | Command:
        self.turns.put(self.seat)
        return super().act(view)


def test_two_seats_played_from_phones_and_one_by_the_tables_pads(
        browser: Any, pages: list[Any]) -> None:
    """A whole round: Aki and Ken play every move on their phones (a wild's colour picked
    there too), Mio is a bot on the simulated pads; each phone's move shows its verdict on the
    spectator page."""
    table = sim_table(seed=PHONE_SEED)
    server, remote = start_web(table, "127.0.0.1:0", plays_cards=True)
    turns: queue.Queue[int | None] = queue.Queue()
    seats: list[Seat] = [Phone(remote, 0, turns), Phone(remote, 1, turns),
                         make_bot("heuristic", seat_rng(PHONE_SEED, 2))]
    failed: list[BaseException] = []

    def play() -> None:
        try:
            with table:
                play_match(table, seats, rounds=1)
        except BaseException as exc:
            failed.append(exc)
        finally:
            remote.over = True
            turns.put(None)

    base = server.base_url()
    try:
        view = open_page(browser, pages, base + "/", 1280, 800)
        phones = [open_page(browser, pages, url) for _, url in server.web.seat_urls()[:2]]
        for page in (view, *phones):
            live(page)
        threading.Thread(target=play, daemon=True).start()
        moves = wilds = 0
        while (seat := turns.get(timeout=60)) is not None:
            page = phones[seat]
            page.bring_to_front()  # the phone in the player's hand
            # Every event of the moves so far is out: the page's view must be newer.
            newest = int(server.web.feed.snapshot_mark()[0].split("-")[1])
            page.wait_for_function(
                "(n) => unoTable.viewAfter && Number(unoTable.viewAfter.split('-')[1]) >= n",
                arg=newest)
            shown = view.evaluate("unoTable.verdicts.length")
            wilds += _move(page)
            moves += 1
            try:
                view.wait_for_function("(n) => unoTable.verdicts.length > n", arg=shown,
                                       polling=20)
            except Exception as exc:
                said = page.text_content("#mine")
                raise AssertionError(f"move {moves} of seat {seat} got no verdict on the "
                                     f"spectator page; the phone says {said!r}") from exc
        assert not failed, failed
        assert table.state.phase in (Phase.ROUND_OVER, Phase.MATCH_OVER)
        assert moves >= 5, moves
        assert wilds >= 1, f"seed {PHONE_SEED} deals no wild to a phone any more: pick another"
        seen(view, "#result:not(.hidden)")
    finally:
        server.stop()


PHONE_SEED = 4


def _move(page: Any) -> int:
    """One move on a seat page, as a person makes it: a colour when asked, else the first
    playable card (a wild with a colour), else pass after a draw, else draw. 1 for a wild."""
    key = page.get_attribute("#situation", "data-key")
    if key == "choose-color":
        page.click('#colors button[data-color="green"]')
        return 0
    playable = page.locator(".hand .card.playable")
    if playable.count():
        card = playable.first
        code = card.get_attribute("data-code")
        card.click()
        if code.startswith("W"):
            seen(page, "#colors:not(.hidden)")
            page.click('#colors button[data-color="blue"]')
            return 1
        return 0
    if page.locator('button.ready[data-button="pass"]').count():
        page.click('button[data-button="pass"]')
    else:
        page.click('button[data-button="draw"]')
    return 0


def test_a_spectator_that_loses_the_stream_misses_no_event_and_sees_none_twice(
        tmp_path: Path, browser: Any, pages: list[Any]) -> None:
    with web_daemon(tmp_path) as t:
        reference = Sse(t.port)  # every event, in order, from a client that never leaves
        assert reference.next()[1]["type"] == "snapshot"
        view = open_page(browser, pages, f"http://127.0.0.1:{t.port}/", 1280, 800)
        live(view)
        t.tap("R5#1")
        t.tap("R7#1")
        # The page lets go of its stream, as a phone's browser does in the background...
        view.evaluate("unoTable.stream.pause()")
        t.tap("R9#1")
        t.press(0, "uno", "a-1")
        t.wait("verdict", input="press")
        view.evaluate("unoTable.stream.resume()")  # ...and takes it up after its last id
        t.tap("B9#1")
        # The reference has every event so far before the pages go (the fan-out sends on its
        # own thread, after the referee's verdict)...
        sent = t.web.feed.snapshot_mark()[0]
        expected = [reference.next()[0]]
        while expected[-1] != sent:
            expected.append(reference.next()[0])
        # ...then the server drops every page (the Wi-Fi went away): the browser reconnects by
        # itself, sending its Last-Event-ID.
        t.web.feed.drop_pages()
        while (frame := reference.frames.get(timeout=20)) is not None:  # dropped too
            expected.append(frame[0])
        reference = Sse(t.port, last_event_id=expected[-1])
        t.tap("B2#1")
        t.press(2, "draw", "m-1")
        t.wait("verdict", input="press")
        newest = t.web.feed.snapshot_mark()[0]
        view.wait_for_function("(id) => unoTable.stream.seen.includes(id)", arg=newest,
                               polling=20)
        got = view.evaluate("unoTable.stream.seen")
        while expected[-1] != newest:
            expected.append(reference.next()[0])
        assert got == expected[expected.index(got[0]):]
        assert len(got) == len(set(got)) > 20


def test_the_pages_speak_japanese_and_the_table_view_speaks_on_request(
        tmp_path: Path, browser: Any, pages: list[Any]) -> None:
    with web_daemon(tmp_path) as t:
        view = open_page(browser, pages, f"http://127.0.0.1:{t.port}/?lang=ja", 1280, 800)
        phone = open_page(browser, pages, seat_url(t, 1) + "?lang=ja")
        live(view)
        view.select_option("#voice", "table")  # this TV speaks with the table's own voice
        with view.expect_request(lambda r: "/api/speech/" in r.url) as spoken:
            t.tap("R5#1")
        assert spoken.value.response().status == 200
        seen_text(view, "#turnline", "Kenの番")
        seen_text(view, "#round", "第1ラウンド")
        seen_text(phone, "#situation", "あなたの番")
        seen_text(phone, 'button[data-button="draw"]', "引く")


RECORDER = """
window.__shots = new Set();
new MutationObserver(() => {
  if (document.body) window.__shots.add(document.body.innerHTML);
}).observe(document, { subtree: true, childList: true, characterData: true, attributes: true });
"""


def recorded(browser: Any, opened: list[Any], url: str, width: int, height: int) -> Any:
    """A page that keeps every state its body was in."""
    page = browser.new_page()
    opened.append(page)
    page.set_viewport_size({"width": width, "height": height})
    page.add_init_script(RECORDER)
    page.goto(url)
    return page


def _shown_codes(html: str) -> tuple[set[str], set[str]]:
    """The card codes a page's body shows: as a card's ``data-code``, and anywhere in its text
    or labels."""
    data = set(re.findall(r'data-code="([^"]*)"', html))
    labels = " ".join(re.findall(r'(?:aria-label|title)="([^"]*)"', html))
    return data, card_codes(re.sub(r"<[^>]*>", " ", html) + " " + labels)


def test_no_hidden_card_reaches_a_spectator_over_a_whole_demo_match(
        browser: Any, pages: list[Any]) -> None:
    """The demo's match (three bots, seed 0), watched by the table view, the overlay, Aki's
    seat page and an event stream, the API asked after every move. The public faces never
    carry a card but the top of the discard pile; Aki's page carries Aki's cards only."""
    table = sim_table(seed=0)
    server, remote = start_web(table, "127.0.0.1:0", plays_cards=False)
    base = server.base_url()
    aki = server.web.seat_urls()[0][1]
    client = Client(server.port, keep=True)
    asked = 0
    held: set[str] = set()  # every card Aki held at some point
    frames: list[tuple[str | None, dict[str, Any]]] = []

    def caught_up() -> None:
        """Read the stream up to the table's newest event. The bots play far faster than
        people, and a fan-out starved of the processor that finds more events waiting than it
        keeps lets every page go (they come back from a snapshot, as a browser does): so the
        match waits for the stream every few moves, as a table of people always does."""
        newest = server.web.feed.snapshot_mark()[0]
        while not frames or frames[-1][0] != newest:
            frames.append(stream.next())

    def after_move(t: SimTable) -> None:
        nonlocal asked
        asked += 1
        if asked % 8 == 0:
            caught_up()
        state = client.get("/api/state")[1]
        assert state == standing_json(t.state)
        assert not codes_outside_top(state), state
        seat = client.get("/api/seat/" + aki.rsplit("/", 1)[1])[1]
        own = sorted(c.code for c in t.own_state(0).hands[0].known)
        assert sorted(c["code"] for c in seat["hand"]) == own
        held.update(own)

    try:
        watchers = [recorded(browser, pages, base + "/", 1920, 1080),
                    recorded(browser, pages, base + "/overlay", 1280, 300)]
        phone = recorded(browser, pages, aki, 390, 844)
        for page in (*watchers, phone):
            live(page)
        stream = Sse(server.port)
        bots: list[Seat] = [make_bot("heuristic", seat_rng(0, i)) for i in range(3)]
        with table:
            play_match(table, bots, after_move=after_move)
        assert table.state.phase is Phase.MATCH_OVER
        caught_up()
        newest = frames[-1][0]
        for page in (*watchers, phone):
            page.wait_for_function("(id) => unoTable.stream.seen.includes(id)", arg=newest,
                                   polling=20)
    finally:
        remote.over = True
        server.stop()

    assert len(table.state.results) > 5 and asked > 500 and len(frames) > 3000
    for _, frame in frames:
        assert not codes_outside_top(frame), frame
    for page in watchers:
        shots = page.evaluate("[...window.__shots]")
        assert len(shots) > 100
        for html in shots:
            data, text = _shown_codes(html)
            assert len(data) <= 1 and text <= data, (data, text)  # the top card, if any
    for html in phone.evaluate("[...window.__shots]"):
        data, _ = _shown_codes(html)
        assert data <= held, data - held


def test_screens_from_a_phone_to_a_tv_the_seat_page_and_a_transparent_overlay(
        tmp_path: Path, browser: Any, pages: list[Any]) -> None:
    """The screens as people see them, mid-round. With UNO_TABLE_SCREENSHOTS=DIR they are also
    written to DIR (how docs/ gets its pictures)."""
    table = sim_table(seed=5, players=4)
    server, remote = start_web(table, "127.0.0.1:0", plays_cards=True)
    moves = 0
    paused, go_on = threading.Event(), threading.Event()

    def after_move(t: SimTable) -> None:
        nonlocal moves
        moves += 1
        if moves == 14:
            paused.set()
            go_on.wait(60)

    bots: list[Seat] = [make_bot("heuristic", seat_rng(5, i)) for i in range(4)]
    player = threading.Thread(
        target=lambda: _play(table, bots, after_move), daemon=True)
    base = server.base_url()
    out = [tmp_path]
    if os.environ.get("UNO_TABLE_SCREENSHOTS"):
        out.append(Path(os.environ["UNO_TABLE_SCREENSHOTS"]))
    try:
        tv = open_page(browser, pages, base + "/", 1920, 1080)
        phone = open_page(browser, pages, base + "/", 390, 844)
        seat = open_page(browser, pages, server.web.seat_urls()[0][1], 390, 844)
        overlay = open_page(browser, pages, base + "/overlay", 1280, 240)
        for page in (tv, phone, seat, overlay):
            live(page)
        player.start()
        assert paused.wait(60)
        newest = server.web.feed.snapshot_mark()[0]
        for page in (tv, phone, seat, overlay):
            page.wait_for_function("(id) => unoTable.stream.seen.includes(id)", arg=newest,
                                   polling=20)
        seat.wait_for_function(
            "(id) => unoTable.viewAfter === id", arg=newest, polling=20)
        shots = {"table-tv": tv, "table-phone": phone, "seat-phone": seat, "overlay": overlay}
        for folder in out:
            for name, page in shots.items():
                page.bring_to_front()
                page.screenshot(path=str(folder / f"web-{name}.png"),
                                omit_background=name == "overlay")
        # A phone held upright: nothing wider than the screen, the buttons big enough to tap.
        for page in (phone, seat):
            assert page.evaluate("document.documentElement.scrollWidth") <= 390
        heights = seat.evaluate(
            "[...document.querySelectorAll('#buttons button')].map(b => b.offsetHeight)")
        assert heights and min(heights) >= 48
        # A TV across the room: the top card big, every player on the first screen.
        card = tv.locator("#top .card").bounding_box()
        assert card is not None and card["height"] >= 200
        assert tv.evaluate("document.querySelector('#players').getBoundingClientRect().bottom"
                           ) <= 1080
        # The overlay lets the stream show through everywhere but its boxes.
        width, height = 1280, 240
        assert png_alpha(tmp_path / "web-overlay.png",
                         [(0, 0), (width - 1, 0), (0, height - 1), (width - 1, height - 1)]
                         ) == [0, 0, 0, 0]
        assert overlay.evaluate("getComputedStyle(document.body).backgroundColor") in (
            "rgba(0, 0, 0, 0)", "transparent")
    finally:
        go_on.set()
        player.join(60)
        remote.over = True
        server.stop()


def _play(table: SimTable, bots: list[Seat], after_move: Any) -> None:
    with table:
        play_match(table, bots, rounds=1, after_move=after_move)
