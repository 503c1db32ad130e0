"""What chance names at a real table: a hand's unknown card read on its pad, a pile's order.

Split from :mod:`table.rules.engine`, which dispatches these actions to it.
"""

from __future__ import annotations

from collections.abc import Sequence

from table.cards import Card
from table.errors import IllegalPlay
from table.rules.actions import Identify, Reshuffle
from table.rules.events import EventKind
from table.rules.flow import check_in_play, check_seat, end_turn, try_score
from table.rules.matching import matches
from table.rules.state import Event, Phase, State


def on_identify(s: State, a: Identify, events: list[Event]) -> None:
    """A seat pad names one of its hand's unknown cards."""
    p = a.player
    check_seat(s, p)
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
            end_turn(s, p, events)
        return
    if (
        s.phase is Phase.ROUND_OVER
        and len(s.results) < s.round
        and not any(s.hands[i].unknown for i in s.active if i != s.winner)
    ):
        # The last hidden card of the losing hands is read: the round can be scored now.
        try_score(s, events)


def same_cards(a: Sequence[Card], b: Sequence[Card]) -> bool:
    """Whether two piles hold the same faces, each as often. A card is one instance per face, so
    sorting the identities compares them, in C (a Counter compares in Python)."""
    return len(a) == len(b) and sorted(map(id, a)) == sorted(map(id, b))


def on_reshuffle(s: State, a: Reshuffle, events: list[Event]) -> None:
    """Chance names the order of the pile remade from the discard pile."""
    check_in_play(s)
    if s.pile_unknown and not s.pile and s.pile_unknown == s.unknown_slots():
        # The engine reshuffled by itself (the pile ran out in the middle of a penalty) and
        # every hand is known again: the unknown cards are the pile, and chance gives its order.
        if not same_cards(a.cards, list(s.unknown_pool().elements())):
            raise IllegalPlay("reshuffle-mismatch", "the order names other cards than the pile's")
        s.pile = list(reversed(a.cards))
        s.pile_unknown = 0
        return
    if s.pile or s.pile_unknown:
        raise IllegalPlay("pile-not-empty", "the draw pile is not empty yet")
    if not same_cards(a.cards, s.discard[:-1]):
        raise IllegalPlay("reshuffle-mismatch", "a reshuffle uses the discard pile but its top")
    s.discard = s.discard[-1:]
    s.pile = list(reversed(a.cards))
    events.append(Event(EventKind.RESHUFFLED, count=len(a.cards)))
