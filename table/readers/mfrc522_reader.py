"""MFRC522 readers on SPI, through the ``mfrc522`` package (0.0.7).

The package's own primitives do the work (``MFRC522_Init``, ``Write_MFRC522``,
``Read_MFRC522``, ``CalulateCRC``); on them this module builds what 0.0.7 lacks:

- cascade level 2 (and 3), so 7-byte UIDs (NTAG stickers) read whole rather than as
  ``88 xx xx xx``;
- a poll that costs a few SPI transfers when the pad is empty: 0.0.7's wait loop ignores the
  chip's timer and makes about 2,000 transfers before it gives up, so the request and the halt
  (the two frames that may go unanswered) wait on the timer here instead;
- anticollision at the bit level (CollReg), so every card of a field is read, one after
  another, where 0.0.7 reads nothing when two answer at once;
- one read per placement, and only a confirmed one (:mod:`table.readers.guard`): a new UID is
  read in four polls close together before it is reported (cross-talk from a neighbouring pad, a
  corrupted UID, a card slid across the pad are seen at single polls), must be a plausible UID
  (and a card of the deck when the reader is told the deck), and is then halted (HLTA): a
  halted card stays silent to the request (REQA) of later polls while it rests on the pad, so
  the pile on the play pad does not answer with, and collide with, the next card put on it. A
  card read before that answers again (a field reset wakes the whole pile; a resting card loses
  power for an instant) is recognised and halted without a word. Every two seconds the field is
  switched off and on, so the cards resting on the pad answer a roll call: a card missing from
  it for a few seconds has left, and its next read is a new placement;
- a chip that locks up (no interrupt, not even its timer's: counterfeit chips do) is reset
  through its RST line at once, without a word; only if it stays hung is it reported lost;
- readers of one bus take turns for a whole poll, and with ``fields = "turns"`` each one's
  antenna is on only while it polls (neighbouring pads' fields never overlap in time);
- several readers on one bus: CE0, CE1 and GPIO chip selects, with one lock per bus; a GPIO
  chip select borrows a spidev node with its own chip enable released (``no_cs``) for the
  length of each transfer;
- the settings a maker tunes, each a key of the reader's entry (docs/hardware.md, "Reader
  settings"): ``poll``, ``confirm``, ``misses`` (roll calls a resting card may miss), ``gain``
  (RFCfgReg's RxGain, written at every set-up), ``fields`` and ``speed_hz`` (spidev's speed);
- the reset pin passed explicitly (BCM numbering; 0.0.7 would pick GPIO15, the UART's RXD);
- ``Close_MFRC522`` never called: it runs ``GPIO.cleanup()`` for the whole process. Stopping a
  reader closes its SPI node and leaves the GPIO lines to their owners.

A chip that stops answering (VersionReg reads 0x00 or 0xFF: unplugged, or its reset line
pulled) is reported ``lost`` and brought back (``live``) as soon as it answers again. A chip
that was reset between two polls (a pulse on its reset line, a dip in its supply) answers
but has lost its settings, antenna off: it is set up again at the next poll.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from table.inputs import Report
from table.readers.base import ReaderThread, Sink
from table.readers.factory import ReaderError, ReaderSpec
from table.readers.guard import PENDING, ROLE_CONFIRMATION, Confirmation, ReadGuard
from table.readers.iso14443 import (
    CT,
    HLTA,
    NVB_SELECT,
    REQA,
    SAK_CASCADE,
    SEL,
    bcc,
    cascade_parts,
    crc_a,
)
from table.readers.pi_header import BCM_TO_BOARD, SPI_PINS

log = logging.getLogger(__name__)

# Registers and flags used beyond the package's own calls.
COMMAND, COMM_IEN, COMM_IRQ, ERROR, FIFO_DATA, FIFO_LEVEL = 0x01, 0x02, 0x04, 0x06, 0x09, 0x0A
BIT_FRAMING, TX_CONTROL, RF_CFG, T_RELOAD_L, VERSION = 0x0D, 0x14, 0x26, 0x2D, 0x37
TRANSCEIVE, IDLE = 0x0C, 0x00
RX_OR_IDLE, TIMER_IRQ, ERRORS, COLL_ERR = 0x30, 0x01, 0x1B, 0x08
COLL = 0x0E
ANTENNA_ON = 0x03  # TxControlReg: both antenna drivers on (0 after a reset)

TIMER_RELOAD = 2  # 1.5 ms with the package's prescaler: plenty for any answer (under 1 ms)
MAX_IRQ_READS = 60  # a safety bound in case the timer never fires (a wiring fault)
DEFAULT_RESET_PIN = 25  # BCM; physical pin 22
EXTRA_KEYS = ("cs_pin", "poll", "confirm", "misses", "gain", "fields", "speed_hz")
CHECK_EVERY = 2.0  # seconds between two roll calls of the cards resting on a pad
# RFCfgReg's RxGain (bits 6-4) for each receiver gain in dB; 33 dB is the chip's reset value.
GAIN_DB: dict[int, int] = {18: 2, 23: 3, 33: 4, 38: 5, 43: 6, 48: 7}
DEFAULT_GAIN = 33
DEFAULT_MISSES = 2  # roll calls a resting card may miss before it has left
DEFAULT_SPEED_HZ = 1_000_000
HUNG_BEFORE_LOST = 3  # lock-ups in a row reset silently before the reader is reported lost

_bus_locks: dict[int, threading.RLock] = {}
_bus_locks_guard = threading.Lock()


def _bus_lock(bus: int) -> threading.RLock:
    with _bus_locks_guard:
        return _bus_locks.setdefault(bus, threading.RLock())


class BusPort:
    """The SPI node of one chip, as the package sees it (``xfer2``, ``close``): one transfer
    at a time on the bus, and with a GPIO chip select, that line low for each transfer and
    the node's own chip enable released."""

    def __init__(self, spi: Any, lock: threading.RLock, gpio: Any, cs: int | None) -> None:
        self.spi, self.lock, self.gpio, self.cs = spi, lock, gpio, cs
        self.transfers = 0

    def xfer2(self, data: list[int]) -> list[int]:
        """One SPI transfer to this reader, its chip select held low (by hand for a GPIO select)."""
        with self.lock:
            self.transfers += 1
            if self.cs is None:
                return list(self.spi.xfer2(data))
            self.spi.no_cs = True
            self.gpio.output(self.cs, self.gpio.LOW)
            try:
                return list(self.spi.xfer2(data))
            finally:
                self.gpio.output(self.cs, self.gpio.HIGH)
                self.spi.no_cs = False

    def close(self) -> None:
        """Close the SPI device."""
        self.spi.close()


class ChipHung(OSError):
    """The chip raised no interrupt at all, not even its timer's: it has locked up."""


Pause = Callable[[float], None]


def read_uid(chip: Any, pause: Pause = time.sleep) -> bytes | None:
    """One poll for one new card: the UID (4, 7 or 10 bytes) of a card that came into the
    field since its last read, selected then halted (HLTA), or ``None``."""
    if _transceive(chip, [REQA], 0x07, pause) is None:
        return None
    uid = read_tag(chip, pause)
    if uid is not None:
        halt(chip, pause)
    return uid


def read_tag(
    chip: Any, pause: Pause = time.sleep, prefer: Sequence[bytes] = ()
) -> bytes | None:
    """After a request was answered: anticollision and select at each cascade level, so one
    tag of those that answered is read whole and left selected (ACTIVE); ``None`` if the read
    failed (a corrupted answer, a tag leaving). Where tags collide, the one whose UID is in
    ``prefer`` is taken, if it is there."""
    uid = b""
    for level, sel in enumerate(SEL):
        parts = [cascade_parts(p)[level] for p in prefer if len(cascade_parts(p)) > level]
        found = _select_level(chip, sel, pause, parts)
        if found is None:
            return None
        part, sak = found
        if sak & SAK_CASCADE:  # continue on the SAK bit, not on a leading 0x88
            if part[0] != CT:
                return None
            uid += bytes(part[1:4])
            continue
        return uid + bytes(part[:4])
    return None


def halt(chip: Any, pause: Pause = time.sleep) -> None:
    """HLTA to the selected tag: it stays silent to requests until it leaves the field."""
    _transceive(chip, [*HLTA, *crc_a(HLTA)], 0x00, pause)


def read_field(
    chip: Any,
    decide: Callable[[bytes], bool],
    pause: Pause = time.sleep,
    most: int = 3,
    prefer: Sequence[bytes] = (),
) -> list[bytes]:
    """Every tag in the field that answers a request, one after another: each is read, then
    halted if ``decide(uid)`` says so, or left selected (it drops back to IDLE at the next
    request and answers the next poll). Stops at silence, at a UID read twice, or after
    ``most`` reads (a pile woken at once is read over a few polls, so that no poll keeps the
    other readers of the bus waiting long). Returns the UIDs read. The tags of ``prefer``
    (cards waiting to be confirmed) are read first, so a crowded field cannot keep them
    waiting."""
    read: list[bytes] = []
    for _ in range(most):
        if _transceive(chip, [REQA], 0x07, pause) is None:
            break
        uid = read_tag(chip, pause, [p for p in prefer if p not in read])
        if uid is None:
            continue
        if uid in read:
            break
        read.append(uid)
        if decide(uid):
            halt(chip, pause)
    return read


def _select_level(
    chip: Any, sel: int, pause: Pause, prefer: Sequence[bytes] = ()
) -> tuple[bytes, int] | None:
    """Bit-oriented anticollision at one cascade level (on a collision, the bits before it are
    kept and the colliding bit taken as a preferred part's, or else 1), then select: the five
    bytes (UID part, BCC) and the SAK, or ``None``."""
    known, bits = bytearray(5), 0
    for _ in range(33):
        whole, extra = divmod(bits, 8)
        frame = [sel, (2 + whole) << 4 | extra, *known[: whole + (1 if extra else 0)]]
        got = _transceive(chip, frame, extra << 4 | extra, pause)
        if got is None:
            return None
        data, coll = got
        for i, value in enumerate(data[: 5 - whole]):
            mine = known[whole] & ((1 << extra) - 1) if i == 0 else 0
            known[whole + i] = mine | value
        if not coll:
            if whole + len(data) != 5:
                return None
            break
        position = whole * 8 + coll  # 1-based bit of the UID part where two tags differ
        if not bits < position <= 32:
            return None
        index, bit = divmod(position - 1, 8)
        value = 1 << bit
        mask = (1 << (position - 1)) - 1
        head = int.from_bytes(known, "little") & mask
        for part in prefer:
            if int.from_bytes(part, "little") & mask == head:
                value = part[index] & (1 << bit)
                break
        known[index] = known[index] & ((1 << bit) - 1) | value
        known[index + 1 :] = bytes(4 - index)
        bits = position
    else:
        return None
    if bcc(known[:4]) != known[4]:
        return None  # a corrupted answer
    frame = [sel, NVB_SELECT, *known]
    got = _transceive(chip, frame + list(chip.CalulateCRC(frame)), 0x00, pause)
    if got is None or got[1] or len(got[0]) != 3 or bytes(got[0][1:3]) != crc_a(got[0][:1]):
        return None
    return bytes(known), got[0][0]


def _transceive(
    chip: Any, data: list[int], framing: int, pause: Pause
) -> tuple[list[int], int] | None:
    """A transceive that waits on the chip's timer: the answer's bytes and the collision's
    bit position (0: none), or ``None`` if no tag answered or the answer was bad. Raises
    :class:`ChipHung` when not even the timer fires."""
    write, read = chip.Write_MFRC522, chip.Read_MFRC522
    write(BIT_FRAMING, framing)
    write(COMM_IEN, 0xF7)
    write(COMM_IRQ, read(COMM_IRQ) & 0x7F)  # clear every flag
    write(FIFO_LEVEL, 0x80)  # flush
    write(COMMAND, IDLE)
    for value in data:
        write(FIFO_DATA, value)
    write(COMMAND, TRANSCEIVE)
    write(BIT_FRAMING, framing | 0x80)  # StartSend
    irq = 0
    for _ in range(MAX_IRQ_READS):
        irq = read(COMM_IRQ)
        if irq & (RX_OR_IDLE | TIMER_IRQ):
            break
        pause(0.0005)
    else:
        write(COMMAND, IDLE)
        raise ChipHung("the MFRC522 raised no interrupt, not even its timer's")
    write(BIT_FRAMING, framing & 0x7F)
    if not irq & RX_OR_IDLE:
        return None
    error = read(ERROR)
    if error & ERRORS & ~COLL_ERR:
        return None
    coll = 0
    if error & COLL_ERR:
        reg = read(COLL)
        if reg & 0x20:  # CollPosNotValid
            return None
        coll = reg & 0x1F or 32
    return [read(FIFO_DATA) for _ in range(read(FIFO_LEVEL))], coll


def _int_key(name: str, key: str, value: Any, low: int, high: int, what: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise ReaderError(f"reader {name}: {key} = {value!r} is not {what} ({low}-{high})")
    return value


class Mfrc522Reader(ReaderThread):
    """One MFRC522 polled in its own thread; reads go to ``sink`` once confirmed."""

    def __init__(
        self,
        name: str,
        sink: Sink,
        *,
        bus: int = 0,
        device: int = 0,
        cs_pin: int | None = None,
        reset_pin: int = DEFAULT_RESET_PIN,
        poll: float = 0.015,
        role: str = "play",
        confirm: int | None = None,
        misses: int = DEFAULT_MISSES,
        gain: int = DEFAULT_GAIN,
        fields: str = "always",
        known: Callable[[str], bool] | None = None,
        table: dict[str, tuple[str, float]] | None = None,
        speed_hz: int = DEFAULT_SPEED_HZ,
        backoff: tuple[float, ...] = (0.2, 0.5, 1.0, 2.0),
        clock: Callable[[], float] = time.monotonic,
        pause: Pause = time.sleep,
    ) -> None:
        self.chip = _open_chip(name, bus, device, cs_pin, reset_pin, speed_hz, GAIN_DB[gain])
        self.port: BusPort = self.chip.spi
        super().__init__(name, sink, clock)
        self.poll, self.backoff, self.pause = poll, backoff, pause
        rule = ROLE_CONFIRMATION.get(role, Confirmation())
        if confirm is not None:  # so many polls in a row, and no dwell
            rule = replace(rule, need=confirm, dwell=0.0)
        # a card missing from ``misses`` roll calls in a row has left (half a call's slack)
        rule = replace(rule, forget=CHECK_EVERY * (misses + 0.5))
        self.guard = ReadGuard(name, rule, known, table)
        self.fields_in_turn = fields == "turns"
        self.check_every = CHECK_EVERY
        self._next_check = 0.0
        self.hung = 0  # lock-ups in a row, each answered by a pulse on the reset line
        self.resets = 0  # lock-ups reset in all
        self.version = 0

    def stop(self, timeout: float = 5.0) -> None:
        """Stop polling and close the bus (never the library's Close_MFRC522)."""
        super().stop(timeout)
        self.port.close()  # never Close_MFRC522: it would GPIO.cleanup() the whole process

    def _answers(self) -> bool:
        self.version = int(self.chip.Read_MFRC522(VERSION))
        return self.version not in (0x00, 0xFF)

    def _set_up(self) -> bool:
        """The chip still has the settings :meth:`MFRC522_Init` gave it (a reset turns its
        antenna off, and it would read nothing while still answering)."""
        return int(self.chip.Read_MFRC522(TX_CONTROL)) & ANTENNA_ON == ANTENNA_ON

    def poll_once(self) -> None:
        """One poll: set the chip up if it needs it, read its field (the bus held for the
        whole poll, so readers of one bus take turns; with ``fields = "turns"`` the antenna is
        on only for it), and report the reads the guard confirms. Raises OSError when the chip
        does not answer, :class:`ChipHung` when it has locked up."""
        with self.port.lock:
            if not self._answers():
                raise OSError("the MFRC522 does not answer (check its wiring and reset pin)")
            if self.state != "live":
                self.chip.MFRC522_Init()  # a chip that lost power has lost its settings
            elif self.fields_in_turn:
                self.chip.Write_MFRC522(TX_CONTROL, 0x80 | ANTENNA_ON)
            elif not self._set_up():
                log.info("reader %s: the chip was reset; setting it up again", self.name)
                self.chip.MFRC522_Init()
            elif self.guard.remembered and self.clock() >= self._next_check:
                self.chip.Write_MFRC522(TX_CONTROL, 0x80)  # the field off and on: the
                self.chip.Write_MFRC522(TX_CONTROL, 0x80 | ANTENNA_ON)  # cards resting answer
                self._next_check = self.clock() + self.check_every
            reports: list[Report] = []
            try:
                read_field(
                    self.chip, lambda uid: self._decide(uid, reports), self.pause,
                    prefer=self.guard.pending,
                )  # fmt: skip
            except OSError:  # a read confirmed before the chip hung is still a read
                for report in reports:
                    self.sink(report)
                raise
            finally:
                if self.fields_in_turn:
                    self.chip.Write_MFRC522(TX_CONTROL, 0x80)
        self.hung = 0
        self.guard.end_poll(self.clock())
        self._status("live")  # once a whole poll has worked
        for report in reports:
            self.sink(report)

    def _decide(self, uid: bytes, reports: list[Report]) -> bool:
        outcome, found = self.guard.sighting(uid, self.clock())
        reports.extend(found)
        return outcome != PENDING

    def pulse_reset(self) -> None:
        """Pulse the chip's RST line (a hard reset: it powers down its field too), then set
        it up again. Readers sharing the line are reset with it and set themselves up again."""
        gpio, pin = self.chip.gpio, self.chip.rst_pin
        with self.port.lock:
            gpio.output(pin, gpio.LOW)
            self.pause(0.001)
            gpio.output(pin, gpio.HIGH)
            self.chip.MFRC522_Init()

    def _hung(self, exc: ChipHung) -> None:
        """A lock-up: reset through RST at once, silently; reported lost only if it stays."""
        self.hung += 1
        self.resets += 1
        if self.hung > HUNG_BEFORE_LOST and self.state == "live":
            log.warning("reader %s lost: %s", self.name, exc)
            self._status("lost", str(exc))
        self.pulse_reset()

    def _run(self) -> None:
        self._status("connecting")
        attempt = 0
        while not self._stop.is_set():
            try:
                self.poll_once()
                attempt = 0
            except ChipHung as exc:
                self._hung(exc)
                continue
            except (OSError, RuntimeError) as exc:  # RuntimeError: a GPIO line taken from us
                if self.state == "live":
                    log.warning("reader %s lost: %s", self.name, exc)
                    self._status("lost", str(exc))
                elif attempt == 0:
                    log.warning("reader %s: %s", self.name, exc)
                self._stop.wait(self.backoff[min(attempt, len(self.backoff) - 1)])
                attempt += 1
                continue
            self._stop.wait(self.poll)


def _open_chip(
    name: str, bus: int, device: int, cs_pin: int | None, reset_pin: int, speed_hz: int,
    rx_gain: int = GAIN_DB[DEFAULT_GAIN],
) -> Any:
    """The package's MFRC522 on ``bus``/``device`` (or a GPIO chip select), reset pin high;
    each set-up gives it the receiver gain ``rx_gain`` (RFCfgReg's RxGain bits)."""
    _int_key(name, "bus", bus, 0, 6, "an SPI bus")
    _int_key(name, "device", device, 0, 2, "an SPI chip enable")
    for key, bcm in (("reset_pin", reset_pin), ("cs_pin", cs_pin)):
        if bcm is None:
            continue
        _int_key(name, key, bcm, 0, 27, "a BCM GPIO number")
        if bcm in SPI_PINS.get(bus, ()):
            raise ReaderError(f"reader {name}: {key} = {bcm} is a pin of SPI bus {bus}")
    if cs_pin is not None and cs_pin == reset_pin:
        raise ReaderError(f"reader {name}: cs_pin and reset_pin are both GPIO{cs_pin}")
    try:
        import mfrc522
        import RPi.GPIO as GPIO
    except ImportError as exc:
        raise ReaderError(
            f"reader {name}: kind mfrc522 needs the pi extra (pip install 'uno-table[pi]'): {exc}"
        ) from None
    except RuntimeError as exc:  # RPi.GPIO on a machine that is not a Pi (or a Pi 5)
        raise ReaderError(f"reader {name}: RPi.GPIO cannot run here: {exc}") from None

    GPIO.setwarnings(False)  # several readers share the reset line
    if GPIO.getmode() is None:
        GPIO.setmode(GPIO.BCM)

    def pin(bcm: int) -> int:
        return BCM_TO_BOARD[bcm] if GPIO.getmode() == GPIO.BOARD else bcm

    cs = None if cs_pin is None else pin(cs_pin)
    if cs is not None:
        GPIO.setup(cs, GPIO.OUT, initial=GPIO.HIGH)
    lock = _bus_lock(bus)

    class Chip(mfrc522.MFRC522):  # type: ignore[misc]
        spi: Any
        gpio: Any = GPIO
        rst_pin: int = pin(reset_pin)

        def MFRC522_Init(self) -> None:
            if not isinstance(self.spi, BusPort):  # before the first transfer
                self.spi = BusPort(self.spi, lock, GPIO, cs)
            super().MFRC522_Init()
            self.Write_MFRC522(T_RELOAD_L, TIMER_RELOAD)  # a shorter wait for no answer
            self.Write_MFRC522(RF_CFG, rx_gain << 4 | 0x08)  # reset value 0x48: 33 dB

    node = f"/dev/spidev{bus}.{device}"
    try:
        return Chip(
            bus=bus, device=device, spd=speed_hz, pin_mode=GPIO.getmode(), pin_rst=pin(reset_pin)
        )
    except FileNotFoundError:
        raise ReaderError(
            f"reader {name}: no SPI device {node}: enable SPI "
            "(sudo raspi-config nonint do_spi 0) or check bus and device"
        ) from None
    except PermissionError:
        raise ReaderError(
            f"reader {name}: no permission to open {node}: add the user to the spi and gpio groups"
        ) from None


def build(spec: ReaderSpec, sink: Sink) -> Mfrc522Reader:
    """The factory's builder for kind ``mfrc522``."""
    extra: Mapping[str, Any] = spec.extra
    unknown = sorted(set(extra) - set(EXTRA_KEYS))
    if unknown:
        raise ReaderError(
            f"reader {spec.name}: unknown key {unknown[0]!r} for kind mfrc522; "
            f"allowed: bus, device, reset_pin, {', '.join(EXTRA_KEYS)}"
        )
    poll = extra.get("poll", 0.015)
    if not isinstance(poll, int | float) or isinstance(poll, bool) or not 0 < poll <= 1:
        raise ReaderError(f"reader {spec.name}: poll = {poll!r} is not a time in seconds (0-1]")
    fields = extra.get("fields", "always")
    if fields not in ("always", "turns"):
        raise ReaderError(f"reader {spec.name}: fields = {fields!r}: use 'always' or 'turns'")
    gain = extra.get("gain", DEFAULT_GAIN)
    if not isinstance(gain, int) or isinstance(gain, bool) or gain not in GAIN_DB:
        raise ReaderError(f"reader {spec.name}: gain = {gain!r} is not an MFRC522 receiver "
                          f"gain in dB ({', '.join(map(str, GAIN_DB))})")
    confirm = extra.get("confirm")
    return Mfrc522Reader(
        spec.name,
        sink,
        bus=spec.bus,
        device=spec.device,
        cs_pin=extra.get("cs_pin"),
        reset_pin=DEFAULT_RESET_PIN if spec.reset_pin is None else spec.reset_pin,
        poll=float(poll),
        role=spec.role,
        confirm=None
        if confirm is None
        else _int_key(spec.name, "confirm", confirm, 1, 20, "a count of polls"),
        misses=_int_key(spec.name, "misses", extra.get("misses", DEFAULT_MISSES), 1, 10,
                        "a count of roll calls"),
        gain=int(gain),
        fields=fields,
        known=spec.known,
        speed_hz=_int_key(spec.name, "speed_hz", extra.get("speed_hz", DEFAULT_SPEED_HZ),
                          10_000, 10_000_000, "an SPI speed in Hz"),
    )
