"""The hub's standings page (the web room's server on a free port: its stream, resume and
headers), the hub's ``--web`` on the command line, and the seating a table's daemon says
aloud."""

from __future__ import annotations

import json
import queue
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from daemon_harness import reap, start, write_config
from mqtt_harness import Broker, Listener, broker, free_port  # noqa: F401  (the fixture)
from web_harness import Client, Sse

from sim.hardware.ptys import PtyReader
from table.commands.cli import main
from table.hub.config import HubPlan
from table.hub.page import StandingsPage, serve
from table.hub.service import Hub
from table.hub.store import HubStore
from table.mqtt.settings import MqttSettings


def result(n: int, winner: str = "Aki") -> bytes:
    """Round ``n`` of table 2's match 7, as a table publishes it (Japanese scoring)."""
    loser = "Ken" if winner == "Aki" else "Aki"
    return json.dumps({
        "id": f"2/7/{n}", "table": "2", "match": "7", "round": n, "players": ["Aki", "Ken"],
        "winner": winner, "points": {winner: 12, loser: -12},
        "totals": {winner: 12 * n, loser: -12 * n}, "scoring": "japanese"}).encode()


@pytest.fixture
def page(tmp_path: Path) -> Iterator[tuple[Hub, StandingsPage, queue.Queue[dict[str, Any]]]]:
    hub = Hub(MqttSettings("127.0.0.1", free_port()), HubStore(tmp_path / "hub.sqlite3"),
              HubPlan(scoring="japanese"))
    served = serve(hub, 0, "127.0.0.1")
    published: queue.Queue[dict[str, Any]] = queue.Queue()  # each change the page published
    # Told after the page (which listens first): what it published has reached its feed.
    hub.listeners.append(lambda standings: published.put(dict(standings)))
    yield hub, served, published
    served.close()  # (the hub never started: nothing of it to stop but the page)


def heard(hub: Hub, published: queue.Queue[dict[str, Any]], payload: bytes) -> dict[str, Any]:
    """A result arrives as from the broker; the standings event the page's feed sent for it."""
    hub._heard("uno-table/2/result", payload)
    return published.get(timeout=30)


def test_the_page_and_its_event_stream_follow_the_results(
        page: tuple[Hub, StandingsPage, queue.Queue[dict[str, Any]]]) -> None:
    hub, served, published = page
    client = Client(served.port)
    status, _, body = client.request("GET", "/")
    assert status == 200 and b"/hub/hub.js" in body and b"/static/table.css" in body
    stream = Sse(served.port)
    first_id, first = stream.next()
    assert first["type"] == "snapshot" and first["results"] == 0 and first["ranking"] == []
    assert first_id == f"{served.feed.epoch}-0"
    heard(hub, published, result(1))
    event_id, second = stream.next()
    assert second["type"] == "standings" and event_id == f"{served.feed.epoch}-1"
    assert [(r["player"], r["points"]) for r in second["ranking"]] == [("Aki", 12), ("Ken", -12)]
    status, standings = client.get("/api/standings")
    assert status == 200 and standings["ranking"] == second["ranking"]
    assert isinstance(standings["now"], float)  # the hub's clock, for the round timer
    stream.close()


def test_a_page_that_reconnects_gets_every_change_it_missed_once(
        page: tuple[Hub, StandingsPage, queue.Queue[dict[str, Any]]]) -> None:
    hub, served, published = page
    stream = Sse(served.port)
    stream.next()  # the snapshot
    heard(hub, published, result(1))
    last_id, _ = stream.next()
    stream.close()  # the TV's Wi-Fi drops; two rounds end meanwhile
    heard(hub, published, result(2, "Ken"))
    heard(hub, published, result(3, "Ken"))
    again = Sse(served.port, last_event_id=last_id)
    missed = [again.next(), again.next()]
    assert [event_id for event_id, _ in missed] == \
        [f"{served.feed.epoch}-2", f"{served.feed.epoch}-3"]
    assert all(event["type"] == "standings" for _, event in missed)  # no snapshot, no repeat
    assert [(r["player"], r["wins"]) for r in missed[-1][1]["ranking"]] == \
        [("Ken", 2), ("Aki", 1)]
    heard(hub, published, result(4))
    assert again.next()[0] == f"{served.feed.epoch}-4"
    again.close()
    # An id of another run of the hub (restarted meanwhile) starts again from a snapshot.
    other = Sse(served.port, last_event_id="abcdef-2")
    _, fresh = other.next()
    assert fresh["type"] == "snapshot" and fresh["results"] == 4
    other.close()


def test_every_answer_has_the_web_headers_and_errors_are_json(
        page: tuple[Hub, StandingsPage, queue.Queue[dict[str, Any]]]) -> None:
    _, served, _ = page
    client = Client(served.port)
    for path in ("/", "/api/standings", "/hub/hub.js", "/static/table.css", "/nowhere"):
        status, headers, _ = client.request("GET", path)
        assert headers["referrer-policy"] == "no-referrer", path
        assert headers["x-content-type-options"] == "nosniff", path
        assert "script-src 'self'" in headers["content-security-policy"], path
        assert status == (404 if path == "/nowhere" else 200), path
    assert client.get("/nowhere") == (404, {"error": "no such page: /nowhere"})
    status, body = client.post("/api/standings", {})
    assert status == 405 and body == {"error": "POST is not allowed on /api/standings"}
    status, headers, _ = client.request("GET", "/api/standings")
    assert headers["cache-control"] == "no-store"


def test_a_page_that_stops_reading_is_dropped_and_the_hub_goes_on(
        page: tuple[Hub, StandingsPage, queue.Queue[dict[str, Any]]],
        caplog: pytest.LogCaptureFixture) -> None:
    """A TV that hangs falls out of the stream's ring and is let go; every change still
    returns at once, and a page that reads keeps up."""
    hub, served, _ = page
    stalled = Sse(served.port, rcvbuf=4096, read=False)
    reader = Sse(served.port)
    assert reader.next()[1]["type"] == "snapshot"
    # An evening of twelve tables: 48 players in the ranking of every update.
    evening = {**hub.standings(), "ranking": [
        {"rank": n, "player": f"Player {n:02}", "match_wins": 0, "points": 0, "rounds": 0,
         "wins": 0} for n in range(1, 49)]}
    pushed = 0
    while not any("dropped" in r.getMessage() for r in caplog.records):
        assert pushed < 50_000, "the stalled page was never dropped"
        served.changed({**evening, "results": pushed})
        pushed += 1
        if pushed % 200 == 0:  # the reading page catches up: it stays within the ring
            while reader.next()[1]["results"] != pushed - 1:
                pass
    hub._heard("uno-table/2/result", result(1))  # the hub went on: its next change reaches
    while reader.next()[1]["ranking"][0]["player"] != "Aki":
        pass
    stalled.close()
    reader.close()


def test_hub_web_on_a_port_in_use_is_one_line_and_exit_2(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    taken = StandingsPage("127.0.0.1", 0)
    try:
        code = main(["hub", "--mqtt", f"127.0.0.1:{free_port()}", "--store",
                     str(tmp_path / "hub.sqlite3"), "--web", f"127.0.0.1:{taken.port}"])
    finally:
        taken.close()
    err = capsys.readouterr().err
    assert code == 2
    assert err == (f"uno-table: web: cannot listen on 127.0.0.1:{taken.port}: "
                   "Address already in use\n")
    assert not (tmp_path / "hub.sqlite3").exists()  # refused before the hub began
    assert main(["hub", "--mqtt", "127.0.0.1:1883", "--store", str(tmp_path / "h"),
                 "--web", "eighty"]) == 2
    assert capsys.readouterr().err.startswith("uno-table: --web: 'eighty' is not a port;")


def test_a_daemon_says_its_table_of_the_hubs_seating(broker: Broker,  # noqa: F811
                                                    tmp_path: Path) -> None:
    mqtt = f'\n[mqtt]\nhost = "127.0.0.1"\nport = {broker.port}\ntable = "3"\n'
    config = write_config(tmp_path, ("Aki", "Ken", "Mio"), extra=mqtt)
    listener = Listener(broker.port, ("uno-table/#",))
    seating = {"round": 2, "tables": {"1": ["Rin", "Sou"], "3": ["Aki", "Ken", "Mio", "Sam"]},
               "ends_at": None}
    listener.client.publish("uno-table/hub/assign", json.dumps(seating), qos=1, retain=True)
    pad = PtyReader(tmp_path / "pad")
    try:
        daemon, _ = start(config, pad)
        def assignment(e: dict[str, object]) -> bool:
            return e["type"] == "announcement" and e["key"] == "table-assignment"

        said = next((e for e in daemon.seen if assignment(e)), None) or \
            daemon.wait_for(assignment)
        assert said["text"] == "Table 3: Aki, Ken, Mio and Sam."
        event = listener.wait_for(lambda h: h.topic == "uno-table/3/event"
                                  and h.json()["type"] == "assignment")
        assert event.json()["players"] == ["Aki", "Ken", "Mio", "Sam"]
        # The table's state is there from the start, before anyone taps.
        state = listener.wait_for(lambda h: h.topic == "uno-table/3/state").json()
        assert state["state"]["round"] == 1 and state["scores"] == {"Aki": 0, "Ken": 0, "Mio": 0}
        assert daemon.stop() == 0
    finally:
        reap()
        pad.close()
        listener.close()
