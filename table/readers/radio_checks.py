"""What ``uno-table doctor`` can tell about the radio of MFRC522 readers: a counterfeit chip, a
module holding the SPI bus, a reader that sees tags it should not.

Each check returns problems as ``(what, fix)`` pairs of one line each; an empty list is good.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from table.readers.factory import ReaderSpec

COUNTERFEIT = 0x12  # VersionReg of the counterfeit chips; genuine ones report 0x91 or 0x92
# VersionReg to (what the chip is, whether the table can use it). From the MFRC522 datasheet
# (0x91, 0x92) and the version table of the MFRC522 Arduino library (the Fudan clones, and its
# label for 0x12); 0x00 and 0xFF are a chip that does not answer (MISO low or floating).
CHIPS: dict[int, tuple[str, bool]] = {
    0x90: ("MFRC522 version 0.0", True),
    0x91: ("MFRC522 version 1.0", True),
    0x92: ("MFRC522 version 2.0", True),
    0x88: ("Fudan FM17522, a clone that answers as an MFRC522 does: usable, its range not "
           "measured here", True),
    0x89: ("Fudan FM17522E, a clone that answers as an MFRC522 does: usable, its range not "
           "measured here", True),
    0xB2: ("Fudan FM17522 (a later revision), a clone that answers as an MFRC522 does: usable, "
           "its range not measured here", True),
    0x12: ("a counterfeit MFRC522", False),
}
VERSION = 0x37
Problem = tuple[str, str]


def chip_problems(reader: Any) -> list[Problem]:
    """A live MFRC522 reader whose chip is a counterfeit (shorter range, hangs: rfid #428)."""
    chip = getattr(reader, "chip", None)
    if chip is None or not hasattr(chip, "Read_MFRC522"):
        return []
    with reader.port.lock:
        version = int(chip.Read_MFRC522(VERSION))
    if version != COUNTERFEIT:
        return []
    return [(
        "counterfeit MFRC522 (VersionReg 0x12): shorter range, and it locks up now and then",
        "replace the module with one whose chip reports 0x91 or 0x92 (the reader resets a "
        "locked-up chip through its RST line, but a genuine one reads farther and does not hang)",
    )]  # fmt: skip


def quiet_problems(reader: Any, seconds: float, wait: Callable[[float], object]) -> list[Problem]:
    """A reader that, during ``seconds`` with no card placed, sighted tags it never confirmed:
    cross-talk from a neighbouring pad, or a noisy supply (a card resting on the pad is
    confirmed, and is no problem)."""
    guard = getattr(reader, "guard", None)
    if guard is None or seconds <= 0:
        return []
    before = guard.unconfirmed
    wait(seconds)
    seen = guard.unconfirmed - before  # below 0: a card confirmed from sightings made before
    if seen <= 0:
        return []
    return [(
        f"saw {seen} tag sightings in {seconds:g} s that were never a card on its pad "
        "(cross-talk from a neighbouring pad, or noise)",
        "move the pads apart (80 mm is too close), keep the Pi's own board away from the "
        'antennas, or set fields = "turns" for the readers of that bus',
    )]  # fmt: skip


def bus_holders(
    specs: Sequence[ReaderSpec], live: set[str], open_reader: Callable[[ReaderSpec], Any]
) -> list[Problem]:
    """On each SPI bus where some MFRC522 readers came live and some did not: hold each live
    one in reset (its RST line low) in turn; the one whose reset brings the others back holds
    the bus's MISO line low while it is not selected (rfid #290, #377)."""
    problems: list[Problem] = []
    buses = sorted({s.bus for s in specs if s.kind == "mfrc522"})
    for bus in buses:
        on_bus = [s for s in specs if s.kind == "mfrc522" and s.bus == bus]
        dead = [s for s in on_bus if s.name not in live]
        suspects = [s for s in on_bus if s.name in live]
        if not dead or not suspects:
            continue
        readers = {s.name: open_reader(s) for s in on_bus}
        try:
            problems += _find_holder(bus, dead, suspects, readers)
        finally:
            for reader in readers.values():
                reader.port.close()
    return problems


def _find_holder(
    bus: int, dead: list[ReaderSpec], suspects: list[ReaderSpec], readers: dict[str, Any]
) -> list[Problem]:
    def answers(spec: ReaderSpec) -> bool:
        return int(readers[spec.name].chip.Read_MFRC522(VERSION)) not in (0x00, 0xFF)

    names = ", ".join(s.name for s in dead)
    for suspect in suspects:
        if any(suspect.reset_pin == d.reset_pin for d in dead):
            continue  # holding it in reset would power the others down too
        chip = readers[suspect.name].chip
        chip.gpio.output(chip.rst_pin, chip.gpio.LOW)
        try:
            freed = any(answers(d) for d in dead)
        finally:
            chip.gpio.output(chip.rst_pin, chip.gpio.HIGH)
        if freed:
            return [(
                f"reader {suspect.name} holds SPI bus {bus}'s MISO line low while it is not "
                f"selected: {names} read nothing while it is powered",
                f"put a Schottky diode on reader {suspect.name}'s MISO, anode at the module "
                "and cathode to the bus, with 1 kohm from the bus to ground, or a buffer "
                "enabled by its SDA (docs/hardware.md#wiring), or replace the module",
            )]  # fmt: skip
    return [(
        f"readers {names} on SPI bus {bus} read nothing while others on the bus work",
        "check their wiring; if the readers share a reset pin, give each its own so that "
        "doctor can tell which module holds the bus",
    )]  # fmt: skip
