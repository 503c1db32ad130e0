"""Where the seats' buttons, LEDs and the buzzer go: the free GPIO of a board, given in header
order. The example configurations take their pins from here (a test checks it), and
``uno-table wiring`` offers the free pins as the fix for a pin that is taken."""

from __future__ import annotations

from collections.abc import Sequence

from table.circuit.boards import free_pins, held_pins

BOARD_PULLED = (2, 3)  # I2C1's pins: 1.8 kohm to 3.3 V on every Pi (Raspberry Pi schematics)


class PlanError(ValueError):
    """More controls than free pins."""


def controls_plan(seats: Sequence[str], buttons: Sequence[str], led: bool, buzzer: bool,
                  held: Sequence[int]) -> dict[str, int]:
    """Configuration key (``controls.seats.Aki.uno``, ``controls.buzzer``) to BCM pin, from the
    free pins in header order: the outputs (buzzer, LEDs) first, never on BCM 2 or 3, whose
    1.8 kohm pull-ups on the board would turn a load on at boot; the buttons take the rest."""
    free = list(free_pins(held))
    outputs = (["controls.buzzer"] if buzzer else []) + (
        [f"controls.seats.{seat}.led" for seat in seats] if led else [])
    inputs = [f"controls.seats.{seat}.{name}" for seat in seats for name in buttons]
    if len(outputs) + len(inputs) > len(free):
        raise PlanError(f"{len(outputs) + len(inputs)} controls but {len(free)} free pins")
    plan: dict[str, int] = {}
    for key in outputs:
        plan[key] = next(p for p in free if p not in BOARD_PULLED and p not in plan.values())
    for key in inputs:
        plan[key] = next(p for p in free if p not in plan.values())
    return plan


def budget(audio: str, uart: bool, resets: int) -> tuple[int, ...]:
    """The free pins with SPI0, ``resets`` reset lines (BCM 25, 24, ...), the audio and the
    UART as given."""
    held = set(held_pins([(0, 2)], audio, uart)) | set(range(25, 25 - resets, -1))
    return free_pins(held)
