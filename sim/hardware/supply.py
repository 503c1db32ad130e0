"""A 3.3 V rail that sags under the readers' antennas, for ``check-table``'s power check.

Every MFRC522 whose field is on draws :data:`FIELD_MA`; a card in the field loads the antenna
and draws :data:`CARD_MA` more. When the modules together want more than the rail gives, the
one at its far end (the ``victim``, where the supply wire's drop is largest) browns out: it is
off the bus (VersionReg reads 0x00, its field and its cards power down) until the others leave
room for its field again, when it comes back with its reset values (antenna off), as a real
module does after a dip. Hooked to a :class:`~sim.hardware.rpi_fakes.SimBoard` as its
``on_transfer``, the rail is looked at before every SPI transfer: events, not wall time.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from sim.hardware.mfrc522_model import Mfrc522Model

FIELD_MA = 30.0  # one antenna transmitting
CARD_MA = 15.0  # a card coupled to that antenna


@dataclass
class SaggingSupply:
    """A rail of ``capacity_ma`` feeding ``chips``; ``victim`` drops out when it is overdrawn."""

    capacity_ma: float
    chips: Sequence[Mfrc522Model] = ()
    victim: Mfrc522Model | None = None
    sags: int = 0  # brown-outs of the victim so far
    _out: bool = field(default=False, repr=False)

    @staticmethod
    def draw(chip: Mfrc522Model) -> float:
        """What one module draws now, in mA (nothing when unplugged, powered down or its
        antenna off)."""
        if not (chip.connected and chip.powered and chip.antenna_on):
            return 0.0
        return FIELD_MA + (CARD_MA if chip.tags else 0.0)

    def update(self) -> None:
        """Brown the victim out when the rail is overdrawn; bring it back once its field fits."""
        victim = self.victim
        if victim is None:
            return
        others = sum(self.draw(c) for c in self.chips if c is not victim)
        if not self._out and others + self.draw(victim) > self.capacity_ma:
            victim.unplug()
            self._out = True
            self.sags += 1
        elif self._out and others + FIELD_MA <= self.capacity_ma:
            victim.plug()
            self._out = False
