"""The rules engine: a state and an action give the next state and what happened.

:func:`apply` is pure (it works on a copy); :func:`apply_in_place` mutates the state and is what
self-play and benchmarks use. Every check runs before the first change, so a rejected action
leaves the state as it was even in place.

Choices where RULES.md leaves room are documented where they are made (search "Choice:").
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from table.cards import (
    CUSTOMIZABLE,
    DRAW_TWO,
    REVERSE,
    SHUFFLE_HANDS,
    SKIP,
    WILD,
    WILD_DRAW_FOUR,
    Card,
    Color,
    edition_counts,
)
from table.errors import IllegalPlay, SetupError
from table.rules.actions import (
    Action,
    CallUno,
    Catch,
    Challenge,
    ChooseColor,
    Don,
    Draw,
    Identify,
    Pass,
    Play,
    Reshuffle,
    Show,
    Swap,
    TurnUp,
    actor,
)
from table.rules.events import EventKind
from table.rules.matching import has_playable, matches, wd4_guilty
from table.rules.options import Options
from table.rules.scoring import score_round
from table.rules.state import MAX_PLAYERS, ChallengeWindow, Event, Hand, Phase, State
from table.rules.variant_state import round_extra

# The commonest events, made once per seat: events are immutable values.
_TURN = tuple(Event(EventKind.TURN, seat) for seat in range(MAX_PLAYERS))
_SKIPPED = tuple(Event(EventKind.SKIPPED, seat) for seat in range(MAX_PLAYERS))
_DREW_ONE = tuple(Event(EventKind.DREW, seat, count=1) for seat in range(MAX_PLAYERS))
_PASSED = tuple(Event(EventKind.PASSED, seat) for seat in range(MAX_PLAYERS))
# "played" events of coloured cards, per seat and card, made when first needed.
_PLAYED: tuple[dict[Card, Event], ...] = tuple({} for _ in range(MAX_PLAYERS))
# ... and of wilds, per seat, card and id() of the colour named (or of None).
_PLAYED_WILD: tuple[dict[tuple[Card, int], Event], ...] = tuple({} for _ in range(MAX_PLAYERS))
# "reversed" events, by the new direction.
_REVERSED = {d: Event(EventKind.REVERSED, count=d) for d in (1, -1)}
_PLAY = Phase.PLAY  # a module global is read faster than an enum member
# What _resolve_effect needs of a Wild Draw Four (the rest of the hand, its unknown cards, the
# colour and rank it covered), for any other card.
_NOT_WD4: tuple[Sequence[Card], int, Color | None, str | None] = ((), 0, None, None)

# Reasons that make a step a "penalty" rather than a plain "accepted".
PENALTY_REASONS = frozenset(
    {"uno-not-called", "illegal-wild-draw-four", "challenge-failed", "false-catch", "false-don"}
)


@dataclass(frozen=True, slots=True)
class Step:
    """The outcome of one action: the new state, the verdict and what happened."""

    state: State
    verdict: str  # accepted | rejected | penalty
    reason: str | None
    events: list[Event] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Deal:
    """How a round starts. ``hands`` gives each seat's known cards and unknown count; ``pile`` is
    the known top of the draw pile, top first; ``start`` is the card turned up (with any cards
    turned up before it that had to be buried). Unknown cards fill the rest of the deck."""

    hands: Sequence[tuple[Sequence[Card], int]] | None = None
    pile: Sequence[Card] = ()
    start: Sequence[Card] = ()


# ---------------------------------------------------------------------------------------------
# Set-up


def same_names(players: Sequence[str]) -> str | None:
    """What is wrong when two names are one name in any case (``Aki``, ``aki``), else None.
    Choice: names are told apart without case, as scenarios and seat names are read."""
    seen: dict[str, str] = {}
    for name in players:
        first = seen.get(name.casefold())
        if first is None:
            seen[name.casefold()] = name
        elif first == name:
            return f"{name!r} is named twice"
        else:
            return f"{first!r} and {name!r} are one name (names are read in any case)"
    return None


def new_game(
    options: Options, players: Sequence[str], dealer: int = 0, deal: Deal | None = None
) -> tuple[State, list[Event]]:
    """A new match: round 1 dealt by ``dealer``."""
    if not 2 <= len(players) <= MAX_PLAYERS:
        raise SetupError(f"UNO is for 2 to {MAX_PLAYERS} players, not {len(players)}")
    twins = same_names(players)
    if twins:
        raise SetupError(f"two players have the same name: {twins}")
    if not 0 <= dealer < len(players):
        raise SetupError(f"no seat {dealer} to deal from")
    n = len(players)
    base = State(
        options=options,
        players=tuple(players),
        dealer=dealer,
        scores=[0] * n,
        eliminated=[False] * n,
    )
    return _deal_round(base, deal or Deal())


def next_round(
    state: State, deal: Deal | None = None, dealer: int | None = None
) -> tuple[State, list[Event]]:
    """The next round of the match, dealt per ``next_dealer`` (or by ``dealer``). Pure."""
    if state.phase is Phase.MATCH_OVER:
        raise IllegalPlay("match-over", "the match is over")
    if state.phase is not Phase.ROUND_OVER or len(state.results) < state.round:
        raise IllegalPlay("round-not-over", "the round is not over yet")
    s = state.copy()
    assert s.winner is not None
    if dealer is not None:
        s.dealer = dealer
    elif s.options.next_dealer == "winner":
        s.dealer = s.winner
    else:
        s.dealer = s.next_seat(s.dealer, direction=1)
    s.round += 1
    return _deal_round(s, deal or Deal())


def _deal_round(s: State, deal: Deal) -> tuple[State, list[Event]]:
    opts = s.options
    n = s.n
    edition = edition_counts(opts.deck)
    s.phase = Phase.START
    s.turn = s.dealer
    s.direction = 1
    s.discard = []
    s.color = None
    s.live_rank = None
    s.pending = 0
    s.challenge = None
    s.awaiting_color = None
    s.awaiting_show = None
    s.has_drawn = False
    s.drawn = None
    s.drawn_unknown = False
    s.uno_window = None
    s.uno_next = None
    s.winner = None
    s.called = [False] * n
    s.uno_calls = [0] * n
    s.extra = round_extra(s.extra, opts, n)
    if deal.hands is None:
        s.hands = [Hand([], 0 if s.eliminated[i] else opts.hand_size) for i in range(n)]
    else:
        if len(deal.hands) != n:
            raise SetupError(f"{len(deal.hands)} hands dealt for {n} players")
        s.hands = [Hand(list(known), unknown) for known, unknown in deal.hands]
        for i, hand in enumerate(s.hands):
            if hand.unknown < 0:
                raise SetupError(f"{s.players[i]} cannot hold a negative number of cards")
            if s.eliminated[i] and len(hand):
                raise SetupError(f"{s.players[i]} is out of the match and gets no cards")
    s.hidden = sum(h.unknown for h in s.hands)
    s.pile = list(reversed(deal.pile))
    known = s.known_counts()
    known.update(deal.start)
    for card, count in known.items():
        if count > edition.get(card, 0):
            raise SetupError(
                f"the {opts.deck} deck has {edition.get(card, 0)} of {card}, "
                f"the set-up uses {count}"
            )
    total = sum(edition.values())
    used = sum(known.values()) + sum(h.unknown for h in s.hands)
    if used > total:
        raise SetupError(f"the set-up uses {used} cards; the {opts.deck} deck has {total}")
    s.pile_unknown = total - used + len(deal.start)
    events: list[Event] = [Event(EventKind.ROUND_START, player=s.dealer, count=s.round)]
    for card in deal.start:
        if s.phase is not Phase.START:
            raise SetupError("cards after the first card that stays turned up")
        s.pile_unknown -= 1
        _turn_up(s, card, events)
    return s, events


def choose_dealer(n: int, draw: Callable[[int], Card], options: Options) -> int:
    """The dealer draw [000][002][003]: each seat draws a card, the highest number deals.

    ``draw(seat)`` is the chance source. Action and wild cards count as 0
    (``dealer_draw_actions = "zero"``) or are drawn again (``"redraw"``); ties redraw among the
    tied seats.
    """
    candidates = list(range(n))
    while len(candidates) > 1:
        values: dict[int, int] = {}
        for seat in candidates:
            card = draw(seat)
            while card.number is None and options.dealer_draw_actions == "redraw":
                card = draw(seat)
            values[seat] = card.number or 0
        best = max(values.values())
        candidates = [seat for seat in candidates if values[seat] == best]
    return candidates[0]


# ---------------------------------------------------------------------------------------------
# The public entry points


def apply(state: State, action: Action) -> Step:
    """Apply ``action`` to a copy of ``state``. Never raises for a game action: an illegal one is
    a ``rejected`` step with a stable reason code, and the state is the one given."""
    new = state.copy()
    try:
        events = apply_in_place(new, action)
    except IllegalPlay as exc:
        rejected = Event(EventKind.REJECTED, actor(action), reason=exc.reason)
        return Step(state, "rejected", exc.reason, [rejected])
    return _step(new, events)


def _step(state: State, events: list[Event]) -> Step:
    for event in events:
        if event.kind is EventKind.PENALTY and event.reason in PENALTY_REASONS:
            return Step(state, "penalty", event.reason, events)
    return Step(state, "accepted", None, events)


def apply_legal(s: State, action: Action) -> list[Event]:
    """Apply to ``s`` itself an action taken from ``legal_actions(s)`` or
    ``out_of_turn_actions(s)`` of this very state, without checking a play again (as
    python-chess's ``push`` next to ``push_san``): the fast entry for self-play. Any other
    action must go through :func:`apply` or :func:`apply_in_place`."""
    events: list[Event] = []
    _LEGAL_HANDLERS[type(action)](s, action, events)
    return events


def apply_in_place(s: State, action: Action) -> list[Event]:
    """Apply ``action`` to ``s`` itself. Raises :class:`IllegalPlay` (leaving ``s`` untouched)."""
    kind = type(action)
    handler = _HANDLERS.get(kind)
    if handler is None:  # pragma: no cover - Action is a closed union
        raise IllegalPlay("unknown-action", f"unknown action {action!r}")
    if s.awaiting_show is not None and kind in _WAIT_FOR_SHOW:
        raise IllegalPlay(
            "show-needed", f"{s.players[s.awaiting_show]} must show their hand first"
        )
    events: list[Event] = []
    handler(s, action, events)
    return events


# ---------------------------------------------------------------------------------------------
# Checks shared by the handlers


def _seat(s: State, seat: int) -> None:
    if not 0 <= seat < s.n or s.eliminated[seat]:
        raise IllegalPlay("no-such-player", f"there is no player at seat {seat}")


def _in_play(s: State) -> None:
    if s.phase is Phase.START:
        raise IllegalPlay("no-card-turned-up", "the first card has not been turned up")
    if s.phase is Phase.MATCH_OVER:
        raise IllegalPlay("match-over", "the match is over")
    if s.phase is not _PLAY:
        raise IllegalPlay("round-over", "the round is over")


def _on_turn(s: State, player: int) -> None:
    if player != s.turn or s.phase is not _PLAY:  # the common case costs one test
        _seat(s, player)
        _in_play(s)
    if s.awaiting_color is not None:
        raise IllegalPlay("color-not-chosen", "the colour of the wild has not been named")
    if player != s.turn:
        raise IllegalPlay("not-your-turn", f"it is {s.players[s.turn]}'s turn")


# ---------------------------------------------------------------------------------------------
# Moving cards


def _reshuffle(s: State, events: list[Event]) -> None:
    """Shuffle the discard pile except its top card into a new draw pile [000][003].

    The top card stays, and so do its named colour and live rank (they are state of their own).
    The new pile's order is chance: its cards become unknown until a draw identifies them.
    """
    moved = len(s.discard) - 1
    if moved <= 0:
        return
    s.discard = s.discard[-1:]
    s.pile_unknown += moved
    events.append(Event(EventKind.RESHUFFLED, count=moved))


def _draw_cards(s: State, player: int, count: int, events: list[Event], reason: str) -> int:
    """Move ``count`` cards from the draw pile to ``player``; reshuffle when the pile runs out,
    and stop when both piles are exhausted: a referee never invents cards."""
    hand = s.hands[player]
    drawn = 0
    for _ in range(count):
        if not s.pile and s.pile_unknown == 0:
            _reshuffle(s, events)
        if s.pile:
            hand.known.append(s.pile.pop())
        elif s.pile_unknown:
            s.pile_unknown -= 1
            hand.unknown += 1
            s.hidden += 1
        else:
            events.append(Event(EventKind.PILES_EXHAUSTED, player=player, count=count - drawn))
            break
        drawn += 1
    if len(hand.known) + hand.unknown > 1:
        s.called[player] = False
    if reason:
        events.append(Event(EventKind.PENALTY, player, None, None, None, drawn, reason))
    return drawn


def _next_draw_source(s: State) -> str:
    """Where the next drawn card comes from: ``known``, ``unknown`` or ``none``."""
    if s.pile:
        return "known"
    if s.pile_unknown or len(s.discard) > 1:
        return "unknown"
    return "none"


def _check_named_draw(s: State, card: Card) -> None:
    source = _next_draw_source(s)
    if source == "known":
        if s.pile[-1] is not card:
            raise IllegalPlay("not-top-card", f"{card} is not the top card of the draw pile")
    elif source == "unknown":
        # A card under the top of the discard pile is drawable only once it is reshuffled.
        reshuffled = s.pile_unknown == 0 and card in s.discard[:-1]
        if not s.is_available(card) and not reshuffled:
            raise IllegalPlay("card-not-available", f"every {card} is already accounted for")
    else:
        raise IllegalPlay("pile-empty", "there is no card left to draw")


# ---------------------------------------------------------------------------------------------
# The UNO catch window


def _begin_turn(s: State, events: list[Event]) -> None:
    """The player on turn begins it (plays, draws or challenges): the catch window closes.

    Choice: under ``uno_enforcement = "automatic"`` the referee penalises a missed call right
    here, before the action that closed the window takes effect.
    """
    seat = s.uno_window
    if seat is None:
        return
    s.uno_window = None
    s.uno_next = None
    if (
        s.options.uno_enforcement == "automatic"
        and not s.called[seat]
        and len(s.hands[seat]) == 1
    ):
        _draw_cards(s, seat, s.options.uno_penalty, events, "uno-not-called")


# ---------------------------------------------------------------------------------------------
# Handlers


def _turn_up(s: State, card: Card, events: list[Event]) -> None:
    """The dealer turns up ``card`` to start the discard pile [000][001][M]."""
    opts = s.options
    s.discard.append(card)
    events.append(Event(EventKind.TURNED_UP, card=card))
    bury = (
        card.rank == WILD_DRAW_FOUR
        or (card.rank == WILD and opts.first_wild == "redraw")
        or (card.rank in (SHUFFLE_HANDS, CUSTOMIZABLE) and opts.first_special == "redraw")
        or (s.extra.on and house.bury_first(s, card))
    )
    if card.rank == WILD_DRAW_FOUR and opts.first_player == "dealer":
        bury = opts.first_action == "redraw"  # [002]: the dealer draws it (or stacks)
    if bury:
        # Choice: the card is buried in the pile (its place unknown) rather than the whole pile
        # reshuffled, so a known top of the pile stays known [003][004].
        s.discard.pop()
        s.pile_unknown += 1
        events.append(Event(EventKind.BURIED, card=card))
        if s.pile:
            _turn_up(s, s.pile.pop(), events)
        return
    s.phase = Phase.PLAY
    left = s.next_seat(s.dealer)
    s.color = card.color
    s.live_rank = None if card.is_wild else card.rank
    if opts.don:
        don.note_turn_up(s, card)
    if opts.first_player == "dealer":
        house.dealer_first(s, card, events)
        return
    two = len(s.active) == 2
    if card.number is not None:
        s.turn = left
    elif card.rank == SKIP:
        events.append(_SKIPPED[left])
        s.turn = s.next_seat(left)
    elif card.rank == REVERSE:
        if two and opts.two_player_reverse_is_skip:
            events.append(_SKIPPED[left])
            s.turn = s.dealer
        else:
            s.direction = -1
            events.append(Event(EventKind.REVERSED, count=-1))
            s.turn = s.dealer if opts.first_reverse == "dealer-first" else s.next_seat(s.dealer)
    elif card.rank == DRAW_TWO:
        _draw_cards(s, left, 2, events, "draw-two")
        events.append(_SKIPPED[left])
        s.turn = s.next_seat(left)
    else:  # a wild the player left of the dealer names
        s.turn = left
        s.awaiting_color = left
        events.append(Event(EventKind.COLOR_NEEDED, player=left))
        return
    events.append(_TURN[s.turn])


def _on_turn_up(s: State, a: TurnUp, events: list[Event]) -> None:
    if s.phase is not Phase.START:
        raise IllegalPlay("already-started", "the first card is already turned up")
    if s.pile:
        if s.pile[-1] is not a.card:
            raise IllegalPlay("not-top-card", f"{a.card} is not the top card of the draw pile")
        s.pile.pop()
    else:
        if s.pile_unknown == 0 or not s.is_available(a.card):
            raise IllegalPlay("card-not-available", f"every {a.card} is already accounted for")
        s.pile_unknown -= 1
    _turn_up(s, a.card, events)


def _on_play(s: State, a: Play, events: list[Event]) -> None:
    if s.extra.on:
        house.play(s, a, events)
        return
    p = a.player
    # Fast path: the common case (the player on turn, in play, no colour awaited) costs three
    # tests; anything else goes through the full checks of _on_turn.
    if p != s.turn or s.phase is not _PLAY or s.awaiting_color is not None:
        _on_turn(s, p)
    if len(a.cards) != 1:
        raise IllegalPlay("one-card-at-a-time", "cards are played one at a time")
    card = a.cards[0]
    hand = s.hands[p]
    held = hand.known
    # The card's first place among the known cards (-1: not there), looked up once: the play
    # takes it from there, and before that a hand can only grow at its end (a penalty draw).
    try:
        index = held.index(card)
    except ValueError:
        index = -1
    known = index >= 0
    if s.has_drawn:
        if s.drawn is not None:
            if card is not s.drawn:
                raise IllegalPlay("must-play-drawn-card", "only the card just drawn may be played")
        elif not (s.drawn_unknown and hand.unknown and s.is_available(card)):
            raise IllegalPlay("must-play-drawn-card", "only the card just drawn may be played")
        known = s.drawn is not None
    elif not known:
        if hand.unknown == 0:
            raise IllegalPlay("card-not-in-hand", f"{card} is not in that hand")
        if not s.is_available(card):
            raise IllegalPlay("card-not-available", f"every {card} is already accounted for")
    if s.pending:
        raise IllegalPlay("draw-penalty-pending", "draw the penalty cards (or challenge) first")
    wild = card.is_wild
    rank = card.rank
    prior_color, prior_rank = s.color, s.live_rank
    # matches(s, card), inlined.
    if not (
        wild or card.color is prior_color or (prior_rank is not None and rank == prior_rank)
    ):
        raise IllegalPlay("wrong-color-or-number", f"{card} does not match")
    opts = s.options
    # Choice: with no challenge the restriction can only be enforced by the referee, so it
    # refuses a Wild Draw Four it can see is illegal; with a hidden hand the play is accepted as
    # unverified (in _play).
    if (
        rank == WILD_DRAW_FOUR
        and not opts.challengeable
        and opts.wild_draw_four != "unrestricted"
        and wd4_guilty(
            _rest_of_hand(held, card, known), prior_color, prior_rank, opts.wild_draw_four
        )
    ):
        raise IllegalPlay(
            "wild-draw-four-not-allowed", "a Wild Draw Four needs no matching card in hand"
        )
    _play(s, a, events, index, known)


def _rest_of_hand(held: list[Card], card: Card, known: bool) -> list[Card]:
    """The known cards left after playing ``card`` (a known one or not)."""
    rest = held.copy()
    if known:
        rest.remove(card)
    return rest


def _play(
    s: State, a: Play, events: list[Event], index: int | None = None, known: bool = True
) -> None:
    """Carry out the play ``a``, already checked: by :func:`_on_play`, which found its card at
    ``index`` among the known cards (-1: it is one of the unknown cards; ``known`` says whether
    the card played was known: a card drawn blind may be played while an equal known card stays
    in hand), or by :func:`legal_actions` (no ``index``: a known card of the player on turn that
    matches; this is the play handler of :func:`apply_legal`)."""
    p = a.player
    card = a.cards[0]
    hand = s.hands[p]
    if index is None:
        if s.extra.on:  # the variant rules check and play on their own path
            house.play(s, a, events)
            return
        index = hand.known.index(card)
    rank = card.rank
    # The rest of the hand and what the card covers matter only to a Wild Draw Four (its
    # restriction and challenge): read them before the play changes them.
    wd4: tuple[Sequence[Card], int, Color | None, str | None] = _NOT_WD4
    if rank == WILD_DRAW_FOUR:
        opts = s.options
        unknown_rest = hand.unknown - (0 if known else 1)
        wd4 = (_rest_of_hand(hand.known, card, known), unknown_rest, s.color, s.live_rank)
        if not opts.challengeable and opts.wild_draw_four != "unrestricted" and unknown_rest:
            s.unverified += 1
            events.append(Event(EventKind.UNVERIFIED, player=p))
    if s.uno_window is not None:
        _begin_turn(s, events)
    # Take the card from the hand, at the place found above (or from its unknown cards).
    if index >= 0:
        del hand.known[index]
    else:
        hand.unknown -= 1
        s.hidden -= 1
    s.discard.append(card)
    if s.has_drawn:
        s.has_drawn = False
        s.drawn = None
        s.drawn_unknown = False
    # The "played" event, the hottest one, is made once per seat, card and colour named.
    if card.is_wild:
        color = a.color
        s.color = color
        s.live_rank = None
        wilds = _PLAYED_WILD[p]
        key = (card, id(color))  # a colour's id(): an enum member hashes in Python
        event = wilds.get(key)
        if event is None:
            event = wilds[key] = Event(EventKind.PLAYED, p, None, card, color)
        shuffled = rank == SHUFFLE_HANDS
    else:
        played = _PLAYED[p]
        event = played.get(card)
        if event is None:
            event = played[card] = Event(EventKind.PLAYED, p, None, card, None)
        s.color = card.color
        s.live_rank = rank
        shuffled = False
    events.append(event)
    if shuffled:
        last = len(hand) == 0
        if not last or s.options.shuffle_hands_last_card == "redeal":
            _shuffle_hands(s, p, events)
            hand = s.hands[p]  # the redeal gave every seat a new hand
    size = len(hand.known) + hand.unknown
    if size == 0:
        _finish(s, p, card, events)
        return
    if size == 1 and not s.called[p] and not shuffled:
        s.uno_window = p
    if card.number is None:
        _resolve_effect(s, p, card, events, *wd4)
    else:  # a number card has no effect: the next seat is on turn
        # s.next_seat(p), its common case inlined: the seat after is still in the match.
        nxt = (p + s.direction) % len(s.players)
        s.turn = s.next_seat(p) if s.eliminated[nxt] else nxt
    if s.uno_window == p:
        s.uno_next = s.turn
    if card.is_wild and a.color is None:
        s.awaiting_color = p
        events.append(Event(EventKind.COLOR_NEEDED, player=p))
    else:
        # _announce_turn, inlined
        if s.pending:
            events.append(Event(EventKind.PENDING_DRAW, player=s.turn, count=s.pending))
        events.append(_TURN[s.turn])


def _announce_turn(s: State, events: list[Event]) -> None:
    if s.pending:
        events.append(Event(EventKind.PENDING_DRAW, player=s.turn, count=s.pending))
    events.append(_TURN[s.turn])


def _resolve_effect(
    s: State,
    p: int,
    card: Card,
    events: list[Event],
    rest: Sequence[Card],
    unknown_rest: int,
    prior_color: Color | None,
    prior_rank: str | None,
) -> None:
    opts = s.options
    rank = card.rank
    nxt = s.next_seat(p)
    if rank == SKIP:
        events.append(_SKIPPED[nxt])
        s.turn = s.next_seat(nxt)
    elif rank == REVERSE:
        if opts.two_player_reverse_is_skip and s.eliminated.count(False) == 2:
            events.append(_SKIPPED[nxt])
            s.turn = p
        else:
            s.direction = -s.direction
            events.append(_REVERSED[s.direction])
            s.turn = s.next_seat(p)
    elif rank == DRAW_TWO:
        _draw_cards(s, nxt, 2, events, "draw-two")
        events.append(_SKIPPED[nxt])
        s.turn = s.next_seat(nxt)
    elif rank == WILD_DRAW_FOUR:
        if opts.challengeable:
            s.pending = 4
            s.challenge = ChallengeWindow(
                offender=p,
                target=nxt,
                hand=tuple(rest),
                hand_unknown=unknown_rest,
                prior_color=prior_color,
                prior_rank=prior_rank,
                color_was_named=True,
            )
            s.turn = nxt
        else:
            _draw_cards(s, nxt, 4, events, "wild-draw-four")
            events.append(_SKIPPED[nxt])
            s.turn = s.next_seat(nxt)
    elif rank == CUSTOMIZABLE:
        _customizable(s, p, events)
    else:
        s.turn = nxt


def _customizable(s: State, p: int, events: list[Event]) -> None:
    """Wild Customizable: a Wild plus the table's house effect (``customizable_effect``).

    The menu: ``none``; ``skip`` (the next player loses their turn); ``reverse`` (the direction
    reverses); ``next-draws-two`` (the next player draws 2 and loses their turn; it cannot be
    stacked or challenged); ``others-draw-one`` (every other player draws one card).
    """
    effect = s.options.customizable_effect
    nxt = s.next_seat(p)
    if effect == "skip":
        events.append(_SKIPPED[nxt])
        s.turn = s.next_seat(nxt)
    elif effect == "reverse":
        s.direction = -s.direction
        events.append(_REVERSED[s.direction])
        s.turn = s.next_seat(p)
    elif effect == "next-draws-two":
        _draw_cards(s, nxt, 2, events, "customizable")
        events.append(_SKIPPED[nxt])
        s.turn = s.next_seat(nxt)
    elif effect == "others-draw-one":
        for seat in s.active:
            if seat != p:
                _draw_cards(s, seat, 1, events, "customizable")
        s.turn = nxt
    else:
        s.turn = nxt


def _shuffle_hands(s: State, p: int, events: list[Event]) -> None:
    """Wild Shuffle Hands [M][001]: every hand is collected, shuffled and dealt out one card at
    a time starting with the player on the left of the one who played it: the next seat
    clockwise, whatever the direction of play (RULES.md: "left" is the next seat clockwise).

    Which card lands where is chance, so every hand becomes unknown cards (a seat pad, or
    :class:`Identify`, names them again). Choice: every UNO call is cleared, and a player
    dealt a single card is not catchable: the catch is for going down to one card by a play.
    """
    seats = s.active
    total = sum(len(s.hands[i]) for i in seats)
    for i in seats:
        s.hands[i] = Hand([], 0)
    seat = p
    for _ in range(total):
        seat = s.next_seat(seat, direction=1)
        s.hands[seat].unknown += 1
    s.hidden = sum(h.unknown for h in s.hands)
    s.called = [False] * s.n
    s.uno_window = None
    events.append(Event(EventKind.SHUFFLE_HANDS, player=p, count=total))


def _finish(s: State, p: int, card: Card, events: list[Event]) -> None:
    """``p`` played their last card. A last Draw Two or Wild Draw Four is still drawn by the next
    player and counts in the score [000][001][003][M]. Choice: a last Wild Draw Four cannot be
    challenged, since the round is over."""
    nxt = s.next_seat(p)
    if card.rank == DRAW_TWO:
        _draw_cards(s, nxt, 2, events, "draw-two")
    elif card.rank == WILD_DRAW_FOUR:
        _draw_cards(s, nxt, 4, events, "wild-draw-four")
    don.win_round(s, p, events)


def _try_score(s: State, events: list[Event]) -> None:
    assert s.winner is not None
    hidden = [i for i in s.active if i != s.winner and s.hands[i].unknown]
    if hidden:
        for seat in hidden:
            events.append(Event(EventKind.SHOW_NEEDED, player=seat, reason="scoring"))
        return
    score_round(s, events)


def _on_draw(s: State, a: Draw, events: list[Event]) -> None:
    p = a.player
    # Fast path of _on_turn, as in _on_play.
    if p != s.turn or s.phase is not _PLAY or s.awaiting_color is not None:
        _on_turn(s, p)
    opts = s.options
    hand = s.hands[p]
    if s.extra.on:
        house.before_turn_action(s, p)
    if s.pending:
        if a.card is not None:
            raise IllegalPlay(
                "penalty-cards-unnamed", "penalty cards are drawn together; name them on a pad"
            )
        _begin_turn(s, events)
        count = s.pending
        reason = "wild-draw-four" if s.challenge is not None else "draw-two"
        s.pending = 0
        s.challenge = None
        _draw_cards(s, p, count, events, reason)
        events.append(_SKIPPED[p])
        s.turn = s.next_seat(p)
        _announce_turn(s, events)
        return
    if s.has_drawn:
        again = opts.draw == "until-playable" and (
            s.drawn_unknown or (s.drawn is not None and not matches(s, s.drawn))
        )
        if not again:
            raise IllegalPlay("already-drew", "one card is drawn per turn")
    elif not opts.draw_by_choice and (
        house.has_play(s, p) if s.extra.on else has_playable(s, hand.known)
    ):
        raise IllegalPlay("has-playable-card", "a card in hand can be played")
    if a.card is not None:
        _check_named_draw(s, a.card)
    elif s.has_drawn and _next_draw_source(s) == "none":
        raise IllegalPlay("pile-empty", "there is no card left to draw")

    # --- accepted ---
    if not s.has_drawn and not opts.draw_by_choice and hand.unknown:
        s.unverified += 1
        events.append(Event(EventKind.UNVERIFIED, player=p))
    if s.uno_window is not None:
        _begin_turn(s, events)
    drawn: Card | None
    if s.pile:
        # The common case, _draw_cards for one known card inlined: the top of the pile.
        drawn = s.pile.pop()
        hand.known.append(drawn)
    else:
        source = _next_draw_source(s)
        if source == "none":
            events.append(Event(EventKind.PILES_EXHAUSTED, player=p, count=1))
            _end_turn(s, p, events)
            return
        if a.card is not None:
            if s.pile_unknown == 0:
                _reshuffle(s, events)
            s.pile_unknown -= 1
            hand.known.append(a.card)
            drawn = a.card
        else:
            _draw_cards(s, p, 1, events, "")
            drawn = None
    if len(hand.known) + hand.unknown > 1:
        s.called[p] = False
    events.append(_DREW_ONE[p])
    s.has_drawn = True
    s.drawn = drawn
    s.drawn_unknown = drawn is None
    if opts.draw == "one-no-play" or (
        drawn is not None
        # not matches(s, drawn), inlined
        and not (
            drawn.is_wild
            or drawn.color is s.color
            or (s.live_rank is not None and drawn.rank == s.live_rank)
        )
        and (opts.draw == "one-may-play" or _next_draw_source(s) == "none")
    ):
        _end_turn(s, p, events)


def _end_turn(s: State, p: int, events: list[Event]) -> None:
    s.has_drawn = False
    s.drawn = None
    s.drawn_unknown = False
    # s.next_seat(p), its common case inlined: the seat after is still in the match.
    turn = (p + s.direction) % len(s.players)
    if s.eliminated[turn]:
        turn = s.next_seat(p)
    s.turn = turn
    # _announce_turn, inlined
    if s.pending:
        events.append(Event(EventKind.PENDING_DRAW, player=turn, count=s.pending))
    events.append(_TURN[turn])


def _on_pass(s: State, a: Pass, events: list[Event]) -> None:
    p = a.player
    _on_turn(s, p)
    if s.pending:
        raise IllegalPlay("draw-penalty-pending", "draw the penalty cards (or challenge) first")
    if s.extra.on:
        house.before_turn_action(s, p)
    if not s.has_drawn:
        raise IllegalPlay("draw-first", "draw a card before passing")
    if (
        s.options.draw == "until-playable"
        and s.drawn is not None
        and not matches(s, s.drawn)
        and _next_draw_source(s) != "none"
    ):
        raise IllegalPlay("keep-drawing", "keep drawing until a playable card comes")
    if s.drawn_unknown and s.options.draw == "until-playable":
        s.unverified += 1
        events.append(Event(EventKind.UNVERIFIED, player=p))
    events.append(_PASSED[p])
    _end_turn(s, p, events)


def _on_choose_color(s: State, a: ChooseColor, events: list[Event]) -> None:
    _seat(s, a.player)
    _in_play(s)
    if s.awaiting_color is None:
        raise IllegalPlay("no-color-needed", "no colour is waiting to be named")
    if a.player != s.awaiting_color:
        raise IllegalPlay("not-your-turn", f"{s.players[s.awaiting_color]} names the colour")
    s.awaiting_color = None
    s.color = a.color
    if s.extra.on:
        house.color_named(s, a.player, a.color)
    events.append(Event(EventKind.COLOR_CHOSEN, player=a.player, color=a.color))
    _announce_turn(s, events)


def uno_due(s: State, p: int) -> bool:
    """Whether UNO is ``p``'s to call now: about to go down to one card on their turn, or just
    gone down to one card without calling, while the catch window is open."""
    size = len(s.hands[p])
    about_to = (
        p == s.turn
        and (size == 2 or (s.extra.on and house.several_at_once(s, size)))
        and s.awaiting_color is None
    )
    return about_to or s.uno_window == p


def _on_call_uno(s: State, a: CallUno, events: list[Event]) -> None:
    p = a.player
    _seat(s, p)
    _in_play(s)
    if s.called[p]:
        raise IllegalPlay("already-called", "UNO was already called")
    if not uno_due(s, p):
        raise IllegalPlay("uno-not-due", "UNO is called when going down to one card")
    s.called[p] = True
    s.uno_calls[p] += 1
    if s.uno_window == p:
        s.uno_window = None
        s.uno_next = None
    events.append(Event(EventKind.UNO, player=p))


def _on_catch(s: State, a: Catch, events: list[Event]) -> None:
    c, t = a.catcher, a.target
    _seat(s, c)
    _seat(s, t)
    _in_play(s)
    if c == t:
        raise IllegalPlay("cannot-catch-yourself", "a player cannot catch themself")
    opts = s.options
    if s.uno_window == t and not s.called[t] and len(s.hands[t]) == 1:
        if opts.uno_catchers == "next-player" and c != s.uno_next:
            raise IllegalPlay("only-next-player-catches", "only the next player may catch")
        s.uno_window = None
        s.uno_next = None
        events.append(Event(EventKind.CAUGHT, player=c, target=t))
        _draw_cards(s, t, opts.uno_penalty, events, "uno-not-called")
        return
    if len(s.hands[t]) == 1 and not s.called[t]:
        raise IllegalPlay("catch-too-late", "the next player has already begun their turn")
    if opts.false_catch_penalty:
        events.append(Event(EventKind.FALSE_CATCH, player=c, target=t))
        _draw_cards(s, c, opts.false_catch_penalty, events, "false-catch")
        return
    raise IllegalPlay("false-catch", "that player called UNO or holds more than one card")


def _on_challenge(s: State, a: Challenge, events: list[Event]) -> None:
    p = a.player
    _seat(s, p)
    _in_play(s)
    window = s.challenge
    if window is None or not s.pending:
        raise IllegalPlay("nothing-to-challenge", "there is no Wild Draw Four to challenge")
    if p != window.target:
        raise IllegalPlay(
            "only-next-player-challenges", "only the player who must draw may challenge"
        )
    if s.awaiting_color is not None:
        raise IllegalPlay("color-not-chosen", "the colour of the wild has not been named")
    _begin_turn(s, events)
    events.append(Event(EventKind.CHALLENGE, player=p, target=window.offender))
    if window.hand_unknown or s.hands[window.offender].unknown:
        # The referee cannot see the hand: the offender shows it (to the challenger alone).
        events.append(Event(EventKind.SHOW_NEEDED, player=window.offender, reason="challenge"))
        s.awaiting_show = window.offender
        return
    _judge_challenge(s, window, list(window.hand), events)


def _judge_challenge(
    s: State, window: ChallengeWindow, hand: list[Card], events: list[Event]
) -> None:
    """Announce only guilty or innocent: the hand's contents are never announced [M]."""
    opts = s.options
    p, offender = window.target, window.offender
    # Stacked, the whole pending count is at stake (4 for a lone Wild Draw Four).
    count = s.pending or 4
    s.pending = 0
    s.challenge = None
    if window.stacked:
        # [000] 「「ワイルド・ドロー4を出したプレイヤー」の手札に場と同じ色の「ドロー2」があること
        # が「チャレンジ成功」の条件」
        guilty = any(c.rank == DRAW_TWO and c.color is window.prior_color for c in hand)
    else:
        guilty = wd4_guilty(hand, window.prior_color, window.prior_rank, opts.wild_draw_four)
    if guilty:
        events.append(Event(EventKind.GUILTY, player=offender, target=p))
        if opts.challenge_success == "take-back":
            # [000][004]: the card goes back, the offender draws 4 and plays again legally.
            s.discard.pop()
            s.hands[offender].known.append(Card(None, WILD_DRAW_FOUR))
            s.color = window.prior_color
            s.live_rank = window.prior_rank
            _draw_cards(s, offender, count, events, "illegal-wild-draw-four")
            s.turn = offender
        else:
            # [M]: the card stays, its colour stands, the challenger takes a normal turn.
            _draw_cards(s, offender, count, events, "illegal-wild-draw-four")
            s.turn = p
    else:
        events.append(Event(EventKind.INNOCENT, player=offender, target=p))
        _draw_cards(s, p, count + opts.challenge_penalty, events, "challenge-failed")
        events.append(_SKIPPED[p])
        s.turn = s.next_seat(p)
    _announce_turn(s, events)


def _check_show(s: State, player: int, cards: Sequence[Card]) -> Counter[Card]:
    """The cards a show reveals beyond what was known; raises unless the show is the whole hand
    and possible."""
    hand = s.hands[player]
    if len(cards) != len(hand):
        raise IllegalPlay("show-mismatch", f"that hand holds {len(hand)} cards")
    extra = Counter(cards)
    extra.subtract(Counter(hand.known))
    if any(v < 0 for v in extra.values()):
        raise IllegalPlay("show-mismatch", "a card known to be in that hand was not shown")
    extra = +extra
    pool = s.unknown_pool()
    if any(pool[c] < k for c, k in extra.items()):
        raise IllegalPlay("card-not-available", "a shown card is known to be elsewhere")
    return extra


def _on_show(s: State, a: Show, events: list[Event]) -> None:
    p = a.player
    _seat(s, p)
    if s.phase is Phase.MATCH_OVER:
        raise IllegalPlay("match-over", "the match is over")
    _check_show(s, p, a.cards)
    hand = s.hands[p]
    hand.known = list(a.cards)
    s.hidden -= hand.unknown
    hand.unknown = 0
    events.append(Event(EventKind.SHOWN, player=p, count=len(a.cards)))
    window = s.challenge
    if s.extra.don_claim == p:
        don.judge(s, p, events)
    elif window is not None and s.awaiting_show == p:
        s.awaiting_show = None
        _judge_challenge(s, window, list(a.cards), events)
    elif s.phase is Phase.ROUND_OVER and len(s.results) < s.round:
        _try_score(s, events)


def _on_identify(s: State, a: Identify, events: list[Event]) -> None:
    p = a.player
    _seat(s, p)
    hand = s.hands[p]
    if hand.unknown == 0:
        raise IllegalPlay("hand-already-known", "every card of that hand is already known")
    if not s.is_available(a.card):
        raise IllegalPlay("card-not-available", f"every {a.card} is already accounted for")
    hand.unknown -= 1
    s.hidden -= 1
    hand.known.append(a.card)
    events.append(Event(EventKind.IDENTIFIED, player=p))
    if s.drawn_unknown and p == s.turn and s.has_drawn:
        # Choice: a seat-pad read right after a blind draw names the drawn card, and the turn
        # then goes on as after a seen draw (an unplayable card ends it under one-may-play).
        s.drawn = a.card
        s.drawn_unknown = False
        if not matches(s, a.card) and s.options.draw == "one-may-play":
            _end_turn(s, p, events)
        return
    if (
        s.phase is Phase.ROUND_OVER
        and len(s.results) < s.round
        and not any(s.hands[i].unknown for i in s.active if i != s.winner)
    ):
        # The last hidden card of the losing hands is read: the round can be scored now.
        _try_score(s, events)


def _same_cards(a: Sequence[Card], b: Sequence[Card]) -> bool:
    """Whether two piles hold the same faces, each as often. A card is one instance per face, so
    sorting the identities compares them, in C (a Counter compares in Python)."""
    return len(a) == len(b) and sorted(map(id, a)) == sorted(map(id, b))


def _on_reshuffle(s: State, a: Reshuffle, events: list[Event]) -> None:
    _in_play(s)
    if s.pile_unknown and not s.pile and s.pile_unknown == s.unknown_slots():
        # The engine reshuffled by itself (the pile ran out in the middle of a penalty) and
        # every hand is known again: the unknown cards are the pile, and chance gives its order.
        if not _same_cards(a.cards, list(s.unknown_pool().elements())):
            raise IllegalPlay("reshuffle-mismatch", "the order names other cards than the pile's")
        s.pile = list(reversed(a.cards))
        s.pile_unknown = 0
        return
    if s.pile or s.pile_unknown:
        raise IllegalPlay("pile-not-empty", "the draw pile is not empty yet")
    if not _same_cards(a.cards, s.discard[:-1]):
        raise IllegalPlay("reshuffle-mismatch", "a reshuffle uses the discard pile but its top")
    s.discard = s.discard[-1:]
    s.pile = list(reversed(a.cards))
    events.append(Event(EventKind.RESHUFFLED, count=len(a.cards)))


# While a challenged hand must be shown, only the show (and UNO business) may happen.
_WAIT_FOR_SHOW = frozenset({Play, Draw, Pass, ChooseColor, Challenge, Swap})

_HANDLERS: dict[type, Callable[[State, Action, list[Event]], None]] = {
    Play: _on_play,  # type: ignore[dict-item]
    Draw: _on_draw,  # type: ignore[dict-item]
    Pass: _on_pass,  # type: ignore[dict-item]
    ChooseColor: _on_choose_color,  # type: ignore[dict-item]
    CallUno: _on_call_uno,  # type: ignore[dict-item]
    Catch: _on_catch,  # type: ignore[dict-item]
    Challenge: _on_challenge,  # type: ignore[dict-item]
    Show: _on_show,  # type: ignore[dict-item]
    Identify: _on_identify,  # type: ignore[dict-item]
    TurnUp: _on_turn_up,  # type: ignore[dict-item]
    Reshuffle: _on_reshuffle,  # type: ignore[dict-item]
}
# For actions known to be legal: a play skips its checks; the rest are cheap to check.
_LEGAL_HANDLERS: dict[type, Callable[[State, Action, list[Event]], None]] = {
    **_HANDLERS,
    Play: _play,  # type: ignore[dict-item]
}

# The competition, local and Musician rules (they use the helpers above).
from table.rules import don, house  # noqa: E402

for _table in (_HANDLERS, _LEGAL_HANDLERS):
    _table[Don] = don.on_don  # type: ignore[assignment]
    _table[Swap] = house.on_swap  # type: ignore[assignment]
