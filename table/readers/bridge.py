"""The ``bridge`` reader backend: up to four readers on one microcontroller board over USB serial.

Several ``[[readers]]`` entries share a board: same ``port``, different ``channel``. Each port
has one :class:`BridgePort` (one connection, one transport thread) that decodes the frames
(:mod:`firmware_bridge.codec`), follows the board (:mod:`firmware_bridge.board_state`) and hands
each channel's reads to that reader's sink under that reader's name.

States reported per reader: ``connecting`` until the board identifies itself, ``live``, and
``lost`` when the port goes away, when the heartbeat stops (``heartbeat_timeout`` seconds
without a valid frame), or when the board reports no chip on that channel. The port is
reopened by its stable path with a backoff; a board reset is noticed from its boot message
and reads resume without repeating the tags that stayed on their readers.
"""

from __future__ import annotations

import logging
import os
import queue
import threading
import time
from collections.abc import Callable
from typing import Any

from firmware_bridge.board_state import BoardState, BoardUp, Event, Read, Removed, Reply
from firmware_bridge.codec import Decoder, encode
from firmware_bridge.errors import BridgeError
from firmware_bridge.messages import (
    ACK_STATUS,
    MAX_READERS,
    PROTOCOL_VERSION,
    TYPES,
    Message,
    pack,
    unpack,
)
from table.inputs import ReaderStatus, TagLifted, TagRead
from table.readers.base import Sink
from table.readers.factory import Reader, ReaderError, ReaderSpec

log = logging.getLogger(__name__)

BAUD = 115200
HEARTBEAT_TIMEOUT = 1.5  # seconds; the board sends one every 0.25 s
EXTRA_KEYS = ("heartbeat_timeout", "poll_ms", "gain", "misses")  # the bridge's own reader keys
POLL_MS = (10, 1000)  # the poll intervals the firmware accepts
GAINS = (18, 23, 33, 38, 43, 48)  # the MFRC522's receiver gains in dB (set_radio)
MISSES = (1, 20)  # empty polls before a tag counts as removed (set_radio)
RADIO_DEFAULT = (33, 3)  # the firmware's default build: GAIN=33 MISSES=3
# Settings the firmware is built with (no message sets them): a key for them in the config is
# refused with the build that gives them (docs/hardware.md, "Reader settings").
BUILT_IN = {
    "fields": "built into the firmware: make TURN_FIELDS=0x0E (a bit a channel)",
    "speed_hz": "fixed by the firmware at 8 MHz, within the MFRC522's 10 MHz",
    "confirm": "not a bridge setting: the board reports a tag at its first whole read",
}
INFO_RETRY = 1.0  # seconds between get_info requests until the board answers
# A partial frame is given up when the line has been quiet this long: some 60 frame times, well
# past a USB-serial chip's packet latency (16 ms) or a pause of a busy host, and still before
# the board's next heartbeat would have pushed the frames held behind it out anyway.
LINE_QUIET = 0.2


class BridgePort:
    """One board on one serial port, shared by the readers of its channels."""

    def __init__(
        self,
        port: str,
        *,
        heartbeat_timeout: float = HEARTBEAT_TIMEOUT,
        backoff: tuple[float, ...] = (0.2, 0.5, 1.0, 2.0),
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.port = port
        self.heartbeat_timeout = heartbeat_timeout
        self.backoff = backoff
        self.clock = clock
        self.board = BoardState()
        self.decoder = Decoder()
        self.poll_ms: int | None = None  # the poll interval to set on the board, if any
        self.radio: dict[int, tuple[int, int]] = {}  # channel: (gain dB, misses) to set on it
        self.firmware = ""  # the board's firmware version, once it has said it
        self._channels: dict[int, tuple[str, Sink]] = {}
        self._states: dict[int, str] = {}  # as last reported to each channel's reader
        self._state, self._detail = "", ""  # the port's
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._seq = 0
        self._last_byte = clock()  # when the line last brought a byte
        self._serial: Any = None  # a serial.Serial while connected
        self.replies: queue.Queue[Message] = queue.Queue()
        self._write_lock = threading.RLock()  # whole frames, whichever thread sends

    # ------------------------------------------------------------ readers

    def attach(self, channel: int, name: str, sink: Sink, *, transport: bool = True) -> None:
        """Report ``channel``'s reads to ``sink`` as reader ``name``. The first reader starts
        the transport thread, unless ``transport`` is False (bytes are then given to
        :meth:`feed` by the caller, as the benchmark does)."""
        with self._lock:
            if channel in self._channels:
                other = self._channels[channel][0]
                raise ReaderError(
                    f"reader {name}: channel {channel} of {self.port} is already reader {other}"
                )
            self._channels[channel] = (name, sink)
            if self._thread is None and transport:
                self._stop.clear()
                self._thread = threading.Thread(
                    target=self._run, name=f"bridge-{os.path.basename(self.port)}", daemon=True
                )
                self._thread.start()
                return
        if self._state:  # a reader added to a running port learns its state at once
            self._status(self._state, self._detail)

    def detach(self, channel: int, timeout: float = 5.0) -> bool:
        """Forget a channel's reader; the connection closes with the last one (returns True)."""
        with self._lock:
            self._channels.pop(channel, None)
            self._states.pop(channel, None)
            last = not self._channels
            thread = self._thread if last else None
            if last:
                self._thread = None
                self._stop.set()
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout)
        return last

    def _status(self, state: str, detail: str = "") -> None:
        """Report the port's state to each reader whose own state it changes (a channel the
        board has no chip on is lost while the board is live)."""
        t = self.clock()
        reports: list[tuple[Sink, ReaderStatus]] = []
        with self._lock:
            self._state, self._detail = state, detail
            chips = self.board.chips
            for ch, (name, sink) in self._channels.items():
                if state == "live" and ch < len(chips) and chips[ch] == 0:
                    own, why = "lost", f"the board has no reader on channel {ch}"
                else:
                    own, why = state, detail
                if self._states.get(ch) != own:
                    self._states[ch] = own
                    reports.append((sink, ReaderStatus(name, own, t, why)))
        for sink, report in reports:
            sink(report)

    def _dispatch(self, event: Event) -> None:
        if isinstance(event, Read | Removed):
            with self._lock:
                target = self._channels.get(event.channel)
            if target is None:
                log.debug("bridge %s: tag on channel %d, which no reader uses",
                          self.port, event.channel)
                return
            name, sink = target
            kind = TagRead if isinstance(event, Read) else TagLifted
            sink(kind(name, event.uid, self.clock()))
        elif isinstance(event, Reply):
            msg = event.message
            if msg.name == "ack" and msg.num("command") == TYPES["set_radio"].msg_id \
                    and msg.num("status") != ACK_STATUS["ok"]:
                log.warning("bridge %s: the board refused gain and misses (firmware %s; 1.1 "
                            "or later takes them): reflash it", self.port, self.firmware)
            self.replies.put(msg)
        elif isinstance(event, BoardUp):
            self.firmware = event.fw_version
            if self.poll_ms is not None:  # after every start or reset of the board
                self.send("set_poll", interval_ms=self.poll_ms)
            for channel in sorted(self.radio):
                self.send_radio(channel)
            if event.protocol != PROTOCOL_VERSION:
                log.warning("bridge %s: the board speaks protocol %d, this host %d",
                            self.port, event.protocol, PROTOCOL_VERSION)
            log.info(
                "bridge %s: board %s, firmware %s, chips %s",
                self.port,
                "restarted" if event.restarted else "up",
                event.fw_version,
                " ".join(f"{c:02X}" for c in event.chips),
            )

    # ------------------------------------------------------------ transport

    def send(self, name: str, **fields: int | bytes) -> None:
        """Send a command to the board (dropped while it is not connected)."""
        with self._write_lock:
            try:
                frame = encode(pack(name, seq=self._seq, **fields))
            except BridgeError as exc:
                raise ReaderError(f"bridge {self.port}: {exc}") from exc
            self._seq = (self._seq + 1) % 256
            self.write(frame)

    def write(self, data: bytes) -> None:
        """Raw bytes to the board (dropped while it is not connected)."""
        port = self._serial
        if port is None:
            return
        try:
            with self._write_lock:
                port.write(data)
        except OSError as exc:
            log.debug("bridge %s: cannot write: %s", self.port, exc)

    def request(self, name: str, answer: str, timeout: float = 2.0, **fields: int | bytes
                ) -> Message:
        """Send a command and wait for the board's ``answer`` to it (``pong``, ``ack``, ``info``).

        Raises :class:`TimeoutError` when none comes in time (the board is not connected or
        does not answer)."""
        while not self.replies.empty():
            self.replies.get_nowait()
        self.send(name, **fields)
        deadline = time.monotonic() + timeout
        while True:
            try:
                msg = self.replies.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                raise TimeoutError(f"bridge {self.port}: no {answer} to {name}") from None
            if msg.name == answer:
                return msg

    def send_radio(self, channel: int) -> None:
        """Give the board ``channel``'s gain and removal count (``set_radio``)."""
        gain, misses = self.radio[channel]
        self.send("set_radio", reader=channel, gain_db=gain, misses=misses)

    def set_poll_interval(self, ms: int) -> bool:
        """Ask the board to poll its readers every ``ms`` milliseconds (10 to 1000)."""
        ack = self.request("set_poll", "ack", interval_ms=ms)
        return ack.num("status") == 0

    def feed(self, data: bytes) -> bool:
        """Take bytes from the line (none: a read that found none); True when they held at least
        one valid frame. A partial frame is dropped once the line has been quiet for
        ``LINE_QUIET`` seconds, letting out any frames held behind it."""
        valid = False
        now = self.clock()
        if data:
            self._last_byte = now
            frames = self.decoder.feed(data)
        else:
            frames = self.decoder.idle() if now - self._last_byte >= LINE_QUIET else []
        for frame in frames:
            msg = unpack(frame)
            if msg is None:
                continue
            valid = True
            restarts = self.board.restarts
            for event in self.board.handle(msg):
                self._dispatch(event)
            if self.board.restarts != restarts and msg.name not in ("boot", "info"):
                self.send("get_info")  # its boot frame was lost: learn it again, set it up again
        return valid

    def _run(self) -> None:
        import serial

        attempt = 0
        lost = False
        while not self._stop.is_set():
            if lost:
                self._status("lost")
            elif not os.path.exists(self.port):  # not plugged in yet: said once, waited for
                self._status("waiting", f"no device at {self.port}: waiting for it to be "
                                        "plugged in")
            else:
                self._status("connecting")
            try:
                port = serial.Serial(self.port, BAUD, timeout=0.05, exclusive=True)
            except (serial.SerialException, OSError) as exc:
                log.debug("bridge %s: cannot open (%s)", self.port, exc)
                self._stop.wait(self.backoff[min(attempt, len(self.backoff) - 1)])
                attempt += 1
                continue
            attempt = 0
            self._serial = port
            self.board.connected()
            self.decoder = Decoder()
            try:
                lost = self._serve(port)
            except (serial.SerialException, OSError) as exc:
                log.warning("bridge %s lost: %s", self.port, exc)
                self._status("lost", f"serial port lost: {exc}")
                lost = True
            finally:
                self._serial = None
                port.close()

    def _serve(self, port: Any) -> bool:
        """Read the board until stopped (False) or the port fails (raises)."""
        def read() -> bytes:
            # first byte waits up to the port's timeout; then whatever has arrived with it
            data: bytes = port.read(1)
            waiting: int = port.in_waiting
            return data + port.read(waiting) if data and waiting else data

        asked = float("-inf")
        last_valid = self.clock()
        live = False
        while not self._stop.is_set():
            now = self.clock()
            if not self.board.identified and now - asked >= INFO_RETRY:
                self.send("get_info")
                asked = now
            if self.feed(read()):
                last_valid = self.clock()
                if self.board.identified:
                    live = True
                    self._status("live")  # reported on change only; chips may have changed
            elif live and now - last_valid > self.heartbeat_timeout:
                live = False
                self.board.connected()  # ask who it is once it talks again
                log.warning("bridge %s: no heartbeat for %.1f s", self.port, now - last_valid)
                self._status("lost", f"no heartbeat for {self.heartbeat_timeout:g} s")
        return False


_PORTS: dict[str, BridgePort] = {}
_PORTS_LOCK = threading.Lock()


def shared_port(port: str, heartbeat_timeout: float = HEARTBEAT_TIMEOUT) -> BridgePort:
    """The :class:`BridgePort` of ``port``, made on first use."""
    key = os.path.abspath(port)
    with _PORTS_LOCK:
        bridge = _PORTS.get(key)
        if bridge is None:
            bridge = _PORTS[key] = BridgePort(port, heartbeat_timeout=heartbeat_timeout)
        return bridge


def _release(port: BridgePort) -> None:
    with _PORTS_LOCK:
        key = os.path.abspath(port.port)
        if _PORTS.get(key) is port:
            del _PORTS[key]


class BridgeReader:
    """One reader (one channel) of a bridge board."""

    def __init__(self, name: str, port: str, channel: int, sink: Sink,
                 heartbeat_timeout: float = HEARTBEAT_TIMEOUT, poll_ms: int | None = None,
                 radio: tuple[int, int] | None = None) -> None:
        self.name, self.port, self.channel, self.sink = name, port, channel, sink
        self.heartbeat_timeout = heartbeat_timeout
        self.poll_ms = poll_ms
        self.radio = radio  # (gain dB, misses) for this channel, or the firmware's own
        self._bridge: BridgePort | None = None

    def start(self) -> None:
        """Attach this channel to the board (shared with the other channels of its port)."""
        self._bridge = shared_port(self.port, heartbeat_timeout=self.heartbeat_timeout)
        if self.poll_ms is not None:
            self._bridge.poll_ms = self.poll_ms
        if self.radio is not None:
            self._bridge.radio[self.channel] = self.radio
            if self._bridge.board.identified:  # a board already up hears it now
                self._bridge.send_radio(self.channel)
        self._bridge.attach(self.channel, self.name, self.sink)

    def probe(self) -> str:
        """What the board says of this channel (for ``uno-table doctor``)."""
        bridge = self._bridge
        if bridge is None or not bridge.board.identified:
            return "the board has not said who it is"
        chips = bridge.board.chips
        chip = chips[self.channel] if self.channel < len(chips) else 0
        return (f"board firmware {bridge.firmware}, channel {self.channel} "
                f"chip version 0x{chip:02X}")

    def chip_version(self) -> int | None:
        """This channel's chip version as the board reported it (0x00: no chip), or None
        before the board has said who it is."""
        bridge = self._bridge
        if bridge is None or not bridge.board.identified:
            return None
        chips = bridge.board.chips
        return chips[self.channel] if self.channel < len(chips) else 0

    def stop(self, timeout: float = 5.0) -> None:
        """Detach this channel; the port closes with its last channel."""
        bridge, self._bridge = self._bridge, None
        if bridge is not None and bridge.detach(self.channel, timeout):
            _release(bridge)


def make_bridge_reader(spec: ReaderSpec, sink: Sink) -> Reader:
    """The ``bridge`` kind: needs ``port`` and ``channel`` (0 to 3)."""
    if not spec.port:
        raise ReaderError(f"reader {spec.name}: kind bridge needs a port (the board's serial port)")
    if spec.channel is None or not 0 <= spec.channel < MAX_READERS:
        raise ReaderError(
            f"reader {spec.name}: kind bridge needs a channel from 0 to {MAX_READERS - 1}; "
            f"got {spec.channel!r}"
        )
    built = sorted(set(spec.extra) & set(BUILT_IN))
    if built:
        raise ReaderError(f"reader {spec.name}: {built[0]} is {BUILT_IN[built[0]]}")
    unknown = sorted(set(spec.extra) - set(EXTRA_KEYS))
    if unknown:
        raise ReaderError(f"reader {spec.name}: unknown key {unknown[0]!r} for kind bridge; "
                          f"allowed: {', '.join(EXTRA_KEYS)}")
    timeout = spec.extra.get("heartbeat_timeout", HEARTBEAT_TIMEOUT)
    if not isinstance(timeout, int | float) or isinstance(timeout, bool) or timeout <= 0:
        raise ReaderError(
            f"reader {spec.name}: heartbeat_timeout must be a number of seconds above 0"
        )
    poll = spec.extra.get("poll_ms")
    if poll is not None and (isinstance(poll, bool) or not isinstance(poll, int)
                             or not POLL_MS[0] <= poll <= POLL_MS[1]):
        raise ReaderError(f"reader {spec.name}: poll_ms must be whole milliseconds from "
                          f"{POLL_MS[0]} to {POLL_MS[1]}; got {poll!r}")
    gain = spec.extra.get("gain", RADIO_DEFAULT[0])
    if not isinstance(gain, int) or isinstance(gain, bool) or gain not in GAINS:
        raise ReaderError(f"reader {spec.name}: gain = {gain!r} is not an MFRC522 receiver "
                          f"gain in dB ({', '.join(map(str, GAINS))})")
    misses = spec.extra.get("misses", RADIO_DEFAULT[1])
    if isinstance(misses, bool) or not isinstance(misses, int) \
            or not MISSES[0] <= misses <= MISSES[1]:
        raise ReaderError(f"reader {spec.name}: misses = {misses!r} is not a count of empty "
                          f"polls ({MISSES[0]}-{MISSES[1]})")
    radio = None if not {"gain", "misses"} & set(spec.extra) else (int(gain), misses)
    return BridgeReader(spec.name, spec.port, spec.channel, sink, float(timeout), poll, radio)
