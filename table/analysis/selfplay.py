"""Self-play: complete rounds with a policy's legal actions, for tests, benchmarks and statistics.

The chance events a real table supplies (the shuffle, the dealer draw, the order of a reshuffled
pile, a Shuffle Hands redeal) come from one seeded ``random.Random``, fed to the engine as
explicit inputs; the players' choices (:mod:`table.analysis.policies`: ``lively`` by default,
``play-first``, ``random``) draw from the same one: the same seed gives the same games.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

from table.analysis.policies import DEFAULT_POLICY, make_policy
from table.analysis.policies import lively_choice as lively_choice  # the simulator's random bot
from table.cards import Card, edition_cards, edition_counts
from table.rules import (
    Action,
    Deal,
    Event,
    EventKind,
    Identify,
    Options,
    Phase,
    Reshuffle,
    State,
    apply_in_place,
    apply_legal,
    choose_dealer,
    legal_actions,
    make_options,
    new_game,
)
from table.rules.engine import dealer_after, next_round
from table.rules.legal import out_of_turn_actions

MAX_ACTIONS = 20_000  # a round that runs this long is stopped and counted as capped


@dataclass
class Stats:
    """Totals of a self-play run: rounds, actions, wins, penalties."""
    games: int = 0
    turns: int = 0
    capped: int = 0
    handovers: int = 0  # the turn handed on (the engine's "turn" events)
    wins: Counter[int] = field(default_factory=Counter)
    penalties: Counter[str] = field(default_factory=Counter)
    don_wins: int = 0

    def summary(self, players: int) -> dict[str, object]:
        """The JSON summary of ``uno-table selfplay``."""
        return {
            "games": self.games,
            "turns": self.turns,
            "rounds": self.games,
            "actions": self.turns,
            "capped": self.capped,
            "wins_per_seat": [self.wins[i] for i in range(players)],
            "mean_turns_per_round": round(self.turns / self.games, 2) if self.games else 0.0,
            "mean_actions_per_round": round(self.turns / self.games, 2) if self.games else 0.0,
            "penalties": dict(sorted(self.penalties.items())),
            "don_wins": self.don_wins,
        }


def shuffle(rng: random.Random, cards: list[Card]) -> None:
    """Shuffle ``cards`` in place exactly as ``rng.shuffle(cards)`` does (the same order from
    the same generator, which a test holds), about twice as fast: ``random.shuffle`` calls two
    functions written in Python for each card (``_randbelow`` and its ``getrandbits`` loop),
    here inlined, with each place's bit count looked up. Self-play shuffles a deck every
    round."""
    bits = rng.getrandbits
    for i, k in _shuffle_steps(len(cards)):
        j = bits(k)
        while j > i:  # rejection: j uniform up to i
            j = bits(k)
        cards[i], cards[j] = cards[j], cards[i]


def _shuffle_steps(size: int) -> list[tuple[int, int]]:
    """The places a shuffle of ``size`` cards swaps, last first, each with the bits
    ``random`` draws for it (those of the number of places up to it), made once per size."""
    steps = _SHUFFLE_STEPS.get(size)
    if steps is None:
        steps = [(i, (i + 1).bit_length()) for i in range(size - 1, 0, -1)]
        if len(_SHUFFLE_STEPS) < 256:
            _SHUFFLE_STEPS[size] = steps
    return steps


_SHUFFLE_STEPS: dict[int, list[tuple[int, int]]] = {}


class RandomTable:
    """Chance and the players (every seat playing ``policy``) for one seeded table."""

    def __init__(
        self, options: Options, players: int, seed: int, policy: str = DEFAULT_POLICY
    ) -> None:
        self.options = options
        self.names = tuple(f"P{i + 1}" for i in range(players))
        self.rng = random.Random(seed)
        self.policy = make_policy(policy, self.rng)

    # --- chance ---------------------------------------------------------------------------

    def shuffled_deck(self) -> list[Card]:
        """A freshly shuffled deck of the edition."""
        deck = edition_cards(self.options.deck)
        shuffle(self.rng, deck)
        return deck

    def deal(self, state: State | None = None) -> Deal:
        """A shuffled deal for a new round (``state``: who is still in the match)."""
        deck = self.shuffled_deck()
        size = self.options.hand_size
        hands: list[tuple[list[Card], int]] = []
        for i in range(len(self.names)):
            if state is not None and state.eliminated[i]:
                hands.append(([], 0))
            else:
                hands.append((deck[:size], 0))
                del deck[:size]
        return Deal(hands=hands, pile=deck[1:], start=deck[:1])

    def dealer(self) -> int:
        """The first dealer, drawn by cutting a shuffled deck."""
        deck = self.shuffled_deck()
        return choose_dealer(len(self.names), lambda _seat: deck.pop(), self.options)

    def drawn_dealer(self) -> int:
        """A dealer drawn by the same rule as :meth:`dealer`, with the same chances: each card
        taken at random from the deck when it is drawn, not from a deck shuffled whole first
        (a few random numbers, not a hundred; a study draws a dealer every round)."""
        deck = edition_cards(self.options.deck)
        pick = self.rng.randrange

        def draw(_seat: int) -> Card:
            at = pick(len(deck))
            deck[at], deck[-1] = deck[-1], deck[at]
            return deck.pop()

        return choose_dealer(len(self.names), draw, self.options)

    def supply_chance(self, s: State) -> Sequence[Event]:
        """What chance decides at a real table before the next action: the order of a
        reshuffled pile (when the draw pile is empty), and which cards the unknown cards in the
        hands are (what seat pads report), picked from the cards whose place is unknown."""
        if s.pile and not s.hidden:
            return ()  # the common case: no reshuffle is due and every hand is known
        events: list[Event] = []
        if not s.pile and not s.pile_unknown and len(s.discard) > 1 and s.phase is Phase.PLAY:
            order = s.discard[:-1]
            shuffle(self.rng, order)
            events = apply_in_place(s, Reshuffle(tuple(order)))
        for hand in s.hands:
            if hand.unknown:
                break
        else:
            return events  # nothing is unknown
        pool = self._unknown_cards(s)
        for seat, hand in enumerate(s.hands):
            if not hand.unknown:
                continue
            for card in self.rng.sample(pool, hand.unknown):
                pool.remove(card)
                events += apply_in_place(s, Identify(seat, card))
        if pool and not s.pile and s.phase is Phase.PLAY:
            # The engine reshuffled by itself in the middle of a penalty: the rest of the
            # unknown cards are the draw pile, and chance gives its order, so that later draws
            # are seen again.
            shuffle(self.rng, pool)
            events += apply_in_place(s, Reshuffle(tuple(pool)))
        return events

    @staticmethod
    def _unknown_cards(s: State) -> list[Card]:
        """The unknown pool as a list, one entry per copy, in edition order (repeatable)."""
        known = s.known_counts().get  # dict.get: no Counter.__missing__ call per absent face
        pool: list[Card] = []
        for c, n in edition_counts(s.options.deck).items():
            left = n - known(c, 0)
            if left:
                pool += [c] * left
        return pool

    # --- players --------------------------------------------------------------------------

    def choose(self, s: State) -> Action | None:
        """The policy's action for the player on turn (``None`` when no one is on turn)."""
        acts = legal_actions(s)
        return self.policy.act(s, acts) if acts else None

    def out_of_turn(self, s: State) -> Action | None:
        """After an action: the policy's out-of-turn action, if any (a late UNO call, a catch,
        a jump-in, a Don)."""
        acts = out_of_turn_actions(s)
        return self.policy.react(s, acts) if acts else None


def play_round(table: RandomTable, s: State, stats: Stats | None = None,
               watch: Callable[[list[Event]], None] | None = None) -> State:
    """Play ``s`` (a freshly dealt round) to its end, in place; ``watch`` hears the events of
    each move. The policy's actions are taken from the state's own lists of legal actions, so
    they go in through the engine's unchecked way (``apply_legal``), as in the engine's
    benchmark loop; the calls made every action are bound once, and chance is asked only when
    it has something to decide (:meth:`RandomTable.supply_chance`'s own first test)."""
    supply, policy = table.supply_chance, table.policy
    act, react = policy.act, policy.react
    legal, late_actions, push = legal_actions, out_of_turn_actions, apply_legal
    play, penalty, handover = Phase.PLAY, EventKind.PENALTY, EventKind.TURN
    penalties = stats.penalties if stats is not None else None
    actions = handovers = 0
    while s.phase is play:
        if actions >= MAX_ACTIONS:
            if stats is not None:
                stats.capped += 1
            return s
        if not s.pile or s.hidden:
            supply(s)
        events = push(s, act(s, legal(s)))
        actions += 1
        late = late_actions(s)
        if late:
            reaction = react(s, late)
            if reaction is not None:
                events += push(s, reaction)
                actions += 1
        if watch is not None:
            watch(events)
        if penalties is not None:
            for e in events:
                kind = e.kind
                if kind is handover:
                    handovers += 1
                elif kind is penalty and e.reason:
                    penalties[e.reason] += 1
    supply(s)
    if stats is not None:
        stats.turns += actions
        stats.handovers += handovers
        stats.games += 1
        if s.winner is not None:
            stats.wins[s.winner] += 1
            finish = s.extra.finish
            stats.don_wins += finish is not None and finish.kind == "don"
    return s


def rounds(table: RandomTable, count: int, stats: Stats | None = None) -> Iterator[State]:
    """``count`` independent rounds, each scored on its own (a new match), dealt the way a table
    deals: the dealer is drawn once, and each round's dealer deals the next per ``next_dealer``
    (a round stopped without a winner makes the table draw for the dealer again)."""
    dealer = table.dealer()
    for _ in range(count):
        s, _ = new_game(table.options, table.names, dealer, table.deal())
        play_round(table, s, stats)
        dealer = dealer_after(s) if s.winner is not None else table.dealer()
        yield s


def play_match(table: RandomTable, max_rounds: int = 200) -> State:
    """A whole match: rounds until the match ends (or ``max_rounds``)."""
    s, _ = new_game(table.options, table.names, table.dealer(), table.deal())
    for _ in range(max_rounds):
        play_round(table, s)
        if s.phase is not Phase.ROUND_OVER:
            break
        s, _ = next_round(s, table.deal(s))
    return s


def selfplay(
    games: int,
    players: int,
    seed: int,
    preset: str = "official",
    policy: str = DEFAULT_POLICY,
) -> dict[str, object]:
    """The JSON summary printed by ``uno-table selfplay``."""
    options = make_options(preset)
    table = RandomTable(options, players, seed, policy)
    stats = Stats()
    for _ in rounds(table, games, stats):
        pass
    out: dict[str, object] = {"rules": preset, "policy": policy, "players": players, "seed": seed}
    out.update(stats.summary(players))
    return out
