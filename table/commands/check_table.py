"""``uno-table check-table``: the wiring and the radio of a table, before any deck exists.

Every reader of the configuration is started at once (so every antenna field is on together,
as during a game) and checked part by part, as Klipper's Config_checks does: each reader comes
live; its chip's version, on the Pi's SPI or as a bridge board reports it (a genuine MFRC522
says 0x91 or 0x92, a Fudan FM17522 clone 0x88, 0x89 or 0xB2 and works, a counterfeit 0x12, a
module that does not answer 0x00 or 0xFF); then each pad in turn is asked for any tagged
card, which it must read while every other pad stays silent (a pad that reads it too is
cross-talk); last, no reader was lost while all the fields were on (power). Each check
prints one ``PASS`` or ``FAIL`` line; a ``FAIL`` says what the result means and the wire or
setting to change. No deck file is needed: any tag will do.
"""

from __future__ import annotations

import queue
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from table.inputs import ReaderStatus, Report, TagRead
from table.readers.factory import Reader, ReaderSpec, make_reader
from table.readers.radio_checks import CHIPS

VERSION_REG = 0x37  # MFRC522 VersionReg
SILENT = (0x00, 0xFF)  # VersionReg of a chip that does not answer
SPACING = ("move the pads apart: at least three antenna sizes between antenna edges (about "
           "15 cm for RC522 boards), with no metal between or under them")

# The operator: ("place", pad) asks for any tagged card on the pad; ("lift", pad) to take it
# off. ``settle(pad)`` returns once every reader has had time to read (polls, not wall time).
Ask = Callable[[str, str], None]
Settle = Callable[[str], None]


@dataclass(frozen=True, slots=True)
class Check:
    """One line of the result: what was checked, and when it failed, what it means and the
    fix."""

    ok: bool
    what: str
    means: str = ""
    fix: str = ""

    def text(self) -> str:
        """``PASS  ...`` or ``FAIL  ...`` with the meaning and the fix on their own lines."""
        lines = [f"{'PASS' if self.ok else 'FAIL'}  {self.what}"]
        if self.means:
            lines.append(f"      means: {self.means}")
        if self.fix:
            lines.append(f"      fix:   {self.fix}")
        return "\n".join(lines)


def _wiring(spec: ReaderSpec) -> str:
    """The wires of ``spec``'s reader, for a fix line."""
    if spec.kind == "mfrc522":
        cs = spec.extra.get("cs_pin")
        select = f"GPIO {cs} (cs_pin, with a 10 kΩ pull-up to 3.3 V)" if cs is not None else (
            f"CE{spec.device} (header pin {24 if spec.device == 0 else 26})")
        return (f"its SDA to {select}, MISO to header pin 21, MOSI 19, SCK 23, RST to GPIO "
                f"{spec.reset_pin if spec.reset_pin is not None else 25}, 3.3 V (never 5 V) "
                "and GND")
    if spec.kind == "bridge":
        return (f"the bridge's USB cable and port {spec.port} (ls -l /dev/serial/by-path/), "
                f"and reader {spec.channel}'s wires on the bridge")
    return f"the reader's USB cable and port {spec.port}"


class Table:
    """Every reader started at once, their reports on one queue."""

    def __init__(self, specs: Sequence[ReaderSpec]) -> None:
        self.specs = list(specs)
        self.reports: queue.Queue[Report] = queue.Queue()
        self.readers: dict[str, Reader] = {}
        self.failed: dict[str, str] = {}  # readers that could not even start
        self.states: dict[str, str] = {s.name: "no report" for s in self.specs}
        self.lost: list[str] = []
        self.reads: list[TagRead] = []

    @contextmanager
    def running(self) -> Iterator[Table]:
        """Start every reader; stop them all afterwards."""
        for spec in self.specs:
            try:
                reader = make_reader(spec, self.reports.put)
                reader.start()
            except Exception as exc:  # a library missing, a device that cannot be opened
                self.failed[spec.name] = str(exc)
                continue
            self.readers[spec.name] = reader
        try:
            yield self
        finally:
            for reader in self.readers.values():
                reader.stop(timeout=2.0)

    def pump(self, timeout: float) -> Report | None:
        """The next report (None after ``timeout``), with the states and reads kept."""
        try:
            report = self.reports.get(timeout=max(timeout, 0.0))
        except queue.Empty:
            return None
        if isinstance(report, ReaderStatus):
            if report.state == "lost" and self.states.get(report.reader) == "live":
                self.lost.append(report.reader)
            self.states[report.reader] = report.state
        elif isinstance(report, TagRead):
            self.reads.append(report)
        return report

    def drain(self) -> None:
        """Take every report waiting, without waiting."""
        while self.pump(0.0) is not None:
            pass

    def wait_live(self, timeout: float) -> None:
        """Until every started reader is live, or ``timeout``."""
        deadline = time.monotonic() + timeout
        waiting = {name for name in self.readers if self.states[name] != "live"}
        while waiting and self.pump(deadline - time.monotonic()) is not None:
            waiting = {name for name in self.readers if self.states[name] != "live"}

    def version(self, name: str) -> int | None:
        """An MFRC522's VersionReg, read on the Pi's SPI or as its bridge board reported it
        (None for other kinds)."""
        reader = self.readers.get(name)
        if hasattr(reader, "chip_version"):
            return reader.chip_version()  # type: ignore[union-attr, no-any-return]
        chip = getattr(reader, "chip", None)
        if chip is None or not hasattr(chip, "Read_MFRC522"):
            return None
        return int(chip.Read_MFRC522(VERSION_REG))


def check_live(table: Table, timeout: float) -> list[Check]:
    """Every reader live within ``timeout``."""
    table.wait_live(timeout)
    out = []
    for spec in table.specs:
        if spec.name in table.failed:
            out.append(Check(False, f"reader {spec.name}: cannot start: {table.failed[spec.name]}",
                             "the reader's library or device is missing",
                             "check its kind and port; run uno-table doctor for permissions"))
        elif table.states[spec.name] == "live":
            out.append(Check(True, f"reader {spec.name} ({spec.kind}): live"))
        else:
            out.append(Check(False, f"reader {spec.name} ({spec.kind}): not live after "
                             f"{timeout:g} s ({table.states[spec.name]})",
                             "nothing answers at this reader's address",
                             f"check {_wiring(spec)}"))
    return out


def check_versions(table: Table) -> list[Check]:
    """The chip version of every MFRC522; a bus where all but one read nothing is held."""
    versions = {s.name: table.version(s.name) for s in table.specs if s.name in table.readers}
    out = []
    by_bus: dict[int, list[ReaderSpec]] = {}
    for spec in table.specs:
        if versions.get(spec.name) is not None and spec.kind == "mfrc522":
            by_bus.setdefault(spec.bus, []).append(spec)
    held = set()
    for bus, specs in by_bus.items():
        silent = [s.name for s in specs if versions[s.name] in SILENT]
        if len(specs) >= 2 and len(silent) >= len(specs) - 1:
            held.update(silent)
            talking = sorted(set(s.name for s in specs) - set(silent))
            out.append(Check(
                False, f"SPI bus {bus}: {', '.join(silent)} read 0x00"
                + (f" while {talking[0]} answers" if talking else ""),
                "a module holds MISO low while it is not selected (common on cheap RC522 "
                "boards), so the others' answers never reach the Pi",
                "uno-table doctor names it when each reader has its own reset_pin (it holds "
                "the others in reset and reads one at a time), else unplug the readers one at "
                "a time; then give each module a path of its own onto MISO: a Schottky diode "
                "(1N5819), anode at the module, cathode to "
                "the bus, with 1 kΩ from the bus to ground (board.miso = \"diode\"), or a "
                "74LVC1G125 enabled by its SDA (board.miso = \"buffer\")"))
    for spec in table.specs:
        version = versions.get(spec.name)
        if version is None or spec.name in held:
            continue
        known = CHIPS.get(version)
        if known is not None and known[1]:
            out.append(Check(True, f"reader {spec.name}: chip version 0x{version:02X} "
                             f"({known[0]})"))
        elif known is not None:
            out.append(Check(False, f"reader {spec.name}: chip version 0x{version:02X}: "
                             f"{known[0]}",
                             "counterfeit chips read at a shorter range and hang",
                             "replace the module with one whose chip says 0x91 or 0x92 "
                             "(docs/building.md: parts)"))
        elif version in SILENT:
            out.append(Check(False, f"reader {spec.name}: chip version 0x{version:02X}",
                             "the chip does not answer on SPI (0x00: MISO low or no power; "
                             "0xFF: MISO floating)", f"check {_wiring(spec)}"))
        else:
            out.append(Check(False, f"reader {spec.name}: chip version 0x{version:02X}",
                             "a chip this table does not know: it answers, but is no MFRC522 "
                             "or known clone", "use an RC522 board whose chip says 0x91, 0x92 "
                             "or 0x88 (docs/building.md: parts)"))
    return out


def check_pad(table: Table, spec: ReaderSpec, ask: Ask, settle: Settle,
              timeout: float) -> list[Check]:
    """Any tagged card on ``spec``'s pad: read there, and by no other pad."""
    table.drain()
    first = len(table.reads)
    ask("place", spec.name)
    deadline = time.monotonic() + timeout
    mine = None
    while mine is None and time.monotonic() < deadline:
        table.pump(deadline - time.monotonic())
        mine = next((r for r in table.reads[first:] if r.reader == spec.name), None)
    if mine is not None:
        settle(spec.name)
        table.drain()
    ask("lift", spec.name)
    others = sorted({r.reader for r in table.reads[first:] if r.reader != spec.name})
    out = []
    if mine is None:
        out.append(Check(False, f"pad {spec.name}: no card read in {timeout:g} s",
                         "the reader answers but reads no tag here: the tag too far from "
                         "the antenna, metal under the pad, or no card put down",
                         "put the card flat on the pad's centre; keep the tabletop over the "
                         "antenna under 5 mm of wood or plastic; NTAG213 tags of 20 mm or more"))
    else:
        out.append(Check(True, f"pad {spec.name}: reads {mine.uid}"))
    for other in others:
        out.append(Check(False, f"pads {spec.name} and {other}: {other} read the card on "
                         f"{spec.name}",
                         "cross-talk: the two antennas see each other's cards, and a card "
                         "would count on both", SPACING))
    if mine is not None and not others and len(table.readers) > 1:
        out.append(Check(True, f"pad {spec.name}: every other pad silent"))
    return out


def check_power(table: Table) -> Check:
    """No reader lost while every field was on."""
    if table.lost:
        lost = ", ".join(sorted(set(table.lost)))
        return Check(False, f"power: {lost} lost while every reader's field was on",
                     "the 3.3 V supply sags when all the antennas transmit",
                     "feed the readers from a 3.3 V regulator of at least 100 mA per reader "
                     "(not the Pi's or the Nano's 3.3 V pin), with short, thick supply wires")
    return Check(True, f"power: {len(table.readers)} readers polled together, none lost")


def check_table(specs: Sequence[ReaderSpec], ask: Ask, settle: Settle, timeout: float,
                out: Callable[[str], Any] = print) -> int:
    """Run every check, printing each line; 0 when all pass, 1 otherwise."""
    results: list[Check] = []

    def say(checks: list[Check]) -> None:
        results.extend(checks)
        for check in checks:
            out(check.text())

    with Table(specs).running() as table:
        say(check_live(table, timeout))
        say(check_versions(table))
        for spec in specs:
            if table.states[spec.name] == "live":
                say(check_pad(table, spec, ask, settle, timeout))
        table.drain()
        say([check_power(table)])
    failed = sum(not c.ok for c in results)
    out(f"\n{failed} FAIL" if failed else "\nall PASS: enrol the deck next (uno-table enroll)")
    return 1 if failed else 0


def ask_person(action: str, pad: str) -> None:
    """A person at the table, told on the terminal."""
    if action == "place":
        print(f">>> put any tagged card on pad {pad}, nothing on the others", flush=True)
    else:
        print(f">>> lift the card off pad {pad}", flush=True)


def check_table_command(config_path: str, timeout: float, settle: float) -> int:
    """``uno-table check-table``: no deck file needed."""
    from table.runtime.config import load_config

    config = load_config(config_path, need_deck=False)
    print(f"checking {len(config.readers)} readers of {config.path}; every field on", flush=True)
    try:
        return check_table(config.readers, ask_person, lambda pad: time.sleep(settle), timeout,
                           lambda text: print(text, flush=True))
    except KeyboardInterrupt:
        print("\nstopped: the readers are closed", file=sys.stderr, flush=True)
        return 130
