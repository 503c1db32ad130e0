"""Radio physics of the MFRC522 model, driven by the real ``mfrc522`` package: anticollision
over several tags, HALT and wake-up as ISO 14443-3 says, and each noise effect at its rate."""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sim.hardware.mfrc522_model import Mfrc522Model, VirtualTag
from sim.hardware.noisy_table import NoisyTable, Pad, SimClock
from sim.hardware.radio_noise import LEVELS, RESTING, NoiseRates, RadioNoise
from sim.hardware.rpi_fakes import SimBoard, simulated_pi
from table.readers.iso14443 import CT, REQA, WUPA


class Driver:
    """The real package on one simulated chip, on a simulated clock."""

    def __init__(self, board: SimBoard, clock: SimClock) -> None:
        from table.readers.mfrc522_reader import Mfrc522Reader

        self.chip = board.chips[0].chip
        self.reader = Mfrc522Reader("pad", lambda r: None, clock=clock, pause=clock.advance)
        self.clock = clock

    def read_all(self) -> set[bytes]:
        from table.readers.mfrc522_reader import read_field

        return set(read_field(self.reader.chip, lambda uid: True, self.clock.advance, most=8))

    def request(self, command: int) -> bool:
        """A short frame (REQA or WUPA): did any tag answer?"""
        from table.readers.mfrc522_reader import _transceive

        return _transceive(self.reader.chip, [command], 0x07, self.clock.advance) is not None


@pytest.fixture
def driver() -> Iterator[Driver]:
    clock = SimClock()
    board = SimBoard(clock=clock, on_transfer=lambda: clock.advance(50e-6))
    board.add_chip(ce=0)
    with simulated_pi(board):
        d = Driver(board, clock)
        yield d
        d.reader.port.close()


def uids() -> st.SearchStrategy[bytes]:
    first = st.integers(0, 255).filter(lambda b: b != CT)
    four = st.tuples(first, st.binary(min_size=3, max_size=3)).map(lambda p: bytes([p[0]]) + p[1])
    seven = st.tuples(first, st.binary(min_size=6, max_size=6)).map(lambda p: bytes([p[0]]) + p[1])
    return st.one_of(four, seven)


@settings(max_examples=60, deadline=None)
@given(st.lists(uids(), min_size=1, max_size=4, unique=True))
def test_anticollision_finds_every_tag_of_a_field_of_one_to_four(found: list[bytes]) -> None:
    clock = SimClock()
    board = SimBoard(clock=clock, on_transfer=lambda: clock.advance(50e-6))
    board.add_chip(ce=0)
    with simulated_pi(board):
        d = Driver(board, clock)
        for uid in found:
            d.chip.place(VirtualTag(uid))
        assert d.read_all() == set(found)
        assert not d.request(REQA)  # every one read was halted: the field is silent
        d.reader.port.close()


@settings(max_examples=30, deadline=None)
@given(
    st.lists(uids(), min_size=1, max_size=4, unique=True),
    st.sampled_from(["field off and on", "soft reset", "RST pulse", "leaves the field"]),
)
def test_halted_tags_stay_silent_until_their_field_drops(found: list[bytes], how: str) -> None:
    """ISO 14443-3: a halted tag ignores REQA, answers WUPA (and falls back to HALT), and is a
    new tag in IDLE once it has lost power: the field switched off, the chip reset, the tag
    taken away and brought back."""
    clock = SimClock()
    board = SimBoard(clock=clock, on_transfer=lambda: clock.advance(50e-6))
    board.add_chip(ce=0)
    with simulated_pi(board):
        d = Driver(board, clock)
        tags = [d.chip.place(VirtualTag(uid)) for uid in found]
        d.read_all()
        assert all(t.state == "HALT" for t in tags)
        assert not d.request(REQA)
        assert d.request(WUPA)  # wakes them...
        assert not d.request(REQA) and all(t.state == "HALT" for t in tags)  # ...not for good
        chip = d.reader.chip
        if how == "field off and on":
            chip.AntennaOff()
            chip.AntennaOn()
        elif how == "soft reset":
            d.reader.chip.MFRC522_Init()  # begins with a SoftReset
        elif how == "RST pulse":
            d.reader.pulse_reset()
        else:
            for t in tags:
                d.chip.remove(t)
                d.chip.place(t)
        assert all(t.state == "IDLE" for t in tags)
        assert d.read_all() == set(found)
        d.reader.port.close()


def test_a_halted_tag_in_a_crowd_is_not_read_again(driver: Driver) -> None:
    first = driver.chip.place(VirtualTag.of("04A1B2C3"))
    assert driver.read_all() == {first.uid}
    second = driver.chip.place(VirtualTag.of("04112233445566"))
    assert driver.read_all() == {second.uid}


def rate_run(rates: NoiseRates, pads: list[Pad], seconds: float, place: dict[str, str]) -> Any:
    with NoisyTable(pads, RadioNoise(rates, seed=7)) as table:
        for pad, uid in place.items():
            table.place(pad, uid)
        table.run(seconds)
        return table


def within(count: int, expected: float) -> bool:
    """``count`` is a plausible Poisson draw of mean ``expected`` (five standard deviations)."""
    return abs(count - expected) <= 5 * math.sqrt(expected) + 1


def test_a_resting_card_misses_polls_at_the_flap_rate() -> None:
    rates = NoiseRates(flap=0.3)
    table = rate_run(rates, [Pad("pad")], 20.0, {"pad": "04A1B2C3"})
    # Every request after the card's first RESTING seconds on the pad may miss it.
    resting = table.chip("pad").sent[REQA] * (20.0 - RESTING) / 20.0
    assert within(table.noise.counts["flap"], resting * rates.flap)


def test_cross_talk_comes_at_its_rate_per_second() -> None:
    rates = NoiseRates(crosstalk=2.0)
    table = rate_run(rates, [Pad("a", near=("b",)), Pad("b")], 60.0, {"a": "04A1B2C3"})
    assert within(table.noise.counts["crosstalk"], 2.0 * 60.0)  # b sees a's card


def test_lockups_come_at_their_rate_and_each_is_reset() -> None:
    rates = NoiseRates(lockup=0.5)
    table = rate_run(rates, [Pad("a"), Pad("b")], 60.0, {})
    locks = table.noise.counts["lockup"]
    assert within(locks, 2 * 60 * 0.5)
    assert sum(s.lockups_reset for s in table.state.values()) == locks
    assert [s.state for s in table.statuses] == ["live", "live"]  # never reported lost


def test_corrupted_uids_come_at_their_rate() -> None:
    rates = NoiseRates(corrupt=0.1)
    with NoisyTable([Pad("a")], RadioNoise(rates, seed=3)) as table:
        for i in range(400):
            tag = table.place("a", f"04A1B2{i % 256:02X}")
            table.run(0.01)  # one poll
            table.remove("a", tag)
        assert within(table.noise.counts["corrupt"], 400 * 0.1)


def test_past_the_stack_limit_polls_fail_at_the_detune_rate() -> None:
    rates = NoiseRates(stack_limit=2, detune_fail=0.5)
    with NoisyTable([Pad("a")], RadioNoise(rates, seed=5)) as table:
        for uid in ("04A1B2C3", "04A1B2C4", "04A1B2C5"):
            table.place("a", uid)
        table.run(20.0)
        requests = table.chip("a").sent[REQA]
        assert within(table.noise.counts["detune"], requests * 0.5)


def test_harsh_is_at_least_ten_times_realistic() -> None:
    harsh, real = LEVELS["harsh"], LEVELS["realistic"]
    for name in ("flap", "drop", "duplicate", "corrupt", "crosstalk", "lockup"):
        assert getattr(harsh, name) >= 10 * getattr(real, name), name
    assert harsh.flap >= 0.5 and harsh.corrupt >= 0.001 and harsh.lockup >= 1 / 120


def test_a_counterfeit_chip_says_so_and_a_module_holding_miso_blinds_the_bus() -> None:
    with NoisyTable([Pad("a", counterfeit=True), Pad("b", holds_miso=True)]) as table:
        table.run(0.1)
        a = table.state["a"].reader
        assert a.version == 0  # b holds MISO low: a reads nothing at all...
        assert [(s.reader, s.state) for s in table.statuses] == [("b", "live")]  # ...b is fine
        table.chip("b").holds_miso = False
        table.run(0.1)
        assert a.version == 0x12
        assert [(s.reader, s.state) for s in table.statuses] == [("b", "live"), ("a", "live")]


def test_noise_draws_from_its_own_stream() -> None:
    """The same seed gives the same noise whatever else used ``random``."""
    import random

    def counts() -> dict[str, int]:
        pads = [Pad("a", near=("b",)), Pad("b")]
        table = rate_run(LEVELS["harsh"], pads, 20.0, {"a": "04A1B2C3"})
        return dict(table.noise.counts)

    first = counts()
    random.seed(99)
    random.random()
    assert counts() == first


def test_model_chips_without_noise_are_clean() -> None:
    chip = Mfrc522Model()
    assert chip.noise is None and not chip.locked and not chip.holds_miso
