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
    """On each SPI bus where some MFRC522 readers did not come live, each reader with a reset
    line of its own: every reader's version read alone (every other reader held in reset, its
    RST line low), then each one that answers alone read again beside each other one in turn;
    a reader beside which another reads nothing holds the bus's MISO line low while it is not
    selected (rfid #290, #377). Readers that share a reset line cannot be held apart: the
    problem is named, not the module."""
    problems: list[Problem] = []
    for bus in sorted({s.bus for s in specs if s.kind == "mfrc522"}):
        on_bus = [s for s in specs if s.kind == "mfrc522" and s.bus == bus]
        dead = [s for s in on_bus if s.name not in live]
        if not dead or len(on_bus) < 2:
            continue
        names = ", ".join(s.name for s in dead)
        if len({s.reset_pin for s in on_bus}) < len(on_bus):
            problems.append((
                f"readers {names} on SPI bus {bus} read nothing while others on the bus work",
                "check their wiring; the readers share a reset pin: give each its own "
                "(reset_pin) so that doctor can tell which module holds the bus",
            ))  # fmt: skip
            continue
        readers = {s.name: open_reader(s) for s in on_bus}
        try:
            problems += _isolate(bus, on_bus, readers)
        finally:
            for reader in readers.values():
                _power(reader, True)
                reader.port.close()
    return problems


def _power(reader: Any, on: bool) -> None:
    """Let ``reader``'s chip run (its RST line high) or hold it in reset (low)."""
    chip = reader.chip
    chip.gpio.output(chip.rst_pin, chip.gpio.HIGH if on else chip.gpio.LOW)


def _isolate(bus: int, on_bus: list[ReaderSpec], readers: dict[str, Any]) -> list[Problem]:
    """The readers of one bus read one or two at a time, the others held in reset."""
    def answers(spec: ReaderSpec, powered: set[str]) -> bool:
        for s in on_bus:
            _power(readers[s.name], s.name in powered)
        return int(readers[spec.name].chip.Read_MFRC522(VERSION)) not in (0x00, 0xFF)

    alone = [s for s in on_bus if answers(s, {s.name})]
    problems: list[Problem] = [(
        f"reader {s.name} on SPI bus {bus} does not answer even with every other reader held "
        "in reset",
        f"check reader {s.name}'s wires: SDA to its chip select, MISO, MOSI, SCK, RST to GPIO "
        f"{s.reset_pin}, 3.3 V (never 5 V) and GND; if every reader fails so, a module held in "
        "reset may still hold MISO: unplug the modules one at a time",
    ) for s in on_bus if s not in alone]  # fmt: skip
    for holder in alone:
        lost = [s.name for s in alone if s is not holder and not answers(s, {s.name, holder.name})]
        if lost:
            problems.append((
                f"reader {holder.name} holds SPI bus {bus}'s MISO line low while it is not "
                f"selected: {', '.join(lost)} read nothing while it is powered (each answers "
                "alone, the others held in reset)",
                f"put a Schottky diode on reader {holder.name}'s MISO, anode at the module "
                "and cathode to the bus, with 1 kohm from the bus to ground, or a buffer "
                "enabled by its SDA (docs/hardware.md#wiring), or replace the module",
            ))  # fmt: skip
    if not problems:
        problems.append((
            f"readers {', '.join(s.name for s in on_bus)} on SPI bus {bus} each answer alone "
            "and beside each other, but not all came live",
            "run uno-table doctor again; if it repeats, check the supply (every field on at "
            "once) and the wires' length",
        ))  # fmt: skip
    return problems
