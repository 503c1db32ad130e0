"""Every seat's buttons, turn LEDs and the buzzer."""

from __future__ import annotations

import queue

import pytest
from rig import Rig

from table.inputs import Press


def test_every_button_reports_its_seat_and_action(rig: Rig) -> None:
    presses: queue.Queue[Press] = queue.Queue()
    with rig.controls(presses.put):
        for seat, pins in enumerate(rig.seats):
            for button in pins.buttons:
                rig.operator.press(seat, button)
                press = presses.get(timeout=rig.operator.timeout)
                assert (press.seat, press.button) == (seat, button)


def test_the_turn_led_of_each_seat(rig: Rig) -> None:
    with rig.controls(lambda press: None) as controls:
        for seat, pins in enumerate(rig.seats):
            if pins.led is None:
                continue
            controls.show_turn(seat)
            lit = [led is not None and bool(led.value) for led in controls.leds]
            only_this_one = [i == seat for i in range(len(lit))]
            assert rig.operator.sees(
                f"Is the LED of seat {seat + 1} ({rig.seat_names[seat]}) lit, and no other?",
                lambda: lit == only_this_one,  # noqa: B023 - called at once
            )


def test_the_buzzer_sounds_once_for_a_rejected_play(rig: Rig) -> None:
    if rig.buzzer is None:
        pytest.skip("no buzzer in [controls]")
    with rig.controls(lambda press: None) as controls:
        controls.rejected()
        buzzer = controls.buzzer
        assert buzzer is not None
        buzzer._blink_thread.join(5)

        def one_buzz() -> bool:
            states = [s.state for s in rig.pin_factory.pin(rig.buzzer).states]
            return states == [False, True, False]

        assert rig.operator.sees("Did the buzzer sound once?", one_buzz)
