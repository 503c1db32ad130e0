"""The hub keeps a result on the disk before it tells the broker it has it (PUBACK): a table
that got its PUBACK never sends that result again, so a power cut of the organiser's machine
just after must not take it back.

Shown on the real hub process against a real Mosquitto broker, traced with strace: every
PUBACK of a result follows an fsync of the hub's store. And a result the hub could not keep
(its handler raised) is not acknowledged: the broker sends it again on the next connection."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path

from mqtt_harness import Broker, Listener, broker  # noqa: F401  (the fixture)
from test_hub_messages import result

from table.mqtt.publisher import Publisher
from table.mqtt.settings import MqttSettings

CLI = [sys.executable, "-m", "table.commands.cli"]
RESULTS = 5
# A finished call: "PID fsync(FD</path>) = 0", "PID <... fsync resumed>) = 0", or a write or a
# send on a socket (bytes out of ASCII in hex, -x).
CALL = re.compile(r"^(\d+) +(?:(\w+)\((\d+)<([^>]*)>(.*)|<\.\.\. (\w+) resumed>(.*))$")


def trace_order(trace: str, store: Path) -> list[str]:
    """The trace as a list of what matters, in order: ``sync`` (an fsync of the hub's store or
    its WAL, done) and ``puback`` (a PUBACK written to the broker)."""
    pending: dict[str, str] = {}  # pid -> what its unfinished call was
    order = []
    for line in trace.splitlines():
        found = CALL.match(line)
        if not found:
            continue
        pid, call, _, path, rest, _, after = found.groups()
        if call is not None:
            if call in ("fsync", "fdatasync"):
                what = "sync" if path.startswith(str(store)) else ""
            else:  # a write: a PUBACK is 0x40 0x02 and the message id
                what = "puback" if rest.startswith(', "\\x40\\x02') else ""
            if "<unfinished ...>" in rest:
                pending[pid] = what
                continue
        else:
            what, rest = pending.pop(pid, ""), after
        if what and re.search(r"= \d+", rest):
            order.append(what)
    return order


def test_every_result_is_on_the_disk_before_its_puback(
        broker: Broker, tmp_path: Path) -> None:  # noqa: F811
    assert shutil.which("strace"), "strace not found: sudo sh .ci/sysdeps.sh test"
    store = tmp_path / "hub.sqlite3"
    trace = tmp_path / "trace"
    listener = Listener(broker.port, ("uno-table/hub/standings",))
    cmd = ["strace", "-f", "-qq", "-y", "-x", "-s", "8", "-o", str(trace),
           "-e", "trace=fsync,fdatasync,write,sendto,sendmsg", "-e", "signal=none",
           *CLI, "hub", "--mqtt", f"127.0.0.1:{broker.port}", "--store", str(store)]
    hub = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        listener.wait_for(lambda h: True)
        for rnd in range(1, RESULTS + 1):  # one at a time: each its own commit and PUBACK
            listener.client.publish("uno-table/2/result", json.dumps(result(rnd=rnd)), qos=1)
            listener.wait_for(lambda h, n=rnd: h.json()["results"] == n)
    finally:
        children = Path(f"/proc/{hub.pid}/task/{hub.pid}/children").read_text().split()
        os.kill(int(children[0]), signal.SIGTERM)  # the hub itself, strace's child
        _, err = hub.communicate(timeout=60)
        listener.close()
    assert "Traceback" not in err
    order = trace_order(trace.read_text(), store)
    # The PUBACKs that follow a sync since the one before them; the hub's own availability,
    # read back, is acknowledged with nothing to keep.
    synced, since = 0, False
    for what in order:
        if what == "sync":
            since = True
        else:
            synced, since = synced + since, False
    assert synced >= RESULTS, order


def subscribed(port: int, handler: Callable[[str, bytes], None]) -> Publisher:
    """The hub's kind of client (a persistent session on ``t/#``), connected."""
    client = Publisher(MqttSettings("127.0.0.1", port), "hub-test", subscriptions=["t/#"],
                       on_message=handler, persistent=True)
    client.start()
    assert client.connected.wait(10)
    return client


def test_a_message_the_handler_cannot_keep_is_sent_again(
        broker: Broker, tmp_path: Path) -> None:  # noqa: F811
    heard: list[bytes] = []
    arrived = threading.Event()

    def failing(topic: str, payload: bytes) -> None:
        if payload == b"kept once":
            raise OSError("disk full")  # as a store that cannot write
        arrived.set()  # the next message: the one before is done with, acknowledged or not

    def keeping(topic: str, payload: bytes) -> None:
        heard.append(payload)
        arrived.set()

    first = subscribed(broker.port, failing)
    sender = Listener(broker.port, ("none",))
    for payload in (b"kept once", b"next"):
        sender.client.publish("t/1", payload, qos=1).wait_for_publish(10)
    assert arrived.wait(30)
    first.close()
    broker.wait_for_log("Client hub-test disconnected.")
    arrived.clear()
    again = subscribed(broker.port, keeping)
    try:
        assert arrived.wait(30), "the broker did not send the message again"
        assert heard == [b"kept once"]
    finally:
        again.close()
        sender.close()


def test_a_message_the_handler_refuses_is_acknowledged_and_frees_its_slot(
        broker: Broker, tmp_path: Path) -> None:  # noqa: F811
    """A message that raised something other than a storage error would fail the same way
    again: left unacknowledged, each held one of the broker's in-flight slots (20 in
    Mosquitto) until the hub heard nothing more. Acknowledged after its logged failure, the
    messages behind it still arrive, and it is not sent again on the next connection."""
    bad = 25  # more than the broker's in-flight slots
    heard: list[bytes] = []
    refused: list[bytes] = []
    arrived = {b"good": threading.Event(), b"after": threading.Event()}

    def refusing(topic: str, payload: bytes) -> None:
        if payload.startswith(b"bad"):
            refused.append(payload)
            raise ValueError("not a result")  # as a check that refuses it
        heard.append(payload)
        arrived[payload].set()

    first = subscribed(broker.port, refusing)
    sender = Listener(broker.port, ("none",))
    try:
        for n in range(bad):
            sender.client.publish("t/1", b"bad %d" % n, qos=1).wait_for_publish(10)
        sender.client.publish("t/1", b"good", qos=1).wait_for_publish(10)
        assert arrived[b"good"].wait(30), "the refused messages held every in-flight slot"
        assert heard == [b"good"] and len(refused) == bad
        first.close()
        # The hub's next start comes after the broker has read this one's acknowledgements: a
        # new connection under the same name that it takes first drops what it had not read.
        broker.wait_for_log("Client hub-test disconnected.")
        heard.clear()
        again = subscribed(broker.port, refusing)
        try:
            sender.client.publish("t/1", b"after", qos=1).wait_for_publish(10)
            assert arrived[b"after"].wait(30)
            # "good" may come again (its PUBACK can trail the close); nothing refused does
            assert heard[-1] == b"after" and set(heard) <= {b"good", b"after"}
            assert len(refused) == bad
        finally:
            again.close()
    finally:
        sender.close()
