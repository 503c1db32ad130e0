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

from hypothesis import Phase as HPhase
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
    """Every group of all the known cards of one rank (two or more), each distinct card
    leading in turn, the others in the order of the hand (as the listing offers a group: the
    same cards in another order are the same play put down differently)."""
    by_rank: dict[str, list[Card]] = {}
    for card in known:
        by_rank.setdefault(card.rank, []).append(card)
    out: list[tuple[Card, ...]] = []
    for cards in by_rank.values():
        for lead in dict.fromkeys(cards) if len(cards) > 1 else ():
            rest = cards.copy()
            rest.remove(lead)
            out.append((lead, *rest))
    return out


def pairs(known: list[Card]) -> list[tuple[Card, ...]]:
    """Every pair of identical cards (``two_card_play``) not already a whole group."""
    return [(c, c) for c in dict.fromkeys(known)
            if known.count(c) == 2 and sum(k.rank == c.rank for k in known) > 2]


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
        together = groups(known) + (pairs(known) if s.options.two_card_play else [])
        for cards in together:  # a group of wilds with each colour, as a single wild
            out += [Play(p, cards, c) for c in (COLORS if cards[0].is_wild else (None,))]
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
    """A random walk, the listing checked in every state; a failure names the options, the
    last actions taken and (from :func:`check_listing`) the action and the state."""
    s, _ = new_game(setup.options, setup.players, setup.dealer, setup.deal)
    trail: list[Action] = []
    for _ in range(steps):
        if s.phase is Phase.ROUND_OVER and len(s.results) >= s.round:
            s, _ = next_round(s)
            continue
        if s.phase is Phase.MATCH_OVER:
            break
        try:
            check_listing(s)
        except AssertionError as exc:
            changed = {k: v for k, v in s.options.as_dict().items()
                       if v != getattr(OFFICIAL_OPTIONS, k)}
            raise AssertionError(
                f"{exc}\noptions {changed}\nafter {len(trail)} actions, the last {trail[-6:]}"
            ) from None
        action = some_action(data.draw, s)
        trail.append(action)
        s = apply(s, action).state


# Shrinking is left out: a failure here is reported at once, with the action and the state
# (shrinking a walk through every option took minutes and printed nothing usable).
LISTING = {**SETTINGS, "phases": (HPhase.explicit, HPhase.reuse, HPhase.generate)}
OFFICIAL_OPTIONS = make_options("official")


@settings(max_examples=80, **LISTING)
@given(data=st.data())
def test_listed_is_accepted_under_any_option_mix(data: st.DataObject) -> None:
    walk(data, data.draw(setups()), data.draw(st.integers(1, 120)))


@settings(max_examples=40, **LISTING)
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


def test_a_pair_is_listed_once_under_multi_play_and_two_card_play() -> None:
    """Both rules offer two identical fives; the listing offers the pair once."""
    hands = [(parse_cards(["r5", "r5", "y9"]), 0), (parse_cards(["b1", "b2"]), 0)]
    deal = Deal(hands=hands, pile=parse_cards(["b3"]), start=parse_cards(["r7"]))
    options = make_options("official", multi_play="same-number", two_card_play=True)
    s, _ = new_game(options, ("A", "B"), 1, deal)
    r5 = parse_cards(["r5"])[0]
    assert legal_actions(s).count(Play(0, (r5, r5))) == 1
    check_listing(s)


def test_a_jump_in_that_would_go_out_on_an_action_card_is_not_listed() -> None:
    """Under action_finish = false a jump-in down to nothing on a Skip is refused, and so is
    not listed (it was, and a bot taking it was refused)."""
    hands = [
        (parse_cards(["rs", "b2"]), 0),
        (parse_cards(["rs"]), 0),
        (parse_cards(["y3", "y4"]), 0),
        (parse_cards(["b4", "b5"]), 0),
    ]
    deal = Deal(hands=hands, pile=parse_cards(["b6"]), start=parse_cards(["r1"]))
    options = make_options("official", jump_in=True, action_finish=False)
    s, _ = new_game(options, ("A", "B", "C", "D"), 3, deal)
    rs = parse_cards(["rs"])[0]
    s = apply(s, Play(0, (rs,))).state  # B is skipped: C is on turn, a red Skip on top
    assert s.turn == 2
    assert apply(s, Play(1, (rs,))).reason == "no-action-finish"
    assert Play(1, (rs,)) not in out_of_turn_actions(s)
    check_listing(s)


def test_the_call_before_a_jump_in_is_listed_out_of_turn() -> None:
    """[003] 「「UNO」と言う必要があります 最後から2番目のカードをプレイする前に」: a player
    holding two cards, one the twin of the top card, may call UNO out of turn and jump in;
    a catch then finds them safe."""
    hands = [(parse_cards(["g7", "b1", "b2"]), 0), (parse_cards(["r1", "r2", "r3"]), 0),
             (parse_cards(["g7", "y3"]), 0)]
    deal = Deal(hands=hands, pile=parse_cards(["b6"]), start=parse_cards(["g3"]))
    s, _ = new_game(make_options("official", jump_in=True), ("A", "B", "C"), 2, deal)
    g7 = parse_cards(["g7"])[0]
    s = apply(s, Play(0, (g7,))).state
    assert s.turn == 1
    assert CallUno(2) in out_of_turn_actions(s)
    check_listing(s)
    s = apply(s, CallUno(2)).state
    s = apply(s, Play(2, (g7,))).state
    assert apply(s, Catch(1, 2)).reason == "false-catch"
