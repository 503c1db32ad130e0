"""A seat page's press is the same input on the simulated table as at the daemon: one function
(:func:`table.referee.presses.press_input`) makes the :class:`Press` both hand their referee,
so the same presses give the same events. A round played from three seat pages on the
simulated table (colours, draws, passes, UNO calls and catches pressed there) is played again
at a daemon, its presses through the daemon's remote control and the cards the simulated
hands tapped as the same reads: every event is the same."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from recorded_evening import Lines, config_for

from sim.players.bots import SeatView
from sim.tabletop.match import Command, play_match
from sim.tabletop.virtual import SimTable
from sim.tabletop.web_people import SimRemote, WebSeat
from table.cards import COLORS
from table.inputs import Input, Press
from table.journal.store import Journal
from table.referee.presses import SeatPress, press_input
from table.rules import (
    Action,
    CallUno,
    Catch,
    Challenge,
    ChooseColor,
    Draw,
    Pass,
    Play,
    make_options,
)
from table.runtime.daemon import Daemon
from table.runtime.event_stream import SETTLED
from table.runtime.remote_control import DaemonRemote
from table.voice.backends import CaptionsBackend

DAEMON_ONLY = ("start", "ready")  # the daemon's own start, and its readers all come up
UNSTABLE = ("t", "seconds", "version")  # when, how long a start took, which release


class Page(WebSeat):
    """A seat page pressed as a person would: a colour when asked, UNO when due, a catch when
    someone forgot, else a playable card (a wild with a colour), a draw, a pass."""

    def __init__(self, remote: SimRemote, seat: int, pressed: list[SeatPress]) -> None:
        super().__init__(remote, seat)
        self.rng = random.Random(seat)
        self.pressed = pressed

    def push(self, press: SeatPress) -> None:
        self.pressed.append(press)
        self.remote.press(press)

    def act(self, view: SeatView) -> Action | Press | Command:
        self.push(self.choose(view))
        return super().act(view)

    def choose(self, view: SeatView) -> SeatPress:
        seat, legal = self.seat, view.legal
        colors = [a for a in legal if isinstance(a, ChooseColor)]
        if colors:
            return SeatPress(seat, "color", self.rng.choice(colors).color)
        for kind, button in ((CallUno, "uno"), (Challenge, "challenge")):
            if any(isinstance(a, kind) for a in legal) and self.rng.random() < 0.5:
                return SeatPress(seat, button)
        plays = [a for a in legal if isinstance(a, Play) and len(a.cards) == 1]
        if plays and self.rng.random() < 0.9:
            play = self.rng.choice(plays)
            card = play.cards[0]
            color = self.rng.choice(COLORS) if card.is_wild else None
            return SeatPress(seat, "play", color, card)
        if any(isinstance(a, Pass) for a in legal):
            return SeatPress(seat, "pass")
        if any(isinstance(a, Draw) for a in legal):
            return SeatPress(seat, "draw")
        return SeatPress(seat, "uno")  # whatever it is, the referee answers it

    def react(self, view: SeatView) -> Action | None:
        if any(isinstance(a, Catch) for a in view.reactions):
            self.push(SeatPress(self.seat, "catch"))
        return None


def test_a_seat_pages_presses_give_the_same_events_on_the_daemon(tmp_path: Path) -> None:
    options = make_options("official")
    names = ["Aki", "Ken", "Mio"]
    pressed: list[SeatPress] = []
    taken: list[Input] = []
    sim_events: list[dict[str, Any]] = []
    table = SimTable(options, names, 5, first_dealer=0)
    remote = SimRemote(table)
    pages = [Page(remote, seat, pressed) for seat in range(3)]
    take = table.table.take
    table.table.take = lambda item, between=None: (  # type: ignore[method-assign]
        taken.append(item), take(item, between))[1]
    table.stream.subscribe(
        lambda e: sim_events.append(dict(e)) if e["type"] != SETTLED else None)
    with table:
        play_match(table, pages, rounds=1, after_move=lambda t: remote.serve())
    presses = [i for i in taken if isinstance(i, Press)]
    buttons = {p.button.split(":")[0] for p in presses}
    assert {"color", "draw", "pass", "uno"} <= buttons, buttons  # the round pressed them all
    # Every press the referee took is a page's press, made by the daemon's own function; a
    # wild played from a page named its colour with it, where at a real table the card is
    # tapped and the colour pressed on the page.
    page_presses = [p if p.button != "play" else SeatPress(p.seat, "color", p.color)
                    for p in pressed if p.button != "play" or p.color is not None]
    assert len(presses) == len(page_presses)
    for took, page in zip(presses, page_presses, strict=True):
        assert took == press_input(page, took.t)

    # The same round at a daemon: the pages' presses through its remote control, the cards
    # the simulated hands moved as the same reads.
    config = config_for(table.table.setup, tmp_path)
    lines = Lines()
    journal = Journal(config.journal_path)
    daemon = Daemon(config, lines, journal=journal,  # type: ignore[arg-type]
                    backend=CaptionsBackend)
    daemon.loop.put = daemon.loop.take  # type: ignore[method-assign]  # taken in turn, here
    at_daemon = DaemonRemote(daemon)
    pending = iter(page_presses)
    try:
        for item in taken:
            if isinstance(item, Press):
                at_daemon.press(next(pending))
            else:
                daemon.loop.take(item)
    finally:
        daemon.announcer.close()
        journal.close()
    want = [{k: v for k, v in e.items() if k not in UNSTABLE} for e in lines.events
            if e["type"] not in DAEMON_ONLY]
    assert want[0]["type"] == "new-match"  # told before the first input, as the sim's was
    got = [{k: v for k, v in e.items() if k not in UNSTABLE} for e in sim_events]
    assert len(got) == len(want[1:])
    for i, (mine, theirs) in enumerate(zip(got, want[1:], strict=True)):
        assert mine == theirs, f"event {i}"
