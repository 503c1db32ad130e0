"""Dealing on the simulated table: the cards the referee gives a hand unseen (the deal, a
penalty, a redeal) taken from the pile and named on that seat's pad, and the first card turned
up on the play pad. Functions of :class:`sim.tabletop.virtual.SimTable`, which calls them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sim.tabletop.errors import SimError
from sim.tabletop.pads import PAD
from table.cards import Card
from table.rules import Phase

if TYPE_CHECKING:
    from sim.tabletop.virtual import SimTable


def sync(table: SimTable, quiet: bool = False) -> None:
    """Cards the referee has given a hand unseen (a deal, a penalty, a redeal) are taken
    from the pile and tapped on that seat's pad."""
    if table.hands == "counts":
        _sync_counts(table, quiet)
        return
    given = [0] * len(table.players)
    for _ in range(20 * len(table.world.pile) + 200):
        s = table.state
        owed = [i for i, h in enumerate(s.hands) if h.unknown]
        if not owed:
            break
        for seat in owed:
            if len(table.world.hands[seat]) < len(s.hands[seat]):
                copy = table.world.take()
                if copy is None:
                    raise SimError("the referee gave out more cards than the table has")
                table.world.put_in_hand(seat, copy)
                given[seat] += 1
            else:
                # Cards the hand holds that the referee has not seen yet (a redeal).
                known = list(s.hands[seat].known)
                copy = next(c for c in table.world.hands[seat] if not _remove(known, c.card))
            table.tap(table.players[seat], copy, table.players[seat])
    else:
        raise SimError("the seat pads could not name every card the referee gave out")
    if not quiet:
        for seat, n in enumerate(given):
            if n:
                table.say_move("takes", player=table.players[seat], count=n)

def _sync_counts(table: SimTable, quiet: bool) -> None:
    """With only a play pad: cards given out are just taken into the hands, and a hand the
    referee must see (a challenge, the score) is shown card by card on the play pad."""
    s = table.state
    for seat, hand in enumerate(s.hands):
        n = len(hand) - len(table.world.hands[seat])
        for _ in range(n):
            copy = table.world.take()
            if copy is None:
                raise SimError("the referee gave out more cards than the table has")
            table.world.put_in_hand(seat, copy)
        if n > 0 and not quiet:
            table.say_move("takes-hand", player=table.players[seat], count=n)
    for _ in range(len(table.players) + 1):
        shower = table.referee.shower()
        if shower is None:
            return
        name = table.players[shower]
        table.say_move("shows", player=name)
        for copy in list(table.world.hands[shower]):
            table.tap(PAD, copy, name)
    raise SimError("a hand was shown and the referee still asks for it")

def deal(table: SimTable) -> None:
    """Deal a round: cards to every seat pad, then turn up the first card on the play pad."""
    s = table.state
    dealer = s.players[s.dealer]
    table.world.gather()
    table.say_move("deals", player=dealer, count=s.options.hand_size)
    table.sync(quiet=True)  # with only a play pad the deal is taken as done
    while table.state.phase is Phase.START:
        copy = table.world.take()
        if copy is None:
            raise SimError("no card left to turn up")
        table.world.turn_up(copy)
        table.say_move("turns-up", player=dealer, card=copy.card.code)
        out = table.tap(PAD, copy, dealer)
        if any(a.key == "buried" for a in out.announcements):
            table.world.bury()
    table.sync()


def _remove(cards: list[Card], card: Card) -> bool:
    if card in cards:
        cards.remove(card)
        return True
    return False
