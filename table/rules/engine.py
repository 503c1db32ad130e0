"""The rules engine: a state and an action give the next state and what happened.

:func:`apply` is pure (it works on a copy); :func:`apply_in_place` mutates the state and is what
self-play and benchmarks use. Every check runs before the first change, so a rejected action
leaves the state as it was even in place.

Choices where docs/rules.md leaves room are documented where they are made (search "Choice:").
"""

from __future__ import annotations

import collections
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from itertools import repeat

from table.cards import (
    CUSTOMIZABLE,
    DRAW_TWO,
    REVERSE,
    SHUFFLE_HANDS,
    SKIP,
    WILD,
    WILD_DRAW_FOUR,
    Card,
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
from table.rules.challenge import on_challenge, on_show
from table.rules.chance import on_identify, on_reshuffle
from table.rules.events import PENALTY_KINDS, EventKind
from table.rules.flow import (
    CALLED_UNO,
    DREW_ONE,
    PASSED,
    PLAY,
    SKIPPED,
    announce_turn,
    begin_turn,
    check_in_play,
    check_named_draw,
    check_on_turn,
    check_seat,
    draw_cards,
    draws_again,
    end_turn,
    move_turn,
    next_draw_source,
    penalise_missed_uno,
    reshuffle,
    uno_due,
)
from table.rules.options import Options
from table.rules.play import carry_out, has_play, on_play
from table.rules.state import MAX_PLAYERS, Event, Hand, Phase, State
from table.rules.variant_state import NO_EXTRA
from table.rules.variants import rules_for

# Reasons that make a step a "penalty" rather than a plain "accepted": the penalties for a slip,
# and a turn lost for an uncalled UNO (the variant's penalty in place of cards).
PENALTY_REASONS = frozenset({*PENALTY_KINDS, "uno-lose-turn"})


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
    if len(set(map(str.casefold, players))) == len(players):
        return None  # the common case, in C: every name is another name
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
        rules=rules_for(options),
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
    s.dealer = dealer_after(s) if dealer is None else dealer
    s.round += 1
    return _deal_round(s, deal or Deal())


def dealer_after(s: State) -> int:
    """Who deals the round after the one ``s`` has won, per ``next_dealer``: its winner, or
    the seat left of its dealer."""
    assert s.winner is not None
    if s.options.next_dealer == "winner":
        return s.winner
    return s.next_seat(s.dealer, direction=1)


def _deal_round(s: State, deal: Deal) -> tuple[State, list[Event]]:
    opts = s.options
    n = s.n
    edition = edition_counts(opts.deck)
    s.phase = Phase.START
    move_turn(s, s.dealer)
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
    rules = s.rules
    s.extra = rules.new_extra(s.extra, n) if "new_extra" in rules.hooked else NO_EXTRA
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
    s.hidden = sum([h.unknown for h in s.hands])
    s.pile = list(reversed(deal.pile))
    # The known cards (the discard pile is still empty) and the cards turned up.
    known: dict[Card, int] = {}  # a plain dict: counted faster than a Counter, made cheaper
    _count_elements(known, s.pile)  # list by list: cheaper than through a chain
    _count_elements(known, deal.start)
    for hand in s.hands:
        _count_elements(known, hand.known)
    total = _DECK_SIZES.get(opts.deck) or _DECK_SIZES.setdefault(opts.deck, sum(edition.values()))
    # The whole deck dealt, every card seen (a shuffled deck, as self-play deals): one
    # comparison of the counts, in C. Anything else is checked face by face.
    if s.hidden or not dict.__eq__(edition, known):
        _check_counts(opts.deck, edition, known)
        used = sum(known.values()) + s.hidden
    else:
        used = total  # the very counts of the edition
    if used > total:
        raise SetupError(f"the set-up uses {used} cards; the {opts.deck} deck has {total}")
    s.pile_unknown = total - used + len(deal.start)
    events: list[Event] = [Event(EventKind.ROUND_START, s.dealer, None, None, None, s.round)]
    for card in deal.start:
        if s.phase is not Phase.START:
            raise SetupError("cards after the first card that stays turned up")
        s.pile_unknown -= 1
        _turn_up(s, card, events)
    return s, events


# Counter.update's own counter, in C: counts an iterable into a dict, without Counter.__init__.
_count_elements: Callable[[dict[Card, int], Iterable[Card]], None] = (
    collections._count_elements  # type: ignore[attr-defined]
)
# Cards in each edition's deck, counted once.
_DECK_SIZES: dict[str, int] = {}


def _check_counts(deck: str, edition: dict[Card, int], known: dict[Card, int]) -> None:
    """Raise unless the cards ``known`` keep every face within its count in ``deck``."""
    allowed = edition.get
    # Every face within its count (the common case, tested in C), else the first one over.
    if not all(map(int.__le__, known.values(), map(allowed, known, repeat(0)))):
        card, count = next((c, k) for c, k in known.items() if k > allowed(c, 0))
        raise SetupError(
            f"the {deck} deck has {allowed(card, 0)} of {card}, the set-up uses {count}"
        )


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
# Handlers


def _turn_up(s: State, card: Card, events: list[Event]) -> None:
    """The dealer turns up ``card`` to start the discard pile [000][001][M]."""
    opts = s.options
    s.discard.append(card)
    events.append(Event(EventKind.TURNED_UP, None, None, card))
    rules = s.rules
    hooked = rules.hooked
    bury = card.is_wild and (
        card.rank == WILD_DRAW_FOUR
        or (card.rank == WILD and opts.first_wild == "redraw")
        or (card.rank in (SHUFFLE_HANDS, CUSTOMIZABLE) and opts.first_special == "redraw")
    )
    if "buries" in hooked:
        bury = rules.buries(s, card, bury)
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
    if "turned_up" in hooked:
        rules.turned_up(s, card)
    if "first_turn" in hooked and rules.first_turn(s, card, events):
        return
    first = left
    if card.number is not None:
        pass
    elif card.rank == SKIP:
        events.append(SKIPPED[left])
        first = s.next_seat(left)
    elif card.rank == REVERSE:
        if len(s.active) == 2 and opts.two_player_reverse_is_skip:
            events.append(SKIPPED[left])
            first = s.dealer
        else:
            s.direction = -1
            events.append(Event(EventKind.REVERSED, count=-1))
            first = s.dealer if opts.first_reverse == "dealer-first" else s.next_seat(s.dealer)
    elif card.rank == DRAW_TWO:
        if "draws_wait" in hooked and rules.draws_wait(s, DRAW_TWO):
            # [000] 「スタートプレイヤーがそのカードを出したときと同じように処理する」: as if
            # the dealer had played it, so a Draw Two the player left of the dealer may stack on.
            s.pending = 2
        else:
            draw_cards(s, left, 2, events, "draw-two")
            events.append(SKIPPED[left])
            first = s.next_seat(left)
    else:  # a wild the player left of the dealer names
        move_turn(s, left)
        s.awaiting_color = left
        events.append(Event(EventKind.COLOR_NEEDED, player=left))
        return
    move_turn(s, first, events)


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


def _on_draw(s: State, a: Draw, events: list[Event]) -> None:
    p = a.player
    # The common case (the player on turn, in play, no colour awaited) costs three tests.
    if p != s.turn or s.phase is not PLAY or s.awaiting_color is not None:
        check_on_turn(s, p)
    rules = s.rules
    if "check_turn" in rules.hooked:
        rules.check_turn(s)
    opts = s.options
    hand = s.hands[p]
    if s.pending:
        _draw_penalty(s, a, events)
        return
    has_drawn = s.has_drawn
    # The common case (a first draw, by choice, of a card not named) costs one test.
    if has_drawn or not opts.draw_by_choice or a.card is not None:
        if has_drawn:
            if not draws_again(s):
                raise IllegalPlay("already-drew", "one card is drawn per turn")
        elif not opts.draw_by_choice and has_play(s, p):
            raise IllegalPlay("has-playable-card", "a card in hand can be played")
        if a.card is not None and (has_drawn or next_draw_source(s) != "none"):
            check_named_draw(s, a.card)
        elif has_drawn and next_draw_source(s) == "none":
            raise IllegalPlay("pile-empty", "there is no card left to draw")

    # --- accepted ---
    if "turn_action" in rules.hooked:
        rules.turn_action(s, p)
    if not has_drawn and not opts.draw_by_choice and hand.unknown:
        s.unverified += 1
        events.append(Event(EventKind.UNVERIFIED, player=p))
    if s.uno_window is not None:
        begin_turn(s, events)
    drawn: Card | None
    if s.pile:
        # The common case, draw_cards for one known card inlined: the top of the pile.
        drawn = s.pile.pop()
        hand.known.append(drawn)
    else:
        source = next_draw_source(s)
        if source == "none":
            events.append(Event(EventKind.PILES_EXHAUSTED, player=p, count=1))
            end_turn(s, p, events)
            return
        if a.card is not None:
            if s.pile_unknown == 0:
                reshuffle(s, events)
            s.pile_unknown -= 1
            hand.known.append(a.card)
            drawn = a.card
        else:
            draw_cards(s, p, 1, events, "")
            drawn = None
    if len(hand.known) + hand.unknown > 1:
        s.called[p] = False
    events.append(DREW_ONE[p])
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
        and (opts.draw == "one-may-play" or next_draw_source(s) == "none")
    ):
        end_turn(s, p, events)


def _draw_penalty(s: State, a: Draw, events: list[Event]) -> None:
    """The player on turn takes the cards a Draw Two or a Wild Draw Four gave them, and the turn
    passes."""
    p = a.player
    if a.card is not None:
        raise IllegalPlay(
            "penalty-cards-unnamed", "penalty cards are drawn together; name them on a pad"
        )
    rules = s.rules
    if "turn_action" in rules.hooked:
        rules.turn_action(s, p)
    begin_turn(s, events)
    count = s.pending
    reason = "wild-draw-four" if s.challenge is not None else "draw-two"
    s.pending = 0
    s.challenge = None
    draw_cards(s, p, count, events, reason)
    events.append(SKIPPED[p])
    move_turn(s, s.next_seat(p), events)


def _on_pass(s: State, a: Pass, events: list[Event]) -> None:
    p = a.player
    check_on_turn(s, p)
    if s.pending:
        raise IllegalPlay("draw-penalty-pending", "draw the penalty cards (or challenge) first")
    s.rules.check_turn(s)
    if not s.has_drawn:
        raise IllegalPlay("draw-first", "draw a card before passing")
    if s.drawn is not None and draws_again(s) and next_draw_source(s) != "none":
        raise IllegalPlay("keep-drawing", "keep drawing until a playable card comes")
    if s.drawn_unknown and s.options.draw == "until-playable":
        s.unverified += 1
        events.append(Event(EventKind.UNVERIFIED, player=p))
    s.rules.turn_action(s, p)
    events.append(PASSED[p])
    end_turn(s, p, events)


def _on_choose_color(s: State, a: ChooseColor, events: list[Event]) -> None:
    check_seat(s, a.player)
    check_in_play(s)
    if s.awaiting_color is None:
        raise IllegalPlay("no-color-needed", "no colour is waiting to be named")
    if a.player != s.awaiting_color:
        raise IllegalPlay("not-your-turn", f"{s.players[s.awaiting_color]} names the colour")
    s.awaiting_color = None
    s.color = a.color
    s.rules.color_named(s, a.player, a.color)
    events.append(Event(EventKind.COLOR_CHOSEN, player=a.player, color=a.color))
    announce_turn(s, events)


def _on_call_uno(s: State, a: CallUno, events: list[Event]) -> None:
    p = a.player
    check_seat(s, p)
    check_in_play(s)
    if s.called[p]:
        raise IllegalPlay("already-called", "UNO was already called")
    if not uno_due(s, p):
        raise IllegalPlay("uno-not-due", "UNO is called when going down to one card")
    s.called[p] = True
    s.uno_calls[p] += 1
    if s.uno_window == p:
        s.uno_window = None
        s.uno_next = None
    events.append(CALLED_UNO[p])


def _on_catch(s: State, a: Catch, events: list[Event]) -> None:
    c, t = a.catcher, a.target
    check_seat(s, c)
    check_seat(s, t)
    check_in_play(s)
    if c == t:
        raise IllegalPlay("cannot-catch-yourself", "a player cannot catch themself")
    opts = s.options
    if s.uno_window == t and not s.called[t] and len(s.hands[t]) == 1:
        if opts.uno_catchers == "next-player" and c != s.uno_next:
            raise IllegalPlay("only-next-player-catches", "only the next player may catch")
        s.uno_window = None
        s.uno_next = None
        events.append(Event(EventKind.CAUGHT, player=c, target=t))
        penalise_missed_uno(s, t, events)
        return
    if len(s.hands[t]) == 1 and not s.called[t]:
        raise IllegalPlay("catch-too-late", "the next player has already begun their turn")
    if opts.false_catch_penalty:
        events.append(Event(EventKind.FALSE_CATCH, player=c, target=t))
        draw_cards(s, c, opts.false_catch_penalty, events, "false-catch")
        return
    raise IllegalPlay("false-catch", "that player called UNO or holds more than one card")


def _on_don(s: State, a: Don, events: list[Event]) -> None:
    s.rules.on_don(s, a, events)


def _on_swap(s: State, a: Swap, events: list[Event]) -> None:
    s.rules.on_swap(s, a, events)


# While a challenged hand must be shown, only the show (and UNO business) may happen.
_WAIT_FOR_SHOW = frozenset({Play, Draw, Pass, ChooseColor, Challenge, Swap})

_HANDLERS: dict[type, Callable[[State, Action, list[Event]], None]] = {
    Play: on_play,  # type: ignore[dict-item]
    Draw: _on_draw,  # type: ignore[dict-item]
    Pass: _on_pass,  # type: ignore[dict-item]
    ChooseColor: _on_choose_color,  # type: ignore[dict-item]
    CallUno: _on_call_uno,  # type: ignore[dict-item]
    Catch: _on_catch,  # type: ignore[dict-item]
    Challenge: on_challenge,  # type: ignore[dict-item]
    Show: on_show,  # type: ignore[dict-item]
    Identify: on_identify,  # type: ignore[dict-item]
    TurnUp: _on_turn_up,  # type: ignore[dict-item]
    Reshuffle: on_reshuffle,  # type: ignore[dict-item]
    Don: _on_don,  # type: ignore[dict-item]
    Swap: _on_swap,  # type: ignore[dict-item]
}
# For actions known to be legal: a play skips its checks; the rest are cheap to check.
_LEGAL_HANDLERS: dict[type, Callable[[State, Action, list[Event]], None]] = {
    **_HANDLERS,
    Play: carry_out,  # type: ignore[dict-item]
}
