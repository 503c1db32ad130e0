"""Property tests of the rules engine: robustness to any action, card conservation, scoring,
exact replay and hidden information."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from table.analysis.selfplay import RandomTable, play_round
from table.cards import COLORS, EDITIONS, Card, edition_cards, parse_card, sort_key
from table.rules import (
    PRESETS,
    SPECS,
    Action,
    CallUno,
    Catch,
    Challenge,
    ChooseColor,
    Deal,
    Don,
    Draw,
    Event,
    Identify,
    Options,
    Pass,
    Phase,
    Play,
    Show,
    State,
    Swap,
    TurnUp,
    apply,
    legal_actions,
    make_options,
    new_game,
    next_round,
)
from table.rules.legal import out_of_turn_actions

SETTINGS: dict[str, Any] = {
    "deadline": None,
    "derandomize": True,
    "database": None,
    "suppress_health_check": [HealthCheck.too_slow, HealthCheck.data_too_large],
}

ALL_CARDS: list[Card] = sorted({c for counts in EDITIONS.values() for c in counts}, key=sort_key)
PUBLIC_CARD_EVENTS = frozenset({"played", "turned-up", "buried"})
SMALL_INT_SPAN = 12


# ---------------------------------------------------------------------------------------------
# Strategies


@st.composite
def overrides(draw: st.DrawFn) -> dict[str, object]:
    """A random mix of option overrides, each within what SPECS allows."""
    out: dict[str, object] = {}
    for name, spec in SPECS.items():
        if not draw(st.booleans()):
            continue
        if isinstance(spec.default, bool):
            out[name] = draw(st.booleans())
        elif isinstance(spec.default, int):
            high = min(spec.high, spec.low + SMALL_INT_SPAN)
            out[name] = draw(st.integers(spec.low, high))
        else:
            out[name] = draw(st.sampled_from(spec.choices))
    return out


@st.composite
def any_options(draw: st.DrawFn) -> Options:
    preset = draw(st.sampled_from(sorted(PRESETS)))
    if draw(st.booleans()):
        return make_options(preset)
    return make_options(preset, **draw(overrides()))


def fit_hand_size(options: Options, players: int) -> Options:
    """Keep the deal within the deck (with room for a pile)."""
    deck = len(edition_cards(options.deck))
    size = max(1, min(options.hand_size, (deck - 20) // players))
    return _with_hand_size(options, size)


def _with_hand_size(options: Options, size: int) -> Options:
    return make_options(options.preset, **{**_values(options), "hand_size": size})


@dataclass
class Setup:
    options: Options
    players: tuple[str, ...]
    dealer: int
    deal: Deal


@st.composite
def setups(draw: st.DrawFn, options: Options | None = None) -> Setup:
    """A first deal with a mix of known and unknown cards, sometimes without a turned-up
    card (the engine then waits for a TurnUp)."""
    opts = options if options is not None else draw(any_options())
    n = draw(st.integers(2, 10))
    opts = fit_hand_size(opts, n)
    rng = random.Random(draw(st.integers(0, 2**32 - 1)))
    deck = edition_cards(opts.deck)
    rng.shuffle(deck)
    hands: list[tuple[list[Card], int]] = []
    for _ in range(n):
        known = draw(st.integers(0, opts.hand_size))
        hands.append((deck[:known], opts.hand_size - known))
        del deck[:known]
    pile_known = draw(st.integers(0, 6))
    start: list[Card] = []
    if draw(st.booleans()):
        start = [deck.pop()]
    pile = deck[:pile_known]
    return Setup(
        opts,
        tuple(f"P{i + 1}" for i in range(n)),
        draw(st.integers(0, n - 1)),
        Deal(hands=hands, pile=pile, start=start),
    )


def arbitrary_action(draw: st.DrawFn, s: State) -> Action:
    seat = st.integers(-1, s.n)
    card = st.sampled_from(ALL_CARDS)
    color = st.sampled_from(COLORS)
    kind = draw(st.integers(0, 13))
    if kind == 12:
        return Don(draw(seat), tuple(draw(st.lists(card, max_size=3))))
    if kind == 13:
        return Swap(draw(seat), draw(seat))
    if kind == 0:
        cards = tuple(draw(st.lists(card, min_size=0, max_size=3)))
        return Play(draw(seat), cards, draw(st.none() | color))
    if kind == 1:
        return Draw(draw(seat), draw(st.none() | card))
    if kind == 2:
        return Pass(draw(seat))
    if kind == 3:
        return ChooseColor(draw(seat), draw(color))
    if kind == 4:
        return CallUno(draw(seat))
    if kind == 5:
        return Catch(draw(seat), draw(seat))
    if kind == 6:
        return Challenge(draw(seat))
    if kind == 7:
        return Show(draw(seat), tuple(draw(st.lists(card, max_size=8))))
    if kind == 8:
        # A plausible show: the known cards plus faces from the unknown pool.
        p = draw(st.integers(0, s.n - 1))
        hand = s.hands[p]
        pool = sorted(s.unknown_pool().elements(), key=sort_key)
        extra = draw(st.permutations(pool))[: hand.unknown] if pool else []
        return Show(p, tuple(hand.known) + tuple(extra))
    if kind == 9:
        return Identify(draw(seat), draw(card))
    if kind == 10:
        # A plausible identify: a face from the unknown pool for a hand with unknown cards.
        hidden = [i for i, h in enumerate(s.hands) if h.unknown]
        pool = sorted(s.unknown_pool(), key=sort_key)
        if hidden and pool:
            return Identify(draw(st.sampled_from(hidden)), draw(st.sampled_from(pool)))
        return Identify(draw(seat), draw(card))
    if s.pile and draw(st.booleans()):
        return TurnUp(s.pile[-1])  # the known top of the draw pile
    return TurnUp(draw(card))


def some_action(draw: st.DrawFn, s: State) -> Action:
    """A legal action, an out-of-turn one, or an arbitrary (usually illegal) one."""
    legal = legal_actions(s)
    late = out_of_turn_actions(s)
    source = draw(st.integers(0, 9))
    if source < 6 and legal:
        return draw(st.sampled_from(legal))
    if source < 8 and late:
        return draw(st.sampled_from(late))
    return arbitrary_action(draw, s)


def check_events_public(events: list[Event]) -> None:
    for e in events:
        assert e.card is None or e.kind in PUBLIC_CARD_EVENTS, f"{e} shows a card"


# ---------------------------------------------------------------------------------------------
# 1. Any action: no exception, rejected steps change nothing, conservation holds


def random_walk(data: st.DataObject, setup: Setup, steps: int) -> None:
    s, events = new_game(setup.options, setup.players, setup.dealer, setup.deal)
    s.check_conservation()
    check_events_public(events)
    for _ in range(steps):
        if s.phase is Phase.ROUND_OVER and len(s.results) >= s.round and data.draw(st.booleans()):
            s, events = next_round(s)
            check_events_public(events)
            s.check_conservation()
            continue
        if s.phase is Phase.MATCH_OVER and data.draw(st.booleans()):
            break
        action = some_action(data.draw, s)
        before = s.copy()
        step = apply(s, action)
        assert s == before, f"apply changed its input on {action}"
        if step.verdict == "rejected":
            assert step.state is s
            assert step.reason
        else:
            assert step.verdict in ("accepted", "penalty")
            step.state.check_conservation()
            check_events_public(step.events)
        s = step.state


@pytest.mark.parametrize("preset", sorted(PRESETS))
@settings(max_examples=60, **SETTINGS)
@given(data=st.data())
def test_any_action_preset(preset: str, data: st.DataObject) -> None:
    setup = data.draw(setups(make_options(preset)))
    random_walk(data, setup, data.draw(st.integers(1, 250)))


@settings(max_examples=120, **SETTINGS)
@given(data=st.data())
def test_any_action_option_mix(data: st.DataObject) -> None:
    setup = data.draw(setups())
    random_walk(data, setup, data.draw(st.integers(1, 250)))


# ---------------------------------------------------------------------------------------------
# 2. Whole rounds: round points follow the scoring system


def expected_hand(s: State, seat: int) -> int:
    points = sum(c.points for c in s.hands[seat].known)
    return points * (s.uno_calls[seat] + 1) if s.options.doubling else points


def expected_collected(s: State, losers: list[int]) -> int:
    """What the winner collects: the multiplied hands, or under ``doubling_winner = "face"``
    the hands at face value."""
    if s.options.doubling and s.options.doubling_winner == "face":
        return sum(sum(c.points for c in s.hands[i].known) for i in losers)
    return sum(expected_hand(s, i) for i in losers)


@pytest.mark.parametrize("scoring", ["international", "japanese", "lowest"])
@settings(max_examples=40, **SETTINGS)
@given(
    seed=st.integers(0, 2**32 - 1),
    players=st.integers(2, 10),
    extra=overrides(),
)
def test_round_points(scoring: str, seed: int, players: int, extra: dict[str, object]) -> None:
    extra = {k: v for k, v in extra.items() if k not in ("eliminate", "target", "rounds")}
    opts = fit_hand_size(make_options("official", **{**extra, "scoring": scoring}), players)
    table = RandomTable(opts, players, seed)
    s, _ = new_game(opts, table.names, table.dealer(), table.deal())
    play_round(table, s)
    if s.phase is Phase.PLAY:  # capped
        return
    assert s.winner is not None
    assert all(h.fully_known for h in s.hands)
    assert len(s.results) == 1, "the round was won but not scored"
    points = s.results[0].points
    w = s.winner
    losers = [i for i in range(s.n) if i != w]
    if scoring == "international":
        assert points[w] == expected_collected(s, losers)
        assert all(points[i] == 0 for i in losers)
    elif scoring == "japanese":
        assert points[w] == expected_collected(s, losers)
        assert all(points[i] == -expected_hand(s, i) for i in losers)
    else:
        assert points[w] == 0
        assert all(points[i] == expected_hand(s, i) for i in losers)
    assert s.scores == list(points)


# ---------------------------------------------------------------------------------------------
# 3. Replay exactness


def record_match(
    data: st.DataObject, table: RandomTable, max_actions: int
) -> tuple[int, Deal, list[object], State, list[Event]]:
    dealer = table.dealer()
    deal = table.deal()
    s, events = new_game(table.options, table.names, dealer, deal)
    log: list[object] = []
    for _ in range(max_actions):
        if s.phase is Phase.MATCH_OVER:
            break
        if s.phase is Phase.ROUND_OVER:
            if len(s.results) < s.round:
                break  # unscored (a hand still hidden): nothing more to do
            nxt = table.deal(s)
            log.append(nxt)
            s, more = next_round(s, nxt)
            events += more
            continue
        for seat, hand in enumerate(s.hands):
            if hand.unknown:
                pool = sorted(s.unknown_pool().elements(), key=sort_key)
                for card in table.rng.sample(pool, hand.unknown):
                    step = apply(s, Identify(seat, card))
                    assert step.verdict != "rejected", step
                    log.append(Identify(seat, card))
                    events += step.events
                    s = step.state
        if data.draw(st.integers(0, 9)) == 0:
            action = some_action(data.draw, s)
        else:
            action = table.choose(s) or some_action(data.draw, s)
        step = apply(s, action)
        events += step.events
        if step.verdict != "rejected":
            log.append(action)
            s = step.state
        late = table.out_of_turn(s)
        if late is not None:
            step = apply(s, late)
            events += step.events
            if step.verdict != "rejected":
                log.append(late)
                s = step.state
    return dealer, deal, log, s, events


def public(s: State) -> tuple[object, ...]:
    return (
        s.phase,
        s.round,
        s.turn,
        s.direction,
        list(s.discard),
        s.color,
        [(list(h.known), h.unknown) for h in s.hands],
        list(s.scores),
        list(s.results),
        s.winner,
    )


@settings(max_examples=40, **SETTINGS)
@given(data=st.data(), seed=st.integers(0, 2**32 - 1), players=st.integers(2, 10))
def test_replay_is_exact(data: st.DataObject, seed: int, players: int) -> None:
    opts = fit_hand_size(data.draw(any_options()), players)
    opts = make_options(opts.preset, **{**_values(opts), "target": 0, "rounds": 3})
    table = RandomTable(opts, players, seed)
    dealer, deal, log, final, _ = record_match(data, table, data.draw(st.integers(1, 600)))
    s, _ = new_game(opts, table.names, dealer, deal)
    for entry in log:
        if isinstance(entry, Deal):
            s, _ = next_round(s, entry)
            continue
        step = apply(s, entry)  # type: ignore[arg-type]
        assert step.verdict != "rejected", (entry, step.reason)
        s = step.state
    assert public(s) == public(final)
    assert s == final


def _values(options: Options) -> dict[str, object]:
    values = options.as_dict()
    del values["preset"]
    return values


# ---------------------------------------------------------------------------------------------
# 4. Hidden information: events only show public cards


@settings(max_examples=40, **SETTINGS)
@given(data=st.data(), seed=st.integers(0, 2**32 - 1), players=st.integers(2, 10))
def test_events_show_only_public_cards(data: st.DataObject, seed: int, players: int) -> None:
    opts = fit_hand_size(data.draw(any_options()), players)
    table = RandomTable(opts, players, seed)
    *_, events = record_match(data, table, data.draw(st.integers(1, 400)))
    check_events_public(events)


# ---------------------------------------------------------------------------------------------
# Regressions found by the properties above


def test_named_draw_cannot_take_a_buried_discard() -> None:
    """Both B2s are known (one in hand, one under the top of the discard pile) and the draw
    pile still has unknown cards: a draw naming B2 must be refused."""
    b2, b5, b7, g4 = (parse_card(code) for code in ("B2", "B5", "B7", "G4"))
    deal = Deal(hands=[([b2, b2, g4], 4), ([b7], 6)], start=[b5])
    s, _ = new_game(make_options("official"), ("A", "B"), 1, deal)
    for action in (Play(0, (b2,)), Play(1, (b7,))):
        s = apply(s, action).state
    step = apply(s, Draw(0, b2))
    assert (step.verdict, step.reason) == ("rejected", "card-not-available")
    s.check_conservation()


def test_round_is_scored_when_the_last_hidden_card_is_identified() -> None:
    """Seed 0, 10 players: the winning Draw Two makes the next player draw two reshuffled
    (unknown) cards; identifying them must score the round."""
    opts = make_options("official")
    table = RandomTable(opts, 10, 0)
    s, _ = new_game(opts, table.names, table.dealer(), table.deal())
    play_round(table, s)
    assert s.phase is Phase.ROUND_OVER
    assert len(s.results) == 1
