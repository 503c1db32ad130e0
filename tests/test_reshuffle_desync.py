"""A reshuffle keeps the simulated table and the referee in step: the copies that were under
the top of the discard pile go into the new draw pile, and one of them given to a hand later is
a card drawn, never "already played" (the copy on top stays played, and only that copy)."""

from __future__ import annotations

import subprocess
import sys

from sim.players.bots import SeatView, make_bot, seat_rng
from sim.tabletop.match import play_match
from sim.tabletop.virtual import SimTable
from table.rules import Action, Draw, make_options


def test_the_demo_plays_on_past_a_reshuffle_with_a_copy_of_the_top_card_below_it() -> None:
    """The issue's command: a Draw Two's victim was given the other copy of the top card, which
    had been shuffled into the new pile, and the referee refused it over and over."""
    run = subprocess.run(
        [sys.executable, "-m", "table.commands.cli", "demo", "--fast", "--players", "3",
         "--seed", "2", "--rounds", "1", "--set", "draw=until-playable", "--voice", "captions"],
        capture_output=True, text=True, timeout=120, check=False,
    )
    assert "The discard pile is shuffled into a new draw pile." in run.stdout
    assert "That card is already played." not in run.stdout
    assert run.returncode == 0, run.stderr
    assert "wins the round!" in run.stdout


class DrawsFirst:
    """A person who presses Draw whenever they may while holding fewer than 12 cards, and
    otherwise plays as a bot would."""

    name = "person"

    def __init__(self, seat: int) -> None:
        self.bot = make_bot("random", seat_rng(3, seat))

    def act(self, view: SeatView) -> Action | str:
        for action in view.legal:
            if isinstance(action, Draw) and len(view.hand) < 12:
                return action
        return self.bot.act(view)

    def react(self, view: SeatView) -> Action | None:
        return None


def test_people_who_draw_first_reach_the_end_of_the_round() -> None:
    """``sim --people 2 --players 3 --seed 3``, both people pressing Draw first: after the
    reshuffle the round went on refusing cards and never ended."""
    seats = [DrawsFirst(0), DrawsFirst(1), make_bot("random", seat_rng(3, 2))]
    said: list[str] = []
    with SimTable(make_options("official"), ["Sam", "Aki", "Ken"], 3) as table:
        table.show = said.append
        assert play_match(table, seats, rounds=1) == 1  # type: ignore[arg-type]
        table.check()
    assert any("shuffled into a new draw pile" in line for line in said)
    assert not any("already played" in line for line in said)

