"""The play: checked, carried out and listed as legal here, under every option set.

One path serves the official game and every variant. Where a rule of docs/rules.md §4-§6 changes a
play, the path asks the hooks of the state's rules (:mod:`table.rules.hooks`), whose official
answers change nothing: several cards at once, stacking on a pending draw, jumping in, what a
round may end on, a Wild that keeps the rank under it, and what a variant notes of a play.

:func:`on_play` checks before the first change, so a refused play changes nothing.
:func:`list_plays` lists the plays :func:`on_play` accepts, with the same checks (the plays of
single cards that match are looked up in a table made from :func:`matches`); a property test
holds the two to each other.

Choices where docs/rules.md leaves room are documented where they are made (search "Choice:").
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from table.cards import (
    COLORS,
    CUSTOMIZABLE,
    DRAW_TWO,
    EDITIONS,
    REVERSE,
    SHUFFLE_HANDS,
    SKIP,
    WILD_DRAW_FOUR,
    Card,
    Color,
)
from table.errors import IllegalPlay
from table.rules.actions import Action, Play
from table.rules.events import EventKind
from table.rules.flow import (
    PLAY,
    REVERSED,
    SKIPPED,
    announce_turn,
    begin_turn,
    check_on_turn,
    draw_cards,
    move_turn,
    shuffle_hands,
    win_round,
)
from table.rules.matching import fits, matches, wd4_guilty
from table.rules.options import Options
from table.rules.state import MAX_PLAYERS, ChallengeWindow, Event, State

DRAWS = {DRAW_TWO: 2, WILD_DRAW_FOUR: 4}
_WILD_DRAW_FOUR = Card(None, WILD_DRAW_FOUR)
# A play's cards taken from the hand one by one (several cards at once): no single index.
_GROUP = -2
# What the effect of a Wild Draw Four needs (the rest of the hand, its unknown cards, and the
# colour, rank and card it covered), for any other card.
_Wd4 = tuple[Sequence[Card], int, Color | None, str | None, Card | None]
_NOT_WD4: _Wd4 = (
    (), 0, None, None, None
)

# "played" events, per seat, colour named (``None`` for a coloured card) and card, made when
# first needed.
_PLAYED: tuple[dict[Color | None, dict[Card, Event]], ...] = tuple({} for _ in range(MAX_PLAYERS))


def restricted(opts: Options) -> bool:
    """Whether the referee itself refuses a Wild Draw Four it can see is illegal: the
    restriction holds and no challenge can expose it.

    Choice: with no challenge the restriction can only be enforced by the referee, so it
    refuses a Wild Draw Four it can see is illegal; with a hidden hand the play is accepted as
    unverified."""
    return not opts.challenge and opts.wild_draw_four != "unrestricted"


# ---------------------------------------------------------------------------------------------
# Checks


def _check_cards(s: State, p: int, cards: tuple[Card, ...], jump: bool) -> int:
    """Raise unless ``p`` holds ``cards`` (on a turn begun with a draw, only the card drawn).
    Returns where the single card is among the known cards (-1: one of the unknown ones;
    ``_GROUP`` for several cards)."""
    hand = s.hands[p]
    card = cards[0]
    if s.has_drawn and not jump:
        # The one check of "only the card just drawn": the card seen drawn, or (drawn blind)
        # a card that may be the one.
        drawn = s.drawn
        if len(cards) != 1 or (
            card is not drawn
            if drawn is not None
            else not (s.drawn_unknown and hand.unknown and s.is_available(card))
        ):
            raise IllegalPlay("must-play-drawn-card", "only the card just drawn may be played")
        try:
            return hand.known.index(card)
        except ValueError:
            return -1
    if len(cards) == 1:
        try:
            return hand.known.index(card)
        except ValueError:
            pass
        if hand.unknown == 0:
            raise IllegalPlay("card-not-in-hand", f"{card} is not in that hand")
        if not s.is_available(card):
            raise IllegalPlay("card-not-available", f"every {card} is already accounted for")
        return -1
    short = Counter(cards)
    short.subtract(Counter(hand.known))
    short = +short
    if short:
        if sum(short.values()) > hand.unknown:
            raise IllegalPlay("card-not-in-hand", f"{card} is not in that hand")
        pool = s.unknown_pool()
        if any(pool[c] < k for c, k in short.items()):
            raise IllegalPlay("card-not-available", "that card is already accounted for")
    return _GROUP


def check_card(s: State, p: int, cards: tuple[Card, ...], known: bool) -> None:
    """Raise unless ``cards``, held by ``p`` (``known``: the lead card is one of the known
    ones), may go on the discard pile now: on a pending draw only to stack, else matching;
    then what the round may end on, and the Wild Draw Four's restriction."""
    lead = cards[0]
    if s.pending:
        if not s.rules.may_stack(s, lead):
            raise IllegalPlay("draw-penalty-pending", "draw the penalty cards (or challenge) first")
    elif not matches(s, lead):
        raise IllegalPlay("wrong-color-or-number", f"{lead} does not match")
    check_kept(s, p, cards, known)


def check_kept(s: State, p: int, cards: tuple[Card, ...], known: bool) -> None:
    """The checks of a matching play that depend on the cards kept: what a round may end on
    (a hook) and the Wild Draw Four's restriction."""
    hand = s.hands[p]
    left = len(hand.known) + hand.unknown - len(cards)
    if left <= 1 and "check_going_out" in s.rules.hooked:  # the official hook checks nothing
        s.rules.check_going_out(s, p, cards, left)
    lead = cards[0]
    if (
        lead.rank == WILD_DRAW_FOUR
        and not s.pending
        and restricted(s.options)
        and wd4_guilty(_rest(hand.known, cards, known), s.color, s.live_rank,
                       s.options.wild_draw_four)
    ):
        raise IllegalPlay(
            "wild-draw-four-not-allowed", "a Wild Draw Four needs no matching card in hand"
        )


def _rest(held: list[Card], cards: tuple[Card, ...], known: bool) -> list[Card]:
    """The known cards left after playing ``cards`` (a known one or not; a group's known
    cards all leave)."""
    rest = held.copy()
    if known:
        for card in cards:
            if card in rest:
                rest.remove(card)
    return rest


# ---------------------------------------------------------------------------------------------
# The handler


def on_play(s: State, a: Play, events: list[Event]) -> None:
    """Check the play ``a`` and carry it out; raise :class:`IllegalPlay` (changing nothing)."""
    p = a.player
    cards = a.cards
    jump = False
    # The common case (the player on turn, in play, no colour awaited) costs three tests.
    if p != s.turn or s.phase is not PLAY or s.awaiting_color is not None:
        jump = p != s.turn and s.rules.may_jump(s, p, cards)
        if not jump:
            check_on_turn(s, p)
    if not jump and "check_turn" in s.rules.hooked:
        s.rules.check_turn(s)
    if len(cards) != 1:
        if not cards:
            raise IllegalPlay("one-card-at-a-time", "name the card played")
        s.rules.check_group(s, cards)
    index = _check_cards(s, p, cards, jump)
    if index == _GROUP:
        known = True
    elif s.has_drawn and not jump:
        known = s.drawn is not None
    else:
        known = index >= 0
    check_card(s, p, cards, known)
    carry_out(s, a, events, index, known, jump)


# ---------------------------------------------------------------------------------------------
# Carrying out


def carry_out(
    s: State,
    a: Play,
    events: list[Event],
    index: int | None = None,
    known: bool = True,
    jump: bool | None = None,
) -> None:
    """Carry out the play ``a``, checked by :func:`on_play`, which found its single card at
    ``index`` among the known cards (-1: one of the unknown cards; ``_GROUP``: several cards;
    ``known``: the card played was known, as a card drawn blind is not), or listed by
    :func:`list_plays` (or a variant's out-of-turn list) for this very state, and not checked
    again (no ``index``): the play handler of :func:`~table.rules.engine.apply_legal`."""
    p = a.player
    cards = a.cards
    card = cards[0]
    hand = s.hands[p]
    if index is None:
        index = hand.known.index(card) if len(cards) == 1 else _GROUP
        jump = p != s.turn
    rank = card.rank
    stacked = s.pending
    # What only a Wild Draw Four needs (its restriction, its challenge), read before the play.
    wd4 = _NOT_WD4 if rank != WILD_DRAW_FOUR else _wd4_before(s, a, known, events)
    if jump:
        events.append(Event(EventKind.JUMP_IN, player=p, target=s.turn))
        move_turn(s, p)
    if s.uno_window is not None:
        begin_turn(s, events)
    color = a.color
    if index != _GROUP:
        # Take the card from the hand, at the place found (or from its unknown cards).
        if index >= 0:
            del hand.known[index]
        else:
            hand.unknown -= 1
            s.hidden -= 1
        s.discard.append(card)
        last = card
        try:  # the "played" event, made once (_played); subscripts cost less than a call
            events.append(_PLAYED[p][color][card])
        except KeyError:
            events.append(_played(p, color, card))
    else:
        last = _take_group(s, a, events)
    if s.has_drawn:
        s.has_drawn = s.drawn_unknown = False
        s.drawn = None
    number = last.number
    if number is not None or not last.is_wild:
        s.color = last.color
        s.live_rank = last.rank
    else:
        _wild_on_top(s, last, color)
    size = len(hand.known) + hand.unknown
    shuffled = number is None and rank == SHUFFLE_HANDS
    if shuffled and (size or s.options.shuffle_hands_last_card == "redeal"):
        size = _shuffled(s, p, events)
    if size > 1:
        if s.called[p]:
            s.called[p] = False  # a call made for a play of several cards that did not come
    elif size:
        if not s.called[p] and not shuffled:
            s.uno_window = p
    else:
        _go_out(s, p, cards, events)
        return
    if number is None:
        turn = _effect(s, p, last, len(cards), events, stacked, wd4)
    else:  # a number card has no effect: the next seat is on turn (s.next_seat(p), inlined)
        turn = (p + s.direction) % len(s.players)
        if s.eliminated[turn]:
            turn = s.next_seat(p)
    if s.uno_window == p or (last.is_wild and color is None) or "after_play" in s.rules.hooked:
        _announce_after(s, a, last, turn, events)
    else:  # nothing to say after the play but the hand-over
        move_turn(s, turn, events)


def _shuffled(s: State, p: int, events: list[Event]) -> int:
    """A Shuffle Hands redeals every hand: the cards ``p`` holds now."""
    shuffle_hands(s, p, events)
    hand = s.hands[p]
    return len(hand.known) + hand.unknown


def _played(p: int, color: Color | None, card: Card) -> Event:
    """The "played" event, the hottest one, made once per seat, card and colour named."""
    try:  # subscripts, not get(): a method call costs more than the try
        return _PLAYED[p][color][card]
    except KeyError:
        event = _PLAYED[p].setdefault(color, {})[card] = Event(
            EventKind.PLAYED, p, None, card, color if card.is_wild else None
        )
        return event


def _announce_after(s: State, a: Play, last: Card, turn: int, events: list[Event]) -> None:
    """After a play: the turn moves to ``turn``, then a variant's say, the UNO window's next
    seat, then the colour to name or the hand-over said."""
    p = a.player
    color = a.color
    move_turn(s, turn)  # silently: the variant's say and the UNO window read it
    held = False
    if "after_play" in s.rules.hooked:
        held = s.rules.after_play(s, p, a.cards, color, events)
        turn = s.turn
    if s.uno_window == p:
        s.uno_next = turn
    if color is None and last.is_wild:
        s.awaiting_color = p
        events.append(Event(EventKind.COLOR_NEEDED, player=p))
    elif not held:
        announce_turn(s, events)


def _wd4_before(s: State, a: Play, known: bool, events: list[Event]) -> _Wd4:
    """What a Wild Draw Four's restriction and challenge need, read before the play changes it:
    the rest of the hand, its unknown cards, and what the card covers."""
    hand = s.hands[a.player]
    card = a.cards[0]
    unknown_rest = hand.unknown - (0 if known else 1)
    if not s.pending and unknown_rest and restricted(s.options):
        s.unverified += 1  # the referee could not see whether the restriction held
        events.append(Event(EventKind.UNVERIFIED, player=a.player))
    if len(a.cards) > 1:  # a group of Wild Draw Fours: those beyond the known ones were unknown
        unknown_rest = hand.unknown - max(0, len(a.cards) - hand.known.count(card))
    return (_rest(hand.known, a.cards, known), unknown_rest, s.color, s.live_rank, s.top)


def _take_group(s: State, a: Play, events: list[Event]) -> Card:
    """Take the cards of a play of several from the hand onto the pile; the last one is on top."""
    hand = s.hands[a.player]
    for each in a.cards:
        if each in hand.known:
            hand.known.remove(each)
        else:
            hand.unknown -= 1
            s.hidden -= 1
        s.discard.append(each)
        # A group of wilds names its colour with the last card, the one left on top.
        named = a.color if each.is_wild and each is a.cards[-1] else None
        events.append(Event(EventKind.PLAYED, a.player, None, each, named))
    return a.cards[-1]


def _wild_on_top(s: State, last: Card, color: Color | None) -> None:
    """A wild on top: the colour named (``None`` until it is), the rank a variant keeps."""
    prior_rank = s.live_rank
    s.color = color
    rules = s.rules
    s.live_rank = (
        rules.rank_after_wild(s, last, prior_rank) if "rank_after_wild" in rules.hooked else None
    )


def _effect(
    s: State,
    p: int,
    card: Card,
    count: int,
    events: list[Event],
    stacked: int,
    wd4: tuple[Sequence[Card], int, Color | None, str | None, Card | None],
) -> int:
    """The effect of ``count`` action or wild cards like ``card`` just played by ``p``: the
    seat the turn goes to.

    Several action cards stack their effects [000]: 「ドロー2」を3枚 → 6枚; Skips skip one
    player each (「自分から4番目、6番目の人とターンが飛ぶ」); 「奇数枚出すと順番が逆に、偶数枚だと
    そのまま」. Choice: Skips never skip their own player."""
    opts = s.options
    rank = card.rank
    # s.next_seat(p), its common case inlined: the seat after is still in the match.
    nxt = (p + s.direction) % len(s.players)
    if s.eliminated[nxt]:
        nxt = s.next_seat(p)
    if rank == SKIP or (
        rank == REVERSE and opts.two_player_reverse_is_skip and s.eliminated.count(False) == 2
    ):
        seat = nxt
        events.append(SKIPPED[seat])
        if count > 1:  # several Skips skip one player each
            for _ in range(min(count, s.eliminated.count(False) - 1) - 1):
                seat = s.next_seat(seat)
                events.append(SKIPPED[seat])
        return s.next_seat(seat)
    if rank == REVERSE:
        if count % 2:
            s.direction = -s.direction
            events.append(REVERSED[s.direction])
        return s.next_seat(p)
    if rank in DRAWS:
        total = stacked + DRAWS[rank] * count
        window: ChallengeWindow | None = None
        rest, unknown_rest, prior_color, prior_rank, prior_top = wd4
        on_four = stacked and prior_top is not None and prior_top.rank == WILD_DRAW_FOUR
        if rank == WILD_DRAW_FOUR and opts.challengeable and not on_four:
            # [000] 「「ワイルド・ドロー4」の上にさらに「ワイルド・ドロー4」が重ねられた場合、
            # 「チャレンジ」ができない。ただし「ドロー2」の上に重ねた「ワイルド・ドロー4」には
            # 「チャレンジ」ができる」
            window = ChallengeWindow(
                p, nxt, tuple(rest), unknown_rest, prior_color, prior_rank, True, bool(stacked),
                count,
            )
        s.pending = 0
        s.challenge = None
        if window is not None or ("draws_wait" in s.rules.hooked and s.rules.draws_wait(s, rank)):
            s.pending = total
            s.challenge = window
            return nxt
        reason = "draw-two" if rank == DRAW_TWO else "wild-draw-four"
        draw_cards(s, nxt, total, events, reason)
        events.append(SKIPPED[nxt])
        return s.next_seat(nxt)
    if rank == CUSTOMIZABLE:
        return _customizable(s, p, events)
    return nxt


def _customizable(s: State, p: int, events: list[Event]) -> int:
    """Wild Customizable: a Wild plus the table's house effect (``customizable_effect``).

    The menu: ``none``; ``skip`` (the next player loses their turn); ``reverse`` (the direction
    reverses); ``next-draws-two`` (the next player draws 2 and loses their turn; it cannot be
    stacked or challenged); ``others-draw-one`` (every other player draws one card). Returns
    the seat the turn goes to.
    """
    effect = s.options.customizable_effect
    nxt = s.next_seat(p)
    if effect == "skip":
        events.append(SKIPPED[nxt])
        return s.next_seat(nxt)
    if effect == "reverse":
        s.direction = -s.direction
        events.append(REVERSED[s.direction])
        return s.next_seat(p)
    if effect == "next-draws-two":
        draw_cards(s, nxt, 2, events, "customizable")
        events.append(SKIPPED[nxt])
        return s.next_seat(nxt)
    if effect == "others-draw-one":
        for seat in s.active:
            if seat != p:
                draw_cards(s, seat, 1, events, "customizable")
    return nxt


def _go_out(s: State, p: int, cards: tuple[Card, ...], events: list[Event]) -> None:
    """``p`` played their last card(s). A last draw card (several, or stacked on a pending
    draw) is still drawn by the next player, in full, and counts in the score
    [000][001][003][M]. Choice: a last Wild Draw Four cannot be challenged, since the round is
    over."""
    last = cards[-1]
    total = s.pending + DRAWS.get(last.rank, 0) * len(cards)
    if total:
        reason = "draw-two" if last.rank == DRAW_TWO else "wild-draw-four"
        draw_cards(s, s.next_seat(p), total, events, reason)
    if "going_out" in s.rules.hooked:
        s.rules.going_out(s, p, last)
    win_round(s, p, events)


# ---------------------------------------------------------------------------------------------
# Listing

# Plays are immutable values, so each is made once and shared: listing the legal plays then
# costs a dictionary look-up per card instead of building objects.
_PLAYS: tuple[dict[Card, tuple[Play, ...]], ...] = tuple({} for _ in range(MAX_PLAYERS))
# Every face of every edition, in a fixed order.
_FACES: tuple[Card, ...] = tuple(dict.fromkeys(c for counts in EDITIONS.values() for c in counts))
# The single-card plays of one seat onto one (colour in force, live rank), by card: only the
# cards that match (:func:`matches`) are keys, made once per seat, colour and rank.
# By seat, then colour, then rank: nested look-ups are cheaper than one by a tuple made for it.
_Matching = dict[Card, tuple[Play, ...]]
_MATCHING: tuple[dict[Color | None, dict[str | None, _Matching]], ...] = tuple(
    {} for _ in range(MAX_PLAYERS)
)


def plays_of(player: int, cards: tuple[Card, ...]) -> tuple[Play, ...]:
    """The plays of ``cards`` by ``player``: one per colour for a wild, else one."""
    if len(cards) != 1:
        if cards[-1].is_wild:  # a group of wilds, once per colour named
            return tuple(Play(player, cards, c) for c in COLORS)
        return (Play(player, cards),)
    card = cards[0]
    seat_plays = _PLAYS[player]
    plays = seat_plays.get(card)
    if plays is None:
        colors: tuple[Color | None, ...] = COLORS if card.is_wild else (None,)
        plays = seat_plays[card] = tuple(Play(player, cards, c) for c in colors)
    return plays


def _matching(player: int, color: Color | None, rank: str | None) -> _Matching:
    """The entry of ``_MATCHING`` for this seat, colour and rank, made once."""
    plays = {card: plays_of(player, (card,)) for card in _FACES if fits(card, color, rank)}
    _MATCHING[player].setdefault(color, {})[rank] = plays
    return plays


def list_plays(s: State, p: int, out: list[Action]) -> None:
    """Add to ``out`` the plays of known cards that :func:`on_play` accepts from ``p``, the
    player on turn, now: each card once, in the order of the hand, a wild once per colour; then
    the groups of cards the variant allows."""
    hand = s.hands[p]
    known: Sequence[Card]
    if s.has_drawn:
        # Only the card just drawn may be played (when it was seen), and nothing together.
        drawn = s.drawn
        if drawn is None:
            return
        known = (drawn,)
    elif s.pending:
        rules = s.rules
        if "may_stack" in rules.hooked:  # the official game stacks nothing
            for card in dict.fromkeys(hand.known):
                if rules.may_stack(s, card):
                    _add_checked(s, p, (card,), out)
        known = ()
    else:
        known = hand.known
    hooked = s.rules.hooked
    if known:
        try:  # subscripts, not get(): a method call costs more than the try
            matching = _MATCHING[p][s.color][s.live_rank]
        except KeyError:
            matching = _matching(p, s.color, s.live_rank)
        # check_kept refuses a matching card only by the Wild Draw Four's restriction or, for
        # a play that keeps at most one card, by what a variant lets a round end on: the other
        # matching cards need no check.
        check_each = "check_going_out" in hooked and len(hand.known) + hand.unknown <= 2
        listed: list[Card] = []  # each distinct card once, in hand order
        for card in known:
            if card in matching and card not in listed:
                listed.append(card)
                if check_each or (card is _WILD_DRAW_FOUR and restricted(s.options)):
                    try:
                        check_kept(s, p, (card,), True)
                    except IllegalPlay:
                        continue
                out += matching[card]
    if "groups" in hooked and not s.has_drawn:
        for group in s.rules.groups(s, p):
            _add_checked(s, p, group, out)


def _add_checked(s: State, p: int, cards: tuple[Card, ...], out: list[Action]) -> None:
    try:
        if len(cards) != 1:
            s.rules.check_group(s, cards)
        check_card(s, p, cards, True)
    except IllegalPlay:
        return
    out += plays_of(p, cards)


def has_play(s: State, p: int) -> bool:
    """Whether ``p``, on turn, holds a known card these rules let them play now."""
    plays: list[Action] = []
    list_plays(s, p, plays)
    return bool(plays)
