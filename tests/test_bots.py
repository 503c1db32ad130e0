"""Bots: what a seat may see, how the heuristic bot plays, and that it beats the random bot."""

from __future__ import annotations

import json
import random
import subprocess
import sys

from sim.players.arena import bot_selfplay, wilson
from sim.players.bots import HeuristicBot, RandomBot, seat_view
from table.cards import Card, Color, parse_cards
from table.rules import (
    CallUno,
    Catch,
    Challenge,
    ChooseColor,
    Deal,
    Draw,
    Pass,
    Play,
    State,
    apply,
    make_options,
    new_game,
)


def dealt(aki: str, ken: str, start: str, pile: str = "", **options: object) -> State:
    """Aki (seat 0) on turn against Ken, Ken dealing."""
    hands = [(parse_cards(aki.split()), 0), (parse_cards(ken.split()), 0)]
    s, _ = new_game(make_options("official", **options), ["Aki", "Ken"], 1,
                    Deal(hands=hands, pile=parse_cards(pile.split()), start=parse_cards([start])))
    return s


def bot() -> HeuristicBot:
    return HeuristicBot(random.Random(1), forget=0.0, bluff=0.0)


def test_a_seat_sees_the_same_table_whatever_the_hidden_cards_are() -> None:
    """Two tables that differ only in Ken's hidden cards look the same from Aki's seat, and
    Aki's bots choose the same moves."""
    a = dealt("R1 G7 B+2", "Y5 Y6 B9 G2", "R5", pile="R9 YS")
    b = dealt("R1 G7 B+2", "R9 YS G3 B4", "R5", pile="Y5 Y6")
    va, vb = seat_view(a, 0), seat_view(b, 0)
    assert va == vb
    assert "Y5" not in repr(va) and "R9" not in repr(vb)
    for make in (lambda: bot(), lambda: RandomBot(random.Random(7))):
        assert make().act(va) == make().act(vb)


def test_plays_a_matching_card_and_keeps_the_wild() -> None:
    s = dealt("W R3 G8 G9", "Y5 Y6 Y7 Y8 Y9", "R5")
    assert bot().act(seat_view(s, 0)) == Play(0, (Card(Color.RED, "3"),))


def test_sheds_high_points_when_an_opponent_is_about_to_go_out() -> None:
    calm = dealt("R1 R9 G9", "Y5 Y6 Y7 Y8 Y9", "R5")
    close = dealt("R1 R+2 G9", "Y5 Y6", "R5")
    play = bot().act(seat_view(calm, 0))
    assert isinstance(play, Play) and play.cards[0].code in ("R1", "R9")
    assert bot().act(seat_view(close, 0)) == Play(0, (Card(Color.RED, "+2"),))


def test_names_the_colour_it_holds_most_of() -> None:
    s = dealt("W B1 B7 G2", "Y5 Y6 Y7 Y8 Y9", "R5")
    step = apply(s, Play(0, (Card(None, "W"),)))  # a wild with its colour still to name
    view = seat_view(step.state, 0)
    assert isinstance(view.legal[0], ChooseColor)
    assert bot().act(view) == ChooseColor(0, Color.BLUE)


def test_calls_uno_and_catches_a_forgotten_call() -> None:
    s = dealt("R1 R2", "R7 Y6 Y7", "R5")
    assert bot().act(seat_view(s, 0)) == CallUno(0)
    forgot = apply(s, Play(0, (Card(Color.RED, "1"),))).state  # Aki goes down uncalled
    assert bot().react(seat_view(forgot, 1)) == Catch(1, 0)


def _wd4_on(ken_cards: int) -> State:
    """Ken plays a Wild Draw Four on a red 5; Aki must draw four or challenge."""
    ken = " ".join(["W+4", *["G1", "G2", "G3", "G4", "G5", "G6", "G7", "G8"][: ken_cards]])
    s = dealt("Y1", ken, "R5")
    s = apply(s, Draw(0)).state  # Aki draws (an unknown card) and keeps it
    s = apply(s, Pass(0)).state
    s = apply(s, Play(1, (Card(None, "W+4"),), Color.BLUE)).state
    assert s.pending == 4 and s.turn == 0
    return s


def test_challenges_only_when_the_odds_favour_it() -> None:
    big = seat_view(_wd4_on(8), 0)  # eight hidden cards: surely one is red
    small = seat_view(_wd4_on(1), 0)  # one hidden card: probably not red
    b = bot()
    assert b.bluff_odds(big) > 0.8 and b.bluff_odds(small) < 0.25
    assert b.act(big) == Challenge(0)
    assert b.act(small) == Draw(0)


def test_the_heuristic_bot_beats_the_random_bot() -> None:
    """400 two-player rounds (bench/bots.py plays 2,000): the lower end of the 99.9% interval
    of the heuristic bot's win rate must clear 60%."""
    stats = bot_selfplay(["heuristic", "random"], 400, seed=11)
    assert stats.rounds == 400 and stats.capped == 0
    wins = stats.wins[0]
    low, _ = wilson(wins, 400, z=3.29)
    assert low > 0.6, f"{wins}/400 wins, lower bound {low:.3f}"


def test_selfplay_reports_win_rates_per_seat_and_bot() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "table.commands.cli", "selfplay",
         "--bots", "heuristic,random,random", "--games", "30", "--seed", "2"],
        capture_output=True, text=True, check=True,
    )
    report = json.loads(out.stdout)
    assert report["players"] == 3 and sum(report["wins_per_seat"]) == 30
    assert set(report["win_rate_per_bot"]) == {"heuristic", "random"}
    assert report["win_rate_per_bot"]["random"]["seats"] == 2


def test_selfplay_refuses_an_unknown_bot_in_one_line() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "table.commands.cli", "selfplay", "--bots", "heuristic,clever"],
        capture_output=True, text=True,
    )
    assert out.returncode == 2
    assert out.stderr.strip() == (
        "uno-table: unknown bot 'clever' in --bots: use random, heuristic, mix, rlcard-rule, "
        "prior, expert (or expert:N)"
    )


def test_selfplay_bots_and_players_must_agree() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "table.commands.cli", "selfplay", "--bots", "heuristic,random",
         "--players", "3"],
        capture_output=True, text=True,
    )
    assert out.returncode == 2
    assert out.stderr.strip() == "uno-table: --players 3 but --bots names 2 bots"
