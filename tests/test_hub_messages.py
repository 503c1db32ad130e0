"""The hub trusts no message: each result and availability is checked before it is kept, a bad
one is refused in one log line and the hub goes on, a round is counted once whatever id a table
writes, and a store an older version filled with a bad row is read, the row flagged."""

from __future__ import annotations

import json
import logging
import queue
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mqtt_harness import Broker, Listener, broker, free_port  # noqa: F401  (the fixture)
from web_harness import Client

from table.hub.config import HubPlan
from table.hub.page import serve
from table.hub.service import Hub
from table.hub.standings import ranking
from table.hub.store import HubStore
from table.mqtt.settings import MqttSettings

CLI = [sys.executable, "-m", "table.commands.cli"]


def result(table: str = "2", match: str = "7", rnd: int = 1, winner: str = "Aki",
           **change: Any) -> dict[str, Any]:
    """Round ``rnd`` of a two-player match as a table publishes it (international scoring,
    30 points a round to the winner)."""
    other = "Ken" if winner == "Aki" else "Aki"
    return {"id": f"{table}/{match}/{rnd}", "table": table, "match": match, "round": rnd,
            "players": ["Aki", "Ken"], "winner": winner, "points": {winner: 30, other: 0},
            "totals": {winner: 30 * rnd, other: 0}, "scoring": "international",
            "match_over": False, "match_winner": None, **change}


def send(hub: Hub, body: dict[str, Any] | bytes, table: str = "2") -> None:
    """A message as paho hands it to the hub, on table ``table``'s result topic."""
    payload = body if isinstance(body, bytes) else json.dumps(body).encode()
    hub._heard(f"uno-table/{table}/result", payload)


def make_hub(folder: Path, plan: HubPlan | None = None) -> Hub:
    """A hub that never connects (its broker port is free): messages are handed to it."""
    return Hub(MqttSettings("127.0.0.1", free_port()), HubStore(folder / "hub.sqlite3"),
               plan or HubPlan())


@pytest.fixture
def hub(tmp_path: Path) -> Iterator[Hub]:
    made = make_hub(tmp_path)
    yield made
    made.close()


def points(hub: Hub) -> dict[str, int]:
    return {r["player"]: r["points"] for r in hub.standings()["ranking"]}


@pytest.mark.parametrize("bad", [
    b'{"points": {"Aki": NaN, "Ken": 0}}', b'{"points": {"Aki": Infinity, "Ken": 0}}',
    b'{"points": {"Aki": -Infinity, "Ken": 0}}', b'{"points": {"Aki": 1e999, "Ken": 0}}',
    b'{"points": {"Aki": "30", "Ken": "0"}, "scoring": "musician"}',
    b'{"points": [30, 0]}', b'{"points": {"Aki": 30.5, "Ken": 0}}',
    b'{"points": {"Aki": true, "Ken": false}}', b'{"points": {"Aki": 10000000000, "Ken": 0}}',
    b'{"points": {"Aki": 30, "Ken": 0, "Zed": 5}}', b'{"scoring": "golf"}',
    b'{"players": ["Aki", "Aki"]}', b'{"winner": "Zed"}', b'{"match_over": "yes"}',
    b'{"totals": {"Aki": NaN, "Ken": 0}}', b'{"table": "1"}', b'{"match": "a/b"}',
])
def test_a_result_with_points_the_standings_cannot_add_is_refused_and_the_hub_goes_on(
        hub: Hub, tmp_path: Path, bad: bytes) -> None:
    payload = json.dumps(result()).encode()[:-1] + b", " + bad[1:]  # the later keys win
    send(hub, payload)
    assert hub.results_kept == 0 and hub.refused == 1
    send(hub, result())  # the next, good round is kept and the standings add up
    assert hub.results_kept == 1 and points(hub) == {"Aki": 30, "Ken": 0}
    page = serve(hub, 0, "127.0.0.1")
    try:
        status, standings = Client(page.port).get("/api/standings")
    finally:
        page.close()
    assert status == 200 and standings["results"] == 1
    # The store holds nothing of it either: a restart and `hub standings` read it.
    done = subprocess.run([*CLI, "hub", "standings", "--store", str(tmp_path / "hub.sqlite3"),
                           "--json"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stderr == ""
    assert [r["points"] for r in json.loads(done.stdout)] == [30, 0]


def test_a_round_written_as_a_string_is_refused_and_the_match_goes_on_being_kept(
        hub: Hub) -> None:
    send(hub, result(rnd=1) | {"round": "1"})
    assert hub.results_kept == 0
    for rnd in (1, 2, 3):
        send(hub, result(rnd=rnd))
    assert hub.results_kept == 3 and points(hub) == {"Aki": 90, "Ken": 0}
    assert hub.standings()["flags"] == []


def test_a_results_id_is_its_topics_table_match_and_round(hub: Hub) -> None:
    # Table 2 writes table 1's id: kept as what it is, table 2's round, and no more.
    send(hub, result("2", "7", 1) | {"id": "1/7/1"})
    send(hub, result("1", "7", 1, winner="Ken"), table="1")  # table 1's real round 1 counts
    assert hub.results_kept == 2
    assert sorted(r["id"] for r in hub.store.results()) == ["1/7/1", "2/7/1"]
    assert {r["table"]: r["winner"] for r in hub.store.results()} == {"1": "Ken", "2": "Aki"}
    # The same round again under another id: the same round, counted once.
    send(hub, result("2", "7", 1) | {"id": "2/7/1-again"})
    send(hub, result("2", "7", 1))
    assert hub.results_kept == 2 and hub.standings()["flags"] == []
    # A second round 1 of table 2 with other points: set aside, flagged, not counted, and
    # the pages are told.
    shown: queue.Queue[dict[str, Any]] = queue.Queue()
    hub.listeners.append(shown.put)
    send(hub, result("2", "7", 1, winner="Ken"))
    assert shown.get(timeout=30)["flags"] != []
    standings = hub.standings()
    assert hub.results_kept == 2 and standings["results"] == 2
    assert points(hub) == {"Aki": 30, "Ken": 30}
    assert [(f["id"], f["table"]) for f in standings["flags"]] == [("2/7/1", "2")]
    assert "not counted" in standings["flags"][0]["problem"]


def test_the_round_of_the_evening_is_the_hubs_to_say(tmp_path: Path) -> None:
    plan = HubPlan(players=("Aki", "Ken"), tables=("2",), table_size=2, rounds=3)
    hub = make_hub(tmp_path, plan)
    try:
        for name in plan.players:
            hub.store.enter(name, 1)
        assert hub.seat_next() == 1
        send(hub, result(rnd=1) | {"hub_round": 999})
        send(hub, result(rnd=2) | {"hub_round": 2})
        assert [r["hub_round"] for r in hub.store.results()] == [1, 1]
    finally:
        hub.close()


def test_sizes_are_capped_a_big_result_and_a_big_availability_are_refused(hub: Hub) -> None:
    big = result() | {"note": "x" * 10_000_000}
    send(hub, big)
    assert hub.results_kept == 0 and hub.refused == 1
    hub._heard("uno-table/2/availability", b"o" * 1_000_000)
    hub._heard("uno-table/3/availability", b"online")
    standings = hub.standings()
    assert standings["online"] == {"3": "online"}
    assert len(json.dumps(standings)) < 1000
    # Keys a table adds beyond a result's are not kept.
    send(hub, result() | {"note": "x" * 1000})
    assert hub.results_kept == 1 and "note" not in hub.store.results()[0]


def test_the_hub_is_not_one_of_its_tables_and_tied_players_share_a_rank(hub: Hub) -> None:
    hub._heard("uno-table/hub/availability", b"online")
    hub._heard("uno-table/1/availability", b"online")
    assert hub.standings()["online"] == {"1": "online"}
    six = ranking([], players=["Aki", "Ken", "Mio", "Rin", "Sou", "Yui"])
    assert [r["rank"] for r in six] == [1] * 6
    results = [result("1", "1", 1, "Aki"), result("2", "1", 1, "Mio") | {
        "players": ["Mio", "Rin"], "points": {"Mio": 30, "Rin": 0},
        "totals": {"Mio": 30, "Rin": 0}}]
    ranked = ranking(results, players=["Aki", "Ken", "Mio", "Rin"])
    assert [(r["player"], r["rank"]) for r in ranked] == \
        [("Aki", 1), ("Mio", 1), ("Ken", 3), ("Rin", 3)]


def test_payloads_of_no_result_are_one_log_line_each_and_never_a_traceback(
        hub: Hub, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="table.hub.service")
    for payload in (b"5", b"null", b'"a result"', b"[]", b"{", b"\xff\xfe", b"", b"[" * 5000,
                    b"1" * 5000):
        send(hub, payload)
    assert hub.results_kept == 0 and hub.refused == 9
    # At most five lines a topic a minute; each one line, naming the topic, no traceback.
    assert len(caplog.records) == 5
    for record in caplog.records:
        text = record.getMessage()
        assert "\n" not in text and record.exc_info is None
        assert text.startswith("hub: a message on uno-table/2/result refused: ")
    assert "a int; allowed: a JSON object" in caplog.records[0].getMessage()


def test_a_store_with_bad_rows_of_an_older_version_is_read_and_the_rows_flagged(
        tmp_path: Path) -> None:
    path = tmp_path / "hub.sqlite3"
    HubStore(path).close()
    rows = [("2/7/1", "2", "7", 1, json.dumps(result(rnd=1))),
            # NaN points, a round as a string, another table's id, the same round twice
            ("2/7/2", "2", "7", 2, json.dumps(result(rnd=2) | {"points": {"Aki": float("nan"),
                                                                          "Ken": 0}})),
            ("2/8/1", "2", "8", 1, json.dumps(result(match="8") | {"round": "1"})),
            ("1/9/1", "2", "9", 1, json.dumps(result(match="9") | {"id": "1/9/1"})),
            ("2/7/1-b", "2", "7", 1, json.dumps(result(rnd=1) | {"id": "2/7/1-b"})),
            ("2/7/3", "2", "7", 3, "{not json"), ("2/7/4", "2", "7", 4, b"\x00\x01")]
    with sqlite3.connect(path) as db:
        db.executemany("INSERT INTO results VALUES (?, ?, ?, ?, 0, ?, NULL, 0)", rows)
    done = subprocess.run([*CLI, "hub", "standings", "--store", str(path), "--json"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0
    assert [r["points"] for r in json.loads(done.stdout)] == [30, 0]
    problems = done.stderr.splitlines()
    assert len(problems) == 6 and all("not counted" in line for line in problems)
    assert "Traceback" not in done.stderr
    hub = make_hub(tmp_path)
    try:
        standings = hub.standings()
        assert standings["results"] == 1
        assert sorted(f["id"] for f in standings["flags"]) == \
            ["1/9/1", "2/7/1-b", "2/7/2", "2/7/3", "2/7/4", "2/8/1"]
    finally:
        hub.close()


def test_through_a_real_broker_bad_results_leave_the_hub_and_its_restart_standing(
        broker: Broker, tmp_path: Path) -> None:  # noqa: F811
    store = tmp_path / "hub.sqlite3"
    listener = Listener(broker.port, ("uno-table/hub/standings",))
    cmd = [*CLI, "hub", "--mqtt", f"127.0.0.1:{broker.port}", "--store", str(store)]
    hub = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        listener.wait_for(lambda h: True)
        nan = json.dumps(result(rnd=1)).replace('"Aki": 30', '"Aki": NaN', 1)
        for payload in (nan, json.dumps(result(rnd=1) | {"round": "1"}), "5", "null"):
            listener.client.publish("uno-table/2/result", payload, qos=1)
        for rnd in (1, 2):
            listener.client.publish("uno-table/2/result", json.dumps(result(rnd=rnd)), qos=1)
        heard = listener.wait_for(lambda h: h.json()["results"] == 2).json()
        assert heard["ranking"][0]["points"] == 60
    finally:
        hub.terminate()
        _, err = hub.communicate(timeout=30)
    assert hub.returncode == 0
    assert "Traceback" not in err
    assert sum("refused" in line for line in err.splitlines()) == 4
    listener.close()
    # The hub starts again on its store and `hub standings` reads it.
    done = subprocess.run([*CLI, "hub", "standings", "--store", str(store)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and "points     60" in done.stdout


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner,
                                                                max_size=4),
    max_leaves=12)
KEYS = ("id", "table", "match", "round", "players", "winner", "points", "totals", "scoring",
        "match_over", "match_winner", "hub_round")
TOPICS = ("uno-table/2/result", "uno-table/2/availability", "uno-table/hub/result",
          "uno-table/+/result", "uno-table/a b/availability")


def test_arbitrary_json_on_every_topic_the_hub_reads_never_stops_it(tmp_path: Path) -> None:
    hub = make_hub(tmp_path)

    @settings(max_examples=300, deadline=None,
              suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
    @given(topic=st.sampled_from(TOPICS), data=JSON | st.binary(max_size=40),
           key=st.sampled_from(KEYS), value=JSON, rnd=st.integers(1, 50))
    def check(topic: str, data: Any, key: str, value: Any, rnd: int) -> None:
        # Arbitrary JSON (or bytes) whole, then a good result with one key made arbitrary.
        payload = data if isinstance(data, bytes) else json.dumps(data).encode()
        hub._heard(topic, payload)
        hub._heard("uno-table/2/result", json.dumps(result(rnd=rnd) | {key: value}).encode())
        standings = hub.standings()
        for row in standings["rows"]:
            assert type(row["points"]) is int
        assert set(standings["online"].values()) <= {"online", "offline"}

    try:
        check()
        results, problems = hub.store.load()
        assert len(results) == hub.results_kept and problems == hub._problems
        assert all(r["id"] == f"2/7/{r['round']}" for r in results)
    finally:
        hub.close()
