"""The Raspberry Pi boards the table runs on: the pins each enabled overlay holds, the 3.3 V
rail's budget, and which GPIO are left for buttons and LEDs (docs/hardware.md#gpio-budget)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final


@dataclass(frozen=True, slots=True)
class Board:
    """One board: its name, its 3.3 V rail's budget for add-ons and where that figure comes
    from, and whether it has an audio jack."""

    key: str
    name: str
    rail_ma: int
    rail_source: str
    audio_jack: bool


_NO_FIGURE = ("assumed: Raspberry Pi publishes no figure for the 3.3 V header pins; "
              "not measured on real hardware")
BOARDS: Final[dict[str, Board]] = {
    "pi3": Board("pi3", "Raspberry Pi 3", 500, _NO_FIGURE, True),
    "pi4": Board("pi4", "Raspberry Pi 4", 500, _NO_FIGURE, True),
    "pi5": Board("pi5", "Raspberry Pi 5", 500, _NO_FIGURE, False),
    "zero2w": Board("zero2w", "Raspberry Pi Zero 2 W", 300, _NO_FIGURE, False),
}
GPIO_TOTAL_MA: Final = 50  # all GPIO outputs together (Raspberry Pi documentation, GPIO)
AUDIO: Final = ("jack", "hdmi", "usb", "i2s")
MISO_PATHS: Final = ("direct", "buffer", "diode")
HEADER_GPIO: Final = tuple(range(28))  # BCM 0..27 on the 40-pin header, the same on all four
ID_EEPROM: Final = (0, 1)  # the HAT ID EEPROM's I2C: kept free (Raspberry Pi HAT specification)

SPI0_BUS: Final = (9, 10, 11)  # MISO, MOSI, SCLK
SPI0_CE: Final = (8, 7)  # dtparam=spi=on takes both chip enables
SPI1_BUS: Final = (19, 20, 21)
SPI1_CE: Final = (18, 17, 16)  # dtoverlay=spi1-Ncs takes the first N
I2S_PINS: Final = (18, 19, 20, 21)  # PCM_CLK, PCM_FS, PCM_DIN, PCM_DOUT: the overlay takes all
UART_PINS: Final = (14, 15)  # TXD, RXD


def held_pins(spi_buses: Iterable[tuple[int, int]], audio: str, uart: bool
              ) -> dict[int, str]:
    """BCM pin to what holds it, for the SPI buses in use (``(bus, chip enables)``), the
    audio, the UART, and the ID EEPROM's pins."""
    held: dict[int, str] = {pin: "the HAT ID EEPROM (BCM 0 and 1, kept free)"
                            for pin in ID_EEPROM}
    for bus, selects in spi_buses:
        if bus == 0:
            held.update({pin: "SPI0 (dtparam=spi=on: BCM 7 to 11)"
                         for pin in SPI0_BUS + SPI0_CE})
        elif bus == 1:
            count = max(1, min(3, selects))
            pins = SPI1_BUS + SPI1_CE[:count]
            held.update({pin: f"SPI1 (dtoverlay=spi1-{count}cs: BCM "
                         f"{', '.join(map(str, sorted(pins)))})" for pin in pins})
    if audio == "i2s":
        held.update({pin: "I2S audio (its overlay takes BCM 18 to 21)" for pin in I2S_PINS})
    if uart:
        held.update({pin: "the UART (enable_uart=1: BCM 14 and 15)" for pin in UART_PINS})
    return held


def free_pins(held: Iterable[int]) -> tuple[int, ...]:
    """The header's GPIO nothing holds, in order."""
    taken = set(held)
    return tuple(pin for pin in HEADER_GPIO if pin not in taken)
