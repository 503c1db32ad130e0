"""The tournament hub: seating, the score check, standings, and three simulated tables playing
into a hub through a real Mosquitto."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from mqtt_harness import Broker, Listener, broker, free_port  # noqa: F401  (the fixture)

from table.hub.scores import round_problem, totals_problem
from table.hub.seating import random_groups, repeats, round_robin, seat, table_sizes
from table.hub.standings import as_csv, ranking, table_rows

CLI = [sys.executable, "-m", "table.commands.cli"]


def result(table: str, rnd: int, points: dict[str, int], winner: str, totals: dict[str, int],
           scoring: str = "international", over: bool = False) -> dict[str, Any]:
    return {"id": f"{table}/1/{rnd}", "table": table, "match": "1", "round": rnd,
            "players": list(points), "winner": winner, "points": points, "totals": totals,
            "scoring": scoring, "match_over": over, "match_winner": winner if over else None}


def test_tables_are_even_and_random_groups_avoid_repeat_opponents() -> None:
    assert table_sizes(10, 4) == [4, 3, 3] and table_sizes(12, 4) == [4, 4, 4]
    players = [f"P{i}" for i in range(16)]
    met: set[frozenset[str]] = set()
    for round_no in (1, 2, 3):
        tables = random_groups(players, 4, met, seed=round_no)
        assert sorted(p for t in tables for p in t) == sorted(players)
        assert repeats(tables, met) == 0
        met |= {frozenset((a, b)) for t in tables for a in t for b in t if a != b}
    # 12 at tables of 4: in round 2 each table holds two of some first-round table, at least;
    # the seating finds that minimum.
    twelve = players[:12]
    first = {frozenset((a, b)) for t in random_groups(twelve, 4, set(), 1)
             for a in t for b in t if a != b}
    assert repeats(random_groups(twelve, 4, first, 2), first) == 3
    # Two players only: they must meet again; the seating says so rather than fail.
    assert repeats(random_groups(["A", "B"], 2, {frozenset(("A", "B"))}, 1),
                   {frozenset(("A", "B"))}) == 1


def test_round_robin_pairs_everyone_once_and_swiss_seats_by_standing() -> None:
    players = list("ABCDEF")
    pairs = [frozenset(t) for r in range(1, 6) for t in round_robin(players, r, 2)]
    assert len(pairs) == len(set(pairs)) == 15
    assert seat("swiss", players, 3, 3, set(), list("FEDCBA"), 0) == [list("FED"), list("CBA")]


def test_the_score_check_knows_each_scoring() -> None:
    good = result("1", 1, {"A": 30, "B": 0}, "A", {"A": 30, "B": 0})
    assert round_problem(good) is None
    assert "only the winner" in str(round_problem(
        result("1", 1, {"A": 30, "B": 5}, "A", {"A": 30, "B": 5})))
    assert round_problem(result("1", 1, {"A": 9, "B": -9}, "A", {}, "japanese")) is None
    assert "sums to zero" in str(round_problem(
        result("1", 1, {"A": 9, "B": -8}, "A", {}, "japanese")))
    assert "winner adds 0" in str(round_problem(
        result("1", 1, {"A": 3, "B": 8}, "A", {}, "lowest")))
    second = result("1", 2, {"A": 0, "B": 10}, "B", {"A": 30, "B": 11})
    assert "not the sum" in str(totals_problem(second, [good]))
    assert totals_problem(second, []) is None  # round 1 not heard yet: no judgement


def test_standings_rank_by_match_wins_then_points_lowest_first_under_lowest() -> None:
    results = [result("1", 1, {"A": 0, "B": 5}, "A", {"A": 0, "B": 5}, "lowest", over=True),
               result("2", 1, {"C": 0, "D": 40}, "C", {"C": 0, "D": 40}, "lowest")]
    rows = table_rows(results)
    assert [(r["table"], r["player"], r["rounds"], r["wins"], r["points"]) for r in rows] == [
        ("1", "A", 1, 1, 0), ("1", "B", 1, 0, 5), ("2", "C", 1, 1, 0), ("2", "D", 1, 0, 40)]
    assert [r["player"] for r in ranking(results, lowest=True)] == ["A", "C", "B", "D"]
    assert [r["player"] for r in ranking(results, lowest=False)] == ["A", "D", "B", "C"]
    assert as_csv(rows).splitlines()[0] == "table,player,rounds,wins,points,match_wins,flagged"


def hub_process(port: int, store: Path, *extra: str) -> subprocess.Popen[str]:
    return subprocess.Popen([*CLI, "hub", "--mqtt", f"127.0.0.1:{port}", "--store", str(store),
                             *extra], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def standings(store: Path) -> list[dict[str, Any]]:
    done = subprocess.run([*CLI, "hub", "standings", "--store", str(store), "--json"],
                          capture_output=True, text=True, timeout=60, check=True)
    rows: list[dict[str, Any]] = json.loads(done.stdout)
    return rows


TABLES = {"1": "Aki,Ken,Mio", "2": "Rin,Sou,Yui", "3": "Emi,Jun,Kai"}


def test_three_simulated_tables_and_a_hub_agree_round_by_round(
        broker: Broker, tmp_path: Path) -> None:  # noqa: F811
    store = tmp_path / "hub.sqlite3"
    listener = Listener(broker.port, ("uno-table/#",))
    hub = hub_process(broker.port, store)
    try:
        listener.wait_for(lambda h: h.topic == "uno-table/hub/standings")
        demos = {table: subprocess.Popen(
            [*CLI, "demo", "--fast", "--rules", "japanese", "--seed", table, "--names", names,
             "--mqtt", f"127.0.0.1:{broker.port}", "--table", table],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            for table, names in TABLES.items()}
        outputs = {table: proc.communicate(timeout=300) for table, proc in demos.items()}
        for table, (out, err) in outputs.items():
            assert demos[table].returncode == 0, err
            assert "5 results delivered" in out, out
        listener.wait_for(lambda h: h.topic == "uno-table/hub/standings"
                          and h.json()["results"] == 15)
    finally:
        hub.terminate()
        hub.wait(30)
    # What each table published, round by round, is what the hub kept.
    published = {h.json()["id"]: h.json() for h in listener.drain()
                 if h.topic.endswith("/result")}
    assert len(published) == 15
    from table.hub.store import HubStore

    kept = {r["id"]: r for r in HubStore(store).results()}
    assert set(kept) == set(published)
    for rid, r in published.items():
        assert (kept[rid]["points"], kept[rid]["winner"]) == (r["points"], r["winner"])
        assert kept[rid]["flag"] is None
    # The standings equal the tables' own final scores (checked by each demo against a replay).
    rows = standings(store)
    for table, (out, _) in outputs.items():
        board = re.search(r"scores: (.*)", out)
        assert board is not None
        want = dict((name, int(points)) for name, points in
                    (item.rsplit(" ", 1) for item in board.group(1).split(", ")))
        got = {r["player"]: r["points"] for r in rows if r["table"] == table}
        assert got == want
        assert all(r["rounds"] == 5 for r in rows if r["table"] == table)
        winners = re.search(r"match over: (\S+) wins", out)
        assert winners is not None
        assert [r["player"] for r in rows if r["table"] == table and r["match_wins"]] == \
            [winners.group(1)]
    assert sum(r["wins"] for r in rows) == 15


def test_a_result_that_does_not_add_up_is_flagged(broker: Broker, tmp_path: Path) -> None:  # noqa: F811
    store = tmp_path / "hub.sqlite3"
    listener = Listener(broker.port, ("uno-table/hub/standings",))
    hub = hub_process(broker.port, store)
    try:
        listener.wait_for(lambda h: True)
        bad = result("4", 1, {"A": 20, "B": 3}, "A", {"A": 20, "B": 3})
        listener.client.publish("uno-table/4/result", json.dumps(bad), qos=1)
        flagged = listener.wait_for(lambda h: h.json()["results"] == 1).json()
    finally:
        hub.terminate()
        hub.wait(30)
    assert flagged["flags"][0]["table"] == "4"
    assert "only the winner scores" in flagged["flags"][0]["problem"]
    assert [r["flagged"] for r in standings(store)] == [1, 1]


def test_hub_commands_refuse_bad_input_in_one_line(tmp_path: Path) -> None:
    done = subprocess.run([*CLI, "hub", "standings", "--store", str(tmp_path / "none")],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1
    assert "no hub store there" in done.stderr
    (tmp_path / "hub.toml").write_text('[hub]\nformat = "knockout"\n', encoding="utf-8")
    done = subprocess.run([*CLI, "hub", "--store", str(tmp_path / "s"), "--config",
                           str(tmp_path / "hub.toml")], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr.strip().endswith(
        "hub.format: 'knockout' is not allowed; allowed: round-robin, random, swiss")


@pytest.mark.parametrize("name", ["Zoe"])
def test_drops_and_late_entries_change_who_is_seated_next(tmp_path: Path, name: str) -> None:
    from table.hub.config import HubPlan
    from table.hub.service import Hub
    from table.hub.store import HubStore
    from table.mqtt.settings import MqttSettings

    store = HubStore(tmp_path / "hub.sqlite3")
    plan = HubPlan(players=("Aki", "Ken", "Mio", "Sam"), tables=("1",), table_size=4, rounds=3)
    hub = Hub(MqttSettings("127.0.0.1", free_port()), store, plan)
    for p in plan.players:
        store.enter(p, 1)
    assert sorted(store.current_round()[1] or {"": []}) == [""]
    hub.seat_next()
    assert sorted(store.current_round()[1]["1"]) == ["Aki", "Ken", "Mio", "Sam"]
    assert subprocess.run([*CLI, "hub", "drop", "Ken", "--store", str(store.path)],
                          capture_output=True, timeout=60).returncode == 0
    assert subprocess.run([*CLI, "hub", "enter", name, "--store", str(store.path)],
                          capture_output=True, timeout=60).returncode == 0
    hub.seat_next()
    number, tables, _ = store.current_round()
    assert number == 2 and sorted(tables["1"]) == sorted(["Aki", "Mio", "Sam", name])


def test_the_next_round_is_seated_when_every_table_has_finished_its_match(
        tmp_path: Path) -> None:
    from table.hub.config import HubPlan
    from table.hub.service import Hub
    from table.hub.store import HubStore
    from table.mqtt.settings import MqttSettings

    players = ("Aki", "Ken", "Mio", "Rin", "Sou", "Yui", "Emi", "Jun", "Kai")
    plan = HubPlan(players=players, tables=("1", "2", "3"), table_size=3, rounds=3,
                   swiss_from=3,
                   round_minutes=40, seed=4)
    hub = Hub(MqttSettings("127.0.0.1", free_port()), HubStore(tmp_path / "hub.sqlite3"), plan)
    hub.start()
    try:
        for round_no in (1, 2):
            number, tables, ends_at = hub.store.current_round()
            assert number == round_no and ends_at is not None
            assert sorted(p for seats in tables.values() for p in seats) == sorted(players)
            for i, (table, seats) in enumerate(sorted(tables.items())):
                points = {p: (10 * (i + 1) if p == seats[0] else 0) for p in seats}
                finished = {**result(table, 1, points, seats[0], points, over=True),
                            "id": f"{table}/r{round_no}/1", "match": f"r{round_no}",
                            "hub_round": round_no}
                hub._heard(f"uno-table/{table}/result", json.dumps(finished).encode())
            assert hub.wait_for(lambda n=round_no: hub.store.current_round()[0] == n + 1, 30)
        seatings = hub.store.seatings()
        first, second = ({frozenset((a, b)) for s in t.values() for a in s for b in s if a != b}
                         for t in seatings[:2])
        assert not first & second  # random groups: no one meets an opponent again
        # Round 3 is Swiss: the three best by match wins, then points, at the first table.
        ranked = [r["player"] for r in hub.standings()["ranking"]]
        assert sorted(seatings[2]["1"]) == sorted(ranked[:3])
    finally:
        hub.close()
