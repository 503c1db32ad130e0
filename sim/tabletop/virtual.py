"""A whole table in software: the referee in its loop, virtual readers, the cards on the table
top, and the players' hands moving them.

The referee is the daemon's own: a :class:`table.referee.referee.Referee` fed by a
:class:`table.runtime.loop.TableLoop` through the daemon's step
(:class:`table.runtime.step.TableStep`), whose events go to the table's
:class:`table.runtime.event_stream.EventStream` (the web view and the MQTT broadcast
subscribe to it).
The table has a play pad ``pad``, a draw shoe ``shoe`` and one seat pad per player (named
after the player), all :class:`SimReader` pads unless the play pad is routed through a real
:class:`SerialReader` on a pty (``Faults.noisy_serial``), plus the seat buttons. A player's
move becomes what a person does:

- play a card: take that copy from the hand and tap it on the play pad; a refused card goes
  back into the hand;
- draw on one's turn: take the top card of the pile past the draw shoe;
- name a colour, accept a penalty, pass, call UNO, catch, challenge: press the seat's button
  (the daemon's :class:`Press`, ``color:red``... for a colour; a seat page's press arrives as
  that very input);
- cards the referee gives a hand (the deal, penalties) are taken from the pile and tapped on
  that seat's pad.

Every input waits for the referee's verdict, so the transcript (what was done and what was
said) depends only on the seed: no clock appears in it.
"""

from __future__ import annotations

import queue
import random
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from sim.hardware.faults import Faults, FaultySink, PtyPad
from sim.players.bots import SeatView, seat_view
from sim.terminal.view import move_text

if TYPE_CHECKING:
    from table.readers.serial_reader import SerialReader
from sim.tabletop import dealing
from sim.tabletop.buttons import button_of, press_line
from sim.tabletop.clock import VirtualClock
from sim.tabletop.errors import SimError
from sim.tabletop.pads import PAD, SHOE
from sim.tabletop.radio_pads import RadioPads, check_noise
from sim.tabletop.world import TableTop
from table.cards import Card, CardCopy, edition_counts
from table.inputs import Admin, Input, Press, ReaderRole, ReaderStatus, TagRead
from table.journal.records import UNDO_DEPTH, MatchSetup
from table.journal.store import Journal
from table.readers.factory import SimReader
from table.referee.announcements import Announcement
from table.referee.referee import Outcome, Referee
from table.referee.registry import Deck, Token, virtual_deck
from table.rules import (
    Action,
    Draw,
    Hand,
    Identify,
    Options,
    Play,
    State,
    Swap,
    TurnUp,
    apply,
    choose_dealer,
    new_game,
    next_round,
)
from table.rules.actions import actor
from table.rules.flow import next_draw_source
from table.runtime.event_stream import Event, EventStream, StreamType
from table.runtime.loop import TableLoop
from table.runtime.step import TableStep
from table.runtime.table import Table

RETRIES = 50  # taps of one card before the simulator gives up (a fault rate near 1)
HAND_TRACKING = ("full", "counts")
@dataclass
class Answer:
    """The referee's answer to one input, for the thread that waits for it (what was said of
    it went to the transcript and the voice as events of the stream)."""

    item: Input
    outcome: Outcome
    joined: bool = False  # a card joined the play before it: that play, made again with it
    new_match: bool = False  # the next-round token after the match: a new match began


@dataclass
class SimTable:
    """A seated table. Use as a context manager: the loop and readers are threads."""

    options: Options
    players: list[str]
    seed: int
    lang: str = "en"
    faults: Faults = field(default_factory=Faults)
    # The voice, when there is one: an announcement and its words, rendered already.
    say: Callable[[Announcement, str], None] | None = None
    show: Callable[[str], None] | None = None  # each transcript line as it is made
    hands: str = "full"  # full: seat pads and a draw shoe; counts: only the play pad
    journal: Journal | None = None  # the match kept there, input by input, as the daemon does
    noise: str = "off"  # realistic, harsh: every pad a chip model on a noisy radio
    first_dealer: int | None = None  # who deals first (None: drawn with the shuffled deck)

    def __post_init__(self) -> None:
        if self.hands not in HAND_TRACKING:
            raise SimError(f"--hands {self.hands!r}: use {' or '.join(HAND_TRACKING)}")
        self.rng = random.Random(self.seed)
        self.drawn: Card | None = None  # the card a player just drew blind (play pad only)
        self.deck: Deck = virtual_deck(self.options.deck)
        # The table top: where each physical copy lies (the cards the hands move).
        self.world = TableTop(self.options.deck, len(self.players), random.Random(self.seed + 1))
        self.clock = VirtualClock()
        self.transcript: list[str] = []
        self.log: list[Action | None] = []  # accepted engine actions; None: the next round
        # The table top after each action the referee can undo, by the undo snapshot it left.
        self.worlds: dict[int, tuple[object, TableTop]] = {}
        self.dealer = self._draw_dealer() if self.first_dealer is None else self.first_dealer
        self._outcomes: queue.Queue[Answer] = queue.Queue()
        # The daemon's table and event stream: the web view and the MQTT broadcast subscribe
        # to it; the journal, when there is one, keeps the match input by input.
        self.stream = EventStream(None)
        setup = MatchSetup(tuple(self.players), self.options, self.dealer,
                           tuple(self._roles()), self.deck)
        self.table = Table(setup, self.stream, self.journal, lang=self.lang)
        self.stream.subscribe(self._told)  # the transcript and the voice: a face of the table
        said = self.table.new_match()
        self.loop = TableLoop(self._take, tick_every=3600.0, clock=self.clock)
        self.sink = FaultySink(self.loop.put, self.faults, random.Random(self.seed + 2))
        self.pads: dict[str, SimReader] = {
            name: SimReader(name, self.sink, self.clock)
            for name in [PAD, SHOE, *self.players]
        }
        self._tmp: Path | None = None
        self.pty: PtyPad | None = None
        self.serial: SerialReader | None = None
        self.unplugs = 0
        check_noise(self.noise, len(self._roles()))
        self.radio = None if self.noise == "off" else RadioPads(
            [(r.name, r.role) for r in self._roles()], self.noise, self.seed,
            lambda uid: self.deck.lookup(uid) is not None)
        for ann in said:
            self.table.say(ann)

    @property
    def referee(self) -> Referee:
        """The table's referee (a new one at each new match)."""
        return self.table.referee

    @property
    def step(self) -> TableStep:
        """The table's step."""
        return self.table.step

    def _take(self, item: Input) -> None:
        """In the referee's thread, as ``uno-table run`` does it (:meth:`Table.take`), then
        the thread that waits for it is told."""
        history = self.referee.history
        top = history[-1] if history else None
        taken, _ = self.table.take(item)
        # A joined card takes the play back and makes it again from the same state: the new
        # undo snapshot holds the state the play it replaces was made from.
        history = self.referee.history
        joined = top is not None and bool(history) and history[-1] is not top and (
            history[-1].state is top.state)
        self._outcomes.put(Answer(item, taken.outcome, joined, taken.next_match))

    def tell(self, ann: Announcement) -> None:
        """Say ``ann`` as the referee's own words are (a voice test): on the stream, in the
        transcript and by the voice, rendered once."""
        self.table.say(ann)
        self.stream.settle()

    # --- set-up -------------------------------------------------------------------------------

    def _roles(self) -> list[ReaderRole]:
        if self.hands == "counts":
            return [ReaderRole(PAD, "play")]
        return [
            ReaderRole(PAD, "play"),
            ReaderRole(SHOE, "draw"),
            *(ReaderRole(name, "seat", i) for i, name in enumerate(self.players)),
        ]

    def _draw_dealer(self) -> int:
        """The dealer draw with a shuffled deck (docs/rules.md §2)."""
        cards = [c.card for c in self.world.pile]
        return choose_dealer(len(self.players), lambda _seat: cards.pop(), self.options)

    def __enter__(self) -> SimTable:
        self.loop.start()
        if self.radio is not None:
            self.radio.__enter__()
        if self.faults.noisy_serial:
            self._start_serial_pad()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Stop the serial pad, the pty and the referee's loop."""
        if self.serial is not None:
            self.serial.stop()
            self.serial = None
        if self.pty is not None:
            self.pty.unplug()  # kept: its noise count is reported afterwards
        self.loop.stop()
        if self.radio is not None:
            self.radio.__exit__()
        if self._tmp is not None:
            shutil.rmtree(self._tmp, ignore_errors=True)
            self._tmp = None

    def _start_serial_pad(self) -> None:
        from table.readers.serial_reader import SerialReader

        self._tmp = Path(tempfile.mkdtemp(prefix="uno-table-"))
        self.pty = PtyPad(self._tmp / "usb-pad", random.Random(self.seed + 3))
        reader = SerialReader(
            PAD, str(self.pty.link), "serial-line", self.sink,
            backoff=(0.02, 0.05), hold=0.5, clock=self.clock,
        )
        self.serial = reader
        reader.start()
        self._await_status("live")

    # --- the referee's side ---------------------------------------------------------------------

    @property
    def state(self) -> State:
        """The referee's game state."""
        return self.referee.state

    def line(self, text: str) -> None:
        """One line of the transcript."""
        self.transcript.append(text)
        if self.show is not None:
            self.show(text)

    def say_move(self, key: str, **params: str | int) -> None:
        """A move of the table in the transcript's words."""
        self.line(move_text(key, self.lang, **params))

    def _told(self, event: Event) -> None:
        """The transcript and the voice, told of every event of the table: a read the referee
        ignored, and each announcement in the words the table rendered (the referee's thread;
        the thread that plays waits for the answer, so the lines keep their order)."""
        kind = event["type"]
        if kind is StreamType.VERDICT:
            out = event.extra["outcome"]
            if out.verdict == "ignored" and out.reason:
                self.say_move("ignored", reason=out.reason)
        elif kind is StreamType.ANNOUNCEMENT:
            self.line("  > " + event["text"])
            if self.say is not None:
                self.say(event.extra["said"], event["text"])

    def _answered(self, answer: Answer) -> None:
        out = answer.outcome
        if answer.new_match:  # the match the log replays is over: the new one starts empty
            self.log.clear()
            self.worlds.clear()
            return
        if out.action is not None and out.verdict in ("accepted", "penalty"):
            if answer.joined and self.log:
                self.log[-1] = out.action  # the play it joined, now with every card
            else:
                self.log.append(out.action)
        elif out.verdict == "accepted" and not out.action:
            done = self._token_done(answer.item)
            if done == "undo" and self.log:
                self.log.pop()
            elif done == "next-round":
                self.log.append(None)
        if out.verdict in ("accepted", "penalty") and out.action is not None:
            self._keep_world()

    def _token_done(self, item: Input) -> str | None:
        """The control token's work an input did: a tap of the undo or next-round token, or
        the admin page's undo or next round (which taps no token)."""
        if isinstance(item, Admin):
            return item.action
        if isinstance(item, TagRead):
            tag = self.deck.lookup(item.uid)
            return tag.name if isinstance(tag, Token) else None
        return None

    def _keep_world(self) -> None:
        """The table top now, by the referee's latest undo snapshot (the history is trimmed
        as the daemon's is, so its length does not name a point of the match)."""
        history = self.referee.history
        last = history[-1] if history else None
        self.worlds[id(last)] = (last, self.world.snapshot())
        if len(self.worlds) > 2 * UNDO_DEPTH:  # forget the table tops no undo can reach
            kept = {id(snap) for snap in history}
            self.worlds = {k: v for k, v in self.worlds.items() if k in kept}

    def _world_before(self) -> TableTop | None:
        """The table top after the action the referee's latest undo snapshot stands for."""
        history = self.referee.history
        last = history[-1] if history else None
        found = self.worlds.get(id(last))
        return found[1] if found is not None and found[0] is last else None

    def _await_status(self, state: str, timeout: float = 10.0) -> None:
        while True:
            try:
                answer = self._outcomes.get(timeout=timeout)
            except queue.Empty:
                raise SimError(f"the play pad never became {state}") from None
            self._answered(answer)
            if isinstance(answer.item, ReaderStatus) and answer.item.state == state:
                return

    def _collect(self, seen: int, delivered: int, serial: bool) -> list[Outcome]:
        """The verdicts of what one physical input caused (none if the read was lost)."""
        if serial and not self.sink.wait_seen(seen, 30.0):
            return []  # the line never made a read
        got: list[Outcome] = []
        want = self.sink.counts()[1] - delivered
        while len(got) < want:
            try:
                answer = self._outcomes.get(timeout=10.0)
            except queue.Empty:
                raise SimError("the referee did not answer within 10 seconds") from None
            self._answered(answer)
            if isinstance(answer.item, TagRead):
                got.append(answer.outcome)
        return got

    def _send(self, item: Input) -> Outcome:
        """Give the referee one input and wait for its verdict."""
        self.loop.put(item)
        while True:
            try:
                answer = self._outcomes.get(timeout=10.0)
            except queue.Empty:
                raise SimError("the referee did not answer within 10 seconds") from None
            self._answered(answer)
            if answer.item is item:
                return answer.outcome

    def tap(self, reader: str, tag: CardCopy | Token, who: str = "") -> Outcome:
        """Tap a tag on a pad until the referee answers (a lost read is tapped again)."""
        uid = self.deck.uid_of(tag)
        assert uid is not None
        if self.radio is not None:
            return self._radio_tap(reader, uid, isinstance(tag, CardCopy), who)
        for attempt in range(RETRIES):
            if reader == PAD and self.faults.unplug and self.rng.random() < self.faults.unplug:
                self._unplug_pad()
            self.clock.advance()
            seen, delivered = self.sink.counts()
            if reader == PAD and self.pty is not None:
                self.pty.send_uid(uid)
                outcomes = self._collect(seen, delivered, serial=True)
            else:
                self.pads[reader].tap(uid)
                outcomes = self._collect(seen, delivered, serial=False)
            if outcomes:
                return outcomes[0]
            if attempt == 0 or attempt % 10 == 0:
                self.say_move("no-read", player=who or self.players[self.state.dealer])
        raise SimError(f"{tag.code} was tapped on {reader} {RETRIES} times with no read")

    def _radio_tap(self, reader: str, uid: str, card: bool, who: str) -> Outcome:
        """Put a tag on a noisy pad as a person does (a card played stays on the pile) until a
        reader confirms it; everything the readers report goes to the referee."""
        assert self.radio is not None
        rest = reader == PAD and card
        for attempt in range(RETRIES):
            now, mine = self.clock.advance(), None
            for report in self.radio.put(reader, uid, rest, over=who or None):
                out = self._send(replace(report, t=now))
                if isinstance(report, TagRead) and (report.reader, report.uid) == (reader, uid):
                    mine = out
            if mine is not None:
                if rest and mine.verdict in ("rejected", "ignored"):
                    self.radio.lift(uid)  # a refused card goes back into the hand
                return mine
            if attempt == 0 or attempt % 10 == 0:
                self.say_move("no-read", player=who or self.players[self.state.dealer])
        raise SimError(f"{uid} was put on {reader} {RETRIES} times with no read")

    @property
    def pty_noise(self) -> int:
        """The noise lines the serial pad's pty sent so far."""
        return self.pty.noise_lines if self.pty is not None else 0

    def _unplug_pad(self) -> None:
        """The play pad's cable is pulled and pushed back in."""
        self.unplugs += 1
        if self.pty is not None:
            self.pty.unplug()
            self._await_status("lost")
            self.pty.plug()
            self._await_status("live")
            return
        self.clock.advance()
        self.sink.blocked.add(PAD)
        self._send(ReaderStatus(PAD, "lost", self.clock(), "unplugged"))
        uid = self.deck.uid_of(Token("pass"))
        assert uid is not None
        self.pads[PAD].tap(uid)  # a tap while unplugged reaches nobody
        self.say_move("unplugged-tap")
        self.sink.blocked.discard(PAD)
        self._send(ReaderStatus(PAD, "live", self.clock()))

    def press(self, seat: int, button: str) -> Outcome:
        """Press a seat's button (the daemon's :class:`Press`: a GPIO button's or a seat page's)
        and wait for the verdict. With only a play pad, a card the draw button gave is taken
        from the pile into the hand (nobody names it: the player knows it)."""
        s = self.state
        pending, held = s.pending, len(s.hands[seat])
        out = self._send(Press(seat, button, self.clock.advance()))
        drew = len(self.state.hands[seat]) > held
        if button == "draw" and self.hands == "counts" and not pending and drew:
            copy = self.world.take()
            if copy is not None:
                self.world.put_in_hand(seat, copy)
                self.drawn = copy.card
        return out

    def pressed(self, press: Press) -> Outcome:
        """A seat's press, said in the transcript and pressed (a seat page's press arrives here
        as the very input the daemon's remote control queues: :func:`press_input`)."""
        key, params = press_line(self.state, press)
        self.say_move(key, **params)
        return self.press(press.seat, press.button)

    # --- the players' side ------------------------------------------------------------------------

    def perform(self, seat: int, action: Action | Press) -> Outcome:
        """Do ``action`` for ``seat`` the way a person at the table would: a card played or
        drawn by hand, a swap by the target's seat token, anything else (a colour named, a call,
        a catch, a pass, a challenge) by the seat's button, as the daemon takes it."""
        if isinstance(action, Press):
            return self.pressed(action)
        name = self.players[seat]
        if isinstance(action, Play):
            cards = action.cards  # several at once, where allowed: a colour named after the last
            out = self._play(seat, cards[0], action.color if len(cards) == 1 else None)
            for place, card in enumerate(cards[1:], 2):
                if out.journal_word == "rejected":
                    break
                out = self._play(seat, card, action.color if place == len(cards) else None)
            return out
        if isinstance(action, Draw):
            return self._draw(seat)
        if isinstance(action, Swap):  # Seven-O: the target's seat token on the play pad
            target = self.players[action.target]
            self.say_move("swaps", player=name, target=target)
            out = self.tap(PAD, Token(f"seat:{action.target + 1}"), name)
            if out.verdict == "accepted":
                self.world.move_hands({seat: action.target, action.target: seat})
            return out
        button = button_of(action)
        if button is None:
            raise SimError(f"the simulator cannot do {action!r} at the table")
        return self.pressed(Press(seat, button, 0.0))

    def _play(self, seat: int, card: Card, color: object) -> Outcome:
        name = self.players[seat]
        copy = self.world.copy_in_hand(seat, card)
        if copy is None:
            raise SimError(f"{name} holds no {card.code}")
        self.say_move("plays", player=name, card=card.code)
        self.world.play(seat, copy)
        out = self.tap(PAD, copy, name)
        if out.journal_word == "rejected":
            self.world.unshow(seat, copy)
            return out
        if any(a.key == "hands-passed" for a in out.announcements):  # Seven-O's 0
            s = self.state
            self.world.move_hands({i: s.next_seat(i) for i in s.active})
        if any(a.key == "shuffle-hands" for a in out.announcements):
            # Every hand collected, shuffled and dealt out again: the seat pads name them.
            self.world.redeal_hands([len(h) for h in self.state.hands])
        if color is not None and self.state.awaiting_color == seat:
            self.pressed(Press(seat, f"color:{getattr(color, 'value', color)}", 0.0))
        return out

    def _draw(self, seat: int) -> Outcome:
        name = self.players[seat]
        s = self.state
        exhausted = next_draw_source(s) == "none"  # every card in the hands: the turn passes
        if s.pending or exhausted or not self.world.pile or self.hands == "counts":
            # A penalty, an empty pile the referee must first remake from the discard pile, no
            # card left at all, or a table with only a play pad: the draw button, then the card
            # is taken (and, with seat pads, named on the seat pad) if the referee drew one.
            return self.pressed(Press(seat, "draw", 0.0))
        copy = self.world.take()
        assert copy is not None
        self.world.put_in_hand(seat, copy)
        self.say_move("draws-shoe", player=name)
        out = self.tap(SHOE, copy, name)
        if out.journal_word == "rejected":
            self.world.hands[seat].remove(copy)
            self.world.pile.append(copy)
        return out

    def sync(self, quiet: bool = False) -> None:
        """Cards the referee has given a hand unseen (a deal, a penalty, a redeal) are taken
        from the pile and named on that seat's pad (:func:`sim.tabletop.dealing.sync`)."""
        dealing.sync(self, quiet)

    def view(self, seat: int) -> SeatView:
        """What ``seat`` knows: the table, and its own hand (which with only a play pad the
        referee does not know, but the player does)."""
        return seat_view(self.own_state(seat), seat)

    def own_state(self, seat: int) -> State:
        """The game as ``seat`` knows it: the referee's state, with the seat's own hand as the
        player holds it."""
        s = self.state
        if not s.hands[seat].unknown:
            return s
        own = s.copy()
        own.hidden -= own.hands[seat].unknown  # the engine's count of cards nobody has named
        own.hands[seat] = Hand([c.card for c in self.world.hands[seat]], 0)
        if own.has_drawn and own.drawn_unknown and own.turn == seat and self.drawn is not None:
            own.drawn, own.drawn_unknown = self.drawn, False
        return own

    def deal(self) -> None:
        """Deal a round: cards to every seat pad, then turn up the first card on the play pad
        (:func:`sim.tabletop.dealing.deal`)."""
        dealing.deal(self)

    def next_round(self) -> Outcome:
        """Tap the next-round token."""
        self.say_move("next-round")
        return self.tap(PAD, Token("next-round"))

    def undo(self, admin: bool = False) -> Outcome:
        """Tap the undo token (``admin``: the admin page's undo, no token tapped); the table top
        goes back too."""
        if admin:
            out = self._send(Admin("undo", self.clock.advance()))
        else:
            out = self.tap(PAD, Token("undo"))
        if out.verdict == "accepted":
            earlier = self._world_before()
            if earlier is not None:
                self.world.restore(earlier)
        return out

    def undo_move(self, seat: int) -> bool:
        """Take back ``seat``'s last move this round and everything done since, one undo token
        at a time. The deal and the card turned up are never undone. False when ``seat`` has
        made no move this round."""
        for since, action in enumerate(reversed(self.log), start=1):
            if action is None or isinstance(action, TurnUp):
                break
            if actor(action) == seat and not isinstance(action, Identify):
                return all(self.undo().verdict == "accepted" for _ in range(since))
        self.say_move("nothing-to-undo")
        return False

    # --- checks ---------------------------------------------------------------------------------

    def check(self) -> None:
        """Card conservation, in the referee's engine and on the table top, agreeing."""
        s = self.state
        s.check_conservation()
        total = sum(edition_counts(self.options.deck).values())
        self.world.check([len(h) for h in s.hands], s.discard, total)

    def replayed(self) -> State:
        """The match replayed on the pure engine from the accepted actions alone, without any
        reader, fault or retry: its scores must equal the referee's."""
        s, _ = new_game(self.options, self.players, self.dealer)
        for action in self.log:
            if action is None:
                s, _ = next_round(s)
                continue
            step = apply(s, action)
            if step.verdict == "rejected":
                raise SimError(f"the replay refused {action!r}: {step.reason}")
            s = step.state
        return s
