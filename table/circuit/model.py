"""The circuit model: pins, parts, nets and what a board's overlays hold. Small immutable
values; everything else in the room is made from them."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from enum import StrEnum

from table.errors import TableError


class CircuitError(TableError, ValueError):
    """A circuit that the model cannot describe (an unknown part or pin)."""


class PinKind(StrEnum):
    """What a pin does on its net."""

    OUT = "out"  # push-pull output, always driving
    TRISTATE = "tristate"  # drives only while enabled, else floats
    IN = "in"  # logic input
    POWER_OUT = "power-out"  # a rail's source
    POWER_IN = "power-in"  # a supply pin drawing current
    GROUND = "ground"
    PASSIVE = "passive"  # a resistor's end, a switch contact, a pull


@dataclass(frozen=True, slots=True)
class Pin:
    """One pin. Volts are the pin's own: ``volts`` the level it drives (or the rail), ``voh``
    the least it guarantees high, ``vih`` the least it reads as high, ``vmax`` the most it
    takes; currents in mA: ``source_ma`` what an output or a rail may give, ``draw_ma`` what
    an input or a supply pin takes. ``holds``: a tri-state output known not to let go (the
    MFRC522 modules that keep MISO driven)."""

    name: str
    kind: PinKind
    volts: float = 0.0
    voh: float = 0.0
    vih: float = 0.0
    vmax: float = 99.0
    source_ma: float = 0.0
    draw_ma: float = 0.0
    pull: str | None = None  # "up" or "down": a pull inside the part (or enabled by software)
    holds: bool = False
    note: str = ""


@dataclass(frozen=True, slots=True)
class Part:
    """A part: its reference (U1, R3), what it is, its pins by name, and where its figures come
    from (a datasheet, a simulation, or "assumed")."""

    ref: str
    value: str
    pins: tuple[Pin, ...]
    source: str = ""
    note: str = ""

    def pin(self, name: str) -> Pin:
        """The pin called ``name``."""
        for p in self.pins:
            if p.name == name:
                return p
        raise CircuitError(f"{self.ref} ({self.value}) has no pin {name!r}; allowed: "
                           + ", ".join(p.name for p in self.pins))


@dataclass(frozen=True, slots=True)
class Net:
    """A net: a name, the (part ref, pin name) ends it joins, and where it comes from (a key of
    the configuration, or the board's own wiring) so that a finding can name it."""

    name: str
    ends: tuple[tuple[str, str], ...]
    where: str = ""
    owner: str = ""  # the function that may use a held pin: "SPI0", "I2S audio", "UART"
    series: int = 0  # ohms in series at the driver (chosen by simulation: table/circuit/spice)


@dataclass(frozen=True)
class Circuit:
    """Parts, nets, and the pins the board's overlays hold: (part ref, pin name) to what holds
    it ("I2S audio (BCM 18 to 21)")."""

    name: str
    parts: tuple[Part, ...]
    nets: tuple[Net, ...]
    held: Mapping[tuple[str, str], str] = field(default_factory=dict)
    title: str = ""

    def part(self, ref: str) -> Part:
        """The part whose reference is ``ref``."""
        for p in self.parts:
            if p.ref == ref:
                return p
        raise CircuitError(f"{self.name}: no part {ref!r}")

    def ends(self, net: Net) -> Iterator[tuple[Part, Pin]]:
        """The parts and pins a net joins."""
        for ref, name in net.ends:
            part = self.part(ref)
            yield part, part.pin(name)

    def net_of(self, ref: str, pin: str) -> Net | None:
        """The first net that joins ``ref``'s ``pin``, or None."""
        return next((n for n in self.nets if (ref, pin) in n.ends), None)


@dataclass(frozen=True, slots=True)
class Finding:
    """One broken rule: where (a configuration key or a net), what is wrong, the rule's name
    and the fix."""

    rule: str
    where: str
    what: str
    fix: str

    def line(self) -> str:
        """The finding as one line."""
        return f"{self.where}: {self.what} [{self.rule}]; fix: {self.fix}"
