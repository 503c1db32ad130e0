"""The web view's API against a real daemon on a pty play pad, over real HTTP on a loopback
port: the state, presses journaled like buttons, the seats' secrets, the admin's key, 4xx
errors for anything wrong, and the event stream's ids and resume."""

from __future__ import annotations

import json
import logging
import re
import secrets
import socket
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from daemon_harness import refusal, refused, start, write_config
from web_harness import API_KEY, Client, Sse, WebDaemon, codes_outside_top, uid, web_daemon

from sim.hardware.ptys import PtyReader
from table.inputs import Admin, Press, TagRead
from table.journal.records import rebuild
from table.referee.registry import Deck, Token, virtual_deck
from table.referee.views import standing_json
from table.runtime.event_stream import EventStream, StreamType
from table.web.app import WebTable
from table.web.base import STATIC
from table.web.feed import Feed
from table.web.seats import Seats


@pytest.fixture
def table(tmp_path: Path) -> Any:
    with web_daemon(tmp_path, "local_admin = false") as t:
        yield t


def started(t: WebDaemon) -> None:
    """The first card turned up: Ken's turn (Aki deals)."""
    assert t.tap("R5#1")["verdict"] == "accepted"


def test_the_state_is_replays_shape_and_the_referees(table: WebDaemon) -> None:
    started(table)
    table.tap("R7#1")
    status, body = table.client.get("/api/state")
    assert status == 200
    assert body == standing_json(table.daemon.referee.state)
    assert set(body) >= {"state", "rounds", "scores", "match_over"}
    assert body["state"]["top"] == "R7" and body["state"]["turn"] == "Mio"


def test_a_press_from_a_phone_is_journaled_and_replayed_like_a_button(table: WebDaemon) -> None:
    started(table)
    status, answer = table.press(1, "draw", "k-1")
    assert (status, answer) == (202, {"ok": True, "id": "k-1"})
    verdict = table.wait("verdict", input="press")
    assert (verdict["seat"], verdict["verdict"]) == ("Ken", "accepted")
    assert table.press(1, "pass", "k-2")[0] == 202
    assert table.wait("verdict", input="press")["verdict"] == "accepted"
    live = standing_json(table.daemon.referee.state)
    assert live["state"]["turn"] == "Mio"
    record = table.journaled()[-1]
    assert [i for i in record.inputs if isinstance(i, Press)] == [Press(1, "draw"),
                                                                   Press(1, "pass")]
    assert standing_json(rebuild(record.setup, record.inputs).state) == live


def test_the_colour_of_a_wild_is_named_on_the_phone_of_its_player(table: WebDaemon) -> None:
    started(table)
    table.tap("W#1")  # Ken's wild
    assert table.client.get("/api/state")[1]["state"]["awaiting_color"] == "Ken"
    table.press(2, "color", "m-1", color="blue")  # Mio's phone: not hers to name
    refused = table.wait("verdict", input="press")
    assert (refused["seat"], refused["verdict"], refused["reason"]) == ("Mio", "rejected",
                                                                         "not-your-turn")
    table.press(1, "color", "k-1", color="green")
    assert table.wait("verdict", input="press", seat="Ken")["verdict"] == "accepted"
    state = table.client.get("/api/state")[1]["state"]
    assert (state["color"], state["awaiting_color"], state["turn"]) == ("green", None, "Mio")
    record = table.journaled()[-1]
    assert Press(1, "color:green") in record.inputs
    assert rebuild(record.setup, record.inputs).state.color.value == "green"


def test_a_challenge_and_a_catch_from_the_phones(table: WebDaemon) -> None:
    started(table)
    table.tap("W+4#1")
    table.tap("token:color:blue")  # Ken's Wild Draw Four, on Mio
    status, seat = table.client.get(f"/api/seat/{table.token(2)}")
    assert status == 200 and seat["situation"] == {"key": "draw-or-challenge", "count": 4}
    assert "challenge" in seat["ready"] and "draw" in seat["ready"]
    table.press(2, "challenge", "m-1")
    assert table.wait("verdict", input="press", seat="Mio")["verdict"] == "accepted"
    assert table.wait("announcement", key="challenge")["text"] == "Mio challenges Ken."


def test_guessed_tokens_and_cross_seat_presses_get_403_and_change_nothing(
        table: WebDaemon) -> None:
    started(table)
    before = table.inputs()
    state = table.client.get("/api/state")[1]
    client = table.client
    near = table.token(0)[:-1] + ("B" if table.token(0).endswith("A") else "A")
    for guess in (secrets.token_urlsafe(16), near, "a" * 22, "x", ""):
        assert client.request("GET", f"/seat/{guess}")[0] in (403, 404)
        assert client.get(f"/api/seat/{guess}")[0] in (403, 404)
        status, body = client.post("/api/press", {"token": guess, "button": "draw", "id": "1"})
        assert status == 403 and "not a seat" in body["error"]
    for token in (None, 12, ["x"], {"a": 1}):
        assert client.post("/api/press", {"token": token, "button": "draw", "id": "1"})[0] == 403
    status, body = table.press(0, "draw", "a-1", seat="Ken")  # Aki's phone pressing for Ken
    assert status == 403 and "that seat only" in body["error"]
    assert table.client.request("GET", f"/seat/{table.token(1)}")[0] == 200
    assert table.inputs() == before
    assert client.get("/api/state")[1] == state


def test_a_retry_or_a_double_tap_counts_once(table: WebDaemon) -> None:
    started(table)
    assert table.press(1, "draw", "same")[0] == 202
    status, body = table.press(1, "draw", "same")
    assert status == 202 and body["repeat"] is True
    assert table.press(1, "pass", "next")[0] == 202
    first = table.wait("verdict", input="press")
    second = table.wait("verdict", input="press")
    assert (first["n"], second["n"]) == (2, 3)  # the draw once, then the pass
    assert table.daemon.referee.state.turn == 2


def test_presses_are_rate_limited_per_seat(table: WebDaemon) -> None:
    started(table)
    now = table.web.seats.clock()
    table.web.seats.clock = lambda: now  # the seats' clock stands still: the burst alone
    answers = [table.press(0, "uno", f"a-{i}")[0] for i in range(int(table.web.seats.burst) + 2)]
    assert answers[-2:] == [429, 429] and set(answers[:-2]) == {202}
    assert table.press(1, "uno", "k-1")[0] == 202  # another seat is not held back


def test_a_press_refused_as_too_fast_is_told_when_its_seat_may_press_again() -> None:
    """Retry-After says the whole seconds until the seat's next press is taken (the phone
    sends its press again then)."""
    now = [100.0]
    seats = Seats(["Aki", "Ken"], rate=0.25, burst=1.0, clock=lambda: now[0])
    assert seats.admit(0, "a-1") == "new"
    assert (seats.admit(0, "a-2"), seats.retry_after(0)) == ("too-fast", 4)
    now[0] += 2.5
    assert (seats.admit(0, "a-2"), seats.retry_after(0)) == ("too-fast", 2)
    now[0] += 1.5
    assert seats.admit(0, "a-2") == "new"
    assert seats.retry_after(1) == 1  # a seat with a press in hand: at least a second


BAD: list[tuple[str, str, bytes, dict[str, str], int]] = [
    ("POST", "/api/press", b'{"a": 1}', {"Content-Type": "text/plain"}, 415),
    ("POST", "/api/press", b"token=x", {"Content-Type": "application/x-www-form-urlencoded"},
     415),
    ("POST", "/api/press", b"{nope", {"Content-Type": "application/json"}, 400),
    ("POST", "/api/press", b"[1, 2]", {"Content-Type": "application/json"}, 400),
    ("POST", "/api/press", b"\xff\xfe{}", {"Content-Type": "application/json"}, 400),
    ("POST", "/api/press", b"[" * 3000 + b"]" * 3000, {"Content-Type": "application/json"}, 413),
    ("POST", "/api/press", b"[" * 2000 + b"]" * 2000, {"Content-Type": "application/json"}, 400),
    ("POST", "/api/press", b"x" * 10000, {"Content-Type": "application/json"}, 413),
    ("GET", "/api/press", b"", {}, 405),
    ("POST", "/api/state", b"{}", {"Content-Type": "application/json"}, 405),
    ("GET", "/api/nothing", b"", {}, 404),
    ("GET", "/static/../app.py", b"", {}, 404),
    ("GET", "/api/speech/nope", b"", {}, 404),
    ("POST", "/api/events", b"", {}, 405),
]


@pytest.mark.parametrize(("method", "path", "body", "headers", "status"), BAD)
def test_bad_requests_get_a_4xx_json_error_never_a_500(
        table: WebDaemon, method: str, path: str, body: bytes, headers: dict[str, str],
        status: int) -> None:
    got, answer_headers, data = table.client.request(method, path, body or None, headers)
    assert got == status, data
    assert answer_headers["content-type"].startswith("application/json")
    assert json.loads(data)["error"]


@pytest.mark.parametrize(("fields", "error"), [
    ({"button": "draw"}, "id:"),
    ({"button": "draw", "id": ""}, "id:"),
    ({"button": "draw", "id": "x" * 65}, "id:"),
    ({"button": "draw", "id": "a b"}, "id:"),
    ({"button": "draw", "id": 5}, "id:"),
    ({"button": "fly", "id": "1"}, "button:"),
    ({"button": None, "id": "1"}, "button:"),
    ({"button": "color", "id": "1"}, "color:"),
    ({"button": "color", "id": "1", "color": "purple"}, "color:"),
    ({"button": "play", "id": "1", "card": "R99"}, "card:"),
    ({"button": "play", "id": "1", "card": 5}, "card:"),
    ({"button": "play", "id": "1", "card": "W"}, "a wild"),
])
def test_a_press_that_is_not_one_is_a_400_that_says_what_is_allowed(
        table: WebDaemon, fields: dict[str, Any], error: str) -> None:
    status, body = table.client.post("/api/press", {"token": table.token(0), **fields})
    assert status == 400 and body["error"].startswith(error), body


def test_a_card_play_from_a_phone_at_a_real_table_is_refused(table: WebDaemon) -> None:
    started(table)
    status, body = table.press(1, "play", "k-1", card="R7")
    assert status == 409 and "play pad" in body["error"]


def test_the_admin_needs_the_key_a_login_or_the_pi_itself(tmp_path: Path) -> None:
    with web_daemon(tmp_path, "local_admin = false") as t:
        client = t.client
        assert client.get("/api/admin/status")[0] == 401
        assert client.get("/api/admin/status", {"X-Api-Key": "wrong-key-wrong"})[0] == 403
        status, body = client.get("/api/admin/status", {"X-Api-Key": API_KEY})
        assert status == 200 and [s["name"] for s in body["seats"]] == ["Aki", "Ken", "Mio"]
        assert body["seats"][0]["url"].endswith("/seat/" + t.token(0))
        page = client.request("GET", "/admin")
        assert page[0] == 401 and b'id="login"' in page[2]
        assert client.post("/api/admin/login", {"key": "not the key"})[0] == 403
        status, headers, _ = client.request("POST", "/api/admin/login",
                                            b'{"key": "%s"}' % API_KEY.encode(),
                                            {"Content-Type": "application/json"})
        assert status == 200
        cookie = headers["set-cookie"].split(";")[0]
        assert "httponly" in headers["set-cookie"].lower()
        assert "samesite=strict" in headers["set-cookie"].lower()
        assert client.get("/api/admin/status", {"Cookie": cookie})[0] == 200
        assert client.request("GET", "/admin", headers={"Cookie": cookie})[0] == 200
        assert client.post("/api/admin/undo", {}, {"Cookie": "uno_admin=guess"})[0] == 401
        key = {"X-Api-Key": API_KEY}
        status, headers, svg = client.request("GET", "/api/admin/qr/0", None, key)
        assert status == 200 and headers["content-type"] == "image/svg+xml"
        assert svg.startswith(b"<svg")
        assert client.request("GET", "/api/admin/qr/0")[0] == 401
    (tmp_path / "local").mkdir()
    with web_daemon(tmp_path / "local") as t:  # local_admin = true (the default)
        assert t.client.get("/api/admin/status")[0] == 200


def without_tokens(*names: str) -> Deck:
    """The virtual deck less the control tokens ``names`` (a deck enrolled without them)."""
    deck = virtual_deck()
    gone = {Token(name) for name in names}
    return Deck(deck.edition, {u: t for u, t in deck.tags.items() if t not in gone})


def test_undo_and_next_round_from_the_admin_are_its_own_inputs(tmp_path: Path) -> None:
    """On a deck with no undo or next-round token, the admin page still undoes, and the
    journal and the event stream hold what the admin did, not a tap nobody made."""
    with web_daemon(tmp_path, "local_admin = false",
                    deck=without_tokens("undo", "next-round")) as table:
        started(table)
        table.tap("R7#1")
        key = {"X-Api-Key": API_KEY}
        assert table.client.post("/api/admin/undo", {}, key)[0] == 202
        assert table.wait("admin")["action"] == "undo"
        assert table.wait("verdict", input="admin", action="undo")["verdict"] == "accepted"
        assert table.client.get("/api/state")[1]["state"]["top"] == "R5"
        assert table.client.post("/api/admin/next-round", {}, key)[0] == 202
        refused = table.wait("verdict", input="admin", action="next-round")
        assert (refused["verdict"], refused["reason"]) == ("rejected", "round-not-over")
        record = table.journaled()[-1]
        assert record.inputs[-2:] == [Admin("undo"), Admin("next-round")]
        taps = [i for i in record.inputs if isinstance(i, TagRead)]
        assert taps == [TagRead("pad", uid("R5#1")), TagRead("pad", uid("R7#1"))]  # no made-up tap
        live = standing_json(table.daemon.referee.state)
        assert standing_json(rebuild(record.setup, record.inputs).state) == live
        assert table.client.post("/api/admin/fly", {}, key)[0] == 404
        bad = table.client.request("POST", "/api/admin/undo", b"x",
                                   {**key, "Content-Type": "application/json"})
        assert bad[0] == 400


def test_a_new_match_from_the_admin_gives_every_seat_a_new_link(table: WebDaemon) -> None:
    started(table)
    old = table.token(0)
    key = {"X-Api-Key": API_KEY}
    assert table.client.post("/api/admin/new-match", {}, key)[0] == 202
    table.wait("new-match")
    assert table.client.request("GET", f"/seat/{old}")[0] == 403
    seats = table.client.get("/api/admin/status", key)[1]["seats"]
    new = seats[0]["url"].rsplit("/", 1)[1]
    assert new != old and table.client.request("GET", f"/seat/{new}")[0] == 200
    assert table.client.get("/api/state")[1]["state"]["top"] is None
    assert table.tap("B3#1")["verdict"] == "accepted"  # the new match is dealt


def test_the_stream_numbers_every_event_and_resumes_without_a_gap(table: WebDaemon) -> None:
    first = Sse(table.port)
    _, snapshot = first.next()
    assert snapshot["type"] == "snapshot" and snapshot["state"]["top"] is None
    started(table)
    table.tap("R7#1")
    seen = first.until("state", n=2)
    first.close()
    last_id = seen[-1][0]
    assert last_id is not None
    table.tap("R9#1")
    table.press(2, "draw", "m-1")
    table.wait("verdict", input="press")
    second = Sse(table.port, last_event_id=last_id)
    missed = second.until("verdict", input="press")
    assert missed[0][1]["type"] != "snapshot"  # resumed: no snapshot, the very next event
    ids = [f[0] for f in seen] + [f[0] for f in missed]
    numbers = [int(str(i).split("-")[1]) for i in ids]
    assert numbers == list(range(numbers[0], numbers[0] + len(numbers)))  # no gap, no twice
    assert {f[1]["type"] for f in missed} >= {"tag", "verdict", "state", "press"}
    third = Sse(table.port, last_event_id="0000-1")  # an id of another run: a snapshot
    assert third.next()[1]["type"] == "snapshot"


def test_no_token_in_the_stream_the_public_pages_or_the_info_logs(
        table: WebDaemon, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    sse = Sse(table.port)
    started(table)
    table.press(1, "draw", "k-1")
    frames = sse.until("verdict", input="press")
    tokens = [table.token(i) for i in range(3)]
    for path in ("/", "/overlay", "/api/state", "/api/info", "/static/table.js"):
        body = table.client.request("GET", path)[2].decode()
        assert not any(t in body for t in tokens), path
    stream = str(frames)
    assert not any(t in stream for t in tokens)
    logged = "\n".join(r.getMessage() for r in caplog.records if r.levelno >= logging.INFO)
    assert not any(t in logged for t in tokens)
    for frame in frames:
        assert not codes_outside_top(frame[1])


def test_every_page_says_no_referrer(table: WebDaemon) -> None:
    for path in ("/", "/overlay", f"/seat/{table.token(0)}", "/seat/nope", "/admin",
                 "/api/state", "/api/nothing", "/static/table.css"):
        headers = table.client.request("GET", path)[1]
        assert headers["referrer-policy"] == "no-referrer", path


def test_every_page_and_file_is_served_by_the_table_itself(table: WebDaemon) -> None:
    """No build step, no CDN: a Pi with no internet serves everything its pages load, and the
    pages' policy lets them load nothing from anywhere else."""
    for path in ("/", "/overlay", f"/seat/{table.token(0)}", "/admin", "/seat/nope"):
        status, headers, body = table.client.request("GET", path)  # /admin: its login page
        assert status in (200, 401, 403) and b"<html" in body, path
        assert "default-src 'self'" in headers["content-security-policy"]
        for ref in re.findall(rb'(?:src|href)="([^"]*)"', body):
            if ref == b"/stats":  # a link to the table's own report page
                assert table.client.request("GET", "/stats")[0] == 200
                continue
            assert ref.startswith(b"/static/"), (path, ref)
            made = ref == b"/static/words.js"  # the pages' words, made from the phrases
            assert made or (STATIC / ref.decode()[len("/static/"):]).is_file(), ref
            assert table.client.request("GET", ref.decode())[0] == 200
    for file in STATIC.iterdir():
        assert not re.search(rb"https?://|//[a-z0-9.-]+\.[a-z]{2,}/", file.read_bytes()), file


def test_a_page_that_stops_reading_is_dropped_and_the_referee_goes_on(
        table: WebDaemon, caplog: pytest.LogCaptureFixture) -> None:
    """Pushed faster than it reads, the page falls out of the ring and is let go; every
    publish returns at once (it never blocks on the page), and a page that reads keeps up."""
    feed = table.web.feed
    stalled = Sse(table.port, rcvbuf=4096, read=False)
    reader = Sse(table.port)
    assert reader.next()[1]["type"] == "snapshot"
    filler = "x" * 4000
    pushed = 0
    while not any("dropped" in r.getMessage() for r in caplog.records):
        assert pushed < 50_000, "the stalled page was never dropped"
        feed.publish({"type": "announcement", "key": "test", "text": f"{pushed} {filler}"})
        pushed += 1
        if pushed % 200 == 0:  # the reading page catches up: it stays within the ring
            reader.until("announcement", text=f"{pushed - 1} {filler}")
    started(table)  # the referee, meanwhile, refereed at once
    assert reader.until("verdict")[-1][1]["verdict"] == "accepted"
    stalled.close()


def test_a_recent_announcement_is_spoken_by_the_tables_voice_on_request(
        table: WebDaemon) -> None:
    sse = Sse(table.port)
    sse.next()
    started(table)
    event_id = sse.until("announcement", key="turn")[-1][0]
    status, headers, wav = table.client.request("GET", f"/api/speech/{event_id}")
    assert status == 200 and headers["content-type"] == "audio/wav"
    assert wav[:4] == b"RIFF" and wav[8:12] == b"WAVE"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_run_serves_the_web_view_its_configuration_asks_for(tmp_path: Path) -> None:
    pad = PtyReader(tmp_path / "pad")
    port = free_port()
    config = write_config(tmp_path, extra=f'[web]\nenabled = true\nlisten = "127.0.0.1:{port}"\n')
    daemon, _ = start(config, pad)
    client = Client(port)
    status, body = client.get("/api/state")
    assert status == 200 and body["state"]["hands"] == {"Aki": 7, "Ken": 7, "Mio": 7}
    pad.send_uid(uid("R5#1"))
    daemon.wait_type("verdict")
    assert client.get("/api/state")[1]["state"]["top"] == "R5"
    assert daemon.stop() == 0
    assert "/seat/" not in "".join(daemon.stderr)  # no terminal: the links are on /admin only
    pad.close()


def test_a_port_in_use_stops_run_with_one_line(tmp_path: Path) -> None:
    PtyReader(tmp_path / "pad")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        config = write_config(tmp_path,
                              extra=f'[web]\nenabled = true\nlisten = "127.0.0.1:{port}"\n')
        done = refused(config)
    line = refusal(done.returncode, done.stderr)
    assert line == f"uno-table: web: cannot listen on 127.0.0.1:{port}: Address already in use"
    assert not (tmp_path / "journal.sqlite3").exists()  # refused before touching anything


def test_a_browsers_kept_connection_is_answered_without_a_delayed_ack(table: WebDaemon) -> None:
    """Nagle's algorithm off on the server's side of every connection: with it on, each
    response on a kept connection (a browser's) waits for the delayed ACK of the one before,
    40 ms on Linux."""
    client = Client(table.port, keep=True)
    assert client.get("/api/state")[0] == 200
    server = table.attachment.server._server  # uvicorn's, serving in this process
    sockets = [c.transport.get_extra_info("socket") for c in server.server_state.connections]
    assert sockets
    assert all(s.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) for s in sockets)
    assert client.get("/api/state")[0] == 200  # the same connection, kept


def test_the_web_hears_the_table_one_way_and_stops_when_told(tmp_path: Path) -> None:
    """The pages' feed and the web table are told through the table's own event stream
    (``subscribe``), as every part that listens is: a new match reaches the pages and renews
    the seat links; once the web stops hearing, neither happens."""
    side = SimpleNamespace(players=("Aki", "Ken"), language="en", journal=None)
    stream = EventStream(None)
    web = WebTable(side, Feed())  # type: ignore[arg-type]  # what the web reads of a table
    stop = web.hear(stream.subscribe)
    page, _ = web.feed.join(None)
    link = web.seats.tokens[0]
    stream.emit(StreamType.NEW_MATCH)
    assert web.seats.tokens[0] != link and web.feed.take(page)  # the page has the event
    stop()
    link = web.seats.tokens[0]
    stream.emit(StreamType.NEW_MATCH)
    assert web.seats.tokens[0] == link and web.feed.take(page) == []
    assert not hasattr(web.feed, "listeners")  # no second way of telling


def test_events_held_for_a_late_listener_come_first_and_in_order() -> None:
    """What :meth:`EventStream.hold` keeps (the daemon's start, before its web view is served)
    reaches each listener that comes later ahead of the events after it; once released,
    nothing more is kept for a listener still to come."""
    stream = EventStream(None)
    held = stream.hold()
    stream.emit(StreamType.READER, reader="pad", state="waiting")
    first: list[str] = []
    held.subscribe(lambda e: first.append(str(e.get("state", e["type"]))))
    stream.emit(StreamType.READY, inputs=0, missing=[])
    held.release()
    stream.emit(StreamType.READER, reader="pad", state="live")
    late: list[str] = []
    held.subscribe(lambda e: late.append(str(e.get("state", e["type"]))))
    stream.emit(StreamType.NEW_MATCH)
    assert first == ["waiting", "ready", "live", "new-match"]
    assert late == ["new-match"]  # released: nothing kept for a listener still to come
    held.stop()
    unheard = stream.hold()
    unheard.release()  # nobody came (no web view): it stops listening, nothing passes through
    stream.emit(StreamType.NEW_MATCH)
    after: list[str] = []
    unheard.subscribe(lambda e: after.append(e["type"]))
    stream.emit(StreamType.NEW_MATCH)
    assert after == []


def test_the_web_view_served_after_the_start_has_the_start_s_events(tmp_path: Path) -> None:
    """``uno-table run`` serves its pages once its readers are started (a slow board's web
    imports no longer hold back ``ready``), yet a page asking for the stream from its first
    event gets what the start said: the opening words, the pad coming live."""
    pad = PtyReader(tmp_path / "pad")
    port = free_port()
    config = write_config(tmp_path, extra=f'[web]\nenabled = true\nlisten = "127.0.0.1:{port}"\n')
    daemon, _ = start(config, pad)
    try:
        first = Sse(port)  # waits in the socket's queue until the pages are served
        epoch = str(first.next()[0]).rsplit("-", 1)[0]
        first.close()
        replay = Sse(port, last_event_id=f"{epoch}-0")
        seen = [(data["type"], data.get("key") or data.get("state"))
                for _, data in replay.until("reader", reader="pad", state="live")]
        replay.close()
        assert seen[0] == ("announcement", "round-start")  # "Round 1. Aki deals."
    finally:
        assert daemon.stop() == 0
        pad.close()
