"""A stand-in for the ``mfrc522`` package (0.0.7) on a simulated Pi where the package is not
installed (``pip install uno-table`` alone, on a laptop): the primitives the reader backend
(:mod:`table.readers.mfrc522_reader`) builds on, and nothing more.

- The chip opened: the SPI device opened at its speed, the GPIO numbering set if none is, the
  reset line driven high, then the set-up.
- The set-up (``MFRC522_Init``): a soft reset (CommandReg 0x01 <- SoftReset 0x0F), the timer
  (TModeReg 0x2A <- 0x8D, TPrescalerReg 0x2B <- 0x3E, TReloadReg 0x2D/0x2C <- 30, 0), 100 %
  ASK (TxASKReg 0x15 <- 0x40), CRC preset 0x6363 (ModeReg 0x11 <- 0x3D), the antenna on
  (TxControlReg 0x14 bits 0x03 set).
- A register written or read: the SPI address byte is the register number shifted left once,
  bit 7 set for a read (the MFRC522 datasheet, section 8.1.2.3).
- A CRC_A computed by the chip (``CalulateCRC``, the package's spelling): CRCIRq cleared,
  the FIFO flushed, the bytes into the FIFO, CalcCRC (0x03), DivIrqReg polled for CRCIRq, the
  result from CRCResultReg (0x22 low, 0x21 high).

Each primitive makes the same register accesses in the same order as the package does, so the
chip models see the same bus traffic and a seeded noisy table plays the same game with either
(tests/test_noise_install.py). With the package installed (the test extra, ``./uno demo``)
the real driver runs; :func:`sim.hardware.rpi_fakes.simulated_pi` chooses.
"""

from __future__ import annotations

import sys
from types import ModuleType
from typing import Any

COMMAND, DIV_IRQ, FIFO_DATA, FIFO_LEVEL = 0x01, 0x05, 0x09, 0x0A
MODE, TX_CONTROL, TX_ASK = 0x11, 0x14, 0x15
CRC_RESULT_HIGH, CRC_RESULT_LOW = 0x21, 0x22
T_MODE, T_PRESCALER, T_RELOAD_HIGH, T_RELOAD_LOW = 0x2A, 0x2B, 0x2C, 0x2D
SOFT_RESET, CALC_CRC = 0x0F, 0x03
CRC_IRQ = 0x04
FLUSH = 0x80
ANTENNA = 0x03
CRC_POLLS = 255  # reads of DivIrqReg before the result is taken as it is
BCM, BOARD = 11, 10
DEFAULT_RESET = {BCM: 15, BOARD: 22}  # the package's reset line when none is given


class MFRC522:
    """One MFRC522 on a (simulated) SPI device, as the package's class of the same name."""

    def __init__(self, bus: int = 0, device: int = 0, spd: int = 1000000, pin_mode: int = BOARD,
                 pin_rst: int = -1, debugLevel: str = "WARNING") -> None:
        gpio = sys.modules["RPi.GPIO"]  # the simulated Pi's
        self.spi: Any = sys.modules["spidev"].SpiDev()
        self.spi.open(bus, device)
        self.spi.max_speed_hz = spd
        mode = gpio.getmode()
        if mode is None:
            gpio.setmode(pin_mode)
            mode = pin_mode
        if pin_rst == -1:
            pin_rst = DEFAULT_RESET[mode]
        gpio.setup(pin_rst, gpio.OUT)
        gpio.output(pin_rst, 1)
        self.MFRC522_Init()

    def Write_MFRC522(self, addr: int, val: int) -> None:
        """Write ``val`` to register ``addr``."""
        self.spi.xfer2([(addr << 1) & 0x7E, val])

    def Read_MFRC522(self, addr: int) -> int:
        """Register ``addr``'s value."""
        return int(self.spi.xfer2([((addr << 1) & 0x7E) | 0x80, 0])[1])

    def _set_bits(self, reg: int, mask: int) -> None:
        self.Write_MFRC522(reg, self.Read_MFRC522(reg) | mask)

    def _clear_bits(self, reg: int, mask: int) -> None:
        self.Write_MFRC522(reg, self.Read_MFRC522(reg) & ~mask)

    def CalulateCRC(self, data: list[int]) -> list[int]:
        """The chip's CRC_A of ``data``: low byte, high byte."""
        self._clear_bits(DIV_IRQ, CRC_IRQ)
        self._set_bits(FIFO_LEVEL, FLUSH)
        for byte in data:
            self.Write_MFRC522(FIFO_DATA, byte)
        self.Write_MFRC522(COMMAND, CALC_CRC)
        for _ in range(CRC_POLLS):
            if self.Read_MFRC522(DIV_IRQ) & CRC_IRQ:
                break
        return [self.Read_MFRC522(CRC_RESULT_LOW), self.Read_MFRC522(CRC_RESULT_HIGH)]

    def MFRC522_Init(self) -> None:
        """A soft reset, the timer, the modulation, the CRC preset and the antenna on."""
        self.Write_MFRC522(COMMAND, SOFT_RESET)
        self.Write_MFRC522(T_MODE, 0x8D)
        self.Write_MFRC522(T_PRESCALER, 0x3E)
        self.Write_MFRC522(T_RELOAD_LOW, 30)
        self.Write_MFRC522(T_RELOAD_HIGH, 0)
        self.Write_MFRC522(TX_ASK, 0x40)
        self.Write_MFRC522(MODE, 0x3D)
        self.Read_MFRC522(TX_CONTROL)  # the package reads it first, and sets the bits anyway
        self._set_bits(TX_CONTROL, ANTENNA)


def module() -> ModuleType:
    """A module ``mfrc522`` holding the stand-in's :class:`MFRC522`."""
    mod = ModuleType("mfrc522")
    mod.__doc__ = __doc__
    mod.MFRC522 = MFRC522  # type: ignore[attr-defined]
    return mod
