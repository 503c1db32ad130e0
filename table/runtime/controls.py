"""Seat controls on GPIO: buttons (uno, draw, pass, challenge, don), a turn LED per seat and a
shared buzzer for rejected plays, through gpiozero.

Devices ask gpiozero's pin factory, chosen by argument, then by ``GPIOZERO_PIN_FACTORY``; tests
use gpiozero's own ``MockFactory``. Debounce is ours (the mock does not simulate bounce, and
cheap buttons bounce for several milliseconds): a press within ``debounce`` seconds of the
previous one on the same button is the same press. gpiozero is imported only here, when
controls are configured.

A pin that cannot be had is a :class:`PinTrouble` naming the pin, what it was for and what
fixes it (:func:`gpio_advice`): the original RPi.GPIO's edge detection, a line another driver
holds, the group gpio, no GPIO library.
"""

from __future__ import annotations

import grp
import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from table.errors import TableError
from table.inputs import Press
from table.referee.referee import BUTTONS

log = logging.getLogger(__name__)

REINSTALL: Final = ("sudo ./uno install again (or pip uninstall -y RPi.GPIO rpi-lgpio, then "
                    "pip install '.[pi]' && pip install --no-deps mfrc522==0.0.7)")


class PinTrouble(TableError, RuntimeError):
    """A GPIO line that cannot be used: which, for what, why, and what fixes it."""

    def __init__(self, pin: int, what: str, cause: BaseException) -> None:
        self.pin, self.what, self.cause = pin, what, cause
        super().__init__(f"GPIO{pin} ({what}): {type(cause).__name__}: {cause}; "
                         f"{gpio_advice(cause, pin)}")

    @property
    def held(self) -> bool:
        """Whether another driver or program holds the line: it may let go, so the daemon is
        worth starting again (exit code 1, which the unit restarts), unlike a pin that can
        never be had (exit code 2)."""
        return _held(self.cause)


class PinsHeld(TableError, RuntimeError):
    """The daemon cannot start because another driver or program holds a line it needs: exit
    code 1, so systemd starts it again (``RestartPreventExitStatus=2`` is for what a restart
    cannot mend) and the table comes up once the line is let go."""

    exit_code: Final = 1


def chips_not_for_gpio(dev: Path = Path("/dev")) -> list[str]:
    """The GPIO chips whose group gpio may not read and write (Raspberry Pi OS's udev rules
    give them to it; elsewhere they may be root's alone): their paths and owning groups."""
    found = []
    for chip in sorted(dev.glob("gpiochip*")):
        try:
            info = chip.stat()
            group = grp.getgrgid(info.st_gid).gr_name
        except (OSError, KeyError):
            continue
        if group != "gpio" or info.st_mode & 0o060 != 0o060:
            found.append(f"{chip} (group {group}, mode {info.st_mode & 0o777:o})")
    return found


def _held(exc: BaseException) -> bool:
    return "busy" in str(exc).lower() or type(exc).__name__ == "GPIOPinInUse"


def gpio_advice(exc: BaseException, pin: int | None = None) -> str:
    """What fixes ``exc``, raised when ``pin`` (or GPIO at all) was asked for (its type and
    words tell the library: RPi.GPIO, lgpio, gpiozero)."""
    kind, text = type(exc).__name__, str(exc).lower()
    line = "the pin" if pin is None else f"GPIO{pin}"
    if "edge detection" in text:  # the original RPi.GPIO on a kernel 6.6 or later
        return ("the original RPi.GPIO is installed, whose edge detection fails on current "
                f"kernels: use lgpio: {REINSTALL}")
    if _held(exc):
        return (f"another driver or program holds {line}: `gpioinfo` names it; stop it, "
                "remove its dtoverlay from config.txt, or wire this to a free pin")
    if isinstance(exc, PermissionError) or "permission" in text or "/dev/mem" in text or (
            "can not open gpiochip" in text):
        not_gpio = chips_not_for_gpio()
        if not_gpio:
            return (f"{not_gpio[0]} is not the gpio group's: sudo ./uno install writes the udev "
                    "rule that gives /dev/gpiochip* to group gpio (reboot or plug in again)")
        return ("no access to /dev/gpiochip*: sudo usermod -aG gpio $USER, then log in again "
                "(the service's user is in it after sudo ./uno install)")
    if kind == "BadPinFactory" or isinstance(exc, ImportError):
        return (f"no GPIO library: on a Pi {REINSTALL}; elsewhere set [controls] "
                'pin_factory = "mock"')
    if kind in ("PinInvalidPin", "PinUnsupported") or isinstance(exc, ValueError):
        return f"{line} is not a usable pin on this board: choose a BCM number 2 to 27"
    return f"check the wiring and that the pi extra is installed: {REINSTALL}"


@dataclass(frozen=True, slots=True)
class SeatPins:
    """BCM pin numbers of one seat's controls (any may be left out)."""

    buttons: Mapping[str, int]
    led: int | None = None


def _made(device: Any, pin: int, what: str, pin_factory: Any) -> Any:
    """gpiozero's ``device`` on ``pin``, or :class:`PinTrouble` saying why not."""
    try:
        return device(pin, pin_factory=pin_factory)
    except Exception as exc:  # gpiozero's, lgpio's, RPi.GPIO's errors: any is the pin's
        raise PinTrouble(pin, what, exc) from None


class Controls:
    """Seat buttons, turn LEDs and the buzzer on gpiozero (any pin factory, the mock one too)."""

    def __init__(
        self,
        seats: list[SeatPins],
        sink: Callable[[Press], None],
        buzzer: int | None = None,
        pin_factory: Any = None,
        debounce: float = 0.05,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.sink = sink
        self.debounce = debounce
        self.clock = clock
        self._last: dict[tuple[int, str], float] = {}
        self.buttons: list[Any] = []
        self.leds: list[Any] = []
        self.buzzer: Any = None
        try:
            self._make(seats, buzzer, pin_factory)
        except BaseException:
            self.close()  # the pins already had go back: a later try finds them free
            raise

    def _make(self, seats: list[SeatPins], buzzer: int | None, pin_factory: Any) -> None:
        from gpiozero import LED, Button, Buzzer

        for seat, pins in enumerate(seats):
            for name, pin in pins.buttons.items():
                if name not in BUTTONS:
                    allowed = ", ".join(BUTTONS)
                    raise ValueError(f"seat {seat + 1}: unknown button {name!r}: use {allowed}")
                button = _made(Button, pin, f"seat {seat + 1} {name} button", pin_factory)
                self.buttons.append(button)
                try:  # edge detection is asked for here: where the original RPi.GPIO fails
                    button.when_pressed = self._handler(seat, name)
                except Exception as exc:
                    raise PinTrouble(pin, f"seat {seat + 1} {name} button", exc) from None
            led = (_made(LED, pins.led, f"seat {seat + 1} LED", pin_factory)
                   if pins.led is not None else None)
            self.leds.append(led)
        self.buzzer = (_made(Buzzer, buzzer, "buzzer", pin_factory)
                       if buzzer is not None else None)

    def _handler(self, seat: int, name: str) -> Callable[[], None]:
        def pressed() -> None:
            t = self.clock()
            last = self._last.get((seat, name))
            self._last[(seat, name)] = t
            if last is not None and t - last < self.debounce:
                return  # contact bounce: the same press
            self.sink(Press(seat, name, t))

        return pressed

    def show_turn(self, seat: int | None) -> None:
        """Light the LED of the seat on turn, and only that one."""
        for i, led in enumerate(self.leds):
            if led is not None:
                led.value = 1 if i == seat else 0

    def rejected(self) -> None:
        """A short buzz for a refused play (in gpiozero's own thread: never blocks)."""
        if self.buzzer is not None:
            self.buzzer.blink(on_time=0.15, off_time=0.05, n=1, background=True)

    def close(self) -> None:
        """Release every pin, each whatever the others do: gpiozero's lgpio pins set a line
        back to an input as they close, which the kernel may refuse ("GPIO busy"); the line
        is given back all the same when the process ends, and the daemon's stop goes on to
        the journal."""
        devices = [*self.buttons, *(led for led in self.leds if led is not None)]
        for device in [*devices, *([self.buzzer] if self.buzzer is not None else [])]:
            try:
                device.close()
            except Exception as exc:  # gpiozero's, lgpio's: any is the pin's alone
                log.warning("GPIO: %s not reset at close: %s: %s", device,
                            type(exc).__name__, exc)
