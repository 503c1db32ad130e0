"""Seat controls on gpiozero's own MockFactory: presses, bounce, the turn LED and the buzzer."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from gpiozero.pins.mock import MockFactory

from table.inputs import Press
from table.runtime.controls import Controls, SeatPins


class Clock:
    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


@pytest.fixture
def factory() -> Iterator[MockFactory]:
    f = MockFactory()
    yield f
    f.reset()


def make(factory: MockFactory, clock: Clock, presses: list[Press]) -> Controls:
    seats = [SeatPins({"uno": 17, "draw": 27}, led=5), SeatPins({"uno": 22}, led=6)]
    return Controls(seats, presses.append, buzzer=13, pin_factory=factory, clock=clock)


def press(factory: MockFactory, pin: int) -> None:
    factory.pin(pin).drive_low()
    factory.pin(pin).drive_high()


def test_each_button_reports_its_seat_and_action(factory: MockFactory) -> None:
    clock, presses = Clock(), []
    controls = make(factory, clock, presses)
    press(factory, 27)
    clock.t += 1
    press(factory, 22)
    assert presses == [Press(0, "draw", 100.0), Press(1, "uno", 101.0)]
    controls.close()


def test_bounce_is_one_press(factory: MockFactory) -> None:
    clock, presses = Clock(), []
    controls = make(factory, clock, presses)
    press(factory, 17)
    clock.t += 0.004  # contact bounce
    press(factory, 17)
    clock.t += 0.3  # a real second press
    press(factory, 17)
    assert [p.t for p in presses] == [100.0, 100.304]
    controls.close()


def test_turn_led_and_buzzer(factory: MockFactory) -> None:
    clock, presses = Clock(), []
    controls = make(factory, clock, presses)
    controls.show_turn(1)
    assert (factory.pin(5).state, factory.pin(6).state) == (False, True)
    controls.show_turn(0)
    assert (factory.pin(5).state, factory.pin(6).state) == (True, False)
    controls.rejected()
    buzzer = controls.buzzer
    assert buzzer is not None
    buzzer._blink_thread.join(5)  # gpiozero's own background thread for the one buzz
    assert [s.state for s in factory.pin(13).states] == [False, True, False]
    controls.close()


def test_unknown_button_is_named(factory: MockFactory) -> None:
    with pytest.raises(ValueError, match="seat 1: unknown button 'skip'"):
        Controls([SeatPins({"skip": 4})], print, pin_factory=factory)
