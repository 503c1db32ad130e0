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
- ``greedy``: a quick decent player, the expert's playouts (see :class:`Greedy`).
- ``expert``: the simulator's expert search (:mod:`table.analysis.search`) at 40 playouts a
  decision, each seat searching what it may know; out of turn, a Don, a catch or a late call.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Final, Protocol

from table.cards import COLORS, WILD_DRAW_FOUR, Card
from table.errors import TableError
from table.rules import (
    Action,
    CallUno,
    Catch,
    Challenge,
    ChooseColor,
    Don,
    Draw,
    Pass,
    Play,
    State,
)

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
        for a in acts:
            if type(a) is Don or type(a) is Catch or type(a) is CallUno:
                return a
        return None


_ACTIONS: Final = frozenset({"S", "R", "+2"})


def _expert(rng: random.Random) -> Policy:
    """The expert's search (table.analysis.search), which plays out with ``play-first``."""
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
