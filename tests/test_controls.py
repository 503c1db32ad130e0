"""Seat controls on gpiozero's own MockFactory: presses, bounce, the turn LED and the buzzer."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from gpiozero.pins.mock import MockFactory, MockPin

from table.inputs import Press
from table.runtime.controls import Controls, PinTrouble, SeatPins


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


class EdgelessPin(MockPin):
    """A pin as the original RPi.GPIO gives it on a kernel 6.6 or later: edge detection fails."""

    def _enable_event_detect(self) -> None:
        raise RuntimeError("Failed to add edge detection")


class BusyPin(MockPin):
    """A line another driver holds, as lgpio refuses it."""

    def __init__(self, factory: MockFactory, info: object) -> None:
        raise OSError("GPIO busy")


@pytest.mark.parametrize(("pin_class", "cause", "fix"), [
    (EdgelessPin, "RuntimeError: Failed to add edge detection",
     "the original RPi.GPIO is installed, whose edge detection fails on current kernels: use "
     "lgpio: sudo ./uno install again"),
    (BusyPin, "OSError: GPIO busy",
     "another driver or program holds GPIO27: `gpioinfo` names it"),
])
def test_a_pin_that_fails_is_named_with_what_fixes_it(
        pin_class: type[MockPin], cause: str, fix: str) -> None:
    factory = MockFactory()
    try:
        with pytest.raises(PinTrouble) as caught:
            Controls([SeatPins({"uno": 17, "draw": 27})], print,
                     pin_factory=_failing(factory, 27, pin_class))
        assert str(caught.value).startswith(f"GPIO27 (seat 1 draw button): {cause}; {fix}")
        # the pins had before the failure were given back: the same seat starts without 27
        Controls([SeatPins({"uno": 17})], print, pin_factory=factory).close()
    finally:
        factory.reset()


def _failing(factory: MockFactory, pin: int, pin_class: type[MockPin]) -> MockFactory:
    """``factory``, with ``pin`` of ``pin_class``, asked for as seat 1's draw button."""
    real = factory.pin

    def pin_of(name: object, pin_class_: object = None, **kwargs: object) -> object:
        number = int(str(name).removeprefix("GPIO").removeprefix("BCM"))
        chosen = pin_class if number == pin else pin_class_
        return real(name, pin_class=chosen, **kwargs)

    factory.pin = pin_of  # type: ignore[method-assign]
    return factory


def test_a_held_line_stops_the_daemon_with_a_code_its_unit_restarts(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Another program holding a line may let go: exit code 1, which systemd restarts (the
    unit's RestartPreventExitStatus=2 keeps a configuration that can never run from looping),
    so the table comes up by itself once the line is free; a pin that can never be had stays
    exit code 2 (tests/test_daemon.py)."""
    from daemon_harness import write_config
    from gpiozero import Device

    from sim.hardware.ptys import PtyReader
    from table.commands.cli import main

    pad = PtyReader(tmp_path / "pad")
    config = write_config(tmp_path, extra="[controls]\nbuzzer = 13\n")
    Device.pin_factory = _failing(MockFactory(), 13, BusyPin)
    try:
        code = main(["run", "--config", str(config)])
    finally:
        Device.pin_factory.reset()
        Device.pin_factory = None
        pad.close()
    lines = capsys.readouterr().err.strip().splitlines()
    assert code == 1
    assert lines[-1] == (f"uno-table: {config}: controls: GPIO13 (buzzer): OSError: GPIO busy; "
                         "another driver or program holds GPIO13: `gpioinfo` names it; stop "
                         "it, remove its dtoverlay from config.txt, or wire this to a free pin")
    assert not (tmp_path / "journal.sqlite3").exists()  # nothing started


class StuckPin(MockPin):
    """A line the kernel will not set back to an input at close, as lgpio's pins did on a
    real kernel ('GPIO busy', seen in the appliance's guest on gpio-sim): once."""

    stuck = True

    def close(self) -> None:
        if StuckPin.stuck:
            StuckPin.stuck = False
            raise OSError("GPIO busy")


def test_a_pin_that_will_not_close_leaves_the_others_released(
        caplog: pytest.LogCaptureFixture) -> None:
    factory = _failing(MockFactory(), 27, StuckPin)
    try:
        controls = Controls([SeatPins({"uno": 17, "draw": 27}, led=22)], print,
                            buzzer=13, pin_factory=factory)
        controls.close()  # no error: the daemon's stop goes on to close the journal
        assert "not reset at close: OSError: GPIO busy" in caplog.text
        devices = [*controls.buttons, *controls.leds, controls.buzzer]
        assert [d.pin for d in devices if not d.closed] == [factory.pin(27)]  # the others too
        # every pin was given back, the stuck one too: the same controls start again
        Controls([SeatPins({"uno": 17, "draw": 27}, led=22)], print, buzzer=13,
                 pin_factory=factory).close()
    finally:
        factory.reset()


def test_a_gpio_chip_only_root_may_open_is_named_with_the_udev_rule(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """On a system whose udev rules leave /dev/gpiochip* root's (Debian, not Raspberry Pi
    OS), the group gpio cannot help: the advice names the chip and the rule the install
    writes, instead of telling the user to join a group they are already in."""
    import grp
    import os

    from table.runtime import controls

    chip = tmp_path / "gpiochip0"
    chip.touch()
    chip.chmod(0o600)
    group = grp.getgrgid(os.getgid()).gr_name
    assert controls.chips_not_for_gpio(tmp_path) == [f"{chip} (group {group}, mode 600)"]
    monkeypatch.setattr(controls, "chips_not_for_gpio", lambda: [f"{chip} (group root, mode 600)"])
    advice = controls.gpio_advice(PermissionError(13, "Permission denied"), 17)
    assert advice == (f"{chip} (group root, mode 600) is not the gpio group's: sudo ./uno install "
                      "writes the udev rule that gives /dev/gpiochip* to group gpio (reboot or "
                      "plug in again)")
    monkeypatch.setattr(controls, "chips_not_for_gpio", lambda: [])
    assert controls.gpio_advice(PermissionError(13, "Permission denied"), 17).startswith(
        "no access to /dev/gpiochip*: sudo usermod -aG gpio $USER")
