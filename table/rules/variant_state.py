"""What the competition, local and Musician rules remember beyond the official game.

One immutable value hangs off :class:`~table.rules.state.State` (``state.extra``): copying a
state copies a reference, and a rule that changes it replaces it (``dataclasses.replace``).
The official game keeps the empty value all along.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from table.cards import Card, Color


@dataclass(frozen=True, slots=True)
class Finish:
    """How a Musician round was won, for its scoring (docs/rules.md §6).

    ``winners``: the round's winner first (for a Double Don, the one furthest upstream), then
    the other Don winners. ``bonuses``: (option name, the seat that pays it) for each
    ``musician_*`` bonus the finish earned.
    """

    kind: str  # chin | don
    winners: tuple[int, ...]
    card: Card
    donned: int | None = None
    tenhou: bool = False
    bonuses: tuple[tuple[str, int], ...] = ()


@dataclass(frozen=True, slots=True)
class Extra:
    # --- Don: the number card on top and whose Don on it would be a chombo
    """What the variants remember: Don, Musician bonuses, Seven-O, match-long streaks."""
    don_card: Card | None = None  # the number card a Don may claim (the top card)
    don_by: int | None = None  # who played it (the dealer for the card turned up)
    don_first: bool = False  # it is the card the dealer turned up (テンホー)
    don_stale: int = 0  # seats (bit per seat) that already saw this number in their rotation
    seen: tuple[int, ...] = ()  # per seat: numbers (bit per number) seen in their rotation
    don_claim: int | None = None  # this seat called Don and must show its hand
    finish: Finish | None = None
    # --- Musician bonuses in play
    color_call: tuple[int, Color, int] | None = None  # namer, colour, seats (bits) on UNO
    backs: tuple[tuple[str, int, int], ...] = ()  # (option, player, target on UNO)
    # --- Seven-O
    awaiting_swap: int | None = None
    # --- a missed UNO call costs the next turn: the seats (bit per seat) that lose it
    loses_turn: int = 0
    # --- match-long
    don_streak: tuple[int, ...] = ()  # per seat: Dons suffered in consecutive rounds (連ドン)
    base_scores: tuple[int, ...] = ()  # scores before this round was scored (Double Don)
    base_streak: tuple[int, ...] = ()


NO_EXTRA = Extra()  # what the official game remembers: nothing


def replace(extra: Extra, **changes: object) -> Extra:
    """``extra`` with ``changes``, a new immutable value."""
    return dataclasses.replace(extra, **changes)  # type: ignore[arg-type]
