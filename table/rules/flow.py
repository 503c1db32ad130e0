"""The flow of a round that every rule set shares: the checks of who may act, drawing and
reshuffling, whose turn is next, the UNO catch window, and the end of a round and its scoring.

The play path, the other actions and every variant use these, and nothing else of each other:
a variant that ends a round ends it with :func:`win_round`, as the official game does.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from table.cards import Card
from table.errors import IllegalPlay
from table.rules.events import EventKind
from table.rules.matching import matches
from table.rules.scoring import score_round
from table.rules.state import MAX_PLAYERS, Event, Hand, Phase, State

# The commonest events, made once per seat: events are immutable values.
TURN = tuple(Event(EventKind.TURN, seat) for seat in range(MAX_PLAYERS))
SKIPPED = tuple(Event(EventKind.SKIPPED, seat) for seat in range(MAX_PLAYERS))
DREW_ONE = tuple(Event(EventKind.DREW, seat, count=1) for seat in range(MAX_PLAYERS))
PASSED = tuple(Event(EventKind.PASSED, seat) for seat in range(MAX_PLAYERS))
CALLED_UNO = tuple(Event(EventKind.UNO, seat) for seat in range(MAX_PLAYERS))
# "reversed" events, by the new direction.
REVERSED = {d: Event(EventKind.REVERSED, count=d) for d in (1, -1)}
PLAY = Phase.PLAY  # a module global is read faster than an enum member
# "penalty" events by seat, reason and cards drawn, and "pending-draw" events by seat and count,
# made when first needed (a named tuple costs more to build than to look up).
_PENALTY: tuple[dict[str, dict[int, Event]], ...] = tuple({} for _ in range(MAX_PLAYERS))
_PENDING_DRAW: tuple[dict[int, Event], ...] = tuple({} for _ in range(MAX_PLAYERS))


def penalty_event(player: int, drawn: int, reason: str) -> Event:
    """The "penalty" event of ``player`` drawing ``drawn`` cards for ``reason``, made once."""
    try:  # subscripts, not get(): a method call costs more than the try
        return _PENALTY[player][reason][drawn]
    except KeyError:
        event = Event(EventKind.PENALTY, player, None, None, None, drawn, reason)
        _PENALTY[player].setdefault(reason, {})[drawn] = event
        return event


def pending_draw_event(player: int, count: int) -> Event:
    """The "pending-draw" event: ``player``, on turn, must draw ``count`` cards first."""
    try:
        return _PENDING_DRAW[player][count]
    except KeyError:
        event = _PENDING_DRAW[player][count] = Event(
            EventKind.PENDING_DRAW, player=player, count=count
        )
        return event


# ---------------------------------------------------------------------------------------------
# Who may act


def check_seat(s: State, seat: int) -> None:
    """Raise unless ``p`` is a seat of this table."""
    if not 0 <= seat < len(s.players) or s.eliminated[seat]:  # s.n without the property's call
        raise IllegalPlay("no-such-player", f"there is no player at seat {seat}")


def check_in_play(s: State) -> None:
    """Raise unless a round is being played."""
    if s.phase is Phase.START:
        raise IllegalPlay("no-card-turned-up", "the first card has not been turned up")
    if s.phase is Phase.MATCH_OVER:
        raise IllegalPlay("match-over", "the match is over")
    if s.phase is not PLAY:
        raise IllegalPlay("round-over", "the round is over")


def check_on_turn(s: State, player: int) -> None:
    """Raise unless ``p`` may act on turn now (in play, no colour awaited)."""
    if player != s.turn or s.phase is not PLAY:  # the common case costs one test
        check_seat(s, player)
        check_in_play(s)
    if s.awaiting_color is not None:
        raise IllegalPlay("color-not-chosen", "the colour of the wild has not been named")
    if player != s.turn:
        raise IllegalPlay("not-your-turn", f"it is {s.players[s.turn]}'s turn")


def check_show(s: State, player: int, cards: Sequence[Card]) -> Counter[Card]:
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


def reveal(s: State, player: int, cards: Sequence[Card], events: list[Event]) -> None:
    """``player`` showed ``cards``, their whole hand (checked by :func:`check_show`)."""
    hand = s.hands[player]
    hand.known = list(cards)
    s.hidden -= hand.unknown
    hand.unknown = 0
    events.append(Event(EventKind.SHOWN, player=player, count=len(cards)))


# ---------------------------------------------------------------------------------------------
# Drawing


def reshuffle(s: State, events: list[Event]) -> None:
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


def draw_cards(s: State, player: int, count: int, events: list[Event], reason: str) -> int:
    """Move ``count`` cards from the draw pile to ``player``; reshuffle when the pile runs out,
    and stop when both piles are exhausted: a referee never invents cards. A ``reason`` makes
    the draw a penalty event (``draw-two``, ``uno-not-called``, ...)."""
    hand = s.hands[player]
    drawn = 0
    for _ in range(count):
        if not s.pile and s.pile_unknown == 0:
            reshuffle(s, events)
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
        events.append(penalty_event(player, drawn, reason))
    return drawn


def draws_again(s: State) -> bool:
    """Whether the player on turn, who drew, may draw again: under ``draw = "until-playable"``,
    while the card drawn does not match (or was drawn blind)."""
    if s.options.draw != "until-playable":
        return False
    drawn = s.drawn
    return s.drawn_unknown if drawn is None else not matches(s, drawn)


def next_draw_source(s: State) -> str:
    """Where the next drawn card comes from: ``known``, ``unknown`` or ``none``."""
    if s.pile:
        return "known"
    if s.pile_unknown or len(s.discard) > 1:
        return "unknown"
    return "none"


def check_named_draw(s: State, card: Card) -> None:
    """Raise unless ``card`` may be the card drawn now, from the pile or a reshuffle."""
    source = next_draw_source(s)
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


def shuffle_hands(s: State, p: int, events: list[Event]) -> None:
    """Wild Shuffle Hands [M][001]: every hand is collected, shuffled and dealt out one card at
    a time starting with the player on the left of the one who played it: the next seat
    clockwise, whatever the direction of play (docs/rules.md: "left" is the next seat clockwise).

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


# ---------------------------------------------------------------------------------------------
# The turn and the UNO catch window


def begin_turn(s: State, events: list[Event]) -> None:
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
        penalise_missed_uno(s, seat, events)


def penalise_missed_uno(s: State, seat: int, events: list[Event]) -> None:
    """The one penalty for a missed UNO call, caught or (``uno_enforcement = "automatic"``)
    given by the referee: the variant's own (the ``uno_missed`` hook), else ``uno_penalty``
    cards [000][001][M]."""
    rules = s.rules
    if "uno_missed" in rules.hooked and rules.uno_missed(s, seat, events):
        return
    draw_cards(s, seat, s.options.uno_penalty, events, "uno-not-called")


def uno_ahead(s: State, p: int) -> bool:
    """Whether ``p`` is about to go down to one card: on turn, nothing else awaited (a colour,
    a show, or what a variant waits for), holding two cards (or more, where several may go down
    at once); or, not on turn, holding two cards one of which the variant lets them jump in
    with now. [003] 「「UNO」と言う必要があります 最後から2番目のカードをプレイする前に」: the
    call comes before the second-to-last card is played, in turn or not."""
    hand = s.hands[p]
    size = len(hand.known) + hand.unknown
    rules = s.rules
    if size != 2 and not (
        size > 2 and "several_at_once" in rules.hooked and rules.several_at_once(s, size)
    ):
        return False  # the common case, first: not about to go down to one card
    if s.awaiting_color is not None or s.awaiting_show is not None:
        return False
    if p != s.turn:
        top = s.top
        return (
            size == 2
            and top is not None
            and "may_jump" in rules.hooked
            and rules.may_jump(s, p, (top,))
            and (top in hand.known or (hand.unknown > 0 and s.is_available(top)))
        )
    return "awaiting" not in rules.hooked or rules.awaiting(s) is None


def uno_due(s: State, p: int) -> bool:
    """Whether UNO is ``p``'s to call now: about to go down to one card on their turn
    (:func:`uno_ahead`), or just gone down to one card without calling, while the catch window
    is open."""
    return s.uno_window == p or uno_ahead(s, p)


def move_turn(s: State, seat: int, events: list[Event] | None = None) -> None:
    """The one place the turn moves: to ``seat``. With ``events``, the hand-over is said: a
    variant may pass the turn on first (the ``handing_over`` hook), then what the seat must draw
    first and whose turn it is. Without, the turn moves and is said later, by
    :func:`announce_turn` (a colour to name first, or a variant's say after a play), or not at
    all (the deal, a jump-in, where the seat acting is the one on turn).

    ``tests/test_one_hand_over.py`` holds every other module of the rules to it: nothing else
    assigns ``s.turn``."""
    if events is None:
        s.turn = seat
        return
    rules = s.rules
    if "handing_over" in rules.hooked:
        seat = rules.handing_over(s, seat, events)
    s.turn = seat
    if s.pending:
        events.append(pending_draw_event(seat, s.pending))
    events.append(TURN[seat])


def announce_turn(s: State, events: list[Event]) -> None:
    """The hand-over of the turn already moved to ``s.turn`` (:func:`move_turn`, silently),
    said now."""
    move_turn(s, s.turn, events)


def end_turn(s: State, p: int, events: list[Event]) -> None:
    """``p``'s turn ends without a play: the next seat is on turn."""
    s.has_drawn = False
    s.drawn = None
    s.drawn_unknown = False
    # s.next_seat(p), its common case inlined: the seat after is still in the match.
    turn = (p + s.direction) % len(s.players)
    if s.eliminated[turn]:
        turn = s.next_seat(p)
    move_turn(s, turn, events)


# ---------------------------------------------------------------------------------------------
# The end of a round


def win_round(s: State, p: int, events: list[Event], how: str | None = None) -> None:
    """``p`` wins the round (``how``: ``None`` for going out, ``"don"``): play stops and the
    round is scored once every losing hand is known."""
    s.winner = p
    s.phase = Phase.ROUND_OVER
    s.pending = 0
    s.challenge = None
    s.uno_window = None
    s.awaiting_color = None
    s.has_drawn = s.drawn_unknown = False
    s.drawn = None
    events.append(Event(EventKind.ROUND_WON, p, None, None, None, 0, how))  # by place: cheaper
    try_score(s, events)


def try_score(s: State, events: list[Event]) -> None:
    """Score the round just won, or ask for the losing hands the referee cannot see."""
    assert s.winner is not None
    # s.hidden counts the unknown cards of every hand: most rounds end with none to ask for.
    hidden = [i for i in s.active if i != s.winner and s.hands[i].unknown] if s.hidden else []
    if hidden:
        for seat in hidden:
            events.append(Event(EventKind.SHOW_NEEDED, player=seat, reason="scoring"))
        return
    score_round(s, events)
