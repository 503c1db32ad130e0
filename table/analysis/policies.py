"""How self-play players choose: small policies with one interface, picked by name.

A policy plays for the seats it is given, from the actions the engine lists (it never builds an
action of its own, apart from naming a wild's colour): :meth:`Policy.act` picks the move of the
player on turn from ``legal_actions(state)``, :meth:`Policy.react` picks at most one out-of-turn
action (a late UNO call, a catch, a jump-in, a Don) from ``out_of_turn_actions(state)`` after
each action. Its random choices come from the ``random.Random`` it was made with, so a seeded
table plays the same games.

- ``lively`` (the default of ``uno-table selfplay``): random with a pulse. It plays a card nine
  times in ten when it can, calls UNO four times in five (and sometimes late, or is caught),
  challenges a Wild Draw Four three times in ten, bluffs Wild Draw Fours, catches forgotten
  calls. It exercises every rule, penalties included; it is not a strong player (that is the
  ``heuristic`` bot of the simulator), and ``--bots random`` is this same player.
- ``play-first``: plays a uniformly random playable card when it holds one, a Wild Draw Four
  only when nothing else plays, otherwise draws and then plays the drawn card if it can. It
  always calls UNO, never challenges, never catches. This is how RLCard's UNO game plays under
  a uniformly random legal action, which makes it the policy for comparing the two engines.
- ``random``: a uniformly random legal action on turn; out of turn, one of the actions open
  (uniformly) half the time.
- ``greedy``: a quick decent player, the ``expert`` policy's playouts (see :class:`Greedy`).

:class:`Heuristic` (not offered by name) is the simulator's heuristic bot read from a state,
its own ranking shared with ``sim.players.bots.HeuristicBot``: the expert bot's model of every
seat in its playouts.
- ``expert``: the simulator's expert search (:mod:`table.analysis.search`) at 40 playouts a
  decision, each seat searching what it may know; out of turn, a Don, a catch or a late call.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Final, Protocol

from table.cards import COLORS, WILD_DRAW_FOUR, Card, Color
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
    Play,
    State,
)
from table.rules.matching import wd4_guilty

_WILD_DRAW_FOUR = Card(None, WILD_DRAW_FOUR)
_SHARE: Final = 1 / len(COLORS)  # the chance of each colour named for a wild


class PolicyError(TableError, ValueError):
    """An unknown policy name."""


class Policy(Protocol):
    """How the seats of a self-play table choose their actions."""

    name: str

    def act(self, s: State, acts: Sequence[Action]) -> Action:
        """The move of the player on turn in ``s``: one of ``acts`` (``legal_actions(s)``,
        never empty)."""

    def react(self, s: State, acts: Sequence[Action]) -> Action | None:
        """After an action, out of turn: one of ``acts`` (``out_of_turn_actions(s)``, never
        empty, possibly by several seats), or ``None`` for nobody acting."""


def lively_choice(acts: Sequence[Action], seat: int, rng: random.Random) -> Action:
    """One of the legal actions ``acts`` of ``seat``, at random but lively: a play nine times
    in ten when there is one, UNO called four times in five, a challenge three times in ten, a
    random colour for a wild."""
    if isinstance(acts[0], ChooseColor):
        return rng.choice(acts)
    plays = [a for a in acts if isinstance(a, Play)]
    if any(isinstance(a, Challenge) for a in acts) and rng.random() < 0.3:
        return Challenge(seat)
    if any(isinstance(a, CallUno) for a in acts) and plays and rng.random() < 0.8:
        return CallUno(seat)
    if plays and rng.random() < 0.9:
        play = rng.choice(plays)
        if len(play.cards) > 1:  # several cards at once (multi-play, two-card play)
            return play
        card = play.cards[0]
        color = rng.choice(COLORS) if card.is_wild else None
        return Play(seat, (card,), color)
    others = [a for a in acts if isinstance(a, Draw | Pass)]
    return rng.choice(others) if others else rng.choice(acts)


class Lively:
    """Random with a pulse (see the module's description)."""

    name = "lively"

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def act(self, s: State, acts: Sequence[Action]) -> Action:
        """A lively random move (see :func:`lively_choice`)."""
        return lively_choice(acts, s.turn, self.rng)

    def react(self, s: State, acts: Sequence[Action]) -> Action | None:
        """A winning Don always; a jump-in half the time; then, when someone went down to one
        card without calling, a late call three times in ten or a catch four times in ten."""
        window: list[Action] = []
        extra: list[Action] = []
        for a in acts:
            (window if isinstance(a, CallUno | Catch) else extra).append(a)
        dons = [a for a in extra if isinstance(a, Don)]
        if dons:
            return self.rng.choice(dons)
        if extra and self.rng.random() < 0.5:
            return self.rng.choice(extra)
        if not window:
            return None
        roll = self.rng.random()
        if roll < 0.3:
            return window[0]  # the late call comes first, then the catches
        if roll < 0.7:
            catches = window[1:]
            if catches:
                return self.rng.choice(catches)
        return None


class PlayFirst:
    """A random playable card first; a Wild Draw Four last; otherwise draw, and play the
    drawn card if it plays. Calls UNO every time, never challenges, never catches."""

    name = "play-first"

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def act(self, s: State, acts: Sequence[Action]) -> Action:
        # This runs for every action of the engine benchmark, so it stays lean: the engine
        # lists the plays first and then what else is open (legal_actions), so the actions
        # after the last play are read from the end, and a card is picked among the plays by
        # rejection (a wild is listed once per colour it may name, so each of its listings is
        # kept a time in as many: every card is as likely, and so is each colour).
        """A random playable card, then a draw (see the class)."""
        end = len(acts) - 1
        call: Action | None = None
        # The commonest list, plays and then a draw, is read without the loop below.
        if not (type(acts[end]) is Draw and end and type(acts[end - 1]) is Play):
            end += 1
            draw: Action | None = None
            done: Action | None = None
            while end:
                a = acts[end - 1]
                kind = type(a)
                if kind is Play:
                    break
                if kind is CallUno:
                    call = a
                elif kind is Draw:
                    draw = a
                elif kind is Pass:
                    done = a
                end -= 1
            if not end:
                if draw is not None:
                    return draw
                if done is not None:
                    return done
                # A colour to name, or what a house rule adds (a swap target, ...); never a
                # challenge.
                return self.rng.choice([a for a in acts if type(a) is not Challenge])
            if call is not None:
                return call  # UNO first, then the play that leaves one card
        # The common case of _card, first: the first card picked is not a wild.
        a = acts[int(self.rng.random() * end)]
        if type(a) is Play and a.color is None:
            return a
        return self._card(acts, end, a)

    def _card(self, acts: Sequence[Action], end: int, a: Action) -> Action:
        """A uniformly random card of the plays ``acts[:end]``, a Wild Draw Four only when
        nothing else plays; a random colour for a wild. ``a`` is the first action picked (among
        ``acts[:end]``, uniformly)."""
        roll = self.rng.random
        share = _SHARE
        only_wd4: bool | None = None
        while True:
            if type(a) is Play:  # other actions among the plays are not cards: pick again
                if a.color is None:
                    return a
                if a.cards[0] is _WILD_DRAW_FOUR and only_wd4 is None:
                    only_wd4 = all(
                        type(b) is Play and b.cards[0] is _WILD_DRAW_FOUR for b in acts[:end]
                    )
                if (only_wd4 or a.cards[0] is not _WILD_DRAW_FOUR) and roll() < share:
                    return a
            a = acts[int(roll() * end)]

    def react(self, s: State, acts: Sequence[Action]) -> Action | None:
        """Its own UNO, late (after playing a drawn card down to one); nothing else."""
        for a in acts:
            if type(a) is CallUno:
                return a
        return None


class UniformRandom:
    """A uniformly random legal action; out of turn, a uniformly random one of those open, half
    the time."""

    name = "random"

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def act(self, s: State, acts: Sequence[Action]) -> Action:
        """A uniformly random legal action."""
        return self.rng.choice(acts)

    def react(self, s: State, acts: Sequence[Action]) -> Action | None:
        """Half the time, a uniformly random one of the actions open."""
        return self.rng.choice(acts) if self.rng.random() < 0.5 else None


class Greedy:
    """A quick decent player, the expert's playouts: UNO always called; a coloured card before
    a wild (a Draw Two, Skip or Reverse first, then the colour it holds most, then the higher
    number); a wild before a Wild Draw Four, naming the colour it holds most; otherwise a draw,
    and the drawn card if it plays. Never challenges; catches and calls Don whenever it can."""

    name = "greedy"

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def act(self, s: State, acts: Sequence[Action]) -> Action:
        """The move of the player on turn, by the rules above."""
        hand = s.hands[s.current_player or 0].known
        held = {c: 0 for c in COLORS}
        for card in hand:
            if card.color is not None:
                held[card.color] += 2 + (card.rank in _ACTIONS)
        best: Action | None = None
        score = -1_000
        for a in acts:
            kind = type(a)
            if kind is CallUno:
                return a
            if kind is Play:
                card = a.cards[0]  # type: ignore[union-attr]
                color = a.color  # type: ignore[union-attr]
                if card.color is not None:
                    value = 100 + 10 * (card.rank in _ACTIONS) + held[card.color] + card.points
                elif color is None or held[color] < max(held.values()):
                    continue  # a wild names the colour held most
                else:
                    value = 10 if card.rank != WILD_DRAW_FOUR else 0
            elif kind is ChooseColor:
                value = held.get(a.color, 0)  # type: ignore[union-attr,arg-type]
            elif kind is Draw or kind is Pass:
                value = -10
            elif kind is Challenge:
                continue
            else:
                value = -20
            if value > score:
                best, score = a, value
        return best if best is not None else acts[0]

    def react(self, s: State, acts: Sequence[Action]) -> Action | None:
        """A Don, a catch, or its own late UNO call."""
        return eager_reaction(acts)


def eager_reaction(acts: Sequence[Action]) -> Action | None:
    """The first Don, catch or late UNO call among the out-of-turn ``acts`` (how
    :class:`Greedy` and :class:`Heuristic` answer out of turn; a function, since a compiled
    class's method takes no other class's instance)."""
    for a in acts:
        if type(a) is Don or type(a) is Catch or type(a) is CallUno:
            return a
    return None


_ACTIONS: Final = frozenset({"S", "R", "+2"})


def heuristic_rank(card: Card, held: Mapping[Color, int], danger: bool, players: int,
                   bluffing: Callable[[Card], bool]) -> float:
    """How much the heuristic player wants to play ``card``: a matching coloured card before
    any wild, its long colour kept (``held``: cards held a colour), high points and Draw Twos
    shed when an opponent is close to going out (``danger``), an action card for an extra
    turn with two ``players``; a Wild Draw Four that would be a bluff (``bluffing``) last."""
    if card.is_wild:
        if card.rank == WILD_DRAW_FOUR and bluffing(card):
            return -1000.0
        return -100.0 + (50.0 if danger and card.rank == WILD_DRAW_FOUR else 0.0)
    value = held[card.color] * 3.0 if card.color else 0.0  # keep our long colour
    if danger:
        value += card.points * 2.0 + (40.0 if card.is_draw else 0.0)
    elif card.is_action:
        value += 8.0 if players == 2 else 2.0  # an extra turn with two
    else:
        value += card.points * 0.5
    return value


def heuristic_color(hand: Sequence[Card], rng: random.Random) -> Color:
    """The colour the heuristic player names: the one it holds most points of (a random one
    for a hand without colour)."""
    weight: Counter[Color] = Counter()
    for c in hand:
        if c.color is not None:
            weight[c.color] += 10 + c.points
    if not weight:
        return rng.choice(COLORS)
    return max(COLORS, key=lambda col: (weight[col], -COLORS.index(col)))


def heuristic_pick(seat: int, hand: Sequence[Card], cards: Sequence[Card], danger: bool,
                   players: int, on: tuple[Color | None, str | None, Options], can_draw: bool,
                   rng: random.Random, *, bluff: Callable[[], bool] = lambda: False
                   ) -> Play | None:
    """The heuristic player's play among the playable ``cards`` of ``hand`` ``on`` a table
    (its colour in force, live rank and options), or ``None`` to draw instead (``can_draw``):
    :func:`heuristic_choice`'s card and colour as ``seat``'s play."""
    choice = heuristic_choice(hand, cards, danger, players, on, can_draw, rng, bluff=bluff)
    return None if choice is None else Play(seat, (choice[0],), choice[1])


def heuristic_choice(hand: Sequence[Card], cards: Sequence[Card], danger: bool, players: int,
                     on: tuple[Color | None, str | None, Options], can_draw: bool,
                     rng: random.Random, *, bluff: Callable[[], bool] = lambda: False
                     ) -> tuple[Card, Color | None] | None:
    """The card the heuristic player plays among the playable ``cards`` of ``hand`` ``on`` a
    table (its colour in force, live rank and options), and the colour it names for a wild, or
    ``None`` to draw instead (``can_draw``): the best by :func:`heuristic_rank`, a wild kept
    while the table is calm; a Wild Draw Four that would be a bluff only when an opponent is
    close to going out and ``bluff()`` says so (asked then only: by default, never)."""
    if len(cards) == 1 and not cards[0].is_wild:
        return cards[0], None  # the best of one coloured card: no ranking to do
    color, live_rank, options = on
    held = dict.fromkeys(COLORS, 0)
    for card in hand:
        if card.color is not None:
            held[card.color] += 1

    def bluffing(card: Card) -> bool:
        if not options.challengeable:
            return False
        rest = list(hand)
        rest.remove(card)
        return wd4_guilty(rest, color, live_rank, options.wild_draw_four)

    ordered = sorted(set(cards), key=_code) if len(cards) > 1 else cards
    best, value = _best(ordered, held, danger, players, bluffing)
    if best.is_wild:
        if value <= -1000.0 and not (danger and bluff()):
            others = [c for c in ordered if c.rank != WILD_DRAW_FOUR]
            if not others:
                return None
            best, value = _best(others, held, danger, players, bluffing)
        wild_ok = danger or len(hand) <= 3 or all(c.is_wild for c in hand)
        if best.is_wild and not wild_ok and can_draw:
            return None  # keep the wild for later: draw instead
        if best.is_wild:
            rest = list(hand)
            rest.remove(best)
            return best, heuristic_color(rest, rng)
    return best, None


def _code(card: Card) -> str:
    return card.code


def _best(cards: Sequence[Card], held: Mapping[Color, int], danger: bool, players: int,
          bluffing: Callable[[Card], bool]) -> tuple[Card, float]:
    """The first of ``cards`` that :func:`heuristic_rank` ranks highest (as ``max`` picks),
    and its rank."""
    best = cards[0]
    value = heuristic_rank(best, held, danger, players, bluffing)
    for card in cards[1:]:
        rank = heuristic_rank(card, held, danger, players, bluffing)
        if rank > value:
            best, value = card, rank
    return best, value


class Heuristic:
    """The simulator's heuristic bot as a quick self-play policy, the expert's model of every
    seat in its playouts: the same ranking (:func:`heuristic_rank`) and colour
    (:func:`heuristic_color`), read from the state of a world the search dealt. It always calls
    UNO, never bluffs and never challenges; a house rule's own choices it makes as
    :class:`Greedy` does."""

    name = "heuristic"

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def act(self, s: State, acts: Sequence[Action]) -> Action:
        """The heuristic player's move (see the class)."""
        seat = s.current_player or 0
        hand = s.hands[seat].known
        first = acts[0]
        if type(first) is ChooseColor:
            named = heuristic_color(hand, self.rng)
            return next((a for a in acts if a.color is named), first)  # type: ignore[union-attr]
        plays: list[Play] = []
        fallback: Action | None = None
        can_draw = False
        call: Action | None = None
        for a in acts:
            kind = type(a)
            if kind is Play:
                plays.append(a)  # type: ignore[arg-type]
            elif kind is CallUno:
                call = a
            elif kind is Draw or kind is Pass:
                fallback = fallback or a
                can_draw = can_draw or kind is Draw
            elif kind is not Challenge:
                return Greedy(self.rng).act(s, acts)  # a house rule's choice
        if not plays:
            return fallback if fallback is not None else first
        if call is not None:
            return call  # UNO first, when a card plays
        danger = False  # an opponent close to going out: 1 or 2 cards
        for i, h in enumerate(s.hands):
            if i != seat and 0 < len(h) <= 2:
                danger = True
                break
        cards = [p.cards[0] for p in plays]
        on = (s.color, s.live_rank, s.options)
        choice = heuristic_choice(hand, cards, danger, len(s.hands), on, can_draw, self.rng)
        if choice is None:
            return fallback  # type: ignore[return-value]
        card, naming = choice
        for p in plays:  # the listed play of that card alone (cards compare by identity)
            if p.cards[0] is card and p.color is naming and len(p.cards) == 1 \
                    and p.player == seat:
                return p
        return Greedy(self.rng).act(s, acts)

    def react(self, s: State, acts: Sequence[Action]) -> Action | None:
        """A Don, a catch, or its own late UNO call."""
        return eager_reaction(acts)


def _expert(rng: random.Random) -> Policy:
    """The expert's search (table.analysis.search), which plays out with ``greedy``."""
    from table.analysis.search import ExpertPolicy  # it plays out through self-play

    return ExpertPolicy(rng)


POLICIES: Final[dict[str, Callable[[random.Random], Policy]]] = {
    "lively": Lively,
    "play-first": PlayFirst,
    "random": UniformRandom,
    "greedy": Greedy,
    "expert": _expert,
}
DEFAULT_POLICY: Final = "lively"


def make_policy(name: str, rng: random.Random) -> Policy:
    """The policy called ``name``, drawing from ``rng``. Raises :class:`PolicyError`."""
    try:
        return POLICIES[name](rng)
    except KeyError:
        raise PolicyError(f"unknown policy {name!r}: use one of {', '.join(POLICIES)}") from None
