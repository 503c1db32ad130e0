"""A simulated Raspberry Pi for SPI readers: a fake ``spidev`` module and a stub ``RPi.GPIO``
module wired to :class:`~sim.hardware.mfrc522_model.Mfrc522Model` chips, so that the real
``mfrc522`` package runs unchanged on any machine.

A :class:`SimBoard` holds the SPI device nodes that exist (``/dev/spidev0.0`` and
``/dev/spidev0.1`` by default), the GPIO lines, and the chips: each on a bus, selected by a
hardware chip enable (CE0, CE1) or by a GPIO line, with its reset line on a GPIO. A transfer on
a node selects the chip on that node's chip enable (unless ``no_cs`` is set: like Linux, the mode
belongs to the device, not to the open file) and every chip whose GPIO chip select is driven
low; all of them see the bytes and the replies of several at once are ANDed together, as on a
real bus with a wiring fault; a chip that ``holds_miso`` pulls every reply on its bus to zero
while it is not selected (cheap modules, miguelbalboa/rfid #290). A chip whose reset line is
not driven high stays powered down and answers zeros.

``with simulated_pi(board):`` puts the fakes into ``sys.modules`` (and drops any ``mfrc522``
imported before, so that it binds to them), and restores everything on exit. Where the
``mfrc522`` package is not installed, its stand-in (:mod:`sim.hardware.mfrc522_standin`, the
few primitives the reader backend uses) takes its place for as long.
"""

from __future__ import annotations

import importlib.util
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from sim.hardware import mfrc522_standin
from sim.hardware.mfrc522_model import Mfrc522Model
from table.readers.pi_header import BCM_TO_BOARD, BOARD_TO_BCM

BOARD, BCM = 10, 11
OUT, IN = 0, 1
LOW, HIGH = 0, 1
PUD_OFF, PUD_DOWN, PUD_UP = 20, 21, 22


@dataclass
class WiredChip:
    """One chip on the simulated board: its bus, chip enable or GPIO chip select, and reset line."""
    chip: Mfrc522Model
    bus: int
    ce: int | None  # hardware chip enable (spidevB.<ce>), or None
    cs_pin: int | None  # BCM GPIO used as chip select, or None
    reset_pin: int | None  # BCM GPIO on its RST line; None = tied high


class SimGpio:
    """The state behind the stub ``RPi.GPIO`` module (lines by BCM number)."""

    def __init__(self, board: SimBoard) -> None:
        self.board = board
        self.mode: int | None = None
        self.directions: dict[int, int] = {}
        self.levels: dict[int, int] = {}
        self.cleanups = 0  # calls of cleanup() for the whole process
        self.warnings = True

    # The RPi.GPIO API -----------------------------------------------------------------
    def setmode(self, mode: int) -> None:
        """RPi.GPIO's setmode: BOARD or BCM numbering, once."""
        if mode not in (BOARD, BCM):
            raise ValueError("An invalid mode was passed to setmode()")
        if self.mode is not None and mode != self.mode:
            raise ValueError("A different mode has already been set!")
        self.mode = mode

    def getmode(self) -> int | None:
        """RPi.GPIO's getmode: the numbering set, or None."""
        return self.mode

    def setwarnings(self, flag: bool) -> None:
        """RPi.GPIO's setwarnings."""
        self.warnings = bool(flag)

    def setup(
        self,
        channel: int | Sequence[int],
        direction: int,
        pull_up_down: int = PUD_OFF,
        initial: int = -1,
    ) -> None:
        """RPi.GPIO's setup: a line as an input or an output (with its first level)."""
        for bcm in self._channels(channel):
            with self.board.lock:
                self.directions[bcm] = direction
                if direction == OUT:  # without an initial level, RPi.GPIO leaves the line's
                    level = self.levels.get(bcm, LOW)  # output latch as it was
                    self._drive(bcm, initial if initial in (LOW, HIGH) else level)
                else:
                    self._drive(bcm, HIGH if pull_up_down == PUD_UP else LOW)

    def output(self, channel: int | Sequence[int], value: int | Sequence[int]) -> None:
        """RPi.GPIO's output: drive a line (a reset line powers its chip up or down)."""
        channels = self._channels(channel)
        values = list(value) if isinstance(value, Sequence) else [value] * len(channels)
        with self.board.lock:
            for bcm, level in zip(channels, values, strict=True):
                if self.directions.get(bcm) != OUT:
                    raise RuntimeError("The GPIO channel has not been set up as an OUTPUT")
                self._drive(bcm, HIGH if level else LOW)

    def input(self, channel: int) -> int:
        """RPi.GPIO's input: a line's level."""
        (bcm,) = self._channels(channel)
        if bcm not in self.directions:
            raise RuntimeError("You must setup() the GPIO channel first")
        return self.levels.get(bcm, LOW)

    def cleanup(self, channel: int | Sequence[int] | None = None) -> None:
        """RPi.GPIO's cleanup: lines back to inputs (all of them, or those named)."""
        with self.board.lock:
            if channel is None:
                self.cleanups += 1
                pins = list(self.directions)
                self.mode = None
            else:
                pins = self._channels(channel)
            for bcm in pins:
                self.directions.pop(bcm, None)
                self._drive(bcm, LOW)  # back to an input: the line floats, pulled low

    # -----------------------------------------------------------------------------------
    def _channels(self, channel: int | Sequence[int]) -> list[int]:
        if self.mode is None:
            raise RuntimeError(
                "Please set pin numbering mode using GPIO.setmode(GPIO.BOARD) or "
                "GPIO.setmode(GPIO.BCM)"
            )
        out = []
        for c in [channel] if isinstance(channel, int) else list(channel):
            if self.mode == BOARD:
                if c not in BOARD_TO_BCM:
                    raise ValueError("The channel sent is invalid on a Raspberry Pi")
                out.append(BOARD_TO_BCM[c])
            else:
                if c not in BCM_TO_BOARD:
                    raise ValueError("The channel sent is invalid on a Raspberry Pi")
                out.append(c)
        return out

    def _drive(self, bcm: int, level: int) -> None:
        self.levels[bcm] = level
        for wired in self.board.chips:
            if wired.reset_pin == bcm:
                wired.chip.set_reset_line(level == HIGH)

    def selected(self, bcm: int) -> bool:
        """Whether line ``bcm`` selects its chip now (an output driven low)."""
        return self.directions.get(bcm) == OUT and self.levels.get(bcm) == LOW


class SimBoard:
    """The simulated Pi: SPI nodes, GPIO lines and the chips wired to them."""

    def __init__(
        self,
        spi_nodes: Sequence[tuple[int, int]] = ((0, 0), (0, 1)),
        clock: Callable[[], float] = time.monotonic,
        on_transfer: Callable[[], None] | None = None,
    ) -> None:
        self.clock = clock
        self.on_transfer = on_transfer  # a simulated clock's tick: what a transfer takes
        self.lock = threading.RLock()
        self.nodes: dict[tuple[int, int], dict[str, Any]] = {
            node: {"no_cs": False, "mode": 0} for node in spi_nodes
        }
        self.chips: list[WiredChip] = []
        self.gpio = SimGpio(self)
        self.transfers = 0

    def add_chip(
        self,
        *,
        bus: int = 0,
        ce: int | None = None,
        cs_pin: int | None = None,
        reset_pin: int | None = 25,
        version: int = 0x92,
    ) -> Mfrc522Model:
        """Wire a new chip; its reset line follows the GPIO (low until driven high)."""
        if (ce is None) == (cs_pin is None):
            raise ValueError("a chip is selected by exactly one of ce and cs_pin")
        chip = Mfrc522Model(clock=self.clock, version=version)
        with self.lock:
            self.chips.append(WiredChip(chip, bus, ce, cs_pin, reset_pin))
            if reset_pin is not None:
                chip.set_reset_line(self.gpio.levels.get(reset_pin) == HIGH)
        return chip

    def transfer(self, bus: int, device: int, data: list[int]) -> list[int]:
        """One SPI transfer on a device node: what the selected chips answer, ANDed."""
        with self.lock:
            self.transfers += 1
            if self.on_transfer is not None:
                self.on_transfer()
            no_cs = self.nodes[(bus, device)]["no_cs"]
            selected = [
                w.chip
                for w in self.chips
                if w.bus == bus
                and (
                    (w.ce == device and not no_cs)
                    or (w.cs_pin is not None and self.gpio.selected(w.cs_pin))
                )
            ]
            reply = [0xFF] * len(data) if selected else [0] * len(data)
            for chip in selected:
                reply = [a & b for a, b in zip(reply, chip.transfer(list(data)), strict=True)]
            held = any(
                w.chip.holds_miso and w.chip not in selected and w.chip.powered
                for w in self.chips
                if w.bus == bus
            )
            return [0] * len(data) if held else reply  # a module holding MISO low


class FakeSpiDev:
    """``spidev.SpiDev`` on a :class:`SimBoard`."""

    board: SimBoard  # set on the class made by :func:`spidev_module`

    def __init__(self, bus: int | None = None, device: int | None = None) -> None:
        self.node: tuple[int, int] | None = None
        self.max_speed_hz = 125_000_000
        self.bits_per_word = 8
        if bus is not None and device is not None:
            self.open(bus, device)

    def open(self, bus: int, device: int) -> None:
        """spidev's open: the device node of ``bus`` and ``device``."""
        if (bus, device) not in self.board.nodes:
            raise FileNotFoundError(2, "No such file or directory")
        self.node = (bus, device)

    def close(self) -> None:
        """spidev's close."""
        self.node = None

    def _node(self) -> tuple[int, int]:
        if self.node is None:
            raise OSError(9, "Bad file descriptor")
        return self.node

    def xfer2(self, data: list[int], *_: int) -> list[int]:
        """spidev's xfer2: one transfer, chip select held throughout."""
        return self.board.transfer(*self._node(), list(data))

    xfer = xfer2  # one transaction either way for these short register accesses

    def writebytes(self, data: list[int]) -> None:
        """spidev's writebytes: a transfer whose answer is dropped."""
        self.xfer2(data)

    def readbytes(self, n: int) -> list[int]:
        """spidev's readbytes: the answer to ``n`` zero bytes clocked out."""
        return self.xfer2([0] * n)

    @property
    def no_cs(self) -> bool:
        """spidev's no_cs: whether the device drives no chip enable."""
        return bool(self.board.nodes[self._node()]["no_cs"])

    @no_cs.setter
    def no_cs(self, value: bool) -> None:
        """spidev's no_cs: whether the device drives no chip enable."""
        self.board.nodes[self._node()]["no_cs"] = bool(value)

    @property
    def mode(self) -> int:
        """spidev's SPI mode."""
        return int(self.board.nodes[self._node()]["mode"])

    @mode.setter
    def mode(self, value: int) -> None:
        """spidev's SPI mode."""
        self.board.nodes[self._node()]["mode"] = value


def spidev_module(board: SimBoard) -> ModuleType:
    """A ``spidev`` module whose ``SpiDev`` talks to ``board``."""
    mod = ModuleType("spidev")
    mod.SpiDev = type("SpiDev", (FakeSpiDev,), {"board": board})  # type: ignore[attr-defined]
    return mod


def gpio_module(board: SimBoard) -> ModuleType:
    """An ``RPi.GPIO`` module whose lines are ``board``'s."""
    mod = ModuleType("RPi.GPIO")
    gpio = board.gpio
    for name in ("setmode", "getmode", "setwarnings", "setup", "output", "input", "cleanup"):
        setattr(mod, name, getattr(gpio, name))
    constants = {
        "BOARD": BOARD, "BCM": BCM, "OUT": OUT, "IN": IN, "HIGH": HIGH, "LOW": LOW,
        "PUD_OFF": PUD_OFF, "PUD_DOWN": PUD_DOWN, "PUD_UP": PUD_UP, "VERSION": "0.7.1",
        "RPI_INFO": {"P1_REVISION": 3, "TYPE": "Simulated", "PROCESSOR": "sim"},
    }  # fmt: skip
    for name, value in constants.items():
        setattr(mod, name, value)
    return mod


_FAKED = ("spidev", "RPi", "RPi.GPIO")


def driver_installed() -> bool:
    """Whether the real ``mfrc522`` package is installed (else its stand-in runs)."""
    return importlib.util.find_spec("mfrc522") is not None


def _drop_mfrc522() -> None:
    for name in [n for n in sys.modules if n == "mfrc522" or n.startswith("mfrc522.")]:
        del sys.modules[name]


@contextmanager
def simulated_pi(board: SimBoard | None = None) -> Iterator[SimBoard]:
    """Install the fake ``spidev`` and ``RPi.GPIO`` for ``board`` (a new one by default)."""
    board = board or SimBoard()
    saved = {name: sys.modules.get(name) for name in _FAKED}
    rpi = ModuleType("RPi")
    rpi.__path__ = []
    rpi.GPIO = gpio_module(board)  # type: ignore[attr-defined]
    sys.modules.update({"spidev": spidev_module(board), "RPi": rpi, "RPi.GPIO": rpi.GPIO})
    _drop_mfrc522()
    if not driver_installed():
        sys.modules["mfrc522"] = mfrc522_standin.module()
    try:
        yield board
    finally:
        for name, module in saved.items():
            if module is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = module
        _drop_mfrc522()
