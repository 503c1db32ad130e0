"""``python -m table.mqtt.sender``: a table's connection to the broker, in a process of its own.

The table daemon starts it (:mod:`table.mqtt.sender_link`) so that paho's thread and the JSON
encoding of each event never share the referee's interpreter. It reads frames
(:mod:`table.mqtt.frames`) on stdin: first the settings, then batches of messages, results to
deliver, ``republish``, ``again`` and ``close``. It reports on stdout: ``connected``, ``lost``,
each result the broker acknowledged (``ack``), each message heard on the table's
subscriptions (``heard``), and ``failed`` when the settings cannot be used.

The connection itself is :class:`table.mqtt.publisher.Publisher`: retained messages again on
every connection, a last will ``offline``, ``offline`` published on ``close``. Results are kept
here only in memory (:class:`Pending`): the table's outbox is in the daemon, which marks a
result sent when this process reports its acknowledgement. When stdin closes without ``close``
(the daemon was killed), the process ends at once, without a clean disconnect, so that the
broker publishes the last will.
"""

from __future__ import annotations

import contextlib
import logging
import os
import pickle
import signal
import sys
import threading
from collections.abc import Callable
from typing import IO, Any, Final

from table.mqtt.frames import frame, read_frame
from table.mqtt.publisher import Message, MqttError, Publisher

log = logging.getLogger(__name__)
ToDaemon = Callable[[tuple[Any, ...]], None]  # news for the daemon: an ack, the link, a message
NICE: Final = 10
HELLO: Final = frozenset({"settings", "client_id", "availability", "subscriptions", "capacity",
                          "level"})


class Pending:
    """The results handed over by the daemon and not yet acknowledged (the outbox's part that
    :class:`Publisher` uses); an acknowledgement is reported to the daemon, which keeps the
    outbox."""

    def __init__(self, report: ToDaemon) -> None:
        self.report = report
        self._lock = threading.Lock()
        self._unsent: dict[str, dict[str, Any]] = {}

    def add(self, result: dict[str, Any]) -> bool:
        """Keep a result until acknowledged; False when one with its id is kept already."""
        with self._lock:
            if str(result["id"]) in self._unsent:
                return False
            self._unsent[str(result["id"])] = result
            return True

    def unsent(self) -> list[dict[str, Any]]:
        """The results not yet acknowledged, in the order handed over."""
        with self._lock:
            return list(self._unsent.values())

    def mark_sent(self, result_id: str) -> None:
        """Forget an acknowledged result and tell the daemon (which keeps the outbox)."""
        with self._lock:
            self._unsent.pop(result_id, None)
        self.report(("ack", result_id))

    def send_again(self, prefix: str) -> int:
        """Nothing to do here: the daemon hands the results over again itself; always 0."""
        return 0  # the daemon hands them over again; what is here goes again anyway

    def counts(self) -> tuple[int, int]:
        """(sent, waiting): only the waiting are known here."""
        with self._lock:
            return 0, len(self._unsent)


class ReportingPublisher(Publisher):
    """A :class:`Publisher` that tells the daemon when the broker comes and goes."""

    report: ToDaemon

    def _on_connect(self, client: Any, userdata: Any, flags: Any, reason: Any,
                    properties: Any = None) -> None:
        super()._on_connect(client, userdata, flags, reason, properties)
        self.report(("refused",) if reason.is_failure else ("connected",))

    def _on_connect_fail(self, client: Any, userdata: Any) -> None:
        self.report(("unreachable",))

    def _on_disconnect(self, client: Any, userdata: Any, flags: Any, reason: Any,
                       properties: Any = None) -> None:
        super()._on_disconnect(client, userdata, flags, reason, properties)
        self.report(("lost",))


def serve(inp: IO[bytes], out: IO[bytes]) -> int:
    """The sender: settings from ``inp``, then messages for the broker until ``close``."""
    lock = threading.Lock()

    def report(obj: tuple[Any, ...]) -> None:
        with lock:
            try:
                out.write(frame(obj))
                out.flush()
            except (BrokenPipeError, ValueError):
                os._exit(0)  # the daemon is gone: the broker's last will says so

    try:
        hello = read_frame(inp)
        if hello is not None and not (isinstance(hello, dict) and hello.keys() >= HELLO):
            raise ValueError("not the settings")
    except (pickle.UnpicklingError, EOFError, ValueError, TypeError, AttributeError,
            ImportError, IndexError) as exc:
        print(f"table.mqtt.sender: stdin: not a table daemon's frames ({exc}); the daemon "
              "starts this process itself, with [mqtt] in its configuration", file=sys.stderr)
        return 2
    if hello is None:
        return 0
    logging.getLogger().setLevel(hello["level"])
    pending = Pending(report)
    try:
        publisher = ReportingPublisher(
            hello["settings"], hello["client_id"], availability=hello["availability"],
            outbox=pending, subscriptions=hello["subscriptions"],
            on_message=lambda topic, payload: report(("message", topic, payload)),
            capacity=hello["capacity"])
        publisher.report = report
        publisher.client.on_connect_fail = publisher._on_connect_fail
        publisher.start()
    except MqttError as exc:
        report(("failed", str(exc)))
        return 2
    while True:
        message = read_frame(inp)
        if message is None:  # the daemon was killed: no clean disconnect, the will fires
            os._exit(0)
        kind = message[0]
        if kind == "batch":
            for topic, payload, qos, retain, keep in message[1]:
                if keep:
                    publisher.remember(Message(topic, payload, qos, retain), wake=False)
                else:
                    publisher.offer(topic, payload, qos, retain, wake=False)
            publisher.wake()
        elif kind == "results":
            publisher.kick(message[1])
        elif kind == "again":
            publisher.send_again(message[1])
        elif kind == "republish":
            publisher.republish()
        elif kind == "close":
            publisher.close(message[1])
            report(("closed", publisher.dropped))
            return 0


def main() -> int:
    """Run the sender on stdin and stdout, niced, deaf to Ctrl-C and SIGTERM."""
    # Ctrl-C at the daemon's terminal, or systemd stopping the service, signals the whole
    # group: the daemon stops its sender itself (``close``), after the last results.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    # Behind the referee for the CPU: when both want a core, the next tap goes first; the
    # events of the last one can wait a few milliseconds.
    with contextlib.suppress(OSError):  # a sandbox that refuses it: it runs all the same
        os.nice(NICE)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    return serve(sys.stdin.buffer, sys.stdout.buffer)


if __name__ == "__main__":
    sys.exit(main())
