"""A table's publisher whose network work runs in a child process (``python -m
table.mqtt.sender``), so that none of it shares the referee's interpreter.

It offers what :class:`table.mqtt.publisher.Publisher` offers. The referee's thread queues
messages (:meth:`RemotePublisher.offer`, :meth:`RemotePublisher.remember`, with ``wake=False``)
and, once its verdict is out, :meth:`RemotePublisher.wake` pickles them into one frame and
writes it to the sender's pipe without waiting: a pipe that is full (a sender that cannot keep
up) leaves the rest to this side's own thread, and past ``capacity`` messages, or
:data:`BACKLOG` bytes waiting, new messages are dropped and counted. The JSON encoding and
paho's thread are the sender's.

Results stay in the daemon: written into the outbox (by this side's thread, so the referee
never waits for that commit), handed to the sender, marked sent when the sender reports the
broker's acknowledgement. A sender that dies is started again (after 0.1 s, doubling to 5 s
while it keeps dying before it connects); it gets the retained messages and every unsent
result again. A sender never outlives the daemon: it ends when its stdin closes.
"""

from __future__ import annotations

import logging
import os
import select
import subprocess
import threading
import time
from collections.abc import Iterable
from typing import Any, Final

from table import CHILD_FOLDER, child_command
from table.journal.outbox import Outbox
from table.mqtt.frames import frame, read_frame
from table.mqtt.publisher import CAPACITY, Delivery, Handler, Message, _paho
from table.mqtt.settings import MqttSettings

log = logging.getLogger(__name__)

BACKLOG: Final = 4 << 20  # bytes for the sender that its pipe did not take yet
SENDER: Final = child_command("table.mqtt.sender")  # isolated: no code from the current folder


class RemotePublisher(Delivery):
    """A table's client to the broker, its network in a sender process. ``availability``: the
    topic of the last will; ``subscriptions`` are handed to ``on_message`` (from this side's
    reading thread)."""

    def __init__(
        self,
        settings: MqttSettings,
        client_id: str,
        *,
        availability: str | None = None,
        outbox: Outbox | None = None,
        subscriptions: Iterable[str] = (),
        on_message: Handler | None = None,
        capacity: int = CAPACITY,
    ) -> None:
        _paho()  # missing: the one-line error now, not in the sender
        self.settings = settings
        self.availability = availability
        self.outbox = outbox
        self.on_message = on_message
        self.capacity = capacity
        self.dropped = 0  # messages dropped on a full queue (this side's or the sender's)
        self.connected = threading.Event()
        self.answered = threading.Event()  # the sender connected, or could not
        self.connections = 0
        self.senders = 0  # sender processes started
        self.proc: subprocess.Popen[bytes] | None = None
        self._hello = {"settings": settings, "client_id": client_id,
                       "availability": availability, "subscriptions": tuple(subscriptions),
                       "capacity": capacity, "level": logging.getLogger().getEffectiveLevel()}
        self._cond = threading.Condition()
        self._batch: list[tuple[str, Any, int, bool, bool]] = []
        self._retained: dict[str, Message] = {}
        self._backlog = bytearray()  # frames for the sender, not yet in its pipe
        self._keep: list[dict[str, Any]] = []  # results for the outbox
        self._again: list[str] = []
        self._resend = False
        self._stopping = threading.Event()
        self._acked = threading.Condition()
        self._worker = threading.Thread(target=self._work, name="mqtt", daemon=True)
        self._reader = threading.Thread(target=self._read, name="mqtt-sender", daemon=True)

    # --- any thread ---------------------------------------------------------------------------

    def start(self) -> None:
        """Start the sender process."""
        if self.availability is not None:
            self.remember(Message(self.availability, b"online", 1, True), wake=False)
        self._spawn()
        self._worker.start()
        self._reader.start()

    def offer(self, topic: str, payload: Any, qos: int = 0, retain: bool = False,
              wake: bool = True) -> bool:
        """Queue a message; False (and counted) when the queue is full. Never waits."""
        with self._cond:
            if len(self._batch) >= self.capacity:
                self.dropped += 1
                return False
            self._batch.append((topic, payload, qos, retain, False))
            if wake:
                self._flush()
        return True

    def wake(self) -> None:
        """Hand what was queued with ``wake=False`` to the sender."""
        with self._cond:
            self._flush()

    def remember(self, message: Message, wake: bool = True) -> None:
        """A retained message published now and again on every connection."""
        with self._cond:
            self._retained[message.topic] = message
            if len(self._batch) < self.capacity:
                self._batch.append((message.topic, message.payload, message.qos,
                                    message.retain, True))
                if wake:
                    self._flush()

    def republish(self) -> None:
        """Publish the retained messages again (Home Assistant came back)."""
        with self._cond:
            self._send(frame(("republish",)))

    def kick(self, results: Iterable[dict[str, Any]] = ()) -> None:
        """Results to keep in the outbox (written by this side's thread) and to send."""
        with self._cond:
            self._keep.extend(results)
            self._resend = True
            self._cond.notify()

    def send_again(self, prefix: str) -> None:
        """Send again the results whose ids start with ``prefix``."""
        with self._cond:
            self._again.append(prefix)
            self._cond.notify()

    def close(self, timeout: float = 5.0) -> None:
        """Deliver what waits (within ``timeout``), let the sender say ``offline`` and end.
        A sender still connecting (a table that stops at once), or waiting to connect again
        with results to deliver, is given ``timeout`` to."""
        if self._reader.is_alive():
            deadline = time.monotonic() + timeout
            self.answered.wait(timeout)
            self.drained(max(0.0, deadline - time.monotonic()))
        self._stopping.set()
        with self._cond:
            self._flush()
            self._send(frame(("close", timeout)))
            self._cond.notify()
        if self._worker.is_alive():
            self._worker.join(timeout + 5)
        proc = self.proc
        if proc is not None:
            try:
                proc.wait(timeout + 5)
            except subprocess.TimeoutExpired:
                log.warning("mqtt: the sender did not stop; ended")
                proc.kill()
                proc.wait()
        if self._reader.is_alive():
            self._reader.join(timeout)
        if proc is not None and proc.stdin is not None:
            proc.stdin.close()

    # --- under self._cond ---------------------------------------------------------------------

    def _flush(self) -> None:
        if not self._batch:
            return
        batch, self._batch = self._batch, []
        if len(self._backlog) > BACKLOG:
            self.dropped += len(batch)
            return
        self._send(frame(("batch", batch)))

    def _send(self, data: bytes) -> None:
        """Into the sender's pipe as far as it takes without waiting; the rest waits for the
        worker thread."""
        self._backlog += data
        self._write()
        if self._backlog:
            self._cond.notify()

    def _write(self) -> None:
        proc = self.proc
        if proc is None or proc.stdin is None or not self._backlog:
            return
        try:
            written = os.write(proc.stdin.fileno(), self._backlog)
        except BlockingIOError:
            return
        except (BrokenPipeError, OSError, ValueError):  # the sender is gone: a new one gets all
            self._backlog.clear()
            return
        del self._backlog[:written]

    # --- the worker thread: the outbox, and what the sender's pipe did not take ------------------

    def _work(self) -> None:
        while True:
            with self._cond:
                self._cond.wait_for(lambda: bool(self._keep) or bool(self._again)
                                    or self._resend or bool(self._backlog)
                                    or self._stopping.is_set())
                keep = list(self._keep)  # left there until kept: drained() waits for them
                again, self._again = self._again, []
                resend, self._resend = self._resend, False
                backlog = bool(self._backlog)
            for result in keep:
                self._store(result)
            if keep:
                with self._cond:
                    del self._keep[:len(keep)]
                with self._acked:
                    self._acked.notify_all()
            if self.outbox is not None and (resend or again):
                for prefix in again:
                    self.outbox.send_again(prefix)
                unsent = self.outbox.unsent()
                with self._cond:
                    if unsent:
                        self._send(frame(("results", unsent)))
                    for prefix in again:
                        self._send(frame(("again", prefix)))
            if backlog:
                self._wait_writable()
            if self._stopping.is_set():
                deadline = time.monotonic() + 5
                while self._backlog and time.monotonic() < deadline and self._wait_writable():
                    pass
                return

    def _wait_writable(self) -> bool:
        """Write more of the backlog once the sender's pipe has room (up to 0.5 s)."""
        proc = self.proc
        if proc is None or proc.stdin is None:
            return False
        try:
            select.select([], [proc.stdin], [], 0.5)
        except (OSError, ValueError):
            return False
        with self._cond:
            self._write()
        return True

    # --- the reading thread: what the sender reports --------------------------------------------

    def _spawn(self) -> None:
        proc = subprocess.Popen(SENDER, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                cwd=CHILD_FOLDER)
        assert proc.stdin is not None
        os.set_blocking(proc.stdin.fileno(), False)
        self.senders += 1
        with self._cond:
            retained = [(m.topic, m.payload, m.qos, m.retain, True)
                        for m in self._retained.values()]
            old, self.proc = self.proc, proc
            if old is not None and old.stdin is not None:
                old.stdin.close()
            self._backlog = bytearray(frame(self._hello))
            if retained:
                self._backlog += frame(("batch", retained))
            self._write()
            self._cond.notify()

    def _read(self) -> None:
        delay = 0.1
        while True:
            proc = self.proc
            assert proc is not None and proc.stdout is not None
            message = read_frame(proc.stdout)
            if message is None:
                self.connected.clear()
                self.answered.set()
                code = proc.wait()
                if self._stopping.is_set():
                    return
                log.error("mqtt: the sender process stopped (exit code %s); starting another",
                          code)
                if self._stopping.wait(delay):
                    return
                delay = min(delay * 2, 5.0)
                self._spawn()
                continue
            kind = message[0]
            if kind == "connected":
                delay = 0.1
                self.connections += 1
                self.connected.set()
                self.answered.set()
                with self._cond:
                    self._resend = True
                    self._cond.notify()
            elif kind in ("refused", "unreachable"):
                self.answered.set()
            elif kind == "lost":
                self.connected.clear()
            elif kind == "ack":
                if self.outbox is not None:
                    self.outbox.mark_sent(message[1])
                with self._acked:
                    self._acked.notify_all()
            elif kind == "message":
                if self.on_message is not None:
                    try:
                        self.on_message(message[1], message[2])
                    except Exception:  # a bad message must not stop this thread
                        log.exception("mqtt: message on %s could not be handled", message[1])
            elif kind == "closed":
                self.dropped += int(message[1])
            elif kind == "failed":
                log.error("%s", message[1])
                self.answered.set()
                self._stopping.set()
                return
