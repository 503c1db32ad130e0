"""The kinds of input the referee's thread takes, and the roles a reader plays.

Readers report :class:`TagRead`, :class:`TagLifted` and :class:`ReaderStatus`; seat buttons (and
a seat page) :class:`Press`; the web's admin page :class:`Admin`; the referee's own loop
:class:`Tick` when no input comes. The journal keeps the :data:`JournaledInput` kinds, the ones
that change the match. Times are monotonic seconds from the clock of whoever made the input.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final


@dataclass(frozen=True, slots=True)
class TagRead:
    """A tag placed on a reader (once per placement)."""

    reader: str
    uid: str
    t: float = 0.0


@dataclass(frozen=True, slots=True)
class TagLifted:
    """The tag last read on a reader has left it: the next read of it is a new placement."""

    reader: str
    uid: str
    t: float = 0.0


@dataclass(frozen=True, slots=True)
class ReaderStatus:
    """A reader's change of state: ``connecting``, ``live`` or ``lost`` (with a detail)."""

    reader: str
    state: str  # connecting | live | lost
    t: float
    detail: str = ""


@dataclass(frozen=True, slots=True)
class Press:
    """A seat's button pressed (``uno``, ``draw``, ``pass``..., or ``color:red`` from a page)."""

    seat: int
    button: str
    t: float = 0.0


ADMIN_INPUTS: Final = ("undo", "next-round")  # what an admin page asks of the referee


@dataclass(frozen=True, slots=True)
class Admin:
    """An admin page's action for the referee (one of :data:`ADMIN_INPUTS`): what the undo
    and next-round tokens do, asked for from afar, with no token tapped."""

    action: str
    t: float = 0.0


@dataclass(frozen=True, slots=True)
class Tick:
    """Time passing with no input: lets the referee remind a player who owes a colour."""

    t: float


ROLES: Final = ("play", "seat", "draw")  # what a reader is for: the play pad, a seat, the shoe


@dataclass(frozen=True, slots=True)
class ReaderRole:
    """Which reader plays which role (and, for a seat pad, whose seat it is)."""

    name: str
    role: str
    seat: int | None = None


Report = TagRead | TagLifted | ReaderStatus  # what a reader reports
# The inputs the journal keeps: they change the match.
JournaledInput = TagRead | TagLifted | Press | Admin
# Everything the referee's thread takes.
Input = TagRead | TagLifted | Press | Admin | Tick | ReaderStatus
