"""The game state: every physical card is in exactly one place.

Places are the draw pile (known cards on top, then a count of unknown ones), the discard pile
(always known: cards are played face up) and the hands (known cards plus a count of unknown
ones). Which faces the unknown cards are is not tracked card by card: together they are the
*unknown pool*, the edition minus every known card.

A :class:`State` is mutable so that self-play can run in place; :func:`table.rules.engine.apply`
copies it first and is pure. Treat a state you did not make as read-only.
"""

from __future__ import annotations

import enum
from collections import Counter
from dataclasses import dataclass, field
from itertools import chain
from typing import TYPE_CHECKING, NamedTuple

from table.cards import Card, Color, edition_counts
from table.rules.events import EventKind
from table.rules.options import Options
from table.rules.variant_state import NO_EXTRA, Extra

if TYPE_CHECKING:
    from table.rules.hooks import Rules

MAX_PLAYERS = 10


class Phase(enum.Enum):
    """Where a round stands: before the first card, in play, won, or the match over."""
    START = "start"  # waiting for the card turned up
    PLAY = "play"
    ROUND_OVER = "round-over"  # won; scored once every losing hand is known
    MATCH_OVER = "match-over"


@dataclass(slots=True)
class Hand:
    """One seat's hand: the cards known, and how many unknown ones."""
    known: list[Card] = field(default_factory=list)
    unknown: int = 0

    def __len__(self) -> int:
        return len(self.known) + self.unknown

    def copy(self) -> Hand:
        """A copy whose list of known cards is its own."""
        return Hand(self.known.copy(), self.unknown)

    @property
    def fully_known(self) -> bool:
        """Whether every card of the hand is known."""
        return self.unknown == 0


@dataclass(frozen=True, slots=True)
class ChallengeWindow:
    """A Wild Draw Four that its target may still challenge."""

    offender: int
    target: int
    # The offender's hand without the Wild Draw Four, as it was when it was played.
    hand: tuple[Card, ...]
    hand_unknown: int
    # What the Wild Draw Four covered: for the legality check and for a take-back.
    prior_color: Color | None
    prior_rank: str | None
    color_was_named: bool
    # Stacked on a Draw Two: guilty iff a Draw Two of the current colour was held [000].
    stacked: bool = False
    # How many Wild Draw Fours went down together (``multi_play``): a take-back takes them all.
    cards: int = 1
    # Who challenged, when not the target (``challengers = "any"``), while the hand is shown.
    challenger: int | None = None


@dataclass(frozen=True, slots=True)
class RoundResult:
    """A round's winner and the points each seat scored."""
    winner: int
    points: tuple[int, ...]


class Event(NamedTuple):
    """One thing that happened, for announcements and logs. Carries only public information.

    A named tuple rather than a frozen dataclass: events are made on every action, and a tuple
    is several times cheaper to build."""

    kind: EventKind
    player: int | None = None
    target: int | None = None
    card: Card | None = None
    color: Color | None = None
    count: int = 0  # type: ignore[assignment]  # shadows tuple.count, never used here
    reason: str | None = None


@dataclass(slots=True)
class State:
    """The whole game: piles, hands, turn, calls, scores, what the variants remember."""
    options: Options
    players: tuple[str, ...]
    # The hooks of the variants these options turn on (table.rules.hooks): shared, immutable.
    rules: Rules
    round: int = 1
    dealer: int = 0
    phase: Phase = Phase.START
    turn: int = 0
    direction: int = 1
    discard: list[Card] = field(default_factory=list)
    color: Color | None = None
    # The rank the next card may match (the top card's; ``None`` under a plain wild).
    live_rank: str | None = None
    pile: list[Card] = field(default_factory=list)  # known top of the draw pile, top last
    pile_unknown: int = 0
    hands: list[Hand] = field(default_factory=list)
    # The unknown cards in all the hands (the sum of their ``unknown``), kept by the engine
    # with them: whether any hand needs identifying is then one test, not a loop over seats.
    hidden: int = 0
    called: list[bool] = field(default_factory=list)
    uno_calls: list[int] = field(default_factory=list)  # calls made this round (doubling)
    pending: int = 0  # cards the player on turn must draw unless they stack or challenge
    challenge: ChallengeWindow | None = None
    awaiting_color: int | None = None  # this seat must name a colour before play goes on
    awaiting_show: int | None = None  # this challenged seat must show its hand
    has_drawn: bool = False
    drawn: Card | None = None  # the card drawn this turn, when known
    drawn_unknown: bool = False  # the card drawn this turn is not known
    uno_window: int | None = None  # seat that went down to one card uncalled, still catchable
    uno_next: int | None = None  # the seat that was next when the window opened
    winner: int | None = None  # this round's winner
    scores: list[int] = field(default_factory=list)
    # Immutable, so that a copy shares it (the undo history keeps one per input).
    results: tuple[RoundResult, ...] = ()
    eliminated: list[bool] = field(default_factory=list)
    unverified: int = 0  # plays accepted without being able to check them
    extra: Extra = NO_EXTRA  # what the variants remember (immutable: shared, as a default)

    # --- derived --------------------------------------------------------------------------

    @property
    def n(self) -> int:
        """The number of seats."""
        return len(self.players)

    @property
    def top(self) -> Card | None:
        """The top card of the discard pile."""
        return self.discard[-1] if self.discard else None

    @property
    def current_player(self) -> int | None:
        """Whose move it is, or ``None`` when no one's (start, round or match over)."""
        if self.phase is not Phase.PLAY:
            return None
        if self.awaiting_color is not None:
            return self.awaiting_color
        rules = self.rules
        if "awaiting" not in rules.hooked:  # the official game waits for no one else
            return self.turn
        waiting = rules.awaiting(self)
        return self.turn if waiting is None else waiting

    @property
    def pile_size(self) -> int:
        """The cards in the draw pile, known and unknown."""
        return len(self.pile) + self.pile_unknown

    def next_seat(self, seat: int, steps: int = 1, direction: int | None = None) -> int:
        """The seat ``steps`` places after ``seat`` in the direction of play, skipping seats
        that were eliminated."""
        d = self.direction if direction is None else direction
        n = len(self.players)
        if steps == 1:  # the common case: one step, to a seat still in the match
            seat = (seat + d) % n
            if not self.eliminated[seat]:
                return seat
            seat -= d  # back one: the loop below takes the step again, skipping
        eliminated = self.eliminated
        while steps > 0:
            seat = (seat + d) % n
            while eliminated[seat]:
                seat = (seat + d) % n
            steps -= 1
        return seat

    @property
    def active(self) -> list[int]:
        """The seats still in the match."""
        return [i for i in range(self.n) if not self.eliminated[i]]

    def copy(self) -> State:
        # A hand-written copy: ``copy.deepcopy`` is an order of magnitude slower.
        """A copy that shares nothing mutable with this state."""
        return State(
            options=self.options,
            players=self.players,
            rules=self.rules,
            round=self.round,
            dealer=self.dealer,
            phase=self.phase,
            turn=self.turn,
            direction=self.direction,
            discard=self.discard.copy(),
            color=self.color,
            live_rank=self.live_rank,
            pile=self.pile.copy(),
            pile_unknown=self.pile_unknown,
            hands=[h.copy() for h in self.hands],
            hidden=self.hidden,
            called=self.called.copy(),
            uno_calls=self.uno_calls.copy(),
            pending=self.pending,
            challenge=self.challenge,
            awaiting_color=self.awaiting_color,
            awaiting_show=self.awaiting_show,
            has_drawn=self.has_drawn,
            drawn=self.drawn,
            drawn_unknown=self.drawn_unknown,
            uno_window=self.uno_window,
            uno_next=self.uno_next,
            winner=self.winner,
            scores=self.scores.copy(),
            results=self.results,
            eliminated=self.eliminated.copy(),
            unverified=self.unverified,
            extra=self.extra,
        )

    # --- card accounting --------------------------------------------------------------------

    def known_counts(self) -> Counter[Card]:
        """Every card whose place is known, with its count."""
        return Counter(chain(self.discard, self.pile, *[hand.known for hand in self.hands]))

    def unknown_pool(self) -> Counter[Card]:
        """The faces of the cards whose place is not known, with their counts."""
        pool = Counter(edition_counts(self.options.deck))
        pool.subtract(self.known_counts())
        return +pool

    def unknown_slots(self) -> int:
        """The unknown cards in the pile and the hands."""
        return self.pile_unknown + sum(h.unknown for h in self.hands)

    def is_available(self, card: Card) -> bool:
        """Whether one copy of ``card`` could be among the unknown cards."""
        total = edition_counts(self.options.deck).get(card, 0)
        if total == 0:
            return False
        # Stop counting as soon as every copy is found: usually in the discard pile or a hand.
        known = self.discard.count(card) + self.pile.count(card)
        if known >= total:
            return False
        for hand in self.hands:
            known += hand.known.count(card)
            if known >= total:
                return False
        return True

    def check_conservation(self) -> None:
        """Raise ``AssertionError`` unless every physical card is in exactly one place."""
        edition = edition_counts(self.options.deck)
        known = self.known_counts()
        for card, count in known.items():
            assert count <= edition.get(card, 0), f"{count} known copies of {card}"
        placed = sum(known.values()) + self.unknown_slots()
        deck = sum(edition.values())
        assert placed == deck, f"{placed} cards placed, the deck has {deck}"
        assert all(h.unknown >= 0 for h in self.hands) and self.pile_unknown >= 0
        hidden = sum(h.unknown for h in self.hands)
        assert self.hidden == hidden, f"{self.hidden} hidden cards counted, the hands hold {hidden}"
