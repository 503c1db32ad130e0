"""``uno-table doctor`` on MFRC522 readers names what a noisy radio comes from: a counterfeit
chip, a module holding the SPI bus, a reader that sees tags with no card on it. Real backend,
real ``mfrc522`` package, simulated chips."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from sim.hardware.mfrc522_model import VirtualTag
from sim.hardware.radio_noise import COUNTERFEIT, NoiseRates, RadioNoise
from sim.hardware.rpi_fakes import SimBoard, simulated_pi
from table.commands.doctor import check_reader
from table.readers.factory import ReaderSpec, make_reader
from table.readers.radio_checks import bus_holders

PAD = ReaderSpec("pad", "mfrc522", device=0, reset_pin=25)
SEAT = ReaderSpec("Aki", "mfrc522", role="seat", device=1, reset_pin=24)


@pytest.fixture
def board() -> Iterator[SimBoard]:
    with simulated_pi() as board:
        yield board


def lines(found: list) -> list[str]:
    return [f.line() for f in found]


def test_a_genuine_chip_on_a_quiet_pad_is_all_good(board: SimBoard) -> None:
    board.add_chip(ce=0, reset_pin=25)
    found = check_reader(PAD, timeout=5.0, quiet=0.3)
    assert [f.ok for f in found] == [True]
    assert "chip version 0x92" in found[0].what


def test_a_counterfeit_chip_is_named(board: SimBoard) -> None:
    board.add_chip(ce=0, reset_pin=25, version=COUNTERFEIT)
    found = check_reader(PAD, timeout=5.0)
    assert [f.ok for f in found] == [True, False]
    assert "counterfeit MFRC522 (VersionReg 0x12)" in found[1].what
    assert "0x91 or 0x92" in found[1].fix


def test_a_reader_that_sees_tags_with_no_card_on_it_is_named(board: SimBoard) -> None:
    pile = board.add_chip(ce=0, reset_pin=25)
    seat = board.add_chip(ce=1, reset_pin=24)
    pile.place(VirtualTag.of("04A1B2C3"))  # a card on the next pad leaks into the seat's
    seat.neighbours.append(pile)
    seat.noise = RadioNoise(NoiseRates(crosstalk=20.0, shift=0.0, garble=0.0), seed=1)
    found = check_reader(SEAT, timeout=5.0, quiet=1.0)
    assert [f.ok for f in found] == [True, False], lines(found)
    assert "that were never a card on its pad" in found[1].what
    assert 'fields = "turns"' in found[1].fix


def test_a_card_resting_on_the_pad_is_no_cross_talk(board: SimBoard) -> None:
    pile = board.add_chip(ce=0, reset_pin=25)
    pile.place(VirtualTag.of("04A1B2C3"))
    found = check_reader(PAD, timeout=5.0, quiet=0.5)
    assert [f.ok for f in found] == [True], lines(found)


def test_the_module_holding_the_bus_is_named(board: SimBoard) -> None:
    board.add_chip(ce=0, reset_pin=25)
    seat = board.add_chip(ce=1, reset_pin=24)
    seat.holds_miso = True
    live: set[str] = set()
    found = check_reader(SEAT, timeout=5.0, live=live)  # its reset line now high: it holds
    found += check_reader(PAD, timeout=1.0, live=live)  # MISO low while pad is selected
    assert live == {"Aki"}
    problems = bus_holders([PAD, SEAT], live, lambda spec: make_reader(spec, lambda r: None))
    assert len(problems) == 1, (lines(found), problems)
    said, fix = problems[0]
    assert said.startswith("reader Aki holds SPI bus 0's MISO line low while it is not selected")
    assert "pad read nothing" in said and "diode" in fix


def test_readers_sharing_a_reset_pin_are_not_blamed_at_random(board: SimBoard) -> None:
    board.add_chip(ce=0, reset_pin=25)
    seat = board.add_chip(ce=1, reset_pin=25)
    seat.holds_miso = True
    shared = ReaderSpec("Aki", "mfrc522", role="seat", device=1, reset_pin=25)
    problems = bus_holders([PAD, shared], {"Aki"}, lambda s: make_reader(s, lambda r: None))
    assert problems == [(
        "readers pad on SPI bus 0 read nothing while others on the bus work",
        "check their wiring; the readers share a reset pin: give each its own (reset_pin) so "
        "that doctor can tell which module holds the bus",
    )]  # fmt: skip


KEN = ReaderSpec("Ken", "mfrc522", role="seat", reset_pin=23, extra={"cs_pin": 5})


def opened(spec: ReaderSpec) -> object:
    return make_reader(spec, lambda r: None)


def test_with_a_reset_pin_a_reader_each_module_is_read_alone(board: SimBoard) -> None:
    """Three readers on SPI0, each with its own reset line: doctor holds the others in reset
    and reads one at a time, so the module that holds MISO is named even when it is not the
    only one that came live, and a module dead on its own is told apart from it."""
    board.add_chip(ce=0, reset_pin=25)
    aki = board.add_chip(ce=1, reset_pin=24)
    board.add_chip(cs_pin=5, reset_pin=23)
    aki.holds_miso = True
    problems = bus_holders([PAD, SEAT, KEN], set(), opened)  # nothing came live
    assert [said for said, _ in problems] == [
        "reader Aki holds SPI bus 0's MISO line low while it is not selected: pad, Ken read "
        "nothing while it is powered (each answers alone, the others held in reset)"]
    assert "anode at the module" in problems[0][1]


def test_two_modules_holding_the_bus_are_both_named(board: SimBoard) -> None:
    """Doctor checks the readers one by one (the ones after it still in reset), so the last
    is lost to the holders before it; read alone, each answers, and both holders are named."""
    board.add_chip(ce=0, reset_pin=25)
    for chip in (board.add_chip(ce=1, reset_pin=24), board.add_chip(cs_pin=5, reset_pin=23)):
        chip.holds_miso = True
    live: set[str] = set()
    for spec in (PAD, SEAT, KEN):
        check_reader(spec, timeout=1.0, live=live)
    assert live == {"pad", "Aki"}
    said = [s for s, _ in bus_holders([PAD, SEAT, KEN], live, opened)]
    assert [s.split(":")[0] for s in said] == [
        "reader Aki holds SPI bus 0's MISO line low while it is not selected",
        "reader Ken holds SPI bus 0's MISO line low while it is not selected"]


def test_a_module_dead_on_its_own_is_not_called_a_holder(board: SimBoard) -> None:
    board.add_chip(ce=0, reset_pin=25).unplug()
    board.add_chip(ce=1, reset_pin=24)
    assert bus_holders([PAD, SEAT], {"Aki"}, opened) == [(
        "reader pad on SPI bus 0 does not answer even with every other reader held in reset",
        "check reader pad's wires: SDA to its chip select, MISO, MOSI, SCK, RST to GPIO 25, "
        "3.3 V (never 5 V) and GND; if every reader fails so, a module held in reset may still "
        "hold MISO: unplug the modules one at a time",
    )]  # fmt: skip
