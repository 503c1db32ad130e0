"""The competition, local and Musician rules as a whole: legal actions are accepted, self-play
finishes, Musician rounds are zero-sum, and the commands work under the new presets."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_cli import run

from table.analysis.selfplay import RandomTable, play_round, selfplay
from table.rules import Phase, Play, apply, legal_actions, make_options, new_game
from table.rules.legal import out_of_turn_actions
from table.rules.variants.musician import loss_points

SETTINGS = {"deadline": None, "derandomize": True, "database": None}

MIXES = [
    {"preset": "house"},
    {"preset": "musician"},
    {"preset": "official", "two_card_play": True, "stacking": "draw-two", "jump_in": True},
    {"preset": "official", "stacking": "any", "seven_o": True, "action_finish": False},
    {"preset": "japanese", "multi_play": "same-number", "wild_keeps_symbol": True,
     "first_player": "dealer", "stacking": "draw-two-into-four", "don": True},
]


@pytest.mark.parametrize("mix", MIXES, ids=lambda m: "-".join(f"{v}" for v in m.values()))
@settings(max_examples=12, **SETTINGS)  # type: ignore[arg-type]
@given(seed=st.integers(0, 2**32 - 1), players=st.integers(2, 6))
def test_every_offered_action_is_accepted(mix: dict[str, object], seed: int, players: int) -> None:
    """Walk whole rounds; at every step each action ``legal_actions`` (and
    ``out_of_turn_actions``) offers must be accepted, and every card stays in one place."""
    preset = str(mix["preset"])
    opts = make_options(preset, **{k: v for k, v in mix.items() if k != "preset"})
    table = RandomTable(opts, players, seed)
    s, _ = new_game(opts, table.names, table.dealer(), table.deal())
    for _ in range(400):
        if s.phase is not Phase.PLAY:
            break
        table.supply_chance(s)
        offered = legal_actions(s) + out_of_turn_actions(s)
        assert offered, "a state in play offers no action"
        for action in offered:
            step = apply(s, action)
            assert step.verdict != "rejected", (action, step.reason)
            step.state.check_conservation()
        chosen = table.choose(s)
        assert chosen is not None
        s = apply(s, chosen).state
        late = table.out_of_turn(s)
        if late is not None:
            s = apply(s, late).state


@settings(max_examples=25, **SETTINGS)  # type: ignore[arg-type]
@given(seed=st.integers(0, 2**32 - 1), players=st.integers(2, 10))
def test_musician_rounds_are_zero_sum(seed: int, players: int) -> None:
    """What the winners gain the losers pay (パンパカパーン and Double Don included)."""
    opts = make_options("musician")
    table = RandomTable(opts, players, seed)
    s, _ = new_game(opts, table.names, table.dealer(), table.deal())
    play_round(table, s)
    if s.phase is Phase.PLAY:  # capped
        return
    assert len(s.results) == 1
    points = s.results[0].points
    assert sum(points) == 0
    assert points[s.results[0].winner] != 0 or all(p == 0 for p in points)
    s.check_conservation()


@pytest.mark.parametrize("preset", ["house", "musician"])
def test_selfplay_finishes_rounds(preset: str) -> None:
    summary = selfplay(60, 4, 3, preset)
    assert summary["games"] == 60 and summary["capped"] == 0
    wins = summary["wins_per_seat"]
    assert isinstance(wins, list) and sum(wins) == 60
    if preset == "musician":
        don_wins = summary["don_wins"]
        assert isinstance(don_wins, int) and 0 < don_wins < 60


def test_loss_points_follow_the_seed() -> None:
    """[002]: 34 pays 3, 67 pays 7; half rounds up."""
    assert [loss_points(v) for v in (34, 67, 45, 44, 4, 5, 0)] == [3, 7, 5, 4, 0, 1, 0]


def test_musician_jump_in_is_not_offered_by_default() -> None:
    opts = make_options("musician")
    table = RandomTable(opts, 3, 1)
    s, _ = new_game(opts, table.names, table.dealer(), table.deal())
    assert not any(isinstance(a, Play) and a.player != s.turn for a in out_of_turn_actions(s))


def test_cli_selfplay_under_musician() -> None:
    out = run("selfplay", "--games", "20", "--players", "4", "--seed", "2", "--rules", "musician")
    assert out.returncode == 0, out.stderr
    summary = json.loads(out.stdout)
    assert summary["rules"] == "musician" and summary["games"] == 20


def test_cli_replay_of_a_musician_game_in_japanese() -> None:
    out = run("replay", "tests/scenarios/musician_double_don.scn", "--lang", "ja")
    assert out.returncode == 0, out.stderr
    assert "ダブルドン!次の親はMioさん。" in out.stdout
    data = json.loads(run("replay", "tests/scenarios/musician_double_don.scn", "--json").stdout)
    assert data["rounds"][0]["points"] == {"Aki": -10, "Ken": -2, "Mio": 7, "Rei": 5}


def test_cli_unknown_preset_is_one_line_exit_2() -> None:
    out = run("selfplay", "--games", "1", "--players", "2", "--seed", "1", "--rules", "jazz")
    assert out.returncode == 2
    assert "unknown rules preset 'jazz': use one of official, japanese, house, musician" in (
        out.stderr
    )
    assert "Traceback" not in out.stderr


def test_musician_example_replays_to_a_don() -> None:
    out = run("replay", "examples/musician.scn")
    assert out.returncode == 0, out.stderr
    assert "Don! Mio wins the round on Aki's card!" in out.stdout
    assert "Scores: Aki -8, Ken -4, Mio 13, Rei -1" in out.stdout


def test_demo_under_musician_rules_has_bots_call_don() -> None:
    """``uno-table demo --rules musician``: the bots call a winning Don, the table top and the
    referee stay in step (the demo checks every card and the scores after each round)."""
    from sim.tabletop.demo import DemoConfig, run_demo

    config = DemoConfig(fast=True, voice="captions", seed=3, preset="musician", players=4,
                        rounds=8)
    result = run_demo(config)
    assert len(result.winners) == 8
    assert any("Don!" in line and "wins the round on" in line for line in result.transcript)
    assert any("Chin!" in line for line in result.transcript)
