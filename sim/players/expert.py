"""The ``expert`` bot: determinised information-set Monte Carlo search from a seat's view.

It reads :attr:`SeatView.table`, the table as its seat knows it (every card it cannot see is an
unknown card there), and searches it with :class:`table.analysis.search.Search`: each playout
deals the unseen cards at random, plays one of its actions and the rest of the round through the
rules engine, every seat played as the heuristic bot plays (its ``Heuristic`` policy), and the
action that wins most playouts is played. Its first choice, the search's prior, is
:class:`PriorBot`'s (the heuristic bot's ranking that also counts the turn with two players and
plays a chain of Skips and Draw Twos that takes it out: :mod:`table.analysis.prior`), so the
expert leaves it only when the playouts show something clearly better; and it searches only
in the end game (a hand of ``ENDGAME`` cards or fewer) and for a wild's colour, where playouts
are short enough for the budget to tell moves apart (earlier, the noise of a whole round's
outcome hides the differences: measured, see docs/performance.md).

With two players it also remembers what the table showed (:class:`Voids`): an opponent who
drew on its turn instead of answering the expert's card held no card of the colour in force
(nor, a heuristic player, the drawn card), so its hand is dealt without that colour in the
search's worlds, a wild names that colour when the expert holds some of it, and a card that
turns the colour to it is played first; and it challenges a Wild Draw Four only when a bluff is
likelier than one in three (:meth:`ExpertBot.challenge`; at more players, as the heuristic bot
does, which measured better there).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from math import comb

from sim.players.bots import HeuristicBot, SeatView
from table.analysis.policies import Heuristic, heuristic_pick
from table.analysis.prior import PriorWeights, Seen, prior_pick
from table.analysis.search import DEFAULT_ITERATIONS, Search, candidates, reaction
from table.cards import DRAW_TWO, REVERSE, SKIP, WILD_DRAW_FOUR, Card, Color
from table.rules import Action, CallUno, Challenge, ChooseColor, Draw, Options, Pass, Play, State
from table.rules.matching import fits

ENDGAME = 3  # the expert searches once a hand holds this many cards or fewer ...
ENDGAME_DEPTH = 300  # ... with playouts this long: to the end of the round
# ... and a decision stops once its playouts have taken this many actions (after a whole world,
# never before two): a decision's time bounded on a Pi's budget (bench/bots.py --pi), the same
# on any machine, where a time cap would not be (docs/performance.md, "the step cap")
ENDGAME_STEPS: int | None = 800
ROLLOUT = Heuristic  # the policy of every seat in the playouts
INFERENCE = "filter"  # the opponent's hand: "filter" (a particle filter), "reject" (a test)
SLIP = 0.1  # the chance the opponent model gives a play the heuristic player would not make
KEPT = 4  # the opponent's draws remembered, the latest
# The chance the model gives a draw while holding an answer (fitted from self-play,
# bench/draw_model.py: the heuristic bot 0 of 1,381 draws, mix 21 of 1,506).
DRAW_SLIP = 0.02
# Whether the filter weighs the worlds by the opponent's draws too: off, as measured on the
# strength bench's duplicate deals (no gain shown: docs/performance.md, "draws weighed").
WEIGH_DRAWS = False
BLUFF_RATE = 0.1  # how often a player holding the colour is taken to bluff a Wild Draw Four
_TURN_KEEPERS = frozenset({SKIP, REVERSE, DRAW_TWO, WILD_DRAW_FOUR})  # with two: no reply


@dataclass
class Voids:
    """What a 2-player expert knows of its opponent's hand from the table alone: the colours it
    holds no card of (``lacks``), but for ``free`` cards it has drawn since (anything)."""

    lacks: set[Color] = field(default_factory=set)
    free: int = 0
    # How the opponent answered this seat's cards since it last drew: each answer, and the
    # cards it played after it (its hand then was its hand now with those).
    answers: list[tuple[Answer, tuple[Card, ...]]] = field(default_factory=list)
    # Each time the opponent drew instead of answering this seat's card (the last ``KEPT``):
    # the draw, the cards it drew since (unknown to this seat: the one kept then included) and
    # the cards it played since (its hand then was among its hand now and those).
    draws: list[tuple[Drew, int, tuple[Card, ...]]] = field(default_factory=list)
    _last: tuple[SeatView, Action] | None = None

    def observe(self, view: SeatView) -> None:
        """Learn from what changed on the table since this seat's last action: the discard
        pile and the hand counts, nothing else."""
        last, self._last = self._last, None
        if len(view.players) != 2 or last is None:
            return
        prev, done = last
        me, opp = view.seat, 1 - view.seat
        if tuple(view.discard[:len(prev.discard)]) != prev.discard:
            self.lacks, self.free, self.answers = set(), 0, []  # a new round or a reshuffle
            self.draws = []
            return
        new = view.discard[len(prev.discard):]
        grew = view.counts[opp] - prev.counts[opp]
        card = done.cards[0] if isinstance(done, Play) and len(done.cards) == 1 else None
        mine = card is not None and new[:1] == (card,)
        theirs = new[1:] if mine else new
        drew = grew + len(theirs)  # the cards the opponent drew, at least
        answered = view.counts[me] == prev.counts[me] - 1  # the opponent's turn came
        self.answers = [] if drew else [(a, later + theirs) for a, later in self.answers]
        self.draws = [(d, free + max(0, drew), later + theirs) for d, free, later in self.draws]
        color = None if card is None else done.color or card.color  # type: ignore[union-attr]
        if card is None or not mine or not answered or card.rank in _TURN_KEEPERS:
            self._forget(view, theirs, drew)
            return
        if not drew and color is not None:
            self._answers(view, (color, card.rank), theirs)
        drew_kept = len(new) == 1 and grew == 1  # drew, and kept the card
        drew_played = len(new) == 2 and grew == 0  # drew, and played the drawn card
        if color is not None and (drew_kept or drew_played):
            seen = Drew(color, card.rank, prev.counts[me] - 1, prev.counts[opp])
            self.draws = [*self.draws[1 - KEPT:], (seen, int(drew_kept), ())]
            kept = self.lacks if self.free == 0 else set()
            self.lacks, self.free = kept | {color}, int(drew_kept)
            return
        self._forget(view, theirs, drew)

    def _answers(self, view: SeatView, facing: tuple[Color, str] | None,
                 theirs: tuple[Card, ...]) -> None:
        """Record each card the opponent played on this seat's card (and on its own Skips,
        Reverses and Draw Twos after it), with what it faced."""
        for i, x in enumerate(theirs):
            if facing is None:
                break
            named = view.color if i == len(theirs) - 1 else None  # a wild's colour, if seen
            answer = Answer(facing[0], facing[1], x, named, view.counts[view.seat])
            self.answers.append((answer, theirs[i + 1:]))
            facing = None if x.color is None else (x.color, x.rank)

    def _forget(self, view: SeatView, theirs: tuple[Card, ...], drew: int) -> None:
        """Count the cards drawn since the colours lacked were learnt, and forget them once
        they say nothing."""
        self.free += max(0, drew)
        self.free -= sum(1 for c in theirs if c.color in self.lacks)  # those were drawn ones
        if self.free < 0 or self.free >= view.counts[1 - view.seat]:
            self.lacks, self.free = set(), 0  # wrong (a player who drew by choice) or empty

    def acted(self, view: SeatView, action: Action) -> None:
        """Remember this seat's action and what it saw when it took it."""
        self._last = (view, action)

    def constraint(self, view: SeatView) -> dict[int, tuple[frozenset[Color], int]]:
        """For :func:`table.analysis.search.determinise`: seat -> (colours lacked, free)."""
        if not self.lacks or len(view.players) != 2:
            return {}
        return {1 - view.seat: (frozenset(self.lacks), self.free)}


@dataclass(frozen=True)
class Answer:
    """The card an opponent played on this seat's card: what it faced (the colour in force,
    the live rank, this seat's hand count) and what it played (``card``, naming ``named``)."""

    color: Color
    rank: str
    card: Card
    named: Color | None
    count: int

    def fits(self, hand: list[Card], options: Options) -> bool:
        """Whether a heuristic player holding ``hand`` (and ``card``, since played) would have
        answered so: a world the expert deals for its opponent must fit its last answer."""
        held = [*hand, self.card]
        cards = [c for c in held if fits(c, self.color, self.rank)]
        on = (self.color, self.rank, options)
        pick = heuristic_pick(0, held, cards, self.count <= 2, 2, on, True, _NO_DICE)
        if pick is None or pick.cards[0] != self.card:
            return False
        return not self.card.is_wild or self.named is None or pick.color is self.named or all(
            c.color is None for c in hand)


@dataclass(frozen=True)
class Drew:
    """The opponent drew on its turn instead of answering this seat's card: what it faced
    (the colour in force, the live rank, this seat's hand count) and its hand's size then. A
    heuristic player draws only when no card answers, or when its only answers are wilds it
    keeps while the table is calm (:func:`table.analysis.policies.heuristic_choice`)."""

    color: Color
    rank: str
    count: int
    size: int

    def chance(self, held: Sequence[Card], free: int) -> float:
        """The chance that a heuristic player drew here, whose hand then was ``held`` (its
        hand now and the cards it played since) less ``free`` cards it drew since, which this
        seat did not see: every card of ``held`` that would have answered is among those."""
        wild_ok = self.count <= 2 or self.size <= 3  # a wild is played, not kept, then
        answers = sum(1 for c in held if (
            wild_ok if c.color is None else c.color is self.color or c.rank == self.rank))
        if not answers:
            return 1.0
        if answers > free:
            return 0.0
        return comb(free, answers) / comb(len(held), answers)


_NO_DICE = random.Random(0)  # a colour named for a hand without colour: never compared


class PriorBot:
    """The expert's first choice, without search (:func:`table.analysis.prior.prior_pick`): the
    heuristic bot's ranking that counts the turn with two players; it never forgets UNO and
    never bluffs."""

    name = "prior"

    def __init__(self, rng: random.Random, weights: PriorWeights | None = None) -> None:
        self.weights = weights or PriorWeights()
        self.heuristic = HeuristicBot(rng, forget=0.0, bluff=0.0)

    def act(self, view: SeatView) -> Action:
        """The prior's move from ``view``: a heuristic player's that counts the turn."""
        acts = view.legal
        plays = [a for a in acts if isinstance(a, Play) and len(a.cards) == 1]
        uno = next((a for a in acts if isinstance(a, CallUno)), None)
        if uno is not None and plays:
            return uno
        if not plays or any(not isinstance(a, Play | Draw | Pass | CallUno) for a in acts):
            return self.heuristic.act(view)  # a colour, a challenge, a house rule's choice
        seen = self.seen(view)
        can_draw = any(isinstance(a, Draw) for a in acts)
        pick = prior_pick(view.hand, [p.cards[0] for p in plays], seen, can_draw, self.weights)
        if pick is None:
            return next((a for a in acts if isinstance(a, Draw | Pass)), acts[0])
        card, named = pick
        return next((p for p in plays if p.cards[0] is card and p.color is named),
                    self.heuristic.act(view))

    def seen(self, view: SeatView) -> Seen:
        """What this seat knows around its choice (see :class:`table.analysis.prior.Seen`)."""
        return Seen(view.color, view.live_rank, view.options, len(view.players),
                    view.closest_opponent() <= 2)

    def react(self, view: SeatView) -> Action | None:
        """A winning Don, every catch, its own late UNO call."""
        return reaction(view.reactions, view.seat)


class ExpertBot:
    """Searches the decisions that playouts can settle; ``iterations`` playouts a decision
    (``seconds``, when given, caps the time as well)."""

    name = "expert"

    def __init__(self, rng: random.Random, iterations: int = DEFAULT_ITERATIONS,
                 seconds: float | None = None, weights: PriorWeights | None = None) -> None:
        self.search = Search(rng, iterations, seconds)
        self.search.depth = ENDGAME_DEPTH
        self.search.steps = ENDGAME_STEPS
        self.search.policy = ROLLOUT
        # The prior: the heuristic player's ranking that counts the turn with two players
        # (table.analysis.prior); it never forgets UNO and never bluffs.
        self.prior = PriorBot(random.Random(rng.getrandbits(64)), weights)
        self.voids = Voids()

    def act(self, view: SeatView) -> Action:
        """The action among ``view.legal`` that wins most playouts from this seat's view."""
        self.voids.observe(view)
        action = self._decide(view)
        self.voids.acted(view, action)
        return action

    def _decide(self, view: SeatView) -> Action:
        options = candidates(view.legal)
        if len(options) == 1:
            return options[0]
        if any(isinstance(a, Challenge) for a in options):
            if len(view.players) == 2:
                return self.challenge(view, options)
            return self.prior.act(view)  # at four, the heuristic's own rule measured better
        prior = self._into_void(view, self.prior.act(view), options)
        if min(view.counts) > ENDGAME and not isinstance(options[0], ChooseColor):
            return prior  # early in the round the heuristic is better than noisy playouts
        self.search.lacks = self.voids.constraint(view)
        if INFERENCE == "filter":
            self.search.likelihood = self._likelihood(view)
        else:
            self.search.accept = self._fits(view)
        return self.search.choose(view.table, view.seat, options, prior)

    def _fits(self, view: SeatView) -> Callable[[State], bool] | None:
        """A test of the search's worlds: the opponent's hand fits its answers since it last
        drew (with the official rules, which the heuristic model plays)."""
        answers = self.voids.answers
        if not answers or view.options.preset != "official":
            return None
        opp, options = 1 - view.seat, view.options
        return lambda world: all(a.fits([*world.hands[opp].known, *later], options)
                                 for a, later in answers)

    def _likelihood(self, view: SeatView) -> Callable[[Sequence[Sequence[Card]]], float] | None:
        """How likely a world's hands (each seat's cards, as the search dealt them) make the
        opponent's answers since it last drew, under the heuristic player's model of it
        (:meth:`Answer.fits`): each answer it would have made counts ``1 - SLIP``, each it
        would not have ``SLIP`` (a model is never sure: a bluff, a colour named on a tie); and
        its last draws (:meth:`Drew.chance`: that it held no answer then), each between
        ``DRAW_SLIP`` and ``1 - DRAW_SLIP``.
        Only the opponent's hand in the world is read: a hand the search dealt, never the real
        table."""
        answers = self.voids.answers
        draws = self.voids.draws if WEIGH_DRAWS else []
        if not (answers or draws) or view.options.preset != "official":
            return None
        opp, options = 1 - view.seat, view.options

        def likelihood(hands: Sequence[Sequence[Card]]) -> float:
            held = hands[opp]
            odds = 1.0
            for a, later in answers:
                odds *= 1.0 - SLIP if a.fits([*held, *later], options) else SLIP
            for d, free, later in draws:
                odds *= DRAW_SLIP + (1.0 - 2.0 * DRAW_SLIP) * d.chance([*held, *later], free)
            return odds

        return likelihood

    def challenge(self, view: SeatView, options: list[Action]) -> Action:
        """Challenge a Wild Draw Four only when the bluff is likelier than one in three (the
        challenger then gains more than it risks: 4 cards against 2): the chance that the
        offender held a card of the colour, from the unseen cards, weighed by how seldom a
        player holding one plays the Wild Draw Four anyway (``BLUFF_RATE``)."""
        accept = next(a for a in options if not isinstance(a, Challenge))
        held = self.prior.heuristic.bluff_odds(view)
        guilty = held * BLUFF_RATE / (held * BLUFF_RATE + (1.0 - held) or 1.0)
        return next(a for a in options if isinstance(a, Challenge)) if guilty > 1 / 3 else accept

    def _into_void(self, view: SeatView, prior: Action, options: list[Action]) -> Action:
        """The prior, turned to a colour the opponent lacks when this seat can: a coloured
        card of that colour first, a wild naming it when this seat holds some of it."""
        lacks = self.voids.lacks
        if not lacks or len(view.players) != 2:
            return prior
        held = {c: sum(1 for x in view.hand if x.color is c) for c in lacks}
        if isinstance(prior, Play | Draw) and _leaves(prior, view) not in lacks:
            into = [a for a in options if isinstance(a, Play) and a.cards[0].color in lacks]
            if into:
                return max(into, key=lambda a: _weight(a, held))
        if not (isinstance(prior, ChooseColor) or (
                isinstance(prior, Play) and prior.color is not None)):
            return prior
        best = max(sorted(lacks, key=lambda c: c.value), key=lambda c: held[c])
        if not held[best]:
            return prior
        cards = prior.cards if isinstance(prior, Play) else ()
        same = (a for a in options if isinstance(a, Play | ChooseColor) and a.color is best
                and type(a) is type(prior) and (not isinstance(a, Play) or a.cards == cards))
        return next(same, prior)

    def react(self, view: SeatView) -> Action | None:
        """A winning Don, every catch, its own late UNO call."""
        return reaction(view.reactions, view.seat)


def _leaves(action: Action, view: SeatView) -> Color | None:
    """The colour in force after ``action`` (a draw leaves the table's)."""
    if isinstance(action, Play):
        return action.color or action.cards[0].color
    return view.color


def _weight(play: Play, held: dict[Color, int]) -> tuple[int, bool, int]:
    """How much a play into a lacked colour is worth: the colour held most, then an action
    card, then the higher points."""
    card = play.cards[0]
    return held.get(card.color, 0) if card.color else 0, card.is_action, card.points
