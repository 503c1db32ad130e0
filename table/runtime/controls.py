"""Seat controls on GPIO: buttons (uno, draw, pass, challenge, don), a turn LED per seat and a
shared buzzer for rejected plays, through gpiozero.

Devices ask gpiozero's pin factory, chosen by argument, then by ``GPIOZERO_PIN_FACTORY``; tests
use gpiozero's own ``MockFactory``. Debounce is ours (the mock does not simulate bounce, and
cheap buttons bounce for several milliseconds): a press within ``debounce`` seconds of the
previous one on the same button is the same press. gpiozero is imported only here, when
controls are configured.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from table.inputs import Press
from table.referee.referee import BUTTONS


@dataclass(frozen=True, slots=True)
class SeatPins:
    """BCM pin numbers of one seat's controls (any may be left out)."""

    buttons: Mapping[str, int]
    led: int | None = None


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
        from gpiozero import LED, Button, Buzzer

        self.sink = sink
        self.debounce = debounce
        self.clock = clock
        self._last: dict[tuple[int, str], float] = {}
        self.buttons: list[Any] = []
        self.leds: list[Any] = []
        for seat, pins in enumerate(seats):
            for name, pin in pins.buttons.items():
                if name not in BUTTONS:
                    allowed = ", ".join(BUTTONS)
                    raise ValueError(f"seat {seat + 1}: unknown button {name!r}: use {allowed}")
                button = Button(pin, pin_factory=pin_factory)
                button.when_pressed = self._handler(seat, name)
                self.buttons.append(button)
            led = LED(pins.led, pin_factory=pin_factory) if pins.led is not None else None
            self.leds.append(led)
        self.buzzer = Buzzer(buzzer, pin_factory=pin_factory) if buzzer is not None else None

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
        """Release every pin."""
        for device in [*self.buttons, *(led for led in self.leds if led is not None)]:
            device.close()
        if self.buzzer is not None:
            self.buzzer.close()
