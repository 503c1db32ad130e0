"""Game actions: small immutable values, one class per verb of the scenario language.

Players are seat indexes (0 is the first name of ``players``). Chance is explicit: a draw names
its card when the referee knows it (a shoe or a seat pad read it), and an unknown card otherwise.
"""

from __future__ import annotations

from dataclasses import dataclass

from table.cards import Card, Color


@dataclass(frozen=True, slots=True)
class Play:
    """Play one card (several where the rules allow), naming a colour for a wild."""

    player: int
    cards: tuple[Card, ...]
    color: Color | None = None


@dataclass(frozen=True, slots=True)
class Draw:
    """Draw one card (or accept a pending penalty). ``card`` is ``None`` when not seen."""

    player: int
    card: Card | None = None


@dataclass(frozen=True, slots=True)
class Pass:
    """Keep the drawn card and end the turn."""

    player: int


@dataclass(frozen=True, slots=True)
class ChooseColor:
    """Name the colour of a wild played without one (or of a first-card Wild)."""

    player: int
    color: Color


@dataclass(frozen=True, slots=True)
class CallUno:
    """A player calls UNO (before or right after going down to one card)."""
    player: int


@dataclass(frozen=True, slots=True)
class Catch:
    """``catcher`` says ``target`` forgot to call UNO."""

    catcher: int
    target: int


@dataclass(frozen=True, slots=True)
class Challenge:
    """Challenge the Wild Draw Four that made this player draw."""

    player: int


@dataclass(frozen=True, slots=True)
class Show:
    """Show the whole hand to the referee (challenge, scoring, or just to identify it)."""

    player: int
    cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class Identify:
    """A card read on a seat pad: one unknown card of this hand is now known."""

    player: int
    card: Card


@dataclass(frozen=True, slots=True)
class TurnUp:
    """The card turned up to start the discard pile (when the engine does not know it)."""

    card: Card


@dataclass(frozen=True, slots=True)
class Reshuffle:
    """Chance: the empty draw pile is remade from the discard pile (all but its top card) in
    this order, top first. Without it the engine reshuffles by itself into unknown cards; once
    every hand is known again, a reshuffle naming those unknown cards gives the pile's order."""

    cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class Don:
    """Call Don (ドン, docs/rules.md §6): win out of turn on the number card just played. ``cards``
    is the hand shown on the play pad when the referee does not know it."""

    player: int
    cards: tuple[Card, ...] = ()


@dataclass(frozen=True, slots=True)
class Swap:
    """Seven-O: the player of a 7 names whose hand to swap with."""

    player: int
    target: int


Action = (
    Play | Draw | Pass | ChooseColor | CallUno | Catch | Challenge | Show | Identify | TurnUp
    | Reshuffle | Don | Swap
)


def actor(action: Action) -> int | None:
    """The seat that takes an action (``None`` for chance: a turn-up or a reshuffle)."""
    if isinstance(action, TurnUp | Reshuffle):
        return None
    if isinstance(action, Catch):
        return action.catcher
    return action.player
