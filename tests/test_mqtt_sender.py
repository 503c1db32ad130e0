"""The table's sender process (``python -m table.mqtt.sender``): the daemon's network work in a
process of its own. A sender killed mid-match is replaced and no result is lost; a daemon
killed with SIGKILL leaves no sender behind; a sender that does not read never holds up the
referee. Real daemons, a real Mosquitto."""

from __future__ import annotations

import os
import queue
import select
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from daemon_harness import reap, start, tap_all
from mqtt_harness import Broker, Heard, Listener, broker, free_port  # noqa: F401  (the fixture)
from test_mqtt_outbox import PLAYERS, table_one

from sim.players.scripted import scripted_taps
from table.journal.outbox import Outbox
from table.mqtt import sender_link
from table.mqtt.frames import frame
from table.mqtt.publisher import Publisher
from table.mqtt.sender import Pending
from table.mqtt.sender_link import RemotePublisher
from table.mqtt.settings import MqttSettings

BOUND = 60.0  # seconds a wait may take on a busy machine before the test fails


def sender_of(pid: int) -> int:
    """The pid of the sender process of daemon ``pid`` (its one child running the sender)."""
    children = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        children += (task / "children").read_text().split()
    senders = [int(c) for c in children
               if b"table.mqtt.sender" in Path(f"/proc/{c}/cmdline").read_bytes()]
    assert len(senders) == 1, senders
    return senders[0]


def ended(pid: int, timeout: float = 30.0) -> bool:
    """Wait for process ``pid`` (not ours to reap) to end: its pidfd becomes readable."""
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        return True
    try:
        return bool(select.select([fd], [], [], timeout)[0])
    finally:
        os.close(fd)


def availability(listener: Listener, payload: bytes, after: int) -> int:
    """Wait for the table's availability ``payload`` heard after the first ``after``
    messages; the number of messages heard up to it."""
    def later(h: Heard) -> bool:
        return (h.topic == "uno-table/1/availability" and h.payload == payload
                and any(x is h for x in listener.seen[after:]))
    heard = listener.wait_for(later)
    return next(n for n, x in enumerate(listener.seen, start=1) if x is heard)


def test_a_killed_sender_is_replaced_and_no_result_is_lost(
        broker: Broker, tmp_path: Path) -> None:  # noqa: F811
    taps = scripted_taps(PLAYERS, 100, seed=7)
    config, listener, pad = table_one(broker, tmp_path)
    try:
        daemon, _ = start(config, pad)
        heard = availability(listener, b"online", 0)
        first = sender_of(daemon.proc.pid)
        os.kill(first, 9)
        assert ended(first)
        heard = availability(listener, b"offline", heard)  # its last will
        tap_all(daemon, pad, taps)  # the referee goes on, each verdict in its turn
        availability(listener, b"online", heard)  # a new sender, connected
        assert sender_of(daemon.proc.pid) != first
        results = [listener.wait_for(lambda h, k=k: h.topic == "uno-table/1/result"
                                     and h.json()["round"] == k).json() for k in (1, 2)]
        assert [r["id"] for r in results] == ["1/1/1", "1/1/2"]
        assert daemon.stop() == 0
    finally:
        reap()
        pad.close()
        listener.close()
    assert any("the sender process stopped" in line for line in daemon.stderr)
    assert Outbox(tmp_path / "journal.sqlite3").counts() == (2, 0)


def test_the_sender_yields_the_cpu_and_a_sigkilled_daemon_leaves_no_sender(
        broker: Broker, tmp_path: Path) -> None:  # noqa: F811
    config, listener, pad = table_one(broker, tmp_path)
    try:
        daemon, _ = start(config, pad)
        heard = availability(listener, b"online", 0)
        sender = sender_of(daemon.proc.pid)
        # behind the referee for the CPU (unless the daemon is as far back as can be)
        nice = os.getpriority(os.PRIO_PROCESS, daemon.proc.pid)
        assert os.getpriority(os.PRIO_PROCESS, sender) == min(19, nice + 10)
        daemon.kill9()
        assert ended(sender), "the sender outlived its daemon"
        availability(listener, b"offline", heard)  # no clean disconnect: the last will
    finally:
        reap()
        pad.close()
        listener.close()


def test_a_sender_that_does_not_read_never_holds_up_the_referee(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The sender's pipe fills up: the messages beyond what waits for it are dropped and
    counted, and each offer returns at once; closing ends the sender all the same."""
    # A sender that never reads and outlives the test: an offer that waited for it would wait
    # until close() kills it, long after the bound below.
    monkeypatch.setattr(sender_link, "SENDER", [sys.executable, "-c",
                                                "import time; time.sleep(3600)"])
    settings = MqttSettings("127.0.0.1", free_port(), table="9")
    publisher = RemotePublisher(settings, "t9")
    publisher.start()
    payload = {"text": "x" * 1000}
    offered = threading.Event()

    def offer_all() -> None:
        for i in range(10_000):
            publisher.offer("uno-table/9/event", {"n": i, **payload})  # 10 MB, past the backlog
        offered.set()

    threading.Thread(target=offer_all, daemon=True).start()
    # The bound only ends a test whose offers are stuck; it measures no speed.
    assert offered.wait(BOUND), "an offer waited for a sender that does not read"
    assert publisher.dropped > 0
    proc = publisher.proc
    assert proc is not None
    publisher.close(timeout=0.1)
    assert proc.returncode is not None


def test_the_sender_stays_for_the_daemon_to_stop_it(
        broker: Broker, tmp_path: Path) -> None:  # noqa: F811
    """Ctrl-C at a terminal, or systemd stopping the service, signals the sender too: it
    stays, and ends when its daemon has delivered the last results and stops it."""
    taps = scripted_taps(PLAYERS, 100, seed=7)
    config, listener, pad = table_one(broker, tmp_path)
    try:
        daemon, _ = start(config, pad)
        heard = availability(listener, b"online", 0)
        sender = sender_of(daemon.proc.pid)
        os.kill(sender, signal.SIGINT)
        os.kill(sender, signal.SIGTERM)
        tap_all(daemon, pad, taps)
        assert daemon.stop() == 0
        assert ended(sender)
        availability(listener, b"offline", heard)
    finally:
        reap()
        pad.close()
        listener.close()
    assert not any("the sender process stopped" in line for line in daemon.stderr)
    assert Outbox(tmp_path / "journal.sqlite3").counts() == (2, 0)


def test_a_result_handed_over_again_after_its_acknowledgement_goes_again(
        broker: Broker) -> None:  # noqa: F811
    """The daemon hands the sender its unsent results again (on each connection) while an
    acknowledgement is on its way back: the sender sends such a result again (the hub counts
    its id once) rather than keeping it for ever, unsent, and stalling its clean stop."""
    acks: queue.Queue[tuple[Any, ...]] = queue.Queue()
    pending = Pending(lambda m: acks.put(m) if m[0] == "ack" else None)
    publisher = Publisher(MqttSettings("127.0.0.1", broker.port, table="5"), "t5",
                          outbox=pending)
    publisher.start()
    result = {"id": "5/1/1", "table": "5", "round": 1}
    try:
        for _ in range(2):
            publisher.kick([result])
            assert acks.get(timeout=30) == ("ack", "5/1/1")
            assert pending.counts() == (0, 0)
    finally:
        publisher.close()


@pytest.mark.parametrize("stdin", [b"\x00\x00\x00\x05junk!", frame({"host": "h"})])
def test_the_sender_started_by_hand_refuses_in_one_line(stdin: bytes) -> None:
    done = subprocess.run([sys.executable, "-m", "table.mqtt.sender"], input=stdin,
                          capture_output=True, timeout=60)
    assert done.returncode == 2
    lines = done.stderr.decode().splitlines()
    assert len(lines) == 1 and "not a table daemon's frames" in lines[0], lines
