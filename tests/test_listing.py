"""The rules are written once: the actions listed as legal are exactly those the checked entry
point accepts, in every state of random rounds under random option mixes.

For every state of a random walk, every action of a wide universe is tried with ``apply`` (the
checked entry point): every play of a known card by every seat (a wild with each colour), every
group of the known cards of one rank (each card leading, the rest in the order of the hand),
and every draw, pass, colour, UNO call, catch, challenge, swap and Don of every seat. What is
accepted must be what ``legal_actions`` and ``out_of_turn_actions`` list, and the other way
round. Some acceptances are not offered on purpose and are left out: a mistake that is
accepted to be penalised (a false catch, a false Don); a wild played without naming its colour
(the listing names one); part of a group of one rank (the listing offers the whole group, each
card leading; :func:`test_part_of_a_group_is_accepted` checks the parts); and a UNO call by
the player on turn once the turn has begun with a draw or under a pending draw (offered at the
start of a turn only: the self-play traces are pinned so).

Plays of cards the referee cannot see (unknown cards, and the card just drawn blind) are
checked when played and never listed, and neither is a Don on a hidden hand (the show judges
it), so the universe holds known cards only; chance (turn-ups, identifications, reshuffles,
shows) is no one's choice and is not listed either.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from test_properties import SETTINGS, Setup, setups, some_action

from table.cards import COLORS, Card, parse_cards
from table.rules import (
    Action,
    CallUno,
    Catch,
    Challenge,
    ChooseColor,
    Deal,
    Don,
    Draw,
    Pass,
    Phase,
    Play,
    State,
    Swap,
    apply,
    make_options,
    new_game,
    next_round,
)
from table.rules.legal import legal_actions, out_of_turn_actions

MISTAKES = frozenset({"false-catch", "false-don"})


def groups(known: list[Card]) -> list[tuple[Card, ...]]:
    """Every group of all the known cards of one rank (two or more), each card leading in
    turn, the others in the order of the hand."""
    by_rank: dict[str, list[Card]] = {}
    for card in known:
        by_rank.setdefault(card.rank, []).append(card)
    out: list[tuple[Card, ...]] = []
    for cards in by_rank.values():
        for lead in range(len(cards)) if len(cards) > 1 else ():
            out.append((cards[lead], *cards[:lead], *cards[lead + 1 :]))
    return list(dict.fromkeys(out))


def unoffered(s: State, action: Action) -> bool:
    """A UNO call on a turn begun with a draw, or under a pending draw: accepted, not offered."""
    return (
        isinstance(action, CallUno)
        and action.player == s.turn
        and (s.has_drawn or s.pending > 0)
        and s.uno_window != action.player
    )


def universe(s: State) -> list[Action]:
    out: list[Action] = []
    seats = range(s.n)
    for p in seats:
        # After a blind draw the player on turn may play only the card drawn, which is unknown.
        known = [] if p == s.turn and s.has_drawn and s.drawn is None else s.hands[p].known
        for card in dict.fromkeys(known):
            colors = COLORS if card.is_wild else (None,)
            out += [Play(p, (card,), c) for c in colors]
        out += [Play(p, cards) for cards in groups(known)]
        out += [Draw(p), Pass(p), CallUno(p), Challenge(p)]
        if not s.hands[p].unknown:  # a Don on a hidden hand is a claim the show then judges
            out.append(Don(p))
        out += [ChooseColor(p, c) for c in COLORS]
        out += [Catch(p, t) for t in seats if t != p]
        out += [Swap(p, t) for t in seats if t != p]
    return out


def accepted(s: State, action: Action) -> bool:
    step = apply(s, action)
    return (
        step.verdict != "rejected"
        and not (step.verdict == "penalty" and step.reason in MISTAKES)
        and not unoffered(s, action)
    )


def describe(s: State) -> str:
    hands = "; ".join(
        f"{i}: {' '.join(c.code for c in h.known)} +{h.unknown}" for i, h in enumerate(s.hands)
    )
    return (
        f"{s.rules} turn {s.turn} top {s.top} colour {s.color} rank {s.live_rank} pending "
        f"{s.pending} drawn {s.has_drawn} {s.drawn} {s.drawn_unknown} awaiting "
        f"{s.awaiting_color} {s.awaiting_show} {s.extra.awaiting_swap} window {s.uno_window} "
        f"called {s.called} hands {hands}"
    )


def check_listing(s: State) -> int:
    listed = legal_actions(s) + out_of_turn_actions(s)
    assert len(listed) == len(set(listed)), f"an action is listed twice: {listed}"
    wanted = {a for a in universe(s) if accepted(s, a)}
    extra = [a for a in listed if a not in wanted]
    assert not extra, f"listed but refused or not in the universe: {extra} in {describe(s)}"
    missing = wanted - set(listed)
    assert not missing, f"accepted but not listed: {sorted(map(repr, missing))} in {describe(s)}"
    return len(wanted)


def walk(data: st.DataObject, setup: Setup, steps: int) -> None:
    s, _ = new_game(setup.options, setup.players, setup.dealer, setup.deal)
    for _ in range(steps):
        if s.phase is Phase.ROUND_OVER and len(s.results) >= s.round:
            s, _ = next_round(s)
            continue
        if s.phase is Phase.MATCH_OVER:
            break
        check_listing(s)
        step = apply(s, some_action(data.draw, s))
        s = step.state


@settings(max_examples=80, **SETTINGS)
@given(data=st.data())
def test_listed_is_accepted_under_any_option_mix(data: st.DataObject) -> None:
    walk(data, data.draw(setups()), data.draw(st.integers(1, 120)))


@settings(max_examples=40, **SETTINGS)
@given(data=st.data(), preset=st.sampled_from(["official", "house", "musician"]))
def test_listed_is_accepted_under_every_preset(data: st.DataObject, preset: str) -> None:
    walk(data, data.draw(setups(make_options(preset))), data.draw(st.integers(1, 120)))


def test_part_of_a_group_is_accepted() -> None:
    """Under multi-play, two of three fives go down as well as all three, and each may lead;
    the listing offers the three."""
    hands = [(parse_cards(["r5", "b5", "g5", "y9"]), 0), (parse_cards(["r1", "r2"]), 0)]
    deal = Deal(hands=hands, pile=parse_cards(["b1", "b2"]), start=parse_cards(["r7"]))
    s, _ = new_game(make_options("official", multi_play="same-number"), ("A", "B"), 1, deal)
    assert s.turn == 0
    assert check_listing(s) > 0
    r5, b5, g5 = parse_cards(["r5", "b5", "g5"])
    listed = legal_actions(s)
    assert Play(0, (r5, b5, g5)) in listed
    assert Play(0, (b5, r5, g5)) not in listed  # b5 does not match a red 7: it cannot lead
    assert apply(s, Play(0, (r5, g5))).verdict == "accepted"
    assert apply(s, Play(0, (r5, b5))).verdict == "accepted"
    assert apply(s, Play(0, (b5, r5))).verdict == "rejected"


def test_a_call_of_uno_after_a_draw_is_accepted() -> None:
    """Drawn to two cards, a player who may play the card drawn may call UNO first (the call
    is accepted; the listing offers it at the start of a turn only)."""
    hands = [(parse_cards(["y9"]), 0), (parse_cards(["r1", "r2"]), 0)]
    deal = Deal(hands=hands, pile=parse_cards(["r3", "b2"]), start=parse_cards(["r7"]))
    s, _ = new_game(make_options("official"), ("A", "B"), 1, deal)
    s = apply(s, Draw(0)).state
    assert s.drawn == parse_cards(["r3"])[0]
    assert apply(s, CallUno(0)).verdict == "accepted"
    assert CallUno(0) not in legal_actions(s)
    check_listing(s)
