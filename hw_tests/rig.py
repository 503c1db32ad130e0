"""The table under test, real or simulated, and the operator who handles it.

A :class:`Rig` makes readers and controls from a table's configuration. Its operator is a
person at the real table (:class:`HumanOperator`: asked on the terminal to tap a card, press a
button, say what an LED shows) or the simulation itself (:class:`SimOperator`: places virtual
tags on simulated MFRC522 chips, presses gpiozero mock pins, reads pin states). The test bodies
are the same for both.
"""

from __future__ import annotations

import queue
import time
import tomllib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from table.inputs import ReaderStatus, Report, TagRead
from table.readers.factory import ReaderSpec, make_reader
from table.runtime.controls import Controls, SeatPins

SPEC_KEYS = ("name", "kind", "role", "seat", "port", "channel", "bus", "device", "reset_pin")


class Operator(Protocol):
    timeout: float

    def place(self, reader: str, again: bool = False) -> None: ...

    def lift(self, reader: str) -> None: ...

    def settle(self, reader: str) -> None: ...

    def press(self, seat: int, button: str) -> None: ...

    def sees(self, question: str, check: Callable[[], bool]) -> bool: ...


@dataclass
class Rig:
    readers: list[ReaderSpec]
    seats: list[SeatPins]
    operator: Operator
    buzzer: int | None = None
    pin_factory: Any = None
    seat_names: list[str] = field(default_factory=list)

    @contextmanager
    def running(self, spec: ReaderSpec) -> Iterator[queue.Queue[Report]]:
        """The reader of ``spec`` started, its reports on a queue; stopped afterwards."""
        reports: queue.Queue[Report] = queue.Queue()
        reader = make_reader(spec, reports.put)
        reader.start()
        try:
            yield reports
        finally:
            reader.stop()

    @contextmanager
    def controls(self, sink: Callable[[Any], None]) -> Iterator[Controls]:
        controls = Controls(self.seats, sink, buzzer=self.buzzer, pin_factory=self.pin_factory)
        try:
            yield controls
        finally:
            controls.close()


def next_report(q: queue.Queue[Report], kind: type, timeout: float) -> Any:
    """The next report of ``kind``; a timeout fails the test with one line, no traceback."""
    import pytest

    deadline = time.monotonic() + timeout
    while True:
        try:
            item = q.get(timeout=max(deadline - time.monotonic(), 0.001))
        except queue.Empty:
            what = "card read" if kind is TagRead else "reader status"
            pytest.fail(f"no {what} within {timeout:g} s: check the reader's wiring "
                        "(uno-table check-table names the wire)", pytrace=False)
        if isinstance(item, kind):
            return item


def wait_live(q: queue.Queue[Report], timeout: float) -> None:
    while next_report(q, ReaderStatus, timeout).state != "live":
        pass


def reads_in(q: queue.Queue[Report]) -> list[TagRead]:
    out = []
    while not q.empty():
        item = q.get_nowait()
        if isinstance(item, TagRead):
            out.append(item)
    return out


# ------------------------------------------------------------------ the real table


class HumanOperator:
    """A person at the table, prompted on the terminal (pytest's capture is suspended)."""

    timeout = 60.0

    def __init__(self, capture: Any, seat_names: list[str]) -> None:
        self.capture = capture
        self.seat_names = seat_names

    def _ask(self, prompt: str) -> str:
        self.capture.suspend_global_capture(in_=True)
        try:
            return input(f"\n>>> {prompt} ")
        finally:
            self.capture.resume_global_capture()

    def _say(self, text: str) -> None:
        self.capture.suspend_global_capture(in_=True)
        try:
            print(f"\n>>> {text}", flush=True)
        finally:
            self.capture.resume_global_capture()

    def place(self, reader: str, again: bool = False) -> None:
        what = "the same card" if again else "any card"
        self._say(f"Place {what} on reader {reader} and leave it there.")

    def lift(self, reader: str) -> None:
        self._ask(f"Lift the card off reader {reader}, keep it off, and press Enter.")

    def settle(self, reader: str) -> None:
        time.sleep(2.0)  # a person's card on a real pad: let the reader poll a while

    def press(self, seat: int, button: str) -> None:
        self._say(f"Press the {button} button of seat {seat + 1} ({self.seat_names[seat]}).")

    def sees(self, question: str, check: Callable[[], bool]) -> bool:
        return self._ask(f"{question} [y/n]").strip().lower().startswith("y")


def load_rig(path: Path, capture: Any) -> Rig:
    """The rig described by the ``[table]``, ``[[readers]]`` and ``[controls]`` of a table
    configuration file."""
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    players = list(data.get("table", {}).get("players", []))
    readers = []
    for entry in data.get("readers", []):
        fields = {k: v for k, v in entry.items() if k in SPEC_KEYS}
        extra = {k: v for k, v in entry.items() if k not in SPEC_KEYS}
        readers.append(ReaderSpec(**fields, extra=extra))
    controls = data.get("controls", {})
    seats_cfg = controls.get("seats", {})
    seats = []
    for name in players:
        entry = dict(seats_cfg.get(name, {}))
        led = entry.pop("led", None)
        seats.append(SeatPins(entry, led=led))
    return Rig(
        readers,
        seats,
        HumanOperator(capture, players),
        buzzer=controls.get("buzzer"),
        seat_names=players,
    )


# ------------------------------------------------------------------ the simulated table


class SimOperator:
    """The simulation playing the person: virtual tags on simulated chips, mock pins."""

    timeout = 10.0

    def __init__(self, chips: dict[str, Any], factory: Any, seats: list[SeatPins]) -> None:
        from sim.hardware.mfrc522_model import VirtualTag

        self.chips, self.factory, self.seats = chips, factory, seats
        self.tags = {name: VirtualTag.of(f"04A1B2C3D4E5{i:02X}") for i, name in enumerate(chips)}

    def place(self, reader: str, again: bool = False) -> None:
        self.chips[reader].place(self.tags[reader])

    def lift(self, reader: str) -> None:
        """Lift the card and keep it off as long as a person does: an MFRC522 reader counts a
        card put back as new once it has missed it for its ``forget`` time (5 s)."""
        from table.readers.iso14443 import REQA

        self.chips[reader].remove(self.tags[reader])
        self.chips[reader].wait_frames(400, REQA, timeout=120.0)  # 6 s at a poll every 15 ms

    def settle(self, reader: str) -> None:
        from table.readers.iso14443 import REQA

        self.chips[reader].wait_frames(10, REQA)  # ten polls

    def press(self, seat: int, button: str) -> None:
        pin = self.factory.pin(self.seats[seat].buttons[button])
        pin.drive_low()
        pin.drive_high()

    def sees(self, question: str, check: Callable[[], bool]) -> bool:
        return check()


@contextmanager
def simulated_rig() -> Iterator[Rig]:
    """Three MFRC522 readers (CE0, CE1 and a GPIO chip select) and two seats of controls."""
    from gpiozero.pins.mock import MockFactory

    from sim.hardware.rpi_fakes import SimBoard, simulated_pi

    board = SimBoard()
    chips = {
        "pad": board.add_chip(ce=0),
        "shoe": board.add_chip(ce=1),
        "Aki": board.add_chip(cs_pin=5),
    }
    readers = [
        ReaderSpec("pad", "mfrc522", device=0, reset_pin=25),
        ReaderSpec("shoe", "mfrc522", role="draw", device=1, reset_pin=25),
        ReaderSpec("Aki", "mfrc522", role="seat", seat="Aki", extra={"cs_pin": 5}),
    ]
    seats = [
        SeatPins({"uno": 17, "draw": 27, "pass": 22, "challenge": 23, "don": 24}, led=12),
        SeatPins({"uno": 16, "draw": 20}, led=13),
    ]
    factory = MockFactory()
    try:
        with simulated_pi(board):
            yield Rig(
                readers,
                seats,
                SimOperator(chips, factory, seats),
                buzzer=26,
                pin_factory=factory,
                seat_names=["Aki", "Ken"],
            )
    finally:
        factory.reset()
