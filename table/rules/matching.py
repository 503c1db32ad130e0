"""Which card may go on which: plain functions of the state, no side effects."""

from __future__ import annotations

from collections.abc import Iterable

from table.cards import WILD_DRAW_FOUR, Card, Color
from table.rules.state import State


def matches(state: State, card: Card) -> bool:
    """Whether ``card`` may be played on the top of the discard pile (ignoring turn order).

    A wild always matches; the Wild Draw Four's own restriction is :func:`wd4_guilty`.
    The colour is the one in force, so a wild's *named* colour counts, never "wild".
    """
    if card.is_wild:
        return True
    return card.color is state.color or (
        state.live_rank is not None and card.rank == state.live_rank
    )


def fits(card: Card, color: Color | None, rank: str | None) -> bool:
    """Whether ``card`` may go on a discard pile whose colour in force is ``color`` and whose
    live rank is ``rank``: :func:`matches` for a state that has them."""
    return card.is_wild or card.color is color or (rank is not None and card.rank == rank)


def wd4_guilty(
    hand: Iterable[Card], prior_color: Color | None, prior_rank: str | None, rule: str
) -> bool:
    """Whether a Wild Draw Four played from ``hand`` (the hand without it) broke its restriction.

    ``"no-matching-color"`` [M]: the hand held a card of the colour in force.
    ``"no-playable-card"`` [000]: the hand held any other playable card; a plain Wild (and a
    Shuffle Hands or Customizable wild) counts as playable, another Wild Draw Four does not,
    since it is the same restricted card.
    """
    if rule == "unrestricted":
        return False
    if rule == "no-matching-color":
        return any(c.color is prior_color for c in hand if c.color is not None)
    return any(
        (c.is_wild and c.rank != WILD_DRAW_FOUR)
        or (c.color is not None and c.color is prior_color)
        or (prior_rank is not None and c.rank == prior_rank)
        for c in hand
    )


def has_playable(state: State, hand: Iterable[Card]) -> bool:
    """Whether ``hand`` holds a card that may go on the table now."""
    return any(matches(state, c) for c in hand)
