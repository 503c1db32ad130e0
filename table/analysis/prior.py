"""The expert's prior: its first choice of play, the heuristic player's ranking and the turn.

The heuristic player (:func:`table.analysis.policies.heuristic_pick`) plays a matching card of
the colour it holds most and keeps its wilds. The expert's first choice (:func:`prior_pick`)
ranks the same way (each weight a named field of :class:`PriorWeights`), and with two players it
counts the turn: a Skip, a Reverse (a Skip with two), a Draw Two or a Wild Draw Four lets the seat
play again (:func:`keeps_turn`), and a chain of them that ends in the seat's last card is played
at once (:func:`chain_out`), where the heuristic player would hand the turn over. It never
bluffs a Wild Draw Four and never reads a hidden card: it is given the seat's hand and the
public table only. docs/performance.md gives the win rates of the weights tried.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from table.cards import COLORS, DRAW_TWO, REVERSE, SKIP, WILD_DRAW_FOUR, Card, Color
from table.rules import Options
from table.rules.matching import fits, wd4_guilty


@dataclass(frozen=True)
class PriorWeights:
    """The weights of :func:`prior_pick` (a play's value is their sum; see the module)."""

    long: float = 3.0  # each card kept of the colour the play leaves in force
    keeper: float = 8.0  # with two players, a card after which the seat plays again
    danger: float = 40.0  # a draw card when an opponent holds 1 or 2 cards
    points: float = 0.5  # each point of a number card shed while the table is calm
    wild: float = -100.0  # a wild (kept while other cards play)
    wild_hand: int = 3  # a wild is played rather than drawing at this many cards or fewer
    chain: bool = True  # with two players, go out through a chain of Skips and Draw Twos


@dataclass(frozen=True)
class Seen:
    """What a seat knows of the table around its choice: the colour in force and live rank,
    the options, the number of players, and whether an opponent is close to going out."""

    color: Color | None
    rank: str | None
    options: Options
    players: int
    danger: bool


def keeps_turn(card: Card, seen: Seen) -> bool:
    """Whether the seat plays again after ``card`` (two players: a Skip, a Reverse that acts as
    one, a Draw Two or a Wild Draw Four when draw cards do not stack)."""
    if seen.players != 2:
        return False
    if card.rank == SKIP:
        return True
    if card.rank == REVERSE:
        return seen.options.two_player_reverse_is_skip
    if card.rank in (DRAW_TWO, WILD_DRAW_FOUR):
        return seen.options.stacking == "off"
    return False


def prior_value(card: Card, named: Color | None, rest: Sequence[Card], seen: Seen,
                w: PriorWeights) -> float:
    """How much the expert wants to play ``card`` (naming ``named`` for a wild), keeping
    ``rest``."""
    color = card.color or named
    value = w.long * sum(1 for c in rest if c.color is color and color is not None)
    if card.is_wild:
        value += w.wild + (50.0 if seen.danger and card.rank == WILD_DRAW_FOUR else 0.0)
    elif seen.danger:
        value += card.points * 2.0 + (w.danger if card.is_draw else 0.0)
    elif card.is_action:
        value += 2.0 if seen.players != 2 else 0.0
    else:
        value += card.points * w.points
    if keeps_turn(card, seen):
        value += w.keeper
    return value


def chain_out(hand: Sequence[Card], seen: Seen) -> tuple[Card, Color | None] | None:
    """With two players, the first play of a chain that empties the hand: turn keepers (see
    :func:`keeps_turn`; a Wild Draw Four only where no challenge could catch it), then the last
    card; ``None`` when there is none."""
    if seen.players != 2 or len(hand) > 6:
        return None
    if sum(1 for c in hand if not keeps_turn(c, seen)) > 1:
        return None
    rule = seen.options.wild_draw_four
    challengeable = seen.options.challengeable

    def search(cards: tuple[Card, ...], color: Color | None, rank: str | None
               ) -> tuple[Card, Color | None] | None:
        for i, card in enumerate(cards):
            if not fits(card, color, rank):
                continue
            rest = cards[:i] + cards[i + 1:]
            if not rest:  # the last card: the round is over, so a wild's colour is any
                return card, (COLORS[0] if card.is_wild else None)
            if not keeps_turn(card, seen):
                continue
            if card.rank == WILD_DRAW_FOUR and challengeable and wd4_guilty(
                    rest, color, rank, rule):
                continue
            for named in (COLORS if card.is_wild else (None,)):
                if search(rest, card.color or named, card.rank) is not None:
                    return card, named
        return None

    return search(tuple(hand), seen.color, seen.rank)


def prior_pick(hand: Sequence[Card], cards: Sequence[Card], seen: Seen, can_draw: bool,
               w: PriorWeights) -> tuple[Card, Color | None] | None:
    """The expert's play among the playable ``cards`` of ``hand`` (a card and, for a wild, the
    colour it names), or ``None`` to draw instead (``can_draw``): a chain that goes out first,
    then the best :func:`prior_value`; a Wild Draw Four that would be a bluff never, a wild
    kept while the table is calm."""
    if w.chain:
        out = chain_out(hand, seen)
        if out is not None and out[0] in cards:
            return out
    challengeable = seen.options.challengeable
    best: tuple[float, str, Card, Color | None] | None = None
    for card in sorted(set(cards), key=lambda c: c.code):
        rest = list(hand)
        rest.remove(card)
        if card.rank == WILD_DRAW_FOUR and challengeable and wd4_guilty(
                rest, seen.color, seen.rank, seen.options.wild_draw_four):
            continue
        for named in (COLORS if card.is_wild else (None,)):
            value = prior_value(card, named, rest, seen, w)
            if best is None or value > best[0]:
                best = (value, card.code, card, named)
    if best is None:
        return None
    _, _, card, named = best
    calm = not seen.danger and len(hand) > w.wild_hand and not all(c.is_wild for c in hand)
    if card.is_wild and calm and can_draw:
        return None
    return card, named

