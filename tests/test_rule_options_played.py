"""The rules of issue-sized seed sentences played by the simulated table: ``uno-table demo``
with ``--set OPTION=VALUE`` (the command, and its entry function), each rule heard in the
transcript as a family would hear it, the match kept in step with the referee (the demo checks
the cards of every round and replays the scores)."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from sim.tabletop.demo import DemoConfig, run_demo


def transcript(preset: str, overrides: dict[str, str], seed: int, bots: str = "random",
               hands: str = "full") -> list[str]:
    result = run_demo(DemoConfig(fast=True, voice="captions", seed=seed, players=4, rounds=3,
                                 preset=preset, overrides=overrides, bots=[bots], hands=hands))
    assert result.winners  # rounds were won and scored: the table and the referee agreed
    return result.transcript


def test_the_demo_command_plays_a_missed_uno_that_costs_a_turn() -> None:
    """``uno_penalty_kind=lose-turn`` [000]: the caught player draws nothing and is skipped
    when the turn next comes to them."""
    out = subprocess.run(
        [sys.executable, "-m", "table.commands.cli", "demo", "--fast", "--seed", "1",
         "--players", "4", "--rounds", "3", "--bots", "random", "--hands", "counts",
         "--set", "uno_penalty_kind=lose-turn"],
        capture_output=True, text=True, timeout=300,
    )
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    caught = [i for i, line in enumerate(lines) if "loses the next turn" in line]
    assert caught, "no missed UNO in the match"
    name = re.search(r"(\w+) forgot to call UNO", lines[caught[0]])
    assert name is not None
    after = lines[caught[0]:]
    assert any(f"{name[1]} is skipped." in line for line in after)
    assert not any(f"{name[1]} forgot to call UNO and draws" in line for line in lines)


@pytest.mark.parametrize(("overrides", "heard"), [
    ({"guilty_penalty": "2"}, "Challenge upheld: guilty! Rin draws 6."),
    ({"challenge_success": "discard"}, "discards the card and draws 4."),
])
def test_a_guilty_wild_draw_four_as_the_seeds_write_it(overrides: dict[str, str],
                                                       heard: str) -> None:
    """[001] six cards for a guilty Wild Draw Four; [004] the card thrown away, not taken back."""
    assert any(heard in line for line in transcript("official", overrides, seed=2))


def test_two_wild_draw_fours_together_make_the_next_player_draw_8() -> None:
    """[000] local rule 4: both cards go on the play pad, then the colour is named once."""
    lines = transcript("official", {"multi_play": "same-number"}, seed=2)
    i = next(i for i, line in enumerate(lines) if line.endswith(", draw 8."))
    before = lines[i - 6:i]  # plays W+4, asked for a colour, plays W+4 again, names it
    assert sum(line.endswith("plays W+4") for line in before) == 2
    assert sum(" names " in line for line in before) == 1


@pytest.mark.parametrize("seed", [2, 6, 7])
def test_a_card_joined_to_a_play_leaves_the_first_on_the_pile(seed: int) -> None:
    """Cards put down together under multi_play arrive one tap at a time: when the second
    joins the play, the first stays on the discard pile. The referee once put the first back
    in the hand it came from; drawn again after a reshuffle, it was ignored as "already in
    hand" and the simulated table stalled (these three deals)."""
    assert transcript("official", {"multi_play": "same-number"}, seed=seed)


def test_a_first_draw_two_is_passed_on_under_stacking() -> None:
    """[000]: a Draw Two turned up is the dealer's play, so the player after may stack on it."""
    lines = transcript("official", {"stacking": "draw-two"}, seed=23, bots="heuristic")
    i = next(i for i, line in enumerate(lines) if re.search(r"turns up [RYGB]\+2$", line))
    assert "draw 2 or stack." in lines[i + 2]
    assert re.search(r"plays [RYGB]\+2$", lines[i + 4])
    assert "draw 4 or stack." in lines[i + 5]


def test_a_reverse_back_costs_20_under_musician_back_points() -> None:
    """[002] リバース返し 「(人によっては、20点増しでやってます。)」."""
    lines = transcript("musician", {"musician_back_points": "20"}, seed=1)
    assert any(re.search(r"(Reverse|Skip) back! \w+ pays 20 more\.", line) for line in lines)


def test_any_player_points_out_a_wild_draw_four() -> None:
    """``challengers=any`` [001] 「他のプレイヤーから指摘されると」: a player who is not the one
    who must draw challenges; when wrong, they draw ``challenge_penalty`` (2) and the one who
    must draw still draws the 4."""
    lines = transcript("official", {"challengers": "any"}, seed=1)
    wrong = [i for i, line in enumerate(lines)
             if re.search(r"Challenge failed: innocent! \w+ draws 2\.$", line)]
    assert wrong, "no other player challenged"
    mistaken = re.search(r"innocent! (\w+) draws", lines[wrong[0]])
    drew = re.search(r"> (\w+) draws 4\.$", lines[wrong[0] + 1])
    assert mistaken is not None and drew is not None and mistaken[1] != drew[1]


def test_doubling_with_the_winner_collecting_the_hands_at_face_value() -> None:
    """``doubling_winner=face`` [000] 倍付け read as the loser's own penalty: under Japanese
    scoring the losers lose the multiplied hands, the winner gains them at face value, so a
    match where a loser had called UNO no longer sums to zero; the same deals with
    ``multiplied`` do."""
    def scores(collects: str) -> list[int]:
        result = run_demo(DemoConfig(
            fast=True, voice="captions", seed=1, players=4, rounds=3, preset="japanese",
            overrides={"doubling": "true", "doubling_winner": collects}, bots=["random"]))
        assert result.winners
        return result.scores

    face, multiplied = scores("face"), scores("multiplied")
    assert sum(multiplied) == 0
    assert sum(face) < 0
    assert sorted(s for s in face if s < 0) == sorted(s for s in multiplied if s < 0)
