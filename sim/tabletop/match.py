"""Playing a match on a :class:`SimTable`: whose move it is, the seat's choice, the table's
hands doing it, and the out-of-turn moment after someone goes down to one card.

A seat is anything with ``act(view)`` and ``react(view)`` (the bots of :mod:`sim.players.bots`,
the person at the terminal of :mod:`sim.terminal.human`, or at a phone:
:mod:`sim.tabletop.web_people`).
``act`` may also return ``"undo"``, ``"quit"`` or ``"again"`` (the table moved on while the seat
was thinking: ask whoever's move it is now).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Literal, Protocol

from sim.players.bots import SeatView
from sim.tabletop.errors import SimError
from sim.tabletop.virtual import SimTable
from table.inputs import Press
from table.rules import Action, Phase
from table.rules.variants import don

Command = Literal["undo", "quit", "again"]
MAX_MOVES = 20_000  # moves in one round before the simulator calls it stuck
MAX_REFUSED = 5  # refused moves in a row from one bot before the simulator calls it stuck


class Seat(Protocol):
    """Who plays a seat: a bot or a person."""

    name: str

    def act(self, view: SeatView) -> Action | Press | Command:
        """The move on this seat's turn: a game action the table's hands do, a seat's button
        pressed (a seat page's press, as the daemon takes it), or a command to the table."""

    def react(self, view: SeatView) -> Action | None:
        """A move out of turn (a catch, a jump-in), or None."""


def play_match(
    table: SimTable,
    seats: Sequence[Seat],
    rounds: int = 0,
    after_move: Callable[[SimTable], None] | None = None,
    after_round: Callable[[SimTable], None] | None = None,
) -> int:
    """Play until the match is over (or ``rounds`` rounds, when not 0). Returns the rounds
    played. Card conservation is checked after every round."""
    played = 0
    moves = 0
    refused = 0
    while True:
        s = table.state
        if s.phase in (Phase.ROUND_OVER, Phase.MATCH_OVER):
            table.check()
            played += 1
            moves = 0
            if after_round is not None:
                after_round(table)
            if s.phase is Phase.MATCH_OVER or (rounds and played >= rounds):
                return played
            table.next_round()
            continue
        if s.phase is Phase.START:
            table.deal()
            continue
        seat = s.current_player
        assert seat is not None
        choice = seats[seat].act(table.view(seat))
        if choice == "quit":
            return played
        if choice == "undo":
            table.undo_move(seat)
            continue
        if choice == "again":
            continue
        out = table.perform(seat, choice)
        table.sync()
        moves += 1
        if out.journal_word == "rejected":
            refused += 1
            if refused >= MAX_REFUSED and seats[seat].name != "person":
                raise SimError(f"{s.players[seat]} keeps making moves the referee refuses")
        else:
            refused = 0
        react(table, seats)
        if moves > MAX_MOVES:
            raise SimError(f"round {s.round} ran past {MAX_MOVES} moves")
        if after_move is not None:
            after_move(table)


def react(table: SimTable, seats: Sequence[Seat]) -> None:
    """After a play that left someone on one card uncalled: that player may still call, the
    others may catch; the first to act wins the moment. The same for a Wild Draw Four that any
    player may challenge, and a Don."""
    s = table.state
    window = s.uno_window
    if s.phase is not Phase.PLAY:
        return
    if window is None:
        if s.challenge is not None and s.options.challengers == "any":
            window = s.turn  # a Wild Draw Four anyone may challenge, from the one who must draw
        elif not s.options.don or not don.winning_seats(s):
            return
        else:
            window = s.turn  # a Don is there to be called (Musician rules)
    n = len(seats)
    for k in range(n):
        who = (window + k) % n
        action = seats[who].react(table.view(who))
        if action is not None:
            table.perform(who, action)
            table.sync()
            return
