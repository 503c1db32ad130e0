"""The expert player's search: determinised information-set Monte Carlo search.

A seat decides from what it may know, never from a hidden card. :func:`information_set` turns a
state into the one the seat sees: every card it cannot see (the other hands, the draw pile, the
hand a Wild Draw Four's player held, another seat's drawn card) becomes an unknown card, so the
state a search starts from holds no hidden card to read. Its candidate actions are the same in
every world the seat cannot tell apart (they depend on its own hand and the public table only),
so the information set's node is the root, and each iteration of :meth:`Search.choose`

1. *determinises*: deals the unknown pool (the edition minus every card the seat has seen) at
   random into the unknown places (:func:`determinise`), a world the seat cannot tell from the
   real one; what the seat saw the others do narrows the deal (``lacks``: colours a seat holds
   none of; ``accept``: a test a world must pass, such as an opponent's last answers; or
   ``likelihood``: how likely a world makes what the others did, under a model of them, the
   worlds then drawn in proportion to it, a particle filter's: :meth:`Search._particles`);
2. plays *every* candidate in that world, each followed by a *playout* through the one rules
   engine: ``depth`` actions of a policy at every seat (``policy``: the quick
   :class:`table.analysis.policies.Greedy` by default; the expert bot plays its playouts to
   the round's end with :class:`table.analysis.policies.Heuristic`), with the same dice for each
   candidate (common random numbers: the candidates are compared on the same deals, which
   cuts the noise of comparing them);
3. *values* the position reached: 1 for a won round, 0 for a lost one, otherwise the seat's
   share of the table's inverse hand sizes (:func:`playout`).

The candidate with the best total wins, except that a ``prior`` action (the heuristic player's
choice) is kept unless the best beats it on the same worlds by more than ``CONFIDENCE`` standard
errors (:func:`clearly_better`): the search corrects the heuristic where the playouts are sure.
The budget is a number of playouts (the same on a busy machine as on an idle one, so a seed
gives the same game), optionally capped by the actions the playouts take (``steps``, the same
on any machine too) or by a time in seconds. docs/simulator.md explains the
choices and gives the numbers.
"""

from __future__ import annotations

import dataclasses
import random
import time
from collections.abc import Callable, Mapping, Sequence
from math import sqrt
from typing import Final

from table.analysis.policies import Greedy, Policy
from table.analysis.selfplay import RandomTable, shuffle
from table.cards import Card, Color
from table.rules import Action, CallUno, Catch, Don, Phase, State, apply_legal
from table.rules.legal import legal_actions, out_of_turn_actions

# Playouts per decision at full budget (the ``hard`` level): 40, where every strength figure
# was measured; 120 measured no stronger (docs/performance.md) at three times the time.
DEFAULT_ITERATIONS: Final = 40
POLICY_ITERATIONS: Final = 40  # playouts per decision of the ``expert`` self-play policy
CONFIDENCE: Final = 2.0  # standard errors by which an action must beat the prior's playouts
ROLLOUT_POLICY: Final[Callable[[random.Random], Policy]] = Greedy
TRIES: Final = 30  # deals tried for a world that fits what the seat saw
OVERSAMPLE: Final = 4  # worlds dealt for each one a particle filter keeps
DEPTH: Final = 8  # actions a playout looks ahead before the position is valued


def information_set(s: State, seat: int) -> State:
    """A copy of ``s`` as ``seat`` knows it: the other hands, the draw pile, the hand behind a
    challengeable Wild Draw Four and another seat's drawn card become unknown cards."""
    t = s.copy()
    for i, hand in enumerate(t.hands):
        if i != seat and hand.known:
            hand.unknown += len(hand.known)
            t.hidden += len(hand.known)
            hand.known = []
    if t.pile:
        t.pile_unknown += len(t.pile)
        t.pile = []
    window = t.challenge
    if window is not None and window.offender != seat and window.hand:
        t.challenge = dataclasses.replace(
            window, hand=(), hand_unknown=window.hand_unknown + len(window.hand)
        )
    if t.turn != seat and t.drawn is not None:
        t.drawn, t.drawn_unknown = None, True
    return t


def determinise(info: State, rng: random.Random,
                lacks: Mapping[int, tuple[frozenset[Color], int]] | None = None,
                pool: Sequence[Card] | None = None) -> State:
    """One world consistent with ``info``: the unknown pool dealt at random into the hands'
    unknown places, the rest as the draw pile; a challenged hand is its owner's. ``lacks``:
    seats known to hold no coloured card of some colours, but for a number of cards drawn since
    (what a seat saw it draw for: see ``sim.players.expert``); dealt first, accordingly, when
    the pool allows. ``pool``: :func:`unknown_cards` of ``info``, when the caller has it."""
    return world(info, deal(info, rng, lacks, pool))


def unknown_cards(info: State) -> list[Card]:
    """The unknown pool of ``info`` as a list, one entry per copy, in a repeatable order."""
    return [card for card, n in info.unknown_pool().items() for _ in range(n)]


def deal(info: State, rng: random.Random,
         lacks: Mapping[int, tuple[frozenset[Color], int]] | None = None,
         pool: Sequence[Card] | None = None) -> tuple[list[list[Card]], list[Card]]:
    """The chance of :func:`determinise` alone: the cards dealt to each hand's unknown places
    (appended to the hand's known cards by :func:`world`) and the draw pile, without copying
    the state (a particle filter deals many worlds and keeps a few)."""
    cards = unknown_cards(info) if pool is None else list(pool)
    shuffle(rng, cards)
    dealt: list[list[Card]] = [[] for _ in info.hands]
    unknown = [hand.unknown for hand in info.hands]
    for seat, (colors, free) in (lacks or {}).items():
        hand = info.hands[seat]
        fits = [i for i, c in enumerate(cards) if c.color not in colors]
        need = hand.unknown - free
        if 0 < need <= len(fits) and hand.unknown == len(hand):
            picked = fits[-need:]
            dealt[seat] = [cards[i] for i in picked]
            for i in reversed(picked):
                del cards[i]
            unknown[seat] = free
    for seat, n in enumerate(unknown):
        if n:
            dealt[seat] += cards[-n:]
            del cards[-n:]
    return dealt, cards  # whatever is left is the draw pile, in a random order


def world(info: State, dealt: tuple[list[list[Card]], list[Card]]) -> State:
    """The world of ``info`` with the cards of :func:`deal` in its unknown places."""
    hands, pile = dealt
    s = info.copy()
    for hand, cards in zip(s.hands, hands, strict=True):
        if cards:
            hand.known += cards
        hand.unknown = 0
    s.hidden = 0
    s.pile = pile.copy()
    s.pile_unknown = 0
    window = s.challenge
    if window is not None and window.hand_unknown:
        held = list(s.hands[window.offender].known)
        s.challenge = dataclasses.replace(window, hand=tuple(held), hand_unknown=0)
    if s.drawn_unknown and s.hands[s.turn].known:
        s.drawn, s.drawn_unknown = s.hands[s.turn].known[-1], False
    return s


def candidates(acts: Sequence[Action]) -> list[Action]:
    """The actions worth searching: an UNO call is always made first when it is open (it costs
    nothing and saves two cards), so it alone is returned; otherwise every listed action once."""
    for a in acts:
        if type(a) is CallUno:
            return [a]
    return list(dict.fromkeys(acts))


class Search:
    """A reusable searcher: one seat's random source, budget and playout table."""

    def __init__(self, rng: random.Random, iterations: int = DEFAULT_ITERATIONS,
                 seconds: float | None = None) -> None:
        self.rng = rng
        self.iterations = iterations
        self.seconds = seconds
        # A cap on the actions the playouts of one decision take, checked after each world:
        # the long decisions' time bounded as ``seconds`` would, the same on any machine.
        self.steps: int | None = None
        self.depth = DEPTH
        self.policy = ROLLOUT_POLICY  # what every seat plays in the playouts
        self._tables: dict[tuple[object, int, object], RandomTable] = {}
        self._chance = random.Random(0)  # reseeded for each world: the same dice per action
        self.playouts = 0
        self.last: list[tuple[Action, float]] = []  # each option's total, last decision
        self.taken = 0  # the actions the last decision's playouts took
        self.lacks: Mapping[int, tuple[frozenset[Color], int]] = {}  # see determinise
        # A test a world must pass (what the seat saw the others do), tried ``TRIES`` deals.
        self.accept: Callable[[State], bool] | None = None
        # Or, softer: how likely a world's hands (each seat's cards) make what the seat saw
        # the others do (a model of them); the worlds are then a particle filter's
        # (:meth:`_particles`).
        self.likelihood: Callable[[Sequence[Sequence[Card]]], float] | None = None

    def _table(self, s: State) -> RandomTable:
        key = (s.options, len(s.players), self.policy)
        table = self._tables.get(key)
        if table is None:
            table = RandomTable(s.options, len(s.players), 0, "greedy")
            table.rng = self._chance
            table.policy = self.policy(self._chance)
            self._tables[key] = table
        return table

    def _world(self, info: State, pool: Sequence[Card] | None = None) -> State:
        """A determinised world that passes :attr:`accept` (the last one tried, else);
        ``pool``: :func:`unknown_cards` of ``info``, made once a decision."""
        world = determinise(info, self.rng, self.lacks, pool)
        accept = self.accept
        if accept is not None:
            for _ in range(TRIES):
                if accept(world):
                    break
                world = determinise(info, self.rng, self.lacks, pool)
        return world

    def _particles(self, info: State, count: int,
                   pool: Sequence[Card] | None = None) -> list[State]:
        """``count`` worlds drawn in proportion to :attr:`likelihood`: ``OVERSAMPLE`` times as
        many dealt at random (:func:`deal`), each weighted by how likely its hands make what
        the seat saw, then resampled systematically (sampling importance resampling). Only the
        worlds kept are built (:func:`world`), each once however often it is drawn."""
        likelihood = self.likelihood
        assert likelihood is not None
        pool = unknown_cards(info) if pool is None else pool
        rng, lacks = self.rng, self.lacks
        known = [hand.known for hand in info.hands]
        proposed = [deal(info, rng, lacks, pool) for _ in range(count * OVERSAMPLE)]
        weights = [likelihood([[*k, *d] for k, d in zip(known, hands, strict=True)])
                   for hands, _ in proposed]
        total = sum(weights)
        if total <= 0.0:
            return [world(info, dealt) for dealt in proposed[:count]]
        out: list[State] = []
        step_size = total / count
        point = rng.random() * step_size
        running = 0.0
        for dealt, weight in zip(proposed, weights, strict=True):
            running += weight
            built: State | None = None
            while point < running and len(out) < count:
                if built is None:
                    built = world(info, dealt)
                out.append(built)
                point += step_size
        return out

    def choose(self, info: State, seat: int, acts: Sequence[Action],
               prior: Action | None = None) -> Action:
        """The action of ``seat`` among ``acts`` (legal in ``info``, an information set from
        :func:`information_set`) that wins most playouts; ``prior`` unless another wins more."""
        options = candidates(acts)
        if len(options) == 1:
            return options[0]
        values: list[list[float]] = [[] for _ in options]
        table = self._table(info)
        deadline = None if self.seconds is None else time.perf_counter() + self.seconds
        worlds = max(2, self.iterations // len(options))
        pool = unknown_cards(info)  # the same for every world of this decision
        particles = None if self.likelihood is None else self._particles(info, worlds, pool)
        reseed, bits, depth = self._chance.seed, self.rng.getrandbits, self.depth
        steps, cap = 0, self.steps
        for i in range(worlds):
            dealt = self._world(info, pool) if particles is None else \
                particles[i % len(particles)]
            dice = bits(64)
            for k, action in enumerate(options):
                reseed(dice)  # common random numbers: the same deals and choices
                copy = dealt.copy()
                table.supply_chance(copy)
                step(table, copy, action)
                value, taken = playout(table, copy, seat, depth)
                values[k].append(value)
                steps += taken
            self.playouts += len(options)
            if deadline is not None and time.perf_counter() > deadline:
                break
            if cap is not None and steps >= cap and i >= 1:
                break
        self.last = [(a, sum(v)) for a, v in zip(options, values, strict=True)]
        self.taken = steps
        best = max(range(len(options)), key=lambda i: (sum(values[i]), options[i] == prior))
        if prior is not None and prior in options:
            k = options.index(prior)
            if not clearly_better(values[best], values[k]):
                return prior
        return options[best]


def playout(table: RandomTable, s: State, seat: int, depth: int) -> tuple[float, int]:
    """Play ``s`` on for at most ``depth`` actions with the table's policy; then what ``seat``
    is worth: 1 for a win, 0 for a loss, otherwise its share of the table's inverse hand
    sizes (two players holding 2 and 6 cards: 0.75 and 0.25); and the actions it took. Each
    action is a step of :meth:`RandomTable.choose` and :func:`step`, with the calls bound once
    (a playout is most of a search's time)."""
    supply, act, react = table.supply_chance, table.policy.act, table.policy.react
    legal, late_actions, push, play = legal_actions, out_of_turn_actions, apply_legal, Phase.PLAY
    taken = 0
    while taken < depth and s.phase is play:
        taken += 1
        supply(s)
        acts = legal(s)
        if not acts:  # pragma: no cover - a state in PLAY always has an action
            break
        push(s, act(s, acts))
        if s.phase is play:
            late = late_actions(s)
            if late:
                reaction = react(s, late)
                if reaction is not None:
                    push(s, reaction)
    if s.phase is not play:
        return (1.0 if s.winner == seat else 0.0), taken
    inverse = [1.0 / len(h) if len(h) else 1.0 for h in s.hands]
    return inverse[seat] / sum(inverse), taken


def clearly_better(a: list[float], b: list[float]) -> bool:
    """Whether ``a`` beats ``b`` over the same worlds by more than chance explains: the paired
    differences' mean above ``CONFIDENCE`` standard errors."""
    n = len(a)
    diffs = [x - y for x, y in zip(a, b, strict=True)]
    mean = sum(diffs) / n
    if mean <= 0:
        return False
    spread = sum((d - mean) ** 2 for d in diffs) / max(1, n - 1)
    return mean > CONFIDENCE * sqrt(spread / n)


def step(table: RandomTable, world: State, action: Action) -> None:
    """Play ``action`` in ``world`` and let the other seats react, as a playout's step does."""
    apply_legal(world, action)
    late = table.out_of_turn(world) if world.phase is Phase.PLAY else None
    if late is not None:
        apply_legal(world, late)


def reaction(acts: Sequence[Action], seat: int | None = None) -> Action | None:
    """The expert out of turn: a winning Don, a catch, its own late UNO call; nothing else."""
    for kind in (Don, Catch, CallUno):
        for a in acts:
            if type(a) is kind and (seat is None or _actor(a) == seat):
                return a
    return None


def _actor(a: Action) -> int:
    return a.catcher if isinstance(a, Catch) else int(getattr(a, "player", -1))


class ExpertPolicy:
    """The expert as a self-play policy (``selfplay --policy expert``, ``study --policy
    expert``): each seat on turn searches its own information set; no prior."""

    name = "expert"

    def __init__(self, rng: random.Random, iterations: int = POLICY_ITERATIONS) -> None:
        self.search = Search(rng, iterations)

    def act(self, s: State, acts: Sequence[Action]) -> Action:
        """The searched move of the player on turn."""
        seat = s.current_player
        assert seat is not None
        if len(acts) == 1:
            return acts[0]
        return self.search.choose(information_set(s, seat), seat, acts)

    def react(self, s: State, acts: Sequence[Action]) -> Action | None:
        """A winning Don, a catch or a late UNO call, by whichever seat may make it."""
        return reaction(acts)
