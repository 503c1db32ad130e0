"""The seat buttons checked before a game: doctor asks for each button's line with edge
detection, as the referee will, and names a line another driver holds or a library that cannot
detect edges; ``check-table --buttons`` asks for each press in turn and names crossed wires and
silent buttons. On gpiozero's MockFactory, with pins that fail as the real ones do."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from daemon_harness import write_config
from gpiozero.pins.mock import MockFactory, MockPin
from test_controls import BusyPin, EdgelessPin

from table.commands.buttons import check_lines, check_presses
from table.commands.cli import main
from table.runtime.config import Config, load_config

CONTROLS = """
[controls]
pin_factory = "mock"
[controls.seats.Aki]
uno = 17
draw = 27
[controls.seats.Ken]
uno = 22
"""


@pytest.fixture
def config(tmp_path: Path) -> Config:
    return load_config(write_config(tmp_path, extra=CONTROLS), need_deck=False)


@pytest.fixture
def factory(monkeypatch: pytest.MonkeyPatch) -> Iterator[MockFactory]:
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "mock")
    made = MockFactory()
    yield made
    made.reset()


def with_pin(factory: MockFactory, bad: int, pin_class: type[MockPin]) -> MockFactory:
    """``factory`` whose pin ``bad`` is of ``pin_class``."""
    real = factory.pin

    def pin_of(name: object, pin_class_: object = None, **kwargs: object) -> object:
        chosen = pin_class if str(name).endswith(f"GPIO{bad}") or name == bad else pin_class_
        return real(name, pin_class=chosen, **kwargs)

    factory.pin = pin_of  # type: ignore[method-assign]
    return factory


def test_doctor_names_a_line_another_driver_holds(config: Config, factory: MockFactory) -> None:
    found = check_lines(config, with_pin(factory, 27, BusyPin))
    assert found == [
        (True, "button Aki uno (GPIO17): line requested with edge detection", ""),
        (False, "button Aki draw (GPIO27): OSError: GPIO busy",
         "another driver or program holds GPIO27: `gpioinfo` names it; stop it, remove its "
         "dtoverlay from config.txt, or wire this to a free pin"),
        (True, "button Ken uno (GPIO22): line requested with edge detection", ""),
    ]


def test_doctor_names_the_library_whose_edge_detection_fails(config: Config,
                                                             factory: MockFactory) -> None:
    found = check_lines(config, with_pin(factory, 22, EdgelessPin))
    assert found[2][:2] == (False, "button Ken uno (GPIO22): RuntimeError: Failed to add edge "
                                   "detection")
    assert "the original RPi.GPIO is installed" in found[2][2]


def test_doctor_prints_each_button(tmp_path: Path, factory: MockFactory,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    del factory  # the environment's mock factory is the one doctor makes
    main(["doctor", "--config", str(write_config(tmp_path, extra=CONTROLS)), "--timeout", "1"])
    out = capsys.readouterr().out
    for what in ("Aki uno (GPIO17)", "Aki draw (GPIO27)", "Ken uno (GPIO22)"):
        assert f"ok   button {what}: line requested with edge detection" in out


def press(factory: MockFactory, pin: int) -> None:
    factory.pin(pin).drive_low()
    factory.pin(pin).drive_high()


def test_check_table_buttons_asks_for_each_press_in_turn(config: Config,
                                                         factory: MockFactory) -> None:
    asked: list[str] = []
    lines: list[str] = []

    def person(player: str, button: str, pin: int) -> None:
        asked.append(f"{player} {button}")
        press(factory, pin)

    assert check_presses(config, person, 10, factory, lines.append) == 0
    assert asked == ["Aki uno", "Aki draw", "Ken uno"]
    assert lines == ["PASS  Aki uno (GPIO17)", "PASS  Aki draw (GPIO27)", "PASS  Ken uno (GPIO22)",
                     "\nall PASS: every button reaches the referee"]


def test_crossed_wires_and_a_dead_button_are_named(config: Config, factory: MockFactory) -> None:
    wired = {17: 27, 27: 17, 22: None}  # Aki's two swapped; Ken's never reaches the Pi
    lines: list[str] = []

    def person(player: str, button: str, pin: int) -> None:
        if wired[pin] is not None:
            press(factory, wired[pin])

    assert check_presses(config, person, 0.3, factory, lines.append) == 1
    assert lines[0].startswith("FAIL  Aki uno (GPIO17): the press came as Aki draw\n")
    assert lines[1].startswith("FAIL  Aki draw (GPIO27): the press came as Aki uno\n")
    assert lines[2] == ("FAIL  Ken uno (GPIO22): no press in 0.3 s\n      fix:   wire GPIO22 to "
                        "one leg of the button and GND to the other (the pull-up is the Pi's "
                        "own)")
    assert lines[-1] == "\n3 FAIL"


def test_check_table_buttons_without_buttons_says_so(tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check-table", "--buttons", "--config", str(write_config(tmp_path))]) == 1
    assert "no buttons configured ([controls.seats.NAME]); nothing to check" in (
        capsys.readouterr().out)
