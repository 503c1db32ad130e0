"""The running daemon as a remote control sees it (the web view's seat pages and admin page).

A seat page's press goes into the referee's queue as a :class:`Press`, exactly as a GPIO button's
does, and is journaled and replayed the same way (a colour named on a phone is the press
``color:red``...). The admin's undo and next round go into the same queue as an :class:`Admin`
input, journaled and replayed as what they are (no token needs to be in the deck, and no tap is
made up). A new match and a voice test run in the referee's thread, in turn with the inputs.
Nothing here waits for the referee.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING

from table.inputs import ADMIN_INPUTS, Admin
from table.referee.announcements import Announcement
from table.referee.presses import Refused, SeatPress, press_input
from table.rules import State

if TYPE_CHECKING:
    from table.runtime.daemon import Daemon


class DaemonRemote:
    """What a remote control may see of and do to a running :class:`Daemon`."""

    plays_cards = False  # the players hold real cards and tap them on the play pad

    def __init__(self, daemon: Daemon) -> None:
        self.daemon = daemon
        config = daemon.config
        # The referee knows a hand only with seat pads or a draw shoe (hand tracking "full").
        self._hands_known = any(r.role in ("seat", "draw") for r in config.readers)

    @property
    def players(self) -> tuple[str, ...]:
        """The players, in seat order."""
        return self.daemon.config.players

    @property
    def language(self) -> str:
        """The language of the web pages."""
        return self.daemon.config.web_language or self.daemon.config.language

    @property
    def journal(self) -> Path:
        """The daemon's journal file."""
        return self.daemon.journal.path

    def state(self) -> State:
        """The game state now."""
        return self.daemon.referee.state

    def seat_state(self, seat: int) -> State | None:
        """The state a seat page may show, or None when the table does not know the hands."""
        return self.daemon.referee.state if self._hands_known else None

    def press(self, press: SeatPress) -> None:
        """A seat page's press, queued for the referee as a button's would be."""
        self.daemon.loop.put(press_input(press, time.monotonic()))

    def admin(self, action: str) -> None:
        """An admin page's action, done in turn with the table's inputs."""
        daemon = self.daemon
        if action in ADMIN_INPUTS:
            daemon.loop.put(Admin(action, time.monotonic()))
        elif action == "new-match":
            daemon.loop.call(daemon.begin_new_match)
        elif action == "voice-test":
            daemon.loop.call(lambda: daemon.announce(Announcement("voice-test", (), 2)))
        else:
            raise Refused(f"no admin action {action!r}")

    def readers(self) -> dict[str, str]:
        """Each reader's last state."""
        states = dict(self.daemon.referee.reader_states)
        return {r.name: states.get(r.name, "waiting") for r in self.daemon.config.readers}
