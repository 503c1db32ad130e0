"""The buttons of a seat as the remote faces press them, in one place: the words of a seat
page's buttons and of the admin page's actions, a checked press from a page
(:class:`SeatPress`, the port every table offers the web: the daemon's remote control and the
simulator's people mode), and :class:`Refused`, what a table cannot do from afar.

The referee's own buttons (:data:`table.referee.referee.BUTTONS`, the words of a
:class:`table.inputs.Press`) are a part of these: a page's ``catch`` is the UNO button pressed
while another player is caught out, ``color`` names a wild's colour (the press
``color:red``...), and ``play`` plays a card where the table holds the seat's cards itself.
"""

from __future__ import annotations

from dataclasses import dataclass

from table.cards import Card, Color
from table.errors import TableError
from table.inputs import Press
from table.referee.referee import BUTTONS

SEAT_BUTTONS = (*BUTTONS, "catch", "color", "play")
ADMIN_ACTIONS = ("undo", "next-round", "new-match", "voice-test")


class Refused(TableError, ValueError):
    """What a table cannot do from a remote face (a card play at a real table, an action the
    simulator does not have); the web answers 409 with this message."""


@dataclass(frozen=True, slots=True)
class SeatPress:
    """A press from a seat page, checked: a button of :data:`SEAT_BUTTONS`, the colour of a
    ``color`` press or of a wild played, the card of a ``play``."""

    seat: int
    button: str
    color: Color | None = None
    card: Card | None = None


def press_input(press: SeatPress, t: float) -> Press:
    """The table's own input a seat page's press is, at time ``t``: the :class:`Press` a seat's
    button makes (``catch`` is the UNO button, the referee decides whom it catches; ``color`` is
    ``color:red``...). The daemon and the simulated table both hand the referee this input.
    Raises :class:`Refused` for ``play``: a card played is a card tapped on the play pad."""
    if press.button == "play":
        raise Refused("play your cards on the table's play pad")
    if press.button == "catch":
        return Press(press.seat, "uno", t)
    if press.button == "color":
        if press.color is None:
            raise Refused("name a colour: red, yellow, green or blue")
        return Press(press.seat, f"color:{press.color.value}", t)
    return Press(press.seat, press.button, t)
