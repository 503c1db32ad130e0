"""The simulated table on the web: its events for the pages, seats played from phones, and what
the pages ask of the table, done by the table's own hands.

- The events for the pages are the simulated table's own stream (the daemon's step and events,
  :attr:`SimTable.stream`), to which the web view's feed subscribes.
- :class:`SimRemote` is the simulator's :class:`table.web.side.TableSide`. A page's press is not
  handed to the referee directly: it waits in an inbox until the thread that plays the match
  does it, with the table's hands (a card tapped on the play pad, a button pressed, the cards a
  penalty gives taken from the pile), so that the table top and the referee always agree.
- :class:`WebSeat` is a seat played from a phone: its move is the next press of that seat.
"""

from __future__ import annotations

import logging
import queue
import time
from dataclasses import dataclass
from pathlib import Path

from sim.players.bots import SeatView
from sim.tabletop.errors import SimError
from sim.tabletop.match import Command
from sim.tabletop.pads import PAD, SHOE
from sim.tabletop.virtual import SimTable
from table.referee.announcements import Announcement
from table.referee.presses import Refused, SeatPress
from table.rules import (
    Action,
    CallUno,
    Catch,
    Challenge,
    ChooseColor,
    Don,
    Draw,
    Pass,
    Play,
    State,
)
from table.web.app import WebTable
from table.web.feed import Feed
from table.web.server import WebServer, parse_listen

log = logging.getLogger(__name__)

@dataclass(frozen=True, slots=True)
class AdminAction:
    """An admin page's action, waiting for the match's thread."""

    name: str


Request = SeatPress | AdminAction


class SimRemote:
    """A :class:`SimTable` as the web sees it; the match's thread does what pages ask."""

    def __init__(self, table: SimTable, plays_cards: bool = True) -> None:
        self.table = table
        self.plays_cards = plays_cards
        self.inbox: queue.Queue[Request] = queue.Queue()
        self.over = False  # the match has been played: nothing more is done

    def _open(self) -> None:
        if self.over:
            raise Refused("the match is over: the view stays up until the simulator stops")

    # --- the web's side (the server's thread) ----------------------------------------------------

    @property
    def players(self) -> tuple[str, ...]:
        """The players, in seat order."""
        return tuple(self.table.players)

    @property
    def language(self) -> str:
        """The language of the table."""
        return self.table.lang

    @property
    def journal(self) -> Path | None:
        """The simulated table's journal file, if it keeps one."""
        return self.table.journal.path if self.table.journal is not None else None

    def state(self) -> State:
        """The game state now."""
        return self.table.state

    def seat_state(self, seat: int) -> State:
        """The state a seat page shows (its own hand)."""
        return self.table.own_state(seat)

    def press(self, press: SeatPress) -> None:
        """A seat page's press, queued for the match's thread (refused now if it cannot be)."""
        self._open()
        if press.button == "play":
            if not self.plays_cards:
                raise Refused("the bots hold the cards here: a seat page only presses buttons")
            assert press.card is not None
            if self.table.world.copy_in_hand(press.seat, press.card) is None:
                raise Refused(f"{self.players[press.seat]} holds no {press.card.code}")
        self.inbox.put(press)

    def admin(self, action: str) -> None:
        """An admin page's action, queued for the match's thread."""
        self._open()
        if action in ("next-round", "new-match"):
            raise Refused("the simulator deals every round of its match by itself")
        self.inbox.put(AdminAction(action))

    def readers(self) -> dict[str, str]:
        """Each pad's last state."""
        states = self.table.referee.reader_states
        return {name: states.get(name, "live")
                for name in (PAD, SHOE, *self.table.players)
                if name == PAD or self.table.hands == "full"}

    # --- the match's side (the thread that plays it) ----------------------------------------------

    def serve(self, wait: float = 0.0) -> None:
        """Do what the pages asked, waiting up to ``wait`` seconds for more (the pace of a
        demo between two moves)."""
        until = time.monotonic() + wait
        while True:
            left = until - time.monotonic()
            try:
                item = self.inbox.get(timeout=left) if left > 0 else self.inbox.get_nowait()
            except queue.Empty:
                return
            self.perform(item)

    def perform(self, item: Request) -> None:
        """One request done at the table, as a person there would."""
        table = self.table
        if isinstance(item, AdminAction):
            if item.name == "undo":
                table.undo(admin=True)
            elif item.name == "voice-test":
                table.tell(Announcement("voice-test", (), 2))
            return
        try:
            table.perform(item.seat, action_of(table.state, item))
            table.sync()
        except SimError as exc:  # a card the seat no longer holds, by the time it is done
            log.warning("a press from %s's page could not be done: %s",
                        table.players[item.seat], exc)


def action_of(s: State, press: SeatPress) -> Action:
    """The game action a seat page's press stands for."""
    seat = press.seat
    button = press.button
    if button == "play":
        assert press.card is not None
        return Play(seat, (press.card,), press.color)
    if button == "color":
        assert press.color is not None
        return ChooseColor(seat, press.color)
    if button == "catch" and s.uno_window is not None and s.uno_window != seat:
        return Catch(seat, s.uno_window)
    simple: dict[str, Action] = {
        "draw": Draw(seat), "pass": Pass(seat), "challenge": Challenge(seat), "don": Don(seat),
    }
    return simple.get(button, CallUno(seat))


class WebSeat:
    """A seat played from a phone: its move is its page's next press, and meanwhile the table
    does what the other pages ask."""

    name = "person"

    def __init__(self, remote: SimRemote, seat: int) -> None:
        self.remote = remote
        self.seat = seat

    def act(self, view: SeatView) -> Action | Command:
        """The seat page's next press, doing the other pages' requests meanwhile."""
        remote = self.remote
        before = _point(remote.table)
        while True:
            item = remote.inbox.get()
            if isinstance(item, SeatPress) and item.seat == self.seat:
                return action_of(remote.table.state, item)
            remote.perform(item)
            now = _point(remote.table)
            moved = now[0] is not before[0] or now[1] != before[1]
            if moved and remote.table.state.current_player != self.seat:
                return "again"  # an undo, or another seat's move: not this seat's turn now

    def react(self, view: SeatView) -> Action | None:
        """Nothing: a phone's late call or catch comes through the inbox."""
        return None  # a phone's late call or catch comes through the inbox


def _point(table: SimTable) -> tuple[object, int]:
    """Where the match is: the referee's latest undo snapshot (compared by identity: the
    history is trimmed, so its length stops growing) and the round."""
    history = table.referee.history
    return (history[-1] if history else None), table.state.round


def start_web(table: SimTable, listen: str, plays_cards: bool) -> tuple[WebServer, SimRemote]:
    """Serve ``table`` on ``listen`` (``--web PORT`` or ``HOST:PORT``). Raises
    :class:`table.web.server.WebError` (one line) when the address cannot be had."""
    host, port = parse_listen(listen)
    server = WebServer(host, port)
    server.bind()
    remote = SimRemote(table, plays_cards)
    web = WebTable(remote, Feed())
    web.hear(table.stream.subscribe)
    server.serve(web)
    return server, remote
