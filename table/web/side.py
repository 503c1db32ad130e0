"""What the web server needs from a running table: the daemon at a real table and the
simulator both offer it (structurally: neither imports the web).

Everything here is called from the web server's thread. Reads see the referee's latest state,
which the referee replaces and never changes once published; presses and admin actions are
handed over to the table's own thread and never wait for it.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Protocol

from table.referee.presses import ADMIN_ACTIONS, SEAT_BUTTONS, Refused, SeatPress
from table.rules import State

# The words of the pages' buttons and actions, a checked press and the refusal: one home,
# table/referee/presses.py, for the web and every table that offers it a side.
__all__ = ["ADMIN_ACTIONS", "SEAT_BUTTONS", "Refused", "SeatPress", "TableSide"]


class TableSide(Protocol):
    """What the web needs of a table: the daemon's, the demo's and the simulator's. The web's
    own port, so it lives in the web: the web imports no table, and each table (the daemon's
    remote control, the simulator's) offers it structurally, without importing the web."""

    @property
    def players(self) -> tuple[str, ...]:
        """The seats' names, in seat order."""
        ...

    @property
    def language(self) -> str:
        """The table's language (``en`` or ``ja``)."""
        ...

    @property
    def plays_cards(self) -> bool:
        """Whether a seat page plays the seat's cards itself (the simulator) or the player
        holds real cards and taps them on the play pad."""
        ...

    @property
    def journal(self) -> Path | None:
        """The journal the table writes (``/stats`` reports on it, read only); ``None``: it
        keeps none (the demo and the simulator without ``--journal``)."""
        ...

    def state(self) -> State:
        """The referee's latest state (read only)."""
        ...

    def seat_state(self, seat: int) -> State | None:
        """The game as ``seat`` knows it, its own hand included; ``None`` when the table does
        not know that hand (only a play pad: the cards are in the player's hand)."""
        ...

    def press(self, press: SeatPress) -> None:
        """Hand a seat's press to the table. Raises :class:`Refused` (or another
        :class:`TableError`) for what it cannot do."""
        ...

    def admin(self, action: str) -> None:
        """One of :data:`ADMIN_ACTIONS`. Raises as :meth:`press` does."""
        ...

    def readers(self) -> Mapping[str, str]:
        """Each reader's latest state (live, lost, ...)."""
        ...
