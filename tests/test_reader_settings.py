"""The reader settings a maker tunes, on the real ``mfrc522`` package over the chip model:
each one reaches the chip or the reader's timing (receiver gain in RFCfgReg, the SPI node's
speed, polls to confirm, roll calls to miss) and a bad value is a one-line error."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from sim.hardware.mfrc522_model import VirtualTag
from sim.hardware.rpi_fakes import SimBoard, simulated_pi
from table.inputs import Report, TagLifted, TagRead
from table.readers.factory import ReaderError, ReaderSpec, make_reader

RF_CFG = 0x26  # MFRC522 RFCfgReg: RxGain in bits 6-4
UID = "04112233445566"


@pytest.fixture
def board() -> Iterator[SimBoard]:
    with simulated_pi() as board:
        yield board


class Clock:
    """The reader's clock, moved by the test: each poll is 10 ms later than the one before."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def polled_reader(extra: dict[str, Any], reports: list[Report], clock: Clock) -> Any:
    """A reader polled by the test (no thread), on ``clock``."""
    from table.readers.mfrc522_reader import Mfrc522Reader, build

    reader = build(ReaderSpec("pad", "mfrc522", extra=extra), reports.append)
    assert isinstance(reader, Mfrc522Reader)
    reader.clock = clock
    return reader


def polls(reader: Any, clock: Clock, count: int) -> None:
    for _ in range(count):
        clock.now += 0.01
        reader.poll_once()


def reads(reports: list[Report]) -> list[Report]:
    return [r for r in reports if isinstance(r, TagRead | TagLifted)]


@pytest.mark.parametrize(("gain", "rx_gain"), [(18, 2), (33, 4), (48, 7)])
def test_the_antenna_gain_is_written_to_rfcfgreg_at_every_set_up(
    board: SimBoard, gain: int, rx_gain: int
) -> None:
    chip = board.add_chip(ce=0)
    reports: list[Report] = []
    reader = polled_reader({"gain": gain}, reports, Clock())
    try:
        assert chip.regs[RF_CFG] >> 4 & 0x07 == rx_gain
        chip.soft_reset()  # a dip in its supply: the chip forgets every setting
        assert chip.regs[RF_CFG] == 0x48
        polls(reader, Clock(), 1)
        assert chip.regs[RF_CFG] >> 4 & 0x07 == rx_gain  # set up again with the maker's gain
    finally:
        reader.stop()


def test_the_spi_speed_is_the_spidev_nodes_max_speed(board: SimBoard) -> None:
    board.add_chip(ce=0)
    reader = polled_reader({"speed_hz": 4_000_000}, [], Clock())
    try:
        assert reader.port.spi.max_speed_hz == 4_000_000
    finally:
        reader.stop()
    default = polled_reader({}, [], Clock())
    try:
        assert default.port.spi.max_speed_hz == 1_000_000
    finally:
        default.stop()


@pytest.mark.parametrize("confirm", [1, 3, 6])
def test_a_card_is_read_after_confirm_polls_and_not_one_before(
    board: SimBoard, confirm: int
) -> None:
    chip = board.add_chip(ce=0)
    clock, reports = Clock(), []
    reader = polled_reader({"confirm": confirm}, reports, clock)
    try:
        polls(reader, clock, 1)  # set up, live
        chip.place(VirtualTag.of(UID))
        polls(reader, clock, confirm - 1)
        assert reads(reports) == []
        polls(reader, clock, 1)
        assert [(type(r), r.uid) for r in reads(reports)] == [(TagRead, UID)]
    finally:
        reader.stop()


@pytest.mark.parametrize(("misses", "new"), [(1, True), (3, False)])
def test_a_card_away_for_four_seconds_is_new_only_past_its_missed_roll_calls(
    board: SimBoard, misses: int, new: bool
) -> None:
    """Roll calls come every 2 s: with ``misses = 1`` a card gone for 4 s has left and its
    return is a new placement; with ``misses = 3`` it is still the same card, said nothing of."""
    chip = board.add_chip(ce=0)
    clock, reports = Clock(), []
    reader = polled_reader({"confirm": 2, "misses": misses}, reports, clock)
    try:
        polls(reader, clock, 1)
        tag = chip.place(VirtualTag.of(UID))
        polls(reader, clock, 2)
        assert len(reads(reports)) == 1
        chip.remove(tag)
        for _ in range(4):  # four seconds of polls, a roll call among them
            clock.now += 1.0
            polls(reader, clock, 1)
        chip.place(tag)
        polls(reader, clock, 3)
        again = [(type(r), r.uid) for r in reads(reports)[1:]]
        assert again == ([(TagLifted, UID), (TagRead, UID)] if new else [])
    finally:
        reader.stop()


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ({"gain": 40}, r"gain = 40 is not an MFRC522 receiver gain in dB \(18, 23, 33, 38, 43"),
        ({"gain": True}, r"gain = True is not an MFRC522 receiver gain"),
        ({"gain": [33]}, r"gain = \[33\] is not an MFRC522 receiver gain"),
        ({"gain": 33.0}, r"gain = 33\.0 is not an MFRC522 receiver gain"),
        ({"misses": 0}, r"misses = 0 is not a count of roll calls \(1-10\)"),
        ({"speed_hz": 20_000_000}, r"speed_hz = 20000000 is not an SPI speed in Hz"),
        ({"confirm": 21}, r"confirm = 21 is not a count of polls \(1-20\)"),
        ({"poll": 0}, r"poll = 0 is not a time in seconds"),
        ({"fields": "sometimes"}, r"fields = 'sometimes': use 'always' or 'turns'"),
    ],
)
def test_a_bad_setting_is_a_one_line_error(
    board: SimBoard, extra: dict[str, Any], message: str
) -> None:
    board.add_chip(ce=0)
    with pytest.raises(ReaderError, match=message) as info:
        make_reader(ReaderSpec("pad", "mfrc522", extra=extra), lambda r: None)
    assert "\n" not in str(info.value) and str(info.value).startswith("reader pad: ")
