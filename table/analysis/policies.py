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
        # One pass, sorting the plays: the ones naming no colour (one a card) and a wild's,
        # listed once per colour it may name. This runs for every action of the engine
        # benchmark, so it stays lean.
        plain: list[Action] = []
        wild: list[Play] = []
        call: Action | None = None
        draw: Action | None = None
        done: Action | None = None
        for a in acts:
            if type(a) is Play:
                (plain if a.color is None else wild).append(a)
            elif type(a) is CallUno:
                call = a
            elif type(a) is Draw:
                draw = a
            elif type(a) is Pass:
                done = a
        if plain or wild:
            if call is not None:
                return call  # UNO first, then the play that leaves one card
            return self._with_wilds(plain, wild) if wild else self.rng.choice(plain)
        if draw is not None:
            return draw
        if done is not None:
            return done
        # A colour to name, or what a house rule adds (a swap target, ...); never a challenge.
        return self.rng.choice([a for a in acts if type(a) is not Challenge])

    def _with_wilds(self, plain: list[Action], wild: list[Play]) -> Action:
        """A uniformly random card of ``plain`` and the wilds, a Wild Draw Four only when
        nothing else plays; a random colour for a wild."""
        by_card: dict[tuple[Card, ...], list[Action]] = {}
        for p in wild:
            by_card.setdefault(p.cards, []).append(p)
        wd4 = by_card.pop((_WILD_DRAW_FOUR,), [])
        cards = [[p] for p in plain] + list(by_card.values())
        same = self.rng.choice(cards) if cards else wd4
        return same[0] if len(same) == 1 else self.rng.choice(same)

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
        return self.rng.choice(acts)

    def react(self, s: State, acts: Sequence[Action]) -> Action | None:
        return self.rng.choice(acts) if self.rng.random() < 0.5 else None


POLICIES: Final[dict[str, Callable[[random.Random], Policy]]] = {
    "lively": Lively,
    "play-first": PlayFirst,
    "random": UniformRandom,
}
DEFAULT_POLICY: Final = "lively"


def make_policy(name: str, rng: random.Random) -> Policy:
    """The policy called ``name``, drawing from ``rng``. Raises :class:`PolicyError`."""
    try:
        return POLICIES[name](rng)
    except KeyError:
        raise PolicyError(f"unknown policy {name!r}: use one of {', '.join(POLICIES)}") from None
