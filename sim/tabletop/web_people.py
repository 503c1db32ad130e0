"""The simulated table on the web: its events for the pages, seats played from phones, and what
the pages ask of the table, done by the table's own hands.

- The events for the pages are the simulated table's own stream (the daemon's step and events,
  :attr:`SimTable.stream`), to which the web view's feed subscribes.
- :class:`SimRemote` is the simulator's :class:`table.web.side.TableSide`. A page's press is the
  daemon's own input (:func:`table.referee.presses.press_input`: a :class:`Press`, ``uno`` for
  a catch, ``color:red``... for a colour), as the daemon's remote control makes it; it waits in
  an inbox until the thread that plays the match hands it to the referee, then the table's
  hands follow (the cards a penalty gives taken from the pile), so that the table top and the
  referee always agree. A card played from a page is what only the simulator can do for a
  player: the card taken from the hand and tapped on the play pad.
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
from table.inputs import Press
from table.referee.announcements import Announcement
from table.referee.presses import Refused, SeatPress, press_input
from table.rules import Action, Play, State
from table.web.app import WebTable
from table.web.feed import Feed
from table.web.server import WebServer, parse_listen

log = logging.getLogger(__name__)

@dataclass(frozen=True, slots=True)
class AdminAction:
    """An admin page's action, waiting for the match's thread."""

    name: str


# A seat's button (the daemon's own input), a card played from a page, an admin's action.
Request = Press | SeatPress | AdminAction


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
        else:
            self.inbox.put(press_input(press, 0.0))  # timed by the table's clock when taken

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
            table.perform(item.seat, move_of(item))
            table.sync()
        except SimError as exc:  # a card the seat no longer holds, by the time it is done
            log.warning("a press from %s's page could not be done: %s",
                        table.players[item.seat], exc)


def move_of(item: Press | SeatPress) -> Press | Action:
    """What the table does for a page's request: the seat's button pressed, or a card played
    from the hand (and its colour named by the seat's button, as the daemon takes it)."""
    if isinstance(item, Press):
        return item
    assert item.card is not None
    return Play(item.seat, (item.card,), item.color)


class WebSeat:
    """A seat played from a phone: its move is its page's next press, and meanwhile the table
    does what the other pages ask."""

    name = "person"

    def __init__(self, remote: SimRemote, seat: int) -> None:
        self.remote = remote
        self.seat = seat

    def act(self, view: SeatView) -> Press | Action | Command:
        """The seat page's next press, doing the other pages' requests meanwhile."""
        remote = self.remote
        before = _point(remote.table)
        while True:
            item = remote.inbox.get()
            if not isinstance(item, AdminAction) and item.seat == self.seat:
                return move_of(item)
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
