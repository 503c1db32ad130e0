"""A register-level model of the NXP MFRC522 and of the ISO 14443A tags in its field.

The chip is driven byte by byte over SPI exactly as the real one is (first byte: register
address shifted left, bit 7 set for a read), so that a driver such as the ``mfrc522`` package
runs against it unchanged. Modelled: the register file with its reset values, the 64-byte FIFO
(flushed by FIFOLevelReg bit 7), the commands Idle, Transceive (sent on BitFramingReg
StartSend), CalcCRC and SoftReset, the interrupt flags of CommIrqReg and DivIrqReg (Set1/Set2
write semantics), ErrorReg (collisions, FIFO overflow), ControlReg's valid bits of the last
byte, the antenna switch of TxControlReg, and the timer: with TModeReg.TAuto set it starts at the
end of a transmission that no tag answers and raises TimerIRq when it runs out, on the model's
clock.

Tags follow the ISO 14443-3 state machine (IDLE, READY, ACTIVE, HALT, with READY*/ACTIVE* for a
tag woken from HALT): REQA and WUPA, anticollision and select at cascade levels 1 to 3 with the
cascade tag 0x88 and BCC, CRC_A checked on select and halt, SAK. A tag left in READY (read but
neither selected nor halted) treats the next REQA as an unexpected command and goes back to IDLE
without answering, as a real card does.
"""

from __future__ import annotations

import threading
import time
from collections import Counter, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from table.readers.iso14443 import (
    HLTA,
    NVB_SELECT,
    REQA,
    SAK_CASCADE,
    SEL,
    WUPA,
    bcc,
    cascade_parts,
    crc_a,
)

if TYPE_CHECKING:
    from sim.hardware.radio_noise import RadioNoise

# Registers (datasheet numbering).
COMMAND, COMM_IEN, DIV_IEN, COMM_IRQ, DIV_IRQ, ERROR, STATUS1, STATUS2 = range(1, 9)
FIFO_DATA, FIFO_LEVEL, WATER_LEVEL, CONTROL, BIT_FRAMING, COLL = range(9, 15)
MODE, TX_MODE, RX_MODE, TX_CONTROL, TX_ASK = 0x11, 0x12, 0x13, 0x14, 0x15
CRC_RESULT_M, CRC_RESULT_L = 0x21, 0x22
T_MODE, T_PRESCALER, T_RELOAD_H, T_RELOAD_L = 0x2A, 0x2B, 0x2C, 0x2D
VERSION = 0x37

# Commands.
IDLE, CALC_CRC, TRANSCEIVE, SOFT_RESET = 0x00, 0x03, 0x0C, 0x0F

# Flags.
TIMER_IRQ, IDLE_IRQ, RX_IRQ, TX_IRQ = 0x01, 0x10, 0x20, 0x40
CRC_IRQ = 0x04
COLL_ERR, BUFFER_OVFL = 0x08, 0x10
START_SEND = 0x80

FIFO_SIZE = 64
CLOCK_HZ = 13_560_000

RESET_VALUES = {
    COMMAND: 0x20, COMM_IEN: 0x80, COMM_IRQ: 0x14, STATUS1: 0x21, WATER_LEVEL: 0x08,
    CONTROL: 0x10, COLL: 0xA0, MODE: 0x3F, TX_CONTROL: 0x80, 0x16: 0x10, 0x17: 0x84,
    0x18: 0x84, 0x19: 0x4D, 0x1C: 0x62, 0x1F: 0xEB, CRC_RESULT_M: 0xFF, CRC_RESULT_L: 0xFF,
    0x24: 0x26, 0x26: 0x48, 0x27: 0x88, 0x28: 0x20, 0x29: 0x20,
}  # fmt: skip


@dataclass
class VirtualTag:
    """An ISO 14443A tag: a MIFARE Classic style 4-byte UID, or a 7-byte one (NTAG stickers,
    MIFARE Ultralight), or a 10-byte one."""

    uid: bytes
    sak: int | None = None  # the final SAK; default 0x08 for 4 bytes, 0x00 otherwise
    state: str = "IDLE"
    level: int = 0  # cascade level reached (0 = level 1)
    woken: bool = False  # READY*/ACTIVE*: came from HALT, falls back to HALT
    bad_bcc: bool = False  # answers anticollision with a wrong check byte (a corrupted ghost)
    placed_at: float = 0.0  # when it came into the field (the chip's clock)
    _parts: list[bytes] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._parts = cascade_parts(self.uid)
        if self.sak is None:
            self.sak = 0x08 if len(self.uid) == 4 else 0x00

    @classmethod
    def of(cls, uid_hex: str, sak: int | None = None) -> VirtualTag:
        """A tag with the UID ``uid_hex`` (and its SAK, or the one its UID length gives)."""
        return cls(bytes.fromhex(uid_hex), sak)

    @property
    def atqa(self) -> bytes:
        """The tag's answer to a request (ATQA), by the length of its UID."""
        return bytes(({4: 0x04, 7: 0x44, 10: 0x84}[len(self.uid)], 0x00))

    def power_off(self) -> None:
        """The tag left the field: it forgets its state (back to idle)."""
        self.state, self.level, self.woken = "IDLE", 0, False

    def _fall_back(self) -> None:
        self.state, self.level = ("HALT" if self.woken else "IDLE"), 0

    def receive(self, frame: bytes, last_bits: int) -> bytes | None:
        """The tag's answer to one frame from the reader, or ``None`` (silence)."""
        if last_bits == 7 and len(frame) == 1:
            return self._short(frame[0] & 0x7F)
        if self.state == "READY" and len(frame) >= 2 and frame[0] == SEL[self.level]:
            return self._ready(frame, last_bits)
        if last_bits:  # a bit frame that is no anticollision: an unexpected command
            if self.state in ("READY", "ACTIVE"):
                self._fall_back()
            return None
        if self.state == "READY":
            return self._ready(frame)
        if self.state == "ACTIVE":
            if frame == bytes(HLTA) + crc_a(HLTA):
                self.state, self.level = "HALT", 0
                return None
            self._fall_back()
        return None

    def _short(self, command: int) -> bytes | None:
        answers_in = ("IDLE", "HALT") if command == WUPA else ("IDLE",) if command == REQA else ()
        if self.state in answers_in:
            self.woken = self.state == "HALT"
            self.state, self.level = "READY", 0
            return self.atqa
        if self.state in ("READY", "ACTIVE"):
            self._fall_back()  # an unexpected command: silence, back to IDLE (or HALT)
        return None

    def part(self) -> bytes:
        """The five bytes this tag sends at its current cascade level: UID part and BCC."""
        part = self._parts[self.level]
        return part + bytes((bcc(part) ^ (0x5A if self.bad_bcc else 0),))

    def _ready(self, frame: bytes, last_bits: int = 0) -> bytes | None:
        if frame[0] == SEL[self.level] and frame[1] != NVB_SELECT:
            return self._anticollision(frame, last_bits)
        if len(frame) == 9 and frame[0] == SEL[self.level] and frame[1] == NVB_SELECT:
            if crc_a(frame[:7]) != frame[7:]:
                return None  # a corrupted frame is not answered
            if frame[2:7] != self.part():
                return None  # another tag is being selected
            if self.level + 1 < len(self._parts):
                self.level += 1
                sak = SAK_CASCADE
            else:
                self.state = "ACTIVE"
                sak = self.sak or 0
            return bytes((sak,)) + crc_a((sak,))
        self._fall_back()
        return None

    def _anticollision(self, frame: bytes, last_bits: int) -> bytes | None:
        """ANTICOLLISION with NVB naming the UID bits the reader already knows: a tag whose
        part starts with them answers the rest, its first byte aligned on the known bits (the
        reader's RxAlign), and stays READY; a tag that does not match stays silent in READY."""
        nvb = frame[1]
        known = ((nvb >> 4) - 2) * 8 + (nvb & 0x0F)
        if not 0 <= known < 40 or (nvb & 0x0F) != last_bits or len(frame) != 2 + -(-known // 8):
            self._fall_back()
            return None
        mine = int.from_bytes(self.part(), "little")
        sent = int.from_bytes(frame[2:], "little")
        mask = (1 << known) - 1
        if mine & mask != sent & mask:
            return None
        answer = bytearray(self.part()[known // 8 :])
        answer[0] &= ~((1 << (known % 8)) - 1) & 0xFF  # bits before RxAlign are not received
        return bytes(answer)


class Mfrc522Model:
    """One MFRC522 chip. :meth:`transfer` is one SPI transaction with its chip select low."""

    def __init__(self, clock: Callable[[], float] = time.monotonic, version: int = 0x92) -> None:
        self.clock = clock
        self.version = version
        self.tags: list[VirtualTag] = []
        self.connected = True  # wired to the bus at all
        self.powered = True  # its reset line (NRSTPD) is high
        self.regs = bytearray(64)
        self.fifo = bytearray()
        self.frames: deque[bytes] = deque(maxlen=256)  # the latest frames sent to the field
        self.sent: Counter[int] = Counter()  # frames sent, by first byte (REQA, SEL, ...)
        self.transfers = 0
        self.noise: RadioNoise | None = None  # what a real table does to reads (none: clean)
        self.neighbours: list[Mfrc522Model] = []  # chips whose pads are close enough to leak
        self.ghosts: list[VirtualTag] = []  # tags that answer for this poll only (noise)
        self.muted: list[VirtualTag] = []  # tags of the field silent for this poll (noise)
        self.locked = False  # hung: no interrupt, no timer, until its RST line is pulsed
        self.holds_miso = False  # holds the bus's MISO low while not selected (a bad module)
        self.last_request: float | None = None
        self._deadline: float | None = None  # the timer, while a frame waits for an answer
        self._lock = threading.RLock()  # the SPI side and the test's hands
        self._sent = threading.Condition(self._lock)
        self.soft_reset()

    # ------------------------------------------------------------------ the field

    def place(self, tag: VirtualTag) -> VirtualTag:
        """Bring a tag into the field (it powers up in IDLE)."""
        with self._lock:
            tag.power_off()
            tag.placed_at = self.clock()
            self.tags.append(tag)
        return tag

    def remove(self, tag: VirtualTag) -> None:
        """Take ``tag`` out of the chip's field."""
        with self._lock:
            self.tags.remove(tag)
            tag.power_off()

    def wait_frames(self, count: int, command: int | None = None, timeout: float = 10.0) -> None:
        """Block until ``count`` more frames (starting with ``command``, if given) have been
        sent to the field; raise TimeoutError otherwise."""

        def seen() -> int:
            return self.sent.total() if command is None else self.sent[command]

        with self._sent:
            target = seen() + count
            if not self._sent.wait_for(lambda: seen() >= target, timeout):
                raise TimeoutError(f"{count} frames not sent within {timeout} s")

    # ------------------------------------------------------------------ SPI

    def transfer(self, data: list[int]) -> list[int]:
        """One SPI transfer with this chip selected: the bytes it answers."""
        with self._lock:
            return self._transfer(data)

    def _transfer(self, data: list[int]) -> list[int]:
        self.transfers += 1
        if not (self.connected and self.powered) or not data:
            return [0] * len(data)
        out = [0]
        address = data[0]
        if address & 0x80:  # read: each following byte names the next register to read
            for nxt in data[1:]:
                out.append(self.read((address >> 1) & 0x3F))
                address = nxt
        else:
            for value in data[1:]:
                self.write((address >> 1) & 0x3F, value)
                out.append(0)
        return out

    def unplug(self) -> None:
        """Pull the module off the bus (it loses power: the tags in its field too)."""
        with self._lock:
            self.connected = False
            self._field_off()

    def plug(self) -> None:
        """Plug it back: it powers up with its reset values (antenna off)."""
        with self._lock:
            self.connected = True
            self.locked = False
            self.soft_reset()

    def set_reset_line(self, high: bool) -> None:
        """The chip's NRSTPD pin: low is hard power-down, a rising edge resets it."""
        with self._lock:
            if high and not self.powered:
                self.locked = False
                self.soft_reset()
            self.powered = high
            if not high:
                self._field_off()

    # ------------------------------------------------------------------ registers

    def soft_reset(self) -> None:
        """The SoftReset command: the registers back to their reset values."""
        self.regs = bytearray(64)
        for reg, value in RESET_VALUES.items():
            self.regs[reg] = value
        self.regs[VERSION] = self.version
        self.fifo.clear()
        self._deadline = None
        self._field_off()

    def _field_off(self) -> None:
        for tag in self.tags:
            tag.power_off()
        self.ghosts.clear()

    @property
    def antenna_on(self) -> bool:
        """Whether the antenna drivers are on (TxControlReg)."""
        return self.regs[TX_CONTROL] & 0x03 == 0x03

    def read(self, reg: int) -> int:
        """The value of register ``reg`` as the chip answers it."""
        if reg == FIFO_DATA:
            return self.fifo.pop(0) if self.fifo else 0
        if reg == FIFO_LEVEL:
            return len(self.fifo)
        if reg == COMM_IRQ:
            self._run_timer()
        return self.regs[reg]

    def write(self, reg: int, value: int) -> None:
        """Write ``value`` into register ``reg`` (and do what it starts)."""
        if reg == COMMAND:
            self._command(value)
        elif reg == FIFO_DATA:
            if len(self.fifo) < FIFO_SIZE:
                self.fifo.append(value)
            else:
                self.regs[ERROR] |= BUFFER_OVFL
        elif reg == FIFO_LEVEL:
            if value & 0x80:
                self.fifo.clear()
                self.regs[ERROR] &= ~BUFFER_OVFL & 0xFF
        elif reg in (COMM_IRQ, DIV_IRQ):
            if value & 0x80:  # Set1/Set2: the bits written as 1 are set...
                self.regs[reg] |= value & 0x7F
            else:  # ...or cleared
                self.regs[reg] &= ~value & 0x7F
        elif reg == BIT_FRAMING:
            self.regs[reg] = value
            if value & START_SEND and self.regs[COMMAND] & 0x0F == TRANSCEIVE:
                self._transmit()
        elif reg == TX_CONTROL:
            self.regs[reg] = value
            if not self.antenna_on:
                self._field_off()
        elif reg in (ERROR, STATUS1, STATUS2, VERSION):
            pass  # read-only
        else:
            self.regs[reg] = value

    def _command(self, value: int) -> None:
        command = value & 0x0F
        if command == SOFT_RESET:
            self.soft_reset()
            return
        self.regs[COMMAND] = value & 0x30 | command
        if command == CALC_CRC:
            crc = crc_a(self.fifo)
            self.fifo.clear()
            self.regs[CRC_RESULT_L], self.regs[CRC_RESULT_M] = crc[0], crc[1]
            self.regs[DIV_IRQ] |= CRC_IRQ
        elif command == IDLE:
            self._deadline = None

    # ------------------------------------------------------------------ the air interface

    def _timer_period(self) -> float | None:
        if not self.regs[T_MODE] & 0x80:  # TAuto off: the timer is not started by a frame
            return None
        prescaler = (self.regs[T_MODE] & 0x0F) << 8 | self.regs[T_PRESCALER]
        reload = self.regs[T_RELOAD_H] << 8 | self.regs[T_RELOAD_L]
        return (reload + 1) * (2 * prescaler + 1) / CLOCK_HZ

    def _run_timer(self) -> None:
        if self._deadline is not None and self.clock() >= self._deadline:
            self._deadline = None
            self.regs[COMM_IRQ] |= TIMER_IRQ

    def _transmit(self) -> None:
        frame = bytes(self.fifo)
        self.fifo.clear()
        framing = self.regs[BIT_FRAMING]
        last_bits, rx_align = framing & 0x07, (framing >> 4) & 0x07
        if self.noise is not None and len(frame) == 1 and frame[0] & 0x7F in (REQA, WUPA):
            self.noise.on_request(self, self.clock())
        self.regs[ERROR] = 0
        self.regs[COLL] = 0xA0  # ValuesAfterColl, CollPosNotValid
        self._deadline = None
        if self.locked:  # hung: the frame never leaves, no interrupt ever comes
            self._record(frame)
            return
        self.regs[COMM_IRQ] |= TX_IRQ
        answers: list[bytes] = []
        if self.antenna_on:
            for tag in [t for t in self.tags if t not in self.muted] + self.ghosts:
                answer = tag.receive(frame, last_bits)
                if answer is not None:
                    answers.append(answer)
        if self.noise is not None:
            answers = self.noise.on_answers(self, answers)
        if answers:
            self._receive(answers, rx_align)
        else:
            period = self._timer_period()
            self._deadline = None if period is None else self.clock() + period
        self._record(frame)

    def _receive(self, answers: list[bytes], rx_align: int) -> None:
        """Answers of several tags at once: their bits superposed, the first bit where they
        differ reported in CollReg (1 to 32, counted from bit 0 of the first byte received,
        that is including the RxAlign bits) and ErrorReg's CollErr."""
        size = max(len(a) for a in answers)
        merged = bytearray(size)
        for answer in answers:
            for i, value in enumerate(answer):
                merged[i] |= value
        if any(a != answers[0] for a in answers):
            padded = [int.from_bytes(a.ljust(size, b"\0"), "little") for a in answers]
            differ = 0
            for value in padded[1:]:
                differ |= value ^ padded[0]
            differ &= ~((1 << rx_align) - 1)
            position = (differ & -differ).bit_length()  # 1-based, of the lowest differing bit
            self.regs[ERROR] |= COLL_ERR
            self.regs[COLL] = (position & 0x1F) if position <= 32 else 0xA0
        self.fifo.extend(merged[:FIFO_SIZE])
        self.regs[CONTROL] = self.regs[CONTROL] & 0xF8  # whole bytes received
        self.regs[COMM_IRQ] |= RX_IRQ

    def _record(self, frame: bytes) -> None:
        with self._sent:
            self.frames.append(frame)
            self.sent[frame[0] if frame else -1] += 1
            self._sent.notify_all()
