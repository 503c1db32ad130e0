"""Bot players: what one seat may see, and two ways of playing from it.

A bot never gets the game state: it gets a :class:`SeatView`, built by :func:`seat_view`, which
holds its own hand, the public table (the discard pile, hand counts, UNO calls, scores) and the
actions the rules allow it right now. Bots are registered by name in :data:`BOTS`.

- ``random``: the lively random player of ``uno-table selfplay`` (plays a card when it can nine
  times in ten, calls UNO four times in five, challenges at random, names a random colour).
- ``heuristic``: plays like a decent person (see :class:`HeuristicBot`).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from math import comb
from typing import Final, Protocol

from table.analysis.selfplay import lively_choice
from table.cards import COLORS, WILD_DRAW_FOUR, Card, Color, edition_counts
from table.errors import TableError
from table.rules import (
    Action,
    CallUno,
    Catch,
    Challenge,
    ChooseColor,
    Don,
    Draw,
    Options,
    Pass,
    Phase,
    Play,
    State,
    legal_actions,
)
from table.rules.legal import out_of_turn_actions
from table.rules.matching import wd4_guilty


class BotError(TableError, ValueError):
    """An unknown bot name on the command line."""


@dataclass(frozen=True, slots=True)
class SeatView:
    """Everything one seat may know: its own hand and what the whole table can see."""

    seat: int
    options: Options
    players: tuple[str, ...]
    hand: tuple[Card, ...]  # this seat's cards
    counts: tuple[int, ...]  # every seat's hand size
    discard: tuple[Card, ...]  # the discard pile, bottom first (played face up: public)
    color: Color | None
    live_rank: str | None
    direction: int
    turn: int
    pending: int
    prior_color: Color | None  # the colour a challengeable Wild Draw Four covered
    prior_rank: str | None
    offender: int | None  # who played that Wild Draw Four
    called: tuple[bool, ...]
    scores: tuple[int, ...]
    legal: tuple[Action, ...]  # what this seat may do now on its turn (empty otherwise)
    reactions: tuple[Action, ...]  # out of turn: a late UNO call or a catch

    @property
    def next_seat(self) -> int:
        return (self.seat + self.direction) % len(self.players)

    def closest_opponent(self) -> int:
        """The fewest cards any opponent holds."""
        return min((c for i, c in enumerate(self.counts) if i != self.seat and c > 0), default=99)


def seat_view(s: State, seat: int) -> SeatView:
    """What ``seat`` sees of ``s``. Other hands appear only as counts."""
    on_turn = s.phase is Phase.PLAY and s.current_player == seat
    window = s.challenge
    return SeatView(
        seat=seat,
        options=s.options,
        players=s.players,
        hand=tuple(s.hands[seat].known),
        counts=tuple(len(h) for h in s.hands),
        discard=tuple(s.discard),
        color=s.color,
        live_rank=s.live_rank,
        direction=s.direction,
        turn=s.turn,
        pending=s.pending,
        prior_color=window.prior_color if window else None,
        prior_rank=window.prior_rank if window else None,
        offender=window.offender if window else None,
        called=tuple(s.called),
        scores=tuple(s.scores),
        legal=tuple(legal_actions(s)) if on_turn else (),
        reactions=tuple(a for a in out_of_turn_actions(s) if _by(a) == seat),
    )


def _by(action: Action) -> int:
    return action.catcher if isinstance(action, Catch) else getattr(action, "player", -1)


class Bot(Protocol):
    name: str

    def act(self, view: SeatView) -> Action:
        """The seat's move on its turn, one of ``view.legal``."""

    def react(self, view: SeatView) -> Action | None:
        """Out of turn, after someone went down to one card: one of ``view.reactions``."""


# ---------------------------------------------------------------------------------------------


class RandomBot:
    """Random, with a pulse (the player of ``uno-table selfplay``)."""

    name = "random"

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def act(self, view: SeatView) -> Action:
        return lively_choice(view.legal, view.seat, self.rng)

    def react(self, view: SeatView) -> Action | None:
        dons = [a for a in view.reactions if isinstance(a, Don)]
        if dons:  # a winning Don is always called
            return dons[0]
        roll = self.rng.random()
        for a in view.reactions:
            if isinstance(a, CallUno) and roll < 0.3:
                return a
            if isinstance(a, Catch) and roll < 0.4:
                return a
        return None


class HeuristicBot:
    """A decent player.

    - Plays a matching coloured card before any wild, and keeps its wilds while the table is
      calm; names the colour it holds most of.
    - Sheds high points (action cards, then high numbers) when an opponent is close to going
      out; hits an opponent on one or two cards with a Draw Two.
    - Calls UNO, but forgets one time in ``forget`` (and then calls late when it notices).
    - Catches every missed UNO it can.
    - Challenges a Wild Draw Four when the chance that it was a bluff, worked out from the cards
      it has not seen, makes the challenge worth more than the risk (about one in four).
    - Bluffs a Wild Draw Four rarely (``bluff``), only when an opponent is close to going out.
    """

    name = "heuristic"

    def __init__(self, rng: random.Random, forget: float = 0.08, bluff: float = 0.05) -> None:
        self.rng = rng
        self.forget = forget
        self.bluff = bluff

    # --- on turn ----------------------------------------------------------------------------

    def act(self, view: SeatView) -> Action:
        acts = view.legal
        if isinstance(acts[0], ChooseColor):
            best = self.best_color(view.hand)
            return next(a for a in acts if isinstance(a, ChooseColor) and a.color is best)
        challenge = next((a for a in acts if isinstance(a, Challenge)), None)
        if challenge is not None:
            return challenge if self.bluff_odds(view) > 0.25 else Draw(view.seat)
        plays = [a for a in acts if isinstance(a, Play)]
        uno = next((a for a in acts if isinstance(a, CallUno)), None)
        if uno is not None and plays and self.rng.random() >= self.forget:
            return uno
        play = self.best_play(view, plays)
        if play is not None:
            return play
        for kind in (Draw, Pass):
            for a in acts:
                if isinstance(a, kind):
                    return a
        return acts[0]

    def best_color(self, hand: tuple[Card, ...]) -> Color:
        weight: Counter[Color] = Counter()
        for c in hand:
            if c.color is not None:
                weight[c.color] += 10 + c.points
        if not weight:
            return self.rng.choice(COLORS)
        return max(COLORS, key=lambda col: (weight[col], -COLORS.index(col)))

    def best_play(self, view: SeatView, plays: list[Play]) -> Action | None:
        if not plays:
            return None
        danger = view.closest_opponent() <= 2
        held = Counter(c.color for c in view.hand if c.color is not None)
        wild_ok = danger or len(view.hand) <= 3 or all(c.is_wild for c in view.hand)

        def rank(card: Card) -> float:
            if card.is_wild:
                if card.rank == WILD_DRAW_FOUR and self._bluffing(view, card):
                    return -1000.0
                return -100.0 + (50.0 if danger and card.rank == WILD_DRAW_FOUR else 0.0)
            value = held[card.color] * 3.0 if card.color else 0.0  # keep our long colour
            if danger:
                value += card.points * 2.0 + (40.0 if card.is_draw else 0.0)
            elif card.is_action:
                value += 8.0 if len(view.players) == 2 else 2.0  # an extra turn with two
            else:
                value += card.points * 0.5
            return value

        cards = {p.cards[0] for p in plays}
        best = max(sorted(cards, key=lambda c: c.code), key=rank)
        if best.is_wild:
            if rank(best) <= -1000.0 and not (danger and self.rng.random() < self.bluff):
                others = [c for c in cards if not c.is_wild or c.rank != WILD_DRAW_FOUR]
                if not others:
                    return None
                best = max(sorted(others, key=lambda c: c.code), key=rank)
            if best.is_wild and not wild_ok and any(isinstance(a, Draw) for a in view.legal):
                return None  # keep the wild for later: draw instead
            if best.is_wild:
                rest = list(view.hand)
                rest.remove(best)
                return Play(view.seat, (best,), self.best_color(tuple(rest)))
        return Play(view.seat, (best,), None)

    def _bluffing(self, view: SeatView, card: Card) -> bool:
        """Whether playing this Wild Draw Four now would be a bluff a challenge exposes."""
        if not view.options.challengeable:
            return False
        rest = list(view.hand)
        rest.remove(card)
        return wd4_guilty(rest, view.color, view.live_rank, view.options.wild_draw_four)

    def bluff_odds(self, view: SeatView) -> float:
        """The chance that the Wild Draw Four to challenge was played illegally: that the
        offender's hand holds at least one card that would have made it illegal, drawn from
        the cards this seat has not seen."""
        assert view.offender is not None
        unseen = Counter(edition_counts(view.options.deck))
        unseen.subtract(Counter(view.discard))
        unseen.subtract(Counter(view.hand))
        rule = view.options.wild_draw_four
        total = sum(max(0, n) for n in unseen.values())
        bad = sum(
            max(0, n)
            for c, n in unseen.items()
            if wd4_guilty((c,), view.prior_color, view.prior_rank, rule)
        )
        held = view.counts[view.offender]
        if total <= 0 or held <= 0:
            return 0.0
        return 1.0 - comb(total - bad, held) / comb(total, held)

    # --- out of turn ------------------------------------------------------------------------

    def react(self, view: SeatView) -> Action | None:
        for a in view.reactions:
            if isinstance(a, Don | Catch):  # a winning Don first, then every catch
                return a
        for a in view.reactions:
            if isinstance(a, CallUno) and self.rng.random() < 0.5:
                return a
        return None


BOTS: Final[dict[str, Callable[[random.Random], Bot]]] = {
    "random": RandomBot,
    "heuristic": HeuristicBot,
}


def make_bot(name: str, rng: random.Random) -> Bot:
    try:
        return BOTS[name](rng)
    except KeyError:
        raise BotError(f"unknown bot {name!r}: use {', '.join(BOTS)}") from None


def parse_bots(text: str) -> list[str]:
    """``"heuristic,random"`` -> the names, each checked. Raises :class:`BotError`."""
    names = [n.strip() for n in text.split(",") if n.strip()]
    if not names:
        raise BotError("--bots takes names separated by commas, e.g. heuristic,random")
    for n in names:
        if n not in BOTS:
            raise BotError(f"unknown bot {n!r} in --bots: use {', '.join(BOTS)}")
    return names


def seat_rng(seed: int, seat: int) -> random.Random:
    """Each seat's own random source, fixed by the seed."""
    return random.Random(seed * 1_000_003 + seat * 7_919 + 17)
