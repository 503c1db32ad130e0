"""The publisher: a table's (or the hub's) connection to the broker, in threads of its own.

The referee's thread only ever calls :meth:`Publisher.offer` (or :meth:`Publisher.kick`), which
appends to a bounded queue under a lock held for an instant and never waits for the network:
when the queue is full (a broker that cannot keep up) the message is dropped and counted, the
game goes on. Retained messages (state, availability, discovery) are remembered and published
again on each connection, so a broker that restarts gets them back. Results never go through
the queue: they wait in the outbox (:mod:`table.journal.outbox`) and are sent from there with
QoS 1 on every connection and on every kick, and marked sent when the broker acknowledges them.

paho-mqtt runs the network in its own thread (``loop_start``) and reconnects by itself; the
availability topic carries a last will (``offline``, retained), and ``offline`` is published on a
clean stop, since a clean disconnect does not fire the will.
"""

from __future__ import annotations

import json
import logging
import sqlite3
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Final, Protocol

from table.errors import TableError
from table.journal.outbox import OutboxError
from table.mqtt.settings import MqttSettings

log = logging.getLogger(__name__)

# What a handler raises when it could not keep a message: the message stays unacknowledged.
STORAGE: Final = (OSError, sqlite3.Error)
CAPACITY: Final = 1000  # messages waiting for the network before new ones are dropped
Handler = Callable[[str, bytes], None]


class Results(Protocol):
    """Where the results to deliver wait: the outbox (:class:`table.journal.outbox.Outbox`),
    or the sender process's share of it (:class:`table.mqtt.sender.Pending`)."""

    def add(self, result: dict[str, Any]) -> bool:
        """Keep results to send."""

    def unsent(self) -> list[dict[str, Any]]:
        """The results not acknowledged yet."""

    def mark_sent(self, result_id: str) -> None:
        """A result the broker acknowledged."""

    def send_again(self, prefix: str) -> int:
        """Send again the results whose ids start with ``prefix``."""

    def counts(self) -> tuple[int, int]:
        """Results acknowledged and still waiting."""


class MqttError(TableError, RuntimeError):
    """paho-mqtt is missing, or the broker settings cannot be used."""


@dataclass(frozen=True, slots=True)
class Message:
    """A message to publish. ``payload``: bytes, text, or anything JSON can write, encoded in
    the publisher's thread (never in the referee's)."""

    topic: str
    payload: Any
    qos: int = 0
    retain: bool = False


def encode(payload: Any) -> bytes:
    """A payload as the bytes published (JSON, or bytes as they are)."""
    if isinstance(payload, bytes):
        return payload
    if isinstance(payload, str):
        return payload.encode()
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode()


def _paho() -> Any:
    try:
        import paho.mqtt.client as mqtt
    except ImportError:
        raise MqttError("MQTT needs paho-mqtt: pip install 'uno-table[mqtt]'") from None
    return mqtt


class Delivery:
    """What both publishers (this one and :class:`table.mqtt.sender_link.RemotePublisher`) do with
    the results they deliver: keep them in the outbox, and wait until it is empty."""

    outbox: Results | None
    _keep: list[dict[str, Any]]  # results for the outbox, not kept yet
    _acked: threading.Condition  # told when a result is kept or acknowledged

    def drained(self, timeout: float) -> bool:
        """Wait until the outbox has nothing unsent (or ``timeout``); whether it is empty."""
        if self.outbox is None:
            return True
        deadline = time.monotonic() + timeout
        with self._acked:
            while self._keep or self.outbox.counts()[1]:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._acked.wait(left)
        return True

    def _store(self, result: dict[str, Any]) -> None:
        assert self.outbox is not None
        try:
            self.outbox.add(result)
        except OutboxError as exc:  # a full disk: the journal has the round all the same, and
            # the next start keeps its result again from there
            log.error("mqtt: %s", exc)


class Publisher(Delivery):
    """One client to the broker. ``availability`` is the topic of the last will (None: no
    will, as for a command that only reads). ``subscriptions`` are handed to ``on_message``
    from paho's thread. ``persistent``: the broker keeps this client's subscriptions and
    queues its QoS 1 messages while it is away (a session that is not clean, under a fixed
    client id): what the hub needs so that a result sent while it reconnects still reaches it.
    A message is acknowledged to the broker (PUBACK) only once ``on_message`` has returned
    (paho's manual acknowledgements): what it kept durably is kept before the broker lets go.
    One whose keeping failed (a :data:`STORAGE` error: the disk, the database) stays the
    broker's, to be sent again on the next connection; one that raised anything else is
    logged and acknowledged, since it would fail the same way again and, unacknowledged, hold
    one of the broker's in-flight slots (20 in Mosquitto) until the hub hears nothing more.
    """

    def __init__(
        self,
        settings: MqttSettings,
        client_id: str,
        *,
        availability: str | None = None,
        outbox: Results | None = None,
        subscriptions: Iterable[str] = (),
        on_message: Handler | None = None,
        capacity: int = CAPACITY,
        persistent: bool = False,
    ) -> None:
        mqtt = _paho()
        self.settings = settings
        self.availability = availability
        self.outbox = outbox
        self.subscriptions = tuple(subscriptions)
        self.on_message = on_message
        self.capacity = capacity
        self.dropped = 0  # messages dropped on a full queue
        self.connected = threading.Event()
        self._gone = threading.Event()  # told when paho has closed the connection
        self.connections = 0
        self._cond = threading.Condition()
        self._items: deque[Message] = deque()
        self._retained: dict[str, Message] = {}
        self._reconnected = False
        self._kicked = False
        self._keep: list[dict[str, Any]] = []  # results for the outbox
        self._again: list[str] = []  # id prefixes of results to send again
        self._stopping = False
        self._inflight: dict[int, str] = {}  # paho message id -> result id (this thread's)
        self._acks: deque[int] = deque()  # message ids the broker acknowledged
        self._sending: set[str] = set()  # result ids sent on this connection (this thread's)
        self._acked = threading.Condition()
        client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=client_id,
                             protocol=mqtt.MQTTv311, clean_session=not persistent,
                             manual_ack=True)
        if settings.username:
            client.username_pw_set(settings.username, settings.password)
        if settings.tls:
            client.tls_set(ca_certs=str(settings.ca_file) if settings.ca_file else None)
        if availability is not None:
            client.will_set(availability, b"offline", qos=1, retain=True)
        client.reconnect_delay_set(min_delay=0.1, max_delay=5)
        client.on_connect = self._on_connect
        client.on_disconnect = self._on_disconnect
        client.on_publish = self._on_publish
        client.on_message = self._on_message
        self.client = client
        self._thread = threading.Thread(target=self._run, name="mqtt", daemon=True)

    # --- any thread ---------------------------------------------------------------------------

    def start(self) -> None:
        """Connect in the background (paho's thread and ours)."""
        if self.availability is not None:
            self.remember(Message(self.availability, b"online", 1, True))
        try:
            self.client.connect_async(self.settings.host, self.settings.port,
                                      self.settings.keepalive)
        except ValueError as exc:  # paho's own check of host and port
            raise MqttError(f"mqtt: {self.settings.host}:{self.settings.port}: {exc}") from None
        self.client.loop_start()
        self._thread.start()

    def offer(self, topic: str, payload: Any, qos: int = 0, retain: bool = False,
              wake: bool = True) -> bool:
        """Queue a message; False (and counted) when the queue is full. Never waits.
        ``wake=False``: the caller will :meth:`wake` the publisher when it is done (the
        referee does, after its verdict is out, so that the publisher's thread does not take
        the interpreter from it in the middle of a tap)."""
        message = Message(topic, payload, qos, retain)
        with self._cond:
            if len(self._items) >= self.capacity:
                self.dropped += 1
                return False
            self._items.append(message)
            if wake:
                self._cond.notify()
        return True

    def wake(self) -> None:
        """Publish what was queued with ``wake=False``."""
        with self._cond:
            if self._items:
                self._cond.notify()

    def remember(self, message: Message, wake: bool = True) -> None:
        """A retained message published now (when connected) and again on every connection."""
        with self._cond:
            self._retained[message.topic] = message
            if self.connected.is_set() and len(self._items) < self.capacity:
                self._items.append(message)
                if wake:
                    self._cond.notify()

    def republish(self) -> None:
        """Publish every remembered retained message again (Home Assistant came back)."""
        with self._cond:
            self._reconnected = True
            self._cond.notify()

    def kick(self, results: Iterable[dict[str, Any]] = ()) -> None:
        """Results to keep in the outbox (written there in the publisher's thread, so the
        referee never waits for that commit) and to send."""
        with self._cond:
            self._keep.extend(results)
            self._kicked = True
            self._cond.notify()

    def send_again(self, prefix: str) -> None:
        """Send the outbox's results whose id starts with ``prefix`` again, sent or not."""
        with self._cond:
            self._again.append(prefix)
            self._kicked = True
            self._cond.notify()

    def close(self, timeout: float = 5.0) -> None:
        """Deliver what waits (within ``timeout``), say ``offline``, disconnect."""
        if self.connected.is_set():
            self.drained(timeout)
        with self._cond:
            self._stopping = True
            self._cond.notify()
        if self._thread.is_alive():  # never started: nothing to join
            self._thread.join(timeout)
        if self.availability is not None and self.connected.is_set():
            info = self.client.publish(self.availability, b"offline", qos=1, retain=True)
            try:
                info.wait_for_publish(timeout)
            except (RuntimeError, ValueError):
                log.warning("mqtt: offline could not be published; the last will says it")
        self._gone.clear()
        if self.client.disconnect() == 0:  # queued behind the acknowledgements not written yet:
            self._gone.wait(timeout)  # paho says it is gone once all of them are out
        self.client.loop_stop()

    # --- paho's thread ------------------------------------------------------------------------

    def _on_connect(self, client: Any, userdata: Any, flags: Any, reason: Any,
                    properties: Any = None) -> None:
        if reason.is_failure:
            log.warning("mqtt: %s:%d refused the connection: %s", self.settings.host,
                        self.settings.port, reason)
            return
        self.connections += 1
        log.info("mqtt: connected to %s:%d", self.settings.host, self.settings.port)
        for topic in self.subscriptions:
            client.subscribe(topic, qos=1)
        self.connected.set()
        with self._cond:
            self._reconnected = True
            self._cond.notify()

    def _on_disconnect(self, client: Any, userdata: Any, flags: Any, reason: Any,
                       properties: Any = None) -> None:
        self.connected.clear()
        self._gone.set()
        if not self._stopping:
            log.warning("mqtt: lost the broker (%s); reconnecting", reason)

    def _on_publish(self, client: Any, userdata: Any, mid: int, reason: Any = None,
                    properties: Any = None) -> None:
        # Handed to the publisher's thread, which noted the message's id right after it
        # published it (paho holds its own locks here: nothing of ours may wait for them).
        if self.outbox is not None:
            with self._cond:
                self._acks.append(mid)
                self._cond.notify()

    def _on_message(self, client: Any, userdata: Any, message: Any) -> None:
        try:
            if self.on_message is not None:
                self.on_message(message.topic, bytes(message.payload))
        except STORAGE:  # not kept: the broker's still, sent again on the next connection
            log.exception("mqtt: message on %s could not be kept; left to the broker, which "
                          "sends it again on the next connection", message.topic)
            return
        except Exception:  # a bad message must not stop the network thread, nor hold one of
            # the broker's in-flight slots for good: it would come back as bad as it was
            log.exception("mqtt: message on %s could not be handled; acknowledged all the same",
                          message.topic)
        if message.qos:
            client.ack(message.mid, message.qos)  # after whatever it kept is on the disk

    # --- the publisher's thread ---------------------------------------------------------------

    def _run(self) -> None:
        while True:
            with self._cond:
                self._cond.wait_for(lambda: bool(self._items) or bool(self._acks)
                                    or self._reconnected or self._kicked or self._stopping)
                items = list(self._items)
                self._items.clear()
                acks = list(self._acks)
                self._acks.clear()
                again = self._reconnected
                kicked = self._kicked
                self._reconnected = self._kicked = False
                keep, self._keep = self._keep, []
                resend, self._again = self._again, []
                stopping = self._stopping
                retained = list(self._retained.values()) if again else []
            if acks:
                self._mark(acks)
            for message in retained:
                self._publish(message)
            for message in items:
                self._publish(message)
            for result in keep:
                self._store(result)
            if keep:
                with self._acked:
                    self._acked.notify_all()
            if resend and self.outbox is not None:
                for prefix in resend:
                    self.outbox.send_again(prefix)
                again = True
            if again or kicked:
                self._send_outbox(again)
            if stopping:
                return

    def _publish(self, message: Message) -> None:
        if message.retain:
            with self._cond:
                self._retained[message.topic] = message
        self.client.publish(message.topic, encode(message.payload), message.qos,
                            message.retain)

    def _send_outbox(self, again: bool) -> None:
        """Send the unsent results: all of them on a new connection (``again``), else only
        those not sent yet on this one."""
        if self.outbox is None or not self.connected.is_set():
            return
        if again:
            self._sending.clear()
            self._inflight.clear()
        for result in self.outbox.unsent():
            rid = str(result["id"])
            if rid in self._sending and not again:
                continue
            self._sending.add(rid)
            topic = self.settings.topic("result", str(result["table"]))
            info = self.client.publish(topic, encode(result), qos=1)
            self._inflight[info.mid] = rid

    def _mark(self, acks: list[int]) -> None:
        assert self.outbox is not None
        done = [rid for rid in (self._inflight.pop(mid, None) for mid in acks) if rid]
        for rid in done:
            self._sending.discard(rid)  # handed over again later: sent again
            self.outbox.mark_sent(rid)
        if done:
            with self._acked:
                self._acked.notify_all()
