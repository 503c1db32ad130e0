"""``apply_legal``, the entry point for actions the engine listed itself, skips a play's checks:
it must do exactly what ``apply_in_place`` does for every listed action, under any options."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from test_properties import SETTINGS, Setup, setups

from table.rules import Phase, apply_in_place, apply_legal, new_game
from table.rules.legal import legal_actions, out_of_turn_actions


@settings(max_examples=60, **SETTINGS)
@given(data=st.data(), setup=setups())
def test_apply_legal_does_what_apply_in_place_does(data: st.DataObject, setup: Setup) -> None:
    s, _ = new_game(setup.options, setup.players, setup.dealer, setup.deal)
    compared = 0
    for _ in range(60):
        listed = legal_actions(s) + out_of_turn_actions(s)
        if s.phase is not Phase.PLAY or not listed:
            break
        for action in listed:
            checked, trusted = s.copy(), s.copy()
            events = apply_in_place(checked, action)
            assert apply_legal(trusted, action) == events, action
            assert trusted == checked, action
            compared += 1
        apply_in_place(s, data.draw(st.sampled_from(listed)))
    assert compared or not legal_actions(s)
