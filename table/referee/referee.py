"""The referee: from tag reads and button presses to refereed play.

It maps what the hardware reports, through the reader roles (``play``, ``seat``, ``draw``), the
seat map and the deck registry, to engine actions; it keeps table hygiene (a card re-read on a
pad is one read, a card already played or held elsewhere is refused politely, an unknown tag is
announced and ignored) and it tracks every physical copy, so one card can never be in two places.

It is single-threaded by design: the daemon feeds it from one queue. It has no clock of its
own: every input carries its time.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from table.cards import COLORS, Card, CardCopy, Color
from table.errors import TableError
from table.inputs import (
    ROLES,
    Admin,
    Input,
    Press,
    ReaderRole,
    ReaderStatus,
    TagLifted,
    TagRead,
    Tick,
)
from table.referee.announcements import Announcement, rejection_key
from table.referee.registry import Deck, Token
from table.referee.said import from_events
from table.rules import (
    Action,
    CallUno,
    Catch,
    Challenge,
    ChooseColor,
    Deal,
    Don,
    Draw,
    Identify,
    Options,
    Pass,
    Phase,
    Play,
    Show,
    State,
    Swap,
    TurnUp,
    apply,
    new_game,
    next_round,
    uno_due,
)
from table.rules.events import EventKind
from table.rules.state import Event

BUTTONS = ("uno", "draw", "pass", "challenge", "don")
# A seat that names the colour of its wild by a press (a phone's colour buttons) rather than by
# a colour token on the play pad: journaled and replayed like any other press.
COLOR_PRESSES = tuple(f"color:{c.value}" for c in COLORS)


class RefereeError(TableError, ValueError):
    """A table set-up the referee cannot run (an unknown role, two play pads...)."""


@dataclass(frozen=True, slots=True)
class Outcome:
    """What one input did: ``verdict`` is accepted, rejected, penalty or ignored."""

    verdict: str
    reason: str | None = None
    announcements: tuple[Announcement, ...] = ()
    action: Action | None = None
    next_match: bool = False  # the next-round token once the match is over: a new match begins

    @property
    def journal_word(self) -> str:
        """The verdict as the journal, the event stream and a scenario's record write it
        (docs/design.md §3 has three words: an input the referee ignored reads as rejected).
        Not what the buzzer follows: that is :attr:`verdict` itself."""
        return "rejected" if self.verdict == "ignored" else self.verdict


@dataclass
class _Snapshot:
    state: State
    places: dict[CardCopy, str]


@dataclass
class Referee:
    """One table: its engine state, the physical copies and the undo history."""

    state: State
    deck: Deck
    readers: dict[str, ReaderRole]
    places: dict[CardCopy, str] = field(default_factory=dict)  # copy -> "discard" | "hand:N"
    history: list[_Snapshot] = field(default_factory=list)
    actor: int | None = None  # chosen by a seat:N token for the next action
    showing: list[Card] = field(default_factory=list)  # cards shown on the play pad so far
    on_pad: dict[str, str] = field(default_factory=dict)  # reader -> uid resting on it
    reminder_after: float = 5.0  # seconds before a missing wild colour is asked for again
    now: float = 0.0  # the time of the latest input
    color_since: float | None = None  # when the referee started waiting for a colour
    due: int | None = None  # the seat that was last given cards (for the draw shoe)
    reader_states: dict[str, str] = field(default_factory=dict)  # reader -> its last state
    readers_down: set[str] = field(default_factory=set)  # said lost or waiting, not back yet
    last_play: Play | None = None  # the latest accepted action, when it was a play
    reshown: str | None = None  # the last card of a hand just shown, resting on the play pad
    speaking: bool = True  # False while a journal is replayed: nothing is said, only state

    @classmethod
    def create(
        cls,
        options: Options,
        players: Sequence[str],
        deck: Deck,
        readers: Sequence[ReaderRole],
        dealer: int = 0,
        deal: Deal | None = None,
    ) -> tuple[Referee, list[Announcement]]:
        """A referee at the start of a match, and what it says first."""
        roles: dict[str, ReaderRole] = {}
        for r in readers:
            if r.role not in ROLES:
                raise RefereeError(
                    f"reader {r.name}: unknown role {r.role!r}: use play, seat or draw"
                )
            if r.role == "seat" and (r.seat is None or not 0 <= r.seat < len(players)):
                raise RefereeError(f"reader {r.name}: a seat reader needs one of the players")
            roles[r.name] = r
        if sum(r.role == "play" for r in readers) != 1:
            raise RefereeError("a table has exactly one play pad (role = \"play\")")
        state, events = new_game(options, players, dealer, deal)
        ref = cls(state, deck, roles)
        return ref, ref._say(events)

    # --- helpers --------------------------------------------------------------------------

    def _say(self, events: Sequence[Event]) -> list[Announcement]:
        if not self.speaking:
            return []
        return from_events(events, self.state.players, self.state.options)

    def _refuse(self, key: str, reason: str) -> Outcome:
        """Refuse with the phrase ``key`` (``"rejected"``: the reason's own phrase, if any)."""
        if key == "rejected":
            key = rejection_key(reason)
        return Outcome("rejected", reason, (Announcement(key, (), 2),))

    def act(self, action: Action) -> Outcome:
        """Apply a game action given directly (a scenario's game line, a bot's move)."""
        return self._act(action)

    def _act(self, action: Action, copy: CardCopy | None = None, place: str = "") -> Outcome:
        step = apply(self.state, action)
        anns = tuple(self._say(step.events))
        if step.verdict == "rejected":
            return Outcome("rejected", step.reason, anns, action)
        self.history.append(_Snapshot(self.state, dict(self.places)))
        self.state = step.state
        self.last_play = action if isinstance(action, Play) else None
        if copy is not None and place and not any(e.kind is EventKind.BURIED for e in step.events):
            # (a buried first card went back into the pile). Placed last: the newest copy on
            # the discard pile is its top, the one copy a reshuffle leaves there.
            self.places.pop(copy, None)
            self.places[copy] = place
        for event in step.events:
            drew = event.kind in (EventKind.PENALTY, EventKind.DREW)
            if drew and event.count and event.player is not None:
                self.due = event.player
        self._hands_moved(step.events)
        if any(e.kind is EventKind.SHUFFLE_HANDS for e in step.events):
            # Every hand was collected and dealt again: the seat pads name the cards anew.
            self.places = {c: p for c, p in self.places.items() if not p.startswith("hand:")}
        if any(e.kind is EventKind.RESHUFFLED for e in step.events):
            # Only the copy lying on top stays played; another copy of the same card that was
            # under it is in the new draw pile now, and may be drawn.
            top = self._top_copy()
            self.places = {c: p for c, p in self.places.items() if p != "discard" or c is top}
        return Outcome(step.verdict, step.reason, anns, action)

    def _hands_moved(self, events: Sequence[Event]) -> None:
        """Seven-O: the copies in hands that changed owner (a swap, a 0 passing every hand
        on) are now the new owner's, so their owner may play them."""
        moved: dict[str, str] = {}
        for e in events:
            if e.kind is EventKind.SWAPPED and e.player is not None and e.target is not None:
                moved = {f"hand:{e.player}": f"hand:{e.target}",
                         f"hand:{e.target}": f"hand:{e.player}"}
            elif e.kind is EventKind.HANDS_PASSED:
                s = self.state
                moved = {f"hand:{i}": f"hand:{s.next_seat(i, direction=e.count)}"
                         for i in s.active}
        if moved:
            self.places = {c: moved.get(p, p) for c, p in self.places.items()}

    def _top_copy(self) -> CardCopy | None:
        """The copy on top of the discard pile: the one placed there last, when it is the
        engine's top card (a card the referee was told of without a tag has no copy)."""
        played = [c for c, p in self.places.items() if p == "discard"]
        return played[-1] if played and played[-1].card is self.state.top else None

    def _who(self, default: int) -> int:
        seat = self.actor if self.actor is not None else default
        self.actor = None
        return seat

    # --- inputs ---------------------------------------------------------------------------

    def handle(self, item: Input) -> Outcome:
        """One input: what it did (the state, places and history change in place)."""
        self.now = max(self.now, item.t)
        if isinstance(item, Tick):
            out = self._tick()
        elif isinstance(item, ReaderStatus):
            out = self._reader_status(item)
        elif isinstance(item, TagLifted):
            out = self._lifted(item)
        elif isinstance(item, Press):
            out = self._press(item)
        elif isinstance(item, Admin):
            out = self._admin(item)
        else:
            out = self._tag(item)
        waiting = self.state.awaiting_color is not None
        if not waiting:
            self.color_since = None
        elif self.color_since is None:
            self.color_since = self.now
        return out

    def _reader_status(self, status: ReaderStatus) -> Outcome:
        """A reader lost, not plugged in yet, or back: said aloud; the game state is untouched."""
        was = self.reader_states.get(status.reader)
        self.reader_states[status.reader] = status.state
        if status.state == "lost" and was != "lost":
            key = "reader-lost"
        elif status.state == "waiting" and was not in ("waiting", "lost"):
            key = "reader-waiting"
        elif status.state == "live" and status.reader in self.readers_down:
            key = "reader-back"
        else:
            return Outcome("ignored")
        if key == "reader-back":
            self.readers_down.discard(status.reader)
        else:
            self.readers_down.add(status.reader)
        return Outcome("accepted", None, (Announcement(key, (("reader", status.reader),), 2),))

    def _tick(self) -> Outcome:
        seat = self.state.awaiting_color
        if seat is None or self.color_since is None:
            return Outcome("ignored")
        if self.now - self.color_since < self.reminder_after:
            return Outcome("ignored")
        self.color_since = self.now  # remind again after the same delay
        name = self.state.players[seat]
        return Outcome("ignored", None, (Announcement("color-reminder", (("player", name),), 2),))

    def _lifted(self, lifted: TagLifted) -> Outcome:
        """A tag taken off a pad: the next read of it there is a new tap (a card refused, then
        tapped again once it is that player's turn), not the same card still resting."""
        if self.on_pad.get(lifted.reader) == lifted.uid:
            del self.on_pad[lifted.reader]
        return Outcome("ignored")

    def _admin(self, a: Admin) -> Outcome:
        """An admin page's undo or next round: what the token does, with no token on the pad
        (so a card resting there stays resting, and a seat token chosen stays chosen)."""
        if a.action == "undo":
            return self.undo()
        if a.action == "next-round":
            return self.next_round()
        return self._refuse("rejected", "unknown-admin-action")

    def _press(self, p: Press) -> Outcome:
        s = self.state
        if (p.button not in BUTTONS and p.button not in COLOR_PRESSES) or not 0 <= p.seat < s.n:
            return self._refuse("rejected", "unknown-button")
        if p.button == "uno":
            return self._uno(p.seat)
        if p.button in COLOR_PRESSES:
            return self._act(ChooseColor(p.seat, Color(p.button[6:])))
        actions: dict[str, Action] = {
            "draw": Draw(p.seat),
            "pass": Pass(p.seat),
            "challenge": Challenge(p.seat),
            "don": Don(p.seat),
        }
        return self._act(actions[p.button])

    def _uno(self, seat: int) -> Outcome:
        """"UNO" from ``seat`` (a button, or a seat token then the uno token): while another
        player who went down to one card uncalled is catchable, a catch of that player; else
        the seat's own call when UNO is due to it; else, while another player holds one card,
        a catch attempt (a false catch when that player had called, docs/rules.md §2)."""
        s = self.state
        window = s.uno_window
        if window is not None and window != seat and not s.called[window]:
            return self._act(Catch(seat, window))
        if not uno_due(s, seat):
            target = self._one_card_holder(seat)
            if target is not None:
                return self._act(Catch(seat, target))
        return self._act(CallUno(seat))

    def _one_card_holder(self, catcher: int) -> int | None:
        """Who a catch attempt from ``catcher`` aims at when nobody is catchable: of the other
        players holding one card, the one who played most recently, taken as the nearest one
        before the player on turn against the direction of play (the player on turn last)."""
        s = self.state
        seat = s.turn
        for _ in range(s.n):
            seat = s.next_seat(seat, direction=-s.direction)
            if seat != catcher and len(s.hands[seat]) == 1:
                return seat
        return None

    def _tag(self, read: TagRead) -> Outcome:
        role = self.readers.get(read.reader)
        if role is None:
            return Outcome("ignored", "unknown-reader")
        if self.on_pad.get(read.reader) == read.uid and not self._shown_then_played(read):
            return Outcome("ignored", "still-on-pad")  # a card resting on a pad is one read
        self.on_pad[read.reader] = read.uid
        tag = self.deck.lookup(read.uid)
        if tag is None:
            return self._refuse("unknown-tag", "unknown-tag")
        if isinstance(tag, Token):
            if role.role != "play":
                return self._refuse("rejected", "token-on-seat-pad")
            out = self._token(tag)
            if tag.name == "next-round":
                self.on_pad[read.reader] = read.uid  # still resting there: one read, one round
            return out
        where = self.places.get(tag)
        if role.role == "play":
            out = self._play_pad(tag, where)
            self.reshown = read.uid if isinstance(out.action, Show) else None
            return out
        seat = role.seat if role.role == "seat" else self._due()
        assert seat is not None
        return self._seat_pad(seat, tag, where)

    def _shown_then_played(self, read: TagRead) -> bool:
        """The last card of a hand shown on the play pad, tapped again by its owner on their
        turn: the hand went back to its player in between, so this is a play."""
        if read.uid != self.reshown:
            return False
        tag = self.deck.lookup(read.uid)
        s = self.state
        return isinstance(tag, CardCopy) and self.places.get(tag) == f"hand:{s.turn}"

    def _token(self, token: Token) -> Outcome:
        s = self.state
        name = token.name
        if name.startswith("seat:"):
            seat = int(name[5:]) - 1
            if seat >= s.n:
                return self._refuse("rejected", "no-such-player")
            swapper = s.extra.awaiting_swap
            if swapper is not None:  # Seven-O: the player of the 7 names whose hand to take
                return self._act(Swap(self._who(swapper), seat))
            self.actor = seat
            return Outcome("accepted", None, ())
        if name.startswith("color:"):
            namer = s.awaiting_color if s.awaiting_color is not None else s.turn
            return self._act(ChooseColor(self._who(namer), Color(name[6:])))
        if name == "undo":
            return self.undo()
        if name == "next-round":
            return self.next_round()
        if name == "uno":
            default = s.uno_window if s.uno_window is not None else s.turn
            return self._uno(self._who(default))
        if name == "draw":
            return self._act(Draw(self._who(s.turn)))
        if name == "pass":
            return self._act(Pass(self._who(s.turn)))
        if name == "challenge":
            return self._act(Challenge(self._who(s.turn)))
        if name == "don":
            if self.actor is None:  # a Don is out of turn: it needs the caller's seat token
                return self._refuse("rejected-don-needs-seat", "don-needs-seat")
            return self._act(Don(self._who(s.turn)))
        return self._refuse("rejected", "not-in-these-rules")

    def _play_pad(self, copy: CardCopy, where: str | None) -> Outcome:
        s = self.state
        card = copy.card
        if s.phase is Phase.ROUND_OVER and self.shower() is None:
            return self._refuse("rejected-round-over", "round-over")
        if where == "discard":
            return self._refuse("rejected-card-not-available", "card-already-played")
        if s.phase is Phase.START:
            return self._act(TurnUp(card), copy, "discard")
        shower = self.shower()
        if shower is not None:
            return self._show_card(shower, copy, where)
        # A card known to be in a hand is played by that hand's player, unless a seat token
        # said otherwise: the card itself tells who is acting (out of turn, or jumping in).
        if where is not None and where.startswith("hand:"):
            default = int(where[5:])
        else:
            default = self._owner(card)
        seat = self._who(default)
        if where is not None and where != f"hand:{seat}":
            return self._refuse("rejected-card-not-in-hand", "card-in-another-hand")
        joined = self._join_play(seat, copy)
        if joined is not None:
            return joined
        return self._act(Play(seat, (card,)), copy, "discard")

    def _owner(self, card: Card) -> int:
        """Who plays a card no pad has placed: the player on turn when they could hold it;
        else the one player who could (holding it among their known cards, or among unknown
        ones while a copy is unaccounted for), whose play it then is (joining the play they
        just made, or out of turn); else the player on turn, whose play is refused."""
        s = self.state
        free: bool | None = None  # whether a copy could be among the unknown cards

        def could_hold(seat: int) -> bool:
            nonlocal free
            hand = s.hands[seat]
            if card in hand.known:
                return True
            if not hand.unknown:
                return False
            if free is None:
                free = s.is_available(card)
            return free

        if could_hold(s.turn):
            return s.turn
        holders = [seat for seat in s.active if seat != s.turn and could_hold(seat)]
        return holders[0] if len(holders) == 1 else s.turn

    def _join_play(self, seat: int, copy: CardCopy) -> Outcome | None:
        """Several cards at once (``multi_play``, ``two_card_play``) arrive one tap at a time:
        a card of the same rank from the player who just played, before anything else
        happened, joins that play. The play is taken back and made again with every card, so
        the effects add up as for one play (and one undo takes back all of it). Wilds join
        too, before their colour is named (naming it is the next action)."""
        last = self.last_play
        opts = self.state.options
        if (
            last is None
            or last.player != seat
            or not self.history
            or (opts.multi_play == "off" and not opts.two_card_play)
            or copy.card.rank != last.cards[0].rank
        ):
            return None
        before = self.history[-1]
        whole = Play(seat, (*last.cards, copy.card), last.color)
        if apply(before.state, whole).verdict == "rejected":
            return None
        played = {c: p for c, p in self.places.items() if p == "discard"}
        self.history.pop()
        self.state, self.places = before.state, before.places
        out = self._act(whole, copy, "discard")
        # The cards of the play stay on the discard pile, the card tapped last on top.
        rest = {c: p for c, p in self.places.items() if c not in played}
        self.places = {**played, **rest}
        return out

    def _due(self) -> int:
        """Who a card passing the draw shoe goes to: the player who was last given cards that
        are not yet named (a penalty, a catch), else the player on turn."""
        due = self.due
        if due is not None and self.state.hands[due].unknown:
            return due
        return self.state.turn

    def shower(self) -> int | None:
        """The seat that must show its hand on the play pad now, if any."""
        s = self.state
        if s.awaiting_show is not None:
            return s.awaiting_show
        if s.phase is Phase.ROUND_OVER and len(s.results) < s.round:
            hidden = [i for i in s.active if i != s.winner and s.hands[i].unknown]
            return hidden[0] if hidden else None
        return None

    def _show_card(self, seat: int, copy: CardCopy, where: str | None) -> Outcome:
        if where is not None and where != f"hand:{seat}":
            return self._refuse("rejected-card-not-in-hand", "card-in-another-hand")
        self.showing.append(copy.card)
        hand = self.state.hands[seat]
        if len(self.showing) < len(hand):
            self.places[copy] = f"hand:{seat}"
            return Outcome("accepted", None, ())
        shown, self.showing = tuple(self.showing), []
        out = self._act(Show(seat, shown))
        if out.verdict != "rejected":
            self.places[copy] = f"hand:{seat}"
        return out

    def _seat_pad(self, seat: int, copy: CardCopy, where: str | None) -> Outcome:
        """A card read on a seat pad (or the shoe): it is now in that hand."""
        s = self.state
        if where == "discard":
            return self._refuse("rejected-card-not-available", "card-already-played")
        if where is not None:
            if where == f"hand:{seat}":
                return Outcome("ignored", "already-in-hand")
            return self._refuse("rejected-card-not-available", "card-in-another-hand")
        hand = s.hands[seat]
        if s.phase is Phase.PLAY and seat == s.turn and not s.pending and not hand.unknown:
            return self._act(Draw(seat, copy.card), copy, f"hand:{seat}")
        return self._act(Identify(seat, copy.card), copy, f"hand:{seat}")

    # --- undo and rounds ------------------------------------------------------------------

    def undo(self) -> Outcome:
        """Take back the latest action (the undo token)."""
        if not self.history:
            return self._refuse("rejected-nothing-to-undo", "nothing-to-undo")
        snap = self.history.pop()
        self.state, self.places = snap.state, snap.places
        self.last_play = None
        self.on_pad.clear()
        return Outcome("accepted", None, (Announcement("undone"),))

    def next_round(self, deal: Deal | None = None, dealer: int | None = None) -> Outcome:
        """Deal the next round once a round is over (the next-round token)."""
        try:
            state, events = next_round(self.state, deal, dealer)
        except TableError as exc:
            reason = str(getattr(exc, "reason", "round-not-over"))
            out = self._refuse("rejected", reason)
            return replace(out, next_match=True) if reason == "match-over" else out
        self.history.append(_Snapshot(self.state, dict(self.places)))
        self.state = state
        self.places = {}
        self.last_play = None
        self.on_pad.clear()
        return Outcome("accepted", None, tuple(self._say(events)))
