"""Bot players: what one seat may see, and two ways of playing from it.

A bot never gets the game state: it gets a :class:`SeatView`, built by :func:`seat_view`, which
holds its own hand, the public table (the discard pile, hand counts, UNO calls, scores) and the
actions the rules allow it right now. Bots are registered by name in :data:`BOTS`.

- ``random``: the lively random player of ``uno-table selfplay`` (plays a card when it can nine
  times in ten, calls UNO four times in five, challenges at random, names a random colour).
- ``heuristic``: plays like a decent person (see :class:`HeuristicBot`).
- ``mix``: chausner/UnoAI's MixBot as published (:class:`MixBot`).
- ``rlcard-rule``: RLCard's ``uno-rule-v1`` as its code reads (:class:`RuleBot`).
- ``prior`` and ``expert``: the expert's first choice alone, and its search
  (:mod:`sim.players.expert`).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from math import comb
from typing import Final, Protocol

from table.analysis.policies import heuristic_color, heuristic_pick
from table.analysis.search import information_set
from table.analysis.selfplay import lively_choice
from table.cards import (
    COLORS,
    DRAW_TWO,
    REVERSE,
    SKIP,
    WILD,
    WILD_DRAW_FOUR,
    Card,
    Color,
    edition_counts,
)
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
    # The whole table as this seat knows it: every card it cannot see is an unknown card
    # (table.analysis.search.information_set), for a bot that searches.
    table: State

    @property
    def next_seat(self) -> int:
        """The seat that plays after this one."""
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
        table=information_set(s, seat),
    )


def _by(action: Action) -> int:
    return action.catcher if isinstance(action, Catch) else getattr(action, "player", -1)


class Bot(Protocol):
    """A bot: a move on turn from what its seat sees, and a reaction out of turn."""
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
        """A lively random move among ``view.legal``."""
        return lively_choice(view.legal, view.seat, self.rng)

    def react(self, view: SeatView) -> Action | None:
        """A winning Don always; a late call, a catch or a challenge out of turn now and then."""
        dons = [a for a in view.reactions if isinstance(a, Don)]
        if dons:  # a winning Don is always called
            return dons[0]
        roll = self.rng.random()
        for a in view.reactions:
            if isinstance(a, CallUno) and roll < 0.3:
                return a
            if isinstance(a, Catch | Challenge) and roll < 0.4:
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
        """The move of a decent player (see the class)."""
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
        """The colour it holds most points of (a random one for no colour)."""
        return heuristic_color(hand, self.rng)

    def best_play(self, view: SeatView, plays: list[Play]) -> Action | None:
        """The play it prefers among ``plays``, or ``None`` to draw instead (the one ranking,
        :func:`table.analysis.policies.heuristic_pick`; a bluff one time in ``bluff``)."""
        if not plays:
            return None
        return heuristic_pick(
            view.seat, view.hand, [p.cards[0] for p in plays], view.closest_opponent() <= 2,
            len(view.players), (view.color, view.live_rank, view.options),
            any(isinstance(a, Draw) for a in view.legal), self.rng,
            bluff=lambda: self.rng.random() < self.bluff)

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
        """A winning Don and every catch; a late UNO call half the time."""
        for a in view.reactions:
            if isinstance(a, Don | Catch):  # a winning Don first, then every catch
                return a
        for a in view.reactions:
            if isinstance(a, CallUno) and self.rng.random() < 0.5:
                return a
        return None


class MixBot:
    """chausner/UnoAI's MixBot, as published, as a reference player.

    - Plays a Wild only with at most two other cards in hand, a Wild Draw Four only with at
      most four (otherwise draws rather than play one, unless nothing else is open).
    - Ranks its playable cards Draw Two > Skip > number > Reverse > Wild Draw Four > Wild
      (among equals, the colour it holds most, then the higher number).
    - When the next player holds one card, attacks: Draw Two, Wild Draw Four, Skip, Reverse
      first, whatever its hand.
    - Names the colour it holds most; calls UNO always; never challenges; catches every miss.
    """

    name = "mix"
    _ORDER: Final = {DRAW_TWO: 5, SKIP: 4, REVERSE: 2, WILD_DRAW_FOUR: 1, WILD: 0}
    _ATTACK: Final = {DRAW_TWO: 4, WILD_DRAW_FOUR: 3, SKIP: 2, REVERSE: 1}

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def act(self, view: SeatView) -> Action:
        """Its move on turn, by the rules above."""
        acts = view.legal
        if isinstance(acts[0], ChooseColor):
            return _name_held_most(view)
        for a in acts:
            if isinstance(a, CallUno):
                return a
        plays: list[Action] = [a for a in acts if isinstance(a, Play) and len(a.cards) == 1]
        others = len(view.hand) - 1
        attack = view.counts[view.next_seat] == 1
        allowed: list[Action] = [
            p for p in plays
            if isinstance(p, Play) and (attack or self._allowed(p.cards[0], others))
        ]
        fallback = next((a for a in acts if isinstance(a, Draw | Pass)), None)
        if not allowed and fallback is None:
            allowed = plays or [a for a in acts if not isinstance(a, Challenge)] or list(acts)
        if not allowed:
            return fallback  # type: ignore[return-value]
        held = Counter(c.color for c in view.hand if c.color is not None)

        def rank(a: Action) -> tuple[int, int, int, str]:
            if not isinstance(a, Play):
                return (-1, 0, 0, "")
            c = a.cards[0]
            order = self._ORDER.get(c.rank, 3)
            first = self._ATTACK.get(c.rank, 0) if attack else 0
            return (first, order, held[c.color] if c.color else 0, c.code)

        best = max(allowed, key=rank)
        if isinstance(best, Play) and best.cards[0].is_wild:
            rest = list(view.hand)
            rest.remove(best.cards[0])
            return Play(view.seat, best.cards, self.best_color(tuple(rest)))
        return best

    @staticmethod
    def _allowed(card: Card, others: int) -> bool:
        if card.rank == WILD_DRAW_FOUR:
            return others <= 4
        if card.rank == WILD:
            return others <= 2
        return True

    @staticmethod
    def best_color(hand: tuple[Card, ...]) -> Color:
        """The colour it holds most of (the first in the deck's order on a tie)."""
        held = Counter(c.color for c in hand if c.color is not None)
        return max(COLORS, key=lambda col: (held[col], -COLORS.index(col)))

    def react(self, view: SeatView) -> Action | None:
        """A winning Don, every catch, its own late UNO call."""
        for kind in (Don, Catch, CallUno):
            for a in view.reactions:
                if isinstance(a, kind):
                    return a
        return None


def _name_held_most(view: SeatView) -> Action:
    """The colour to name that ``view``'s hand holds most of (:meth:`MixBot.best_color`)."""
    named = MixBot.best_color(view.hand)
    return next(a for a in view.legal if isinstance(a, ChooseColor) and a.color is named)


class RuleBot:
    """RLCard's rule agent ``uno-rule-v1`` (``rlcard/models/uno_rule_models.py``), as its code
    reads, on our engine: a reference player from the published results.

    - With no card it may play, it draws; a drawn card that fits is played at once (RLCard's
      game plays it for the player).
    - A Wild Draw Four only when nothing else fits (RLCard lists it only then), naming the colour
      it holds most of.
    - Otherwise a random playable card that is not a wild; a Wild only when nothing else fits,
      naming a random colour (RLCard lists a Wild once per colour and picks among them).
    - RLCard's game has no UNO call, catch or challenge: it calls UNO in time (so it never pays
      for a rule it never knew), never catches, never challenges.
    """

    name = "rlcard-rule"

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def act(self, view: SeatView) -> Action:
        """Its move on turn, by the rules above."""
        acts = view.legal
        if isinstance(acts[0], ChooseColor):
            return _name_held_most(view)
        plays = [a for a in acts if isinstance(a, Play) and len(a.cards) == 1]
        uno = next((a for a in acts if isinstance(a, CallUno)), None)
        if uno is not None and plays:
            return uno
        plain = [p for p in plays if not p.cards[0].is_wild]
        if plain:
            return self.rng.choice(plain)
        wild = next((p for p in plays if p.cards[0].rank == WILD), None)
        if wild is not None:
            return Play(view.seat, wild.cards, self.rng.choice(COLORS))
        if plays:  # a Wild Draw Four, the colour held most
            rest = list(view.hand)
            rest.remove(plays[0].cards[0])
            return Play(view.seat, plays[0].cards, MixBot.best_color(tuple(rest)))
        return next((a for a in acts if isinstance(a, Draw | Pass)),
                    next((a for a in acts if not isinstance(a, Challenge)), acts[0]))

    def react(self, view: SeatView) -> Action | None:
        """A winning Don and its own late UNO call; no catch."""
        for kind in (Don, CallUno):
            for a in view.reactions:
                if isinstance(a, kind):
                    return a
        return None


def _prior(rng: random.Random) -> Bot:
    from sim.players.expert import PriorBot  # it builds on the heuristic bot of this module

    return PriorBot(rng)


def _expert(rng: random.Random, iterations: int | None = None) -> Bot:
    from sim.players.expert import ExpertBot  # it builds on the heuristic bot of this module

    return ExpertBot(rng) if iterations is None else ExpertBot(rng, iterations)


BOTS: Final[dict[str, Callable[[random.Random], Bot]]] = {
    "random": RandomBot,
    "heuristic": HeuristicBot,
    "mix": MixBot,
    "rlcard-rule": RuleBot,
    "prior": _prior,
    "expert": _expert,
}


def make_bot(name: str, rng: random.Random) -> Bot:
    """The bot called ``name`` (``expert:N``: the expert with N playouts a decision)."""
    base, _, budget = name.partition(":")
    if base == "expert" and budget:
        return _expert(rng, _budget(budget, name))
    try:
        return BOTS[name](rng)
    except KeyError:
        raise BotError(f"unknown bot {name!r}: use {', '.join(BOTS)}") from None


def _budget(text: str, name: str) -> int:
    if not text.isdigit() or not 1 <= int(text) <= 100_000:
        raise BotError(f"bad bot {name!r}: expert:N takes N playouts, 1 to 100000")
    return int(text)


def parse_bots(text: str) -> list[str]:
    """``"heuristic,random"`` -> the names, each checked. Raises :class:`BotError`."""
    names = [n.strip() for n in text.split(",") if n.strip()]
    if not names:
        raise BotError("--bots takes names separated by commas, e.g. heuristic,random")
    for n in names:
        base, colon, budget = n.partition(":")
        if base == "expert" and colon:
            _budget(budget, n)
        elif n not in BOTS:
            raise BotError(f"unknown bot {n!r} in --bots: use {', '.join(BOTS)} (or expert:N)")
    return names


def seat_rng(seed: int, seat: int) -> random.Random:
    """Each seat's own random source, fixed by the seed."""
    return random.Random(seed * 1_000_003 + seat * 7_919 + 17)
