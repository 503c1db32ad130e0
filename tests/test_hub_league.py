"""A league across venues (examples/league/, docs/tournament.md): two venues, each with its own
Mosquitto, its own hub and two simulated tables, bridged by Mosquitto's own bridge to a central
broker with the documented ACL, where a league hub keeps one standings table. The league's
standings are the four tables' journals, and a venue cannot write another venue's results."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from mqtt_harness import Broker, Listener

from table.journal.history import history

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "league"
CLI = [sys.executable, "-m", "table.commands.cli"]
USERS = {"league": "league-secret", "A": "venue-A-secret", "B": "venue-B-secret"}
VENUES = {"A": {"1": "Aki,Ken,Mio", "2": "Rin,Sou,Yui"},
          "B": {"1": "Emi,Jun,Kai", "2": "Nao,Ryo,Tom"}}


class LoggedBroker(Broker):
    """A broker whose log a test can wait on (a bridge connected, a publish denied)."""

    def __init__(self, folder: Path, extra: str = "") -> None:
        folder.mkdir(exist_ok=True)
        super().__init__(folder, extra)
        self._grew = threading.Condition()

    def _pump(self, proc: subprocess.Popen[str]) -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            with self._grew:
                self.log.append(line)
                self._grew.notify_all()

    def wait_log(self, text: str, timeout: float = 30.0) -> str:
        """The first line of the log holding ``text``, once there."""
        def found() -> str | None:
            return next((line for line in self.log if text in line), None)

        with self._grew:
            assert self._grew.wait_for(lambda: found() is not None, timeout), \
                f"no {text!r} in the broker's log: {''.join(self.log[-5:])}"
            line = found()
        assert line is not None
        return line


def central(folder: Path) -> LoggedBroker:
    """The league's broker with central.conf's passwords and ACL (central.acl as it is)."""
    folder.mkdir()
    passwd = folder / "league.passwd"
    for i, (user, password) in enumerate(USERS.items()):
        subprocess.run(["mosquitto_passwd", *(["-c"] if i == 0 else []), "-b", str(passwd),
                        user, password], check=True, capture_output=True, timeout=30)
    shutil.copy(EXAMPLES / "central.acl", folder / "league.acl")
    documented = (EXAMPLES / "central.conf").read_text(encoding="utf-8")
    assert "acl_file /etc/mosquitto/uno-table-league.acl" in documented
    extra = f"password_file {passwd}\nacl_file {folder / 'league.acl'}\n"
    return LoggedBroker(folder, extra)


def venue(folder: Path, name: str, central_port: int) -> LoggedBroker:
    """A venue's broker with venue-bridge.conf, written for venue ``name``, on loopback
    without TLS."""
    bridge = (EXAMPLES / "venue-bridge.conf").read_text(encoding="utf-8")
    bridge = bridge.replace("address league.example.org:8883", f"address 127.0.0.1:{central_port}")
    bridge = bridge.replace("bridge_capath /etc/ssl/certs\n", "")
    bridge = bridge.replace("venue-A-password", USERS[name])
    for word in ("remote_username {}\n", "venue-{}", "uno-table/{}/"):
        bridge = bridge.replace(word.format("A"), word.format(name))
    assert f"topic +/result out 1 uno-table/ uno-table/{name}/" in bridge
    return LoggedBroker(folder, bridge)


def hub(port: int, store: Path, *extra: str) -> subprocess.Popen[str]:
    return subprocess.Popen([*CLI, "hub", "--mqtt", f"127.0.0.1:{port}", "--store", str(store),
                             *extra], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def stop(procs: list[subprocess.Popen[str]]) -> None:
    for proc in procs:
        if proc.poll() is None:
            proc.terminate()
            proc.communicate(timeout=30)


def rows(store: Path) -> dict[tuple[str, str], dict[str, Any]]:
    done = subprocess.run([*CLI, "hub", "standings", "--store", str(store), "--json"],
                          capture_output=True, text=True, timeout=60, check=True)
    return {(r["table"], r["player"]): r for r in json.loads(done.stdout)}


def test_two_venues_bridged_to_a_league_hub_keep_one_standings_of_four_tables(
        tmp_path: Path) -> None:
    if shutil.which("mosquitto") is None or shutil.which("mosquitto_passwd") is None:
        pytest.fail("mosquitto is not installed: sh .ci/sysdeps.sh test")
    league = central(tmp_path / "central")
    league.start()
    brokers = [league]
    procs: list[subprocess.Popen[str]] = []
    try:
        venues = {name: venue(tmp_path / name, name, league.port) for name in VENUES}
        for name, broker in venues.items():
            broker.start()
            brokers.append(broker)
            league.wait_log(f"as uno-table-venue-{name} ")  # the bridge is in, logged in
        (tmp_path / "league-password").write_text(USERS["league"] + "\n", encoding="utf-8")
        toml = (EXAMPLES / "league.toml").read_text(encoding="utf-8")
        toml = toml.replace('host = "league.example.org"\nport = 8883\ntls = true',
                            f'host = "127.0.0.1"\nport = {league.port}')
        toml = toml.replace('"league-password"', json.dumps(str(tmp_path / "league-password")))
        (tmp_path / "league.toml").write_text(toml, encoding="utf-8")
        watch = Listener(league.port, ("uno-table/hub/standings",), "league", USERS["league"])
        procs.append(hub(league.port, tmp_path / "league.sqlite3",
                         "--config", str(tmp_path / "league.toml")))
        watch.wait_for(lambda h: True)  # the league hub is subscribed
        for name, broker in venues.items():
            procs.append(hub(broker.port, tmp_path / f"{name}.sqlite3"))
            local = Listener(broker.port, ("uno-table/hub/standings",))
            local.wait_for(lambda h: True)  # the venue's hub is subscribed
            local.close()
        demos = {(name, table): subprocess.Popen(
            [*CLI, "demo", "--fast", "--rules", "japanese", "--seed", f"{ord(name)}{table}",
             "--names", names, "--mqtt", f"127.0.0.1:{venues[name].port}", "--table", table,
             "--journal", str(tmp_path / f"{name}{table}.sqlite3")],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            for name, tables in VENUES.items() for table, names in tables.items()}
        for proc in demos.values():
            out, err = proc.communicate(timeout=300)
            assert proc.returncode == 0, err
            assert "5 results delivered" in out, out
        watch.wait_for(lambda h: h.json()["results"] == 20, 60)

        # A venue's credentials cannot write another venue's results.
        forger = Listener(league.port, ("uno-table/hub/#",), "A", USERS["A"])
        forger.client.publish("uno-table/B/1/result", b"{}", qos=1).wait_for_publish(30)
        league.wait_log("Denied PUBLISH from")
        forger.close()
        watch.close()
    finally:
        stop(procs)
        for broker in brokers:
            broker.stop()
    standings = rows(tmp_path / "league.sqlite3")
    assert {table for table, _ in standings} == {"A/1", "A/2", "B/1", "B/2"}
    for name, tables in VENUES.items():
        at_venue = rows(tmp_path / f"{name}.sqlite3")
        for table in tables:
            (match,) = history(tmp_path / f"{name}{table}.sqlite3")
            state = match.state
            assert match.over and len(state.results) == 5
            for seat, player in enumerate(match.players):
                wins = sum(r.winner == seat for r in state.results)
                want = (state.scores[seat], 5, wins)
                row = standings[(f"{name}/{table}", player)]
                assert (row["points"], row["rounds"], row["wins"]) == want
                assert (at_venue[(table, player)]["points"], at_venue[(table, player)]["wins"]) \
                    == (state.scores[seat], wins)
                assert row["flagged"] == 0
    assert sum(r["match_wins"] for r in standings.values()) == 4
    denied = [line for line in league.log if "Denied PUBLISH" in line]
    assert len(denied) == 1 and "'uno-table/B/1/result'" in denied[0]
