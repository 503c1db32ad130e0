"""Who a table may report: the hub counts a result only for the players it seated at that table
in that round (when it seats), only for entered players (when players are entered), and never
for a name that looks like another player's (docs/tournament.md#security)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from mqtt_harness import free_port

from table.hub.config import HubPlan
from table.hub.messages import MessageError, check_result
from table.hub.names import look_alike, skeleton
from table.hub.service import Hub
from table.hub.store import HubStore
from table.mqtt.settings import MqttSettings

PLAYERS = ("Aki", "Ken", "Mio", "Rin", "Sou", "Yui")


def finished(table: str, players: list[str], winner: str, match: str = "m1") -> dict[str, Any]:
    """A one-round match won by ``winner`` at ``table``, with the hub's round 1."""
    points = {p: (60 if p == winner else 0) for p in players}
    return {"table": table, "match": match, "round": 1, "players": players, "winner": winner,
            "points": points, "totals": points, "scoring": "international",
            "match_over": True, "match_winner": winner, "hub_round": 1}


def send(hub: Hub, table: str, body: dict[str, Any]) -> None:
    hub._heard(f"uno-table/{table}/result", json.dumps(body).encode())


@pytest.fixture
def seated(tmp_path: Path) -> Iterator[Hub]:
    """Six entered players at two tables of three, round 1 of 3 seated."""
    plan = HubPlan(players=PLAYERS, tables=("1", "2"), table_size=3, rounds=3, seed=2)
    hub = Hub(MqttSettings("127.0.0.1", free_port()), HubStore(tmp_path / "hub.sqlite3"), plan)
    for name in PLAYERS:
        hub.store.enter(name, 1)
    hub.seat_next()
    yield hub
    hub.close()


def match_wins(hub: Hub) -> dict[str, int]:
    return {r["player"]: r["match_wins"] for r in hub.standings()["ranking"]}


def test_a_table_cannot_credit_a_player_seated_at_another(seated: Hub) -> None:
    """Sou was seated at one table; the other table's result naming Sou as its winner was
    counted (a match win, 60 points) and ended the round."""
    tables = seated.store.current_round()[1]
    home = next(t for t, seats in tables.items() if "Sou" in seats)
    away = next(t for t in tables if t != home)
    crowd = [*tables[away][:2], "Sou"]
    send(seated, away, finished(away, crowd, "Sou"))
    standings = seated.standings()
    assert match_wins(seated)["Sou"] == 0 and standings["results"] == 0
    assert standings["flags"][0]["table"] == away
    assert "not the players the hub seated" in standings["flags"][0]["problem"]
    # The table's own players still count, and the round ends when both tables really have.
    send(seated, home, finished(home, tables[home], tables[home][0]))
    assert seated.store.current_round()[0] == 1
    send(seated, away, finished(away, tables[away], tables[away][0], match="m2"))
    assert seated.wait_for(lambda: seated.store.current_round()[0] == 2, 30)
    assert sum(match_wins(seated).values()) == 2


@pytest.mark.parametrize("fake", ["Мio", "Ｍｉｏ", "Mi0", "𝐌𝐢𝐨", "MІo"])
def test_a_look_alike_of_an_entered_name_is_not_counted(seated: Hub, fake: str) -> None:
    """Table 1's result naming 'Мio' (a Cyrillic М) beside the real Mio ranked first, unflagged."""
    tables = seated.store.current_round()[1]
    home = next(t for t, seats in tables.items() if "Mio" in seats)
    players = [fake if p == "Mio" else p for p in tables[home]]
    send(seated, home, finished(home, players, fake))
    standings = seated.standings()
    assert standings["results"] == 0 and fake not in match_wins(seated)
    assert "looks like 'Mio'" in standings["flags"][0]["problem"]


def test_without_entries_a_look_alike_of_a_name_already_heard_is_not_counted(
        tmp_path: Path) -> None:
    hub = Hub(MqttSettings("127.0.0.1", free_port()), HubStore(tmp_path / "hub.sqlite3"),
              HubPlan())
    try:
        send(hub, "1", finished("1", ["Mio", "Aki"], "Mio"))
        send(hub, "2", finished("2", ["Мio", "Ken"], "Мio"))
        standings = hub.standings()
        assert standings["results"] == 1 and "looks like 'Mio'" in standings["flags"][0]["problem"]
        send(hub, "3", finished("3", ["Zoe", "Ken"], "Zoe"))  # a new name of its own: counted
        assert hub.standings()["results"] == 2
    finally:
        hub.close()


def test_two_look_alike_names_in_one_result_are_refused() -> None:
    with pytest.raises(MessageError, match="looks like 'Mio'"):
        check_result(finished("1", ["Mio", "Мio"], "Mio"), "1", "1")


def test_the_skeleton_folds_what_a_reader_confuses_and_keeps_what_they_read() -> None:
    assert skeleton("Мio") == skeleton("Mio") == skeleton("ＭＩＯ".lower()) == skeleton("mio")
    assert skeleton("Sarn") == skeleton("Sam") and skeleton("Ke1") == skeleton("Kel")
    assert skeleton("Mío") != skeleton("Mio") and skeleton("美緒") != skeleton("美結")
    assert look_alike("Aki", ["Aki", "Ken"]) is None and look_alike("Аki", ["Aki"]) == "Aki"


@given(st.text(max_size=40))
def test_any_name_has_one_skeleton_whatever_its_normal_form(name: str) -> None:
    import unicodedata

    assert skeleton(unicodedata.normalize("NFKC", name)) == skeleton(name)
    assert look_alike(name, [name]) is None


def test_the_organiser_cannot_enter_a_look_alike_either(tmp_path: Path) -> None:
    import subprocess
    import sys

    from table.errors import TableError
    from table.hub.config import load_hub_config

    store = HubStore(tmp_path / "hub.sqlite3")
    store.enter("Mio", 1)
    store.close()
    done = subprocess.run([sys.executable, "-m", "table.commands.cli", "hub", "enter", "Мio",
                           "--store", str(tmp_path / "hub.sqlite3")],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "looks like the entered player 'Mio'" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    (tmp_path / "hub.toml").write_text('[hub]\nplayers = ["Mio", "Ｍｉｏ"]\n', encoding="utf-8")
    with pytest.raises(TableError, match="looks like 'Mio'"):
        load_hub_config(tmp_path / "hub.toml")
