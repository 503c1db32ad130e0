"""The seat buttons, checked on the real GPIO: ``uno-table doctor`` asks for each button's line
with edge detection (what the referee asks at start, and what the original RPi.GPIO fails on
kernels 6.6 and later) and names a line another driver holds; ``uno-table check-table
--buttons`` asks a person for each press in turn and says which wire to look at.

Both go through :class:`table.runtime.controls.Controls`, the referee's own controls, on the
configuration's pin factory (gpiozero's lgpio on a Pi; the mock one in tests).
"""

from __future__ import annotations

import os
import queue
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from table.inputs import Press
from table.runtime.config import Config
from table.runtime.controls import Controls, PinTrouble, SeatPins, gpio_advice

# (ok, what, fix) of one button's line: doctor prints them as its findings.
Line = tuple[bool, str, str]
AskPress = Callable[[str, str, int], None]  # player, button, BCM pin


def buttons(config: Config) -> Iterator[tuple[int, str, int]]:
    """Every configured button: its seat, its name and its BCM pin, seat by seat."""
    for entry in config.controls:
        for name, pin in entry.buttons.items():
            yield entry.seat, name, pin


def _one_button(config: Config, seat: int, name: str, pin: int) -> list[SeatPins]:
    pins = [SeatPins({}) for _ in config.players]
    pins[seat] = SeatPins({name: pin})
    return pins


@contextmanager
def _factory(config: Config) -> Iterator[None]:
    """The configuration's pin factory, as the daemon chooses it."""
    if config.pin_factory:
        os.environ.setdefault("GPIOZERO_PIN_FACTORY", config.pin_factory)
    yield


def check_lines(config: Config, pin_factory: Any = None) -> list[Line]:
    """Each button's line requested with edge detection, one at a time, and given back: fine,
    or the pin, what holds or refuses it and what fixes it."""
    found: list[Line] = []
    with _factory(config):
        for seat, name, pin in buttons(config):
            what = f"button {config.players[seat]} {name} (GPIO{pin})"
            try:
                Controls(_one_button(config, seat, name, pin), lambda press: None,
                         pin_factory=pin_factory).close()
            except PinTrouble as exc:
                found.append((False, f"{what}: {type(exc.cause).__name__}: {exc.cause}",
                              gpio_advice(exc.cause, pin)))
                continue
            found.append((True, f"{what}: line requested with edge detection", ""))
    return found


def ask_person(player: str, button: str, pin: int) -> None:
    """A person at the table, told on the terminal."""
    print(f">>> press {player}'s {button} button (GPIO{pin}), once", flush=True)


def check_buttons_command(config_path: str, timeout: float) -> int:
    """``uno-table check-table --buttons``: no deck file needed."""
    from table.runtime.config import load_config

    config = load_config(config_path, need_deck=False)
    count = sum(1 for _ in buttons(config))
    if not count:
        print(f"{config.path}: no buttons configured ([controls.seats.NAME]); nothing to check",
              flush=True)
        return 1
    print(f"checking {count} buttons of {config.path}, one press at a time", flush=True)
    try:
        return check_presses(config, ask_person, timeout, out=lambda t: print(t, flush=True))
    except PinTrouble as exc:
        print(f"FAIL  {exc}", flush=True)
        return 1
    except KeyboardInterrupt:
        print("\nstopped: the pins are given back", flush=True)
        return 130


def check_presses(config: Config, ask: AskPress, timeout: float, pin_factory: Any = None,
                  out: Callable[[str], Any] = print) -> int:
    """Every button pressed in turn, as asked: ``PASS`` when that button's press arrives,
    ``FAIL`` naming what came instead (another button: the wires crossed) or nothing; 0 when
    every button passes, 1 otherwise."""
    presses: queue.Queue[Press] = queue.Queue()
    pins = [SeatPins({}) for _ in config.players]
    for entry in config.controls:
        pins[entry.seat] = SeatPins(entry.buttons)
    failed = 0
    with _factory(config):
        controls = Controls(pins, presses.put, pin_factory=pin_factory)
        try:
            for seat, name, pin in buttons(config):
                player = config.players[seat]
                while not presses.empty():
                    presses.get_nowait()  # a press before the ask is not this one
                ask(player, name, pin)
                try:
                    press = presses.get(timeout=timeout)
                except queue.Empty:
                    failed += 1
                    out(f"FAIL  {player} {name} (GPIO{pin}): no press in {timeout:g} s\n"
                        f"      fix:   wire GPIO{pin} to one leg of the button and GND to the "
                        "other (the pull-up is the Pi's own)")
                    continue
                if (press.seat, press.button) == (seat, name):
                    out(f"PASS  {player} {name} (GPIO{pin})")
                    continue
                failed += 1
                got = f"{config.players[press.seat]} {press.button}"
                out(f"FAIL  {player} {name} (GPIO{pin}): the press came as {got}\n"
                    f"      fix:   the wires of these two buttons are swapped, or the "
                    "configuration names the wrong pins")
        finally:
            controls.close()
    out(f"\n{failed} FAIL" if failed else "\nall PASS: every button reaches the referee")
    return 1 if failed else 0
