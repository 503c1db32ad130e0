"""The order of a draw pile the engine reshuffled by itself, given by chance once every hand is
known again: later draws are seen cards, not blind ones."""

from __future__ import annotations

from table.cards import edition_cards, parse_card
from table.rules import Deal, Draw, Identify, Play, Reshuffle, State, apply, make_options, new_game

R1, R2, R3, R_D2, G7 = (parse_card(c) for c in ("R1", "R2", "R3", "R+2", "G7"))


def _after_penalty_reshuffle() -> State:
    """Two players hold the whole deck but the turned-up R1 and one known pile card (G7).
    P1 plays R2, P2 plays R3, P1 plays R+2: P2 draws G7 and then one card of the discard pile
    the engine had to reshuffle by itself (R1, R2 and R3), leaving two unknown in the pile."""
    rest = edition_cards("classic-108")
    for card in (R1, G7, R2, R3, R_D2):
        rest.remove(card)
    first = [R2, R_D2, *rest[:50]]
    second = [R3, *rest[50:]]
    deal = Deal(hands=[(first, 0), (second, 0)], pile=[G7], start=[R1])
    s, _ = new_game(make_options("official"), ("A", "B"), 1, deal)
    for action in (Play(0, (R2,)), Play(1, (R3,)), Play(0, (R_D2,))):
        step = apply(s, action)
        assert step.verdict == "accepted", step.reason
        s = step.state
    assert (s.pile, s.pile_unknown, s.hands[1].unknown) == ([], 2, 1)
    return s


def test_the_order_of_an_engine_reshuffle_makes_the_next_draw_seen() -> None:
    s = _after_penalty_reshuffle()
    # While a hand still holds an unknown card, the pile's cards are not known: refused as before.
    early = apply(s, Reshuffle((R3, R1)))
    assert (early.verdict, early.reason) == ("rejected", "pile-not-empty")

    s = apply(s, Identify(1, R2)).state
    wrong = apply(s, Reshuffle((R2, R1)))
    assert (wrong.verdict, wrong.reason) == ("rejected", "reshuffle-mismatch")
    ordered = apply(s, Reshuffle((R3, R1)))
    assert ordered.verdict == "accepted"
    s = ordered.state
    assert (s.pile, s.pile_unknown) == ([R1, R3], 0)  # top last
    s.check_conservation()

    # B lost the turn to the Draw Two; A draws R3, the top named first, as a known card.
    assert s.turn == 0
    drawn = apply(s, Draw(0)).state
    assert drawn.drawn is R3 and drawn.hands[0].unknown == 0
    drawn.check_conservation()
