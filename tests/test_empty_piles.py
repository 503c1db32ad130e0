"""Every card in the hands and nothing left to draw: a draw passes the turn (docs/rules.md, "Draw
pile empty": a draw takes what there is; a referee never invents cards)."""

from __future__ import annotations

import pytest

from table.cards import edition_cards
from table.errors import IllegalPlay
from table.rules import Deal, Draw, EventKind, Phase, apply_in_place, make_options, new_game
from table.rules.state import State


def _all_in_hands(preset: str) -> State:
    """Two players holding every card but the one turned up; the draw pile is empty."""
    options = make_options(preset)
    deck = edition_cards(options.deck)
    start = next(c for c in deck if c.number is not None)
    deck.remove(start)
    half = len(deck) // 2
    deal = Deal(hands=[(deck[:half], 0), (deck[half:], 0)], pile=[], start=[start])
    s, _ = new_game(options, ("Ann", "Bo"), 1, deal)
    assert s.phase is Phase.PLAY and not s.pile and not s.pile_unknown and len(s.discard) == 1
    return s


@pytest.mark.parametrize("named", [False, True], ids=["draw-button", "card-on-the-shoe"])
@pytest.mark.parametrize("preset", ["official", "house", "musician"])
def test_a_draw_from_two_empty_piles_passes_the_turn(preset: str, named: bool) -> None:
    s = _all_in_hands(preset)
    p = s.current_player
    assert p is not None
    held = [len(h) for h in s.hands]
    # A card a simulated or mistaken shoe reads: one already in a hand or on the pile.
    card = s.discard[-1] if named else None
    try:
        events = apply_in_place(s, Draw(p, card))
    except IllegalPlay as refused:
        # Only a rule that forbids drawing while holding a playable card may refuse it.
        assert refused.reason == "has-playable-card"
        return
    kinds = [e.kind for e in events]
    assert EventKind.PILES_EXHAUSTED in kinds
    assert s.current_player != p  # the turn passed: nobody waits on a Draw that cannot come
    assert [len(h) for h in s.hands] == held  # no card was invented
    s.check_conservation()


def test_the_referee_passes_the_turn_of_a_seat_that_presses_draw_with_nothing_left() -> None:
    """A seat that keeps pressing Draw when every card is in a hand is never stuck: each press
    passes the turn, as the rules say, and nobody's hand changes."""
    from table.inputs import Press, ReaderRole
    from table.referee.referee import Referee
    from table.referee.registry import virtual_deck

    options = make_options("official")
    deck = edition_cards(options.deck)
    start = next(c for c in deck if c.number is not None)
    deck.remove(start)
    half = len(deck) // 2
    readers = [ReaderRole("pad", "play"), ReaderRole("shoe", "draw")]
    ref, _ = Referee.create(options, ["Ann", "Bo"], virtual_deck(options.deck), readers, 1,
                            Deal(hands=[(deck[:half], 0), (deck[half:], 0)], pile=[],
                                 start=[start]))
    held = [len(h) for h in ref.state.hands]
    for _ in range(4):
        seat = ref.state.current_player
        assert seat is not None
        out = ref.handle(Press(seat, "draw"))
        assert out.verdict == "accepted", out.reason
        assert ref.state.current_player != seat
    assert [len(h) for h in ref.state.hands] == held
