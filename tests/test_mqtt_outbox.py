"""Nothing lost while the broker is away: a real daemon publishes its results through a real
Mosquitto to a real hub; the broker is stopped and started again mid-evening and the daemon is
killed with SIGKILL (once with the broker up: its last will says offline; once with results
waiting in the outbox). The hub ends with exactly the journal's rounds, each once."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from daemon_harness import reap, start, tap_all, write_config
from mqtt_harness import Broker, Listener, broker  # noqa: F401  (the fixture)

from sim.hardware.ptys import PtyReader
from sim.players.scripted import scripted_taps
from table.hub.store import HubStore
from table.journal.outbox import Outbox
from table.journal.records import rebuild
from table.journal.store import read_journal

PLAYERS = ("Aki", "Ken", "Mio")
CLI = [sys.executable, "-m", "table.commands.cli"]


def table_one(broker: Broker, tmp_path: Path) -> tuple[Path, Listener, PtyReader]:  # noqa: F811
    """Table 1 on ``broker`` (its configuration), a listener to everything, its play pad."""
    mqtt = f'\n[mqtt]\nhost = "127.0.0.1"\nport = {broker.port}\ntable = "1"\n'
    config = write_config(tmp_path, PLAYERS, extra=mqtt)
    return config, Listener(broker.port, ("uno-table/#",)), PtyReader(tmp_path / "pad")


def hub_on(broker: Broker, store: Path) -> subprocess.Popen[str]:  # noqa: F811
    return subprocess.Popen([*CLI, "hub", "--mqtt", f"127.0.0.1:{broker.port}", "--store",
                             str(store)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)


def test_broker_restart_and_sigkill_lose_no_result_and_count_none_twice(
        broker: Broker, tmp_path: Path) -> None:  # noqa: F811
    taps = scripted_taps(PLAYERS, 320, seed=7)
    store = tmp_path / "hub.sqlite3"
    config, listener, pad = table_one(broker, tmp_path)
    hub = hub_on(broker, store)
    try:
        listener.wait_for(lambda h: h.topic == "uno-table/hub/standings")
        daemon, _ = start(config, pad)
        listener.wait_for(lambda h: h.topic == "uno-table/1/availability"
                          and h.payload == b"online")
        tap_all(daemon, pad, taps[:80])
        daemon.kill9()  # the broker is up: the last will says offline
        listener.wait_for(lambda h: h.topic == "uno-table/1/availability"
                          and h.payload == b"offline")

        daemon, _ = start(config, pad)
        broker.stop()
        tap_all(daemon, pad, taps[80:200], 80)
        waiting = Outbox(tmp_path / "journal.sqlite3").counts()[1]
        assert waiting >= 2, "rounds ended while the broker was away"
        daemon.kill9()  # with results in the outbox, never sent

        daemon, _ = start(config, pad)
        tap_all(daemon, pad, taps[200:240], 200)
        broker.start()
        tap_all(daemon, pad, taps[240:], 240)
        assert daemon.stop() == 0
    finally:
        reap()
        pad.close()

    records = read_journal(tmp_path / "journal.sqlite3")
    assert len(records) == 1
    rounds = rebuild(records[0].setup, records[0].inputs).state.results
    assert len(rounds) >= 6
    ids = [f"1/{records[0].id}/{k}" for k in range(1, len(rounds) + 1)]
    try:
        listener.wait_for(lambda h: h.topic == "uno-table/hub/standings"
                          and h.json()["results"] == len(rounds), timeout=60)
        listener.wait_for(lambda h: h.topic == "uno-table/1/availability"
                          and h.payload == b"offline" and not h.retain)
    finally:
        hub.terminate()
        hub.wait(30)
    kept = HubStore(store).results()
    assert [r["id"] for r in sorted(kept, key=lambda r: r["round"])] == ids
    for r, want in zip(sorted(kept, key=lambda r: r["round"]), rounds, strict=True):
        assert r["points"] == dict(zip(PLAYERS, want.points, strict=True))
        assert r["winner"] == PLAYERS[want.winner]
        assert r["flag"] is None
    assert Outbox(tmp_path / "journal.sqlite3").counts() == (len(rounds), 0)
    listener.close()


def test_a_hub_that_comes_late_gets_the_results_of_the_match_in_play(
        broker: Broker, tmp_path: Path) -> None:  # noqa: F811
    taps = scripted_taps(PLAYERS, 100, seed=7)
    store = tmp_path / "hub.sqlite3"
    config, listener, pad = table_one(broker, tmp_path)
    hub = None
    try:
        daemon, _ = start(config, pad)
        tap_all(daemon, pad, taps)
        listener.wait_for(lambda h: h.topic == "uno-table/1/result"
                          and h.json()["round"] == 2)  # sent to a broker with no hub on it
        hub = hub_on(broker, store)
        listener.wait_for(lambda h: h.topic == "uno-table/hub/standings"
                          and h.json()["results"] == 2)
        assert daemon.stop() == 0
    finally:
        if hub is not None:
            hub.terminate()
            hub.wait(30)
        reap()
        pad.close()
        listener.close()
    assert [r["id"] for r in HubStore(store).results()] == ["1/1/1", "1/1/2"]
