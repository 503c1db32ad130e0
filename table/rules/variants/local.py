"""Local rules (docs/rules.md §5): jump-in, a first card that is not a number, no action finish, no
draw finish, a Wild that keeps the rank under it, a missed UNO call that costs a turn, and Seven-O
(Mattel House Rules edition)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from table.cards import DRAW_TWO, WILD, WILD_DRAW_FOUR, Card, Color
from table.errors import IllegalPlay
from table.rules.actions import Action, CallUno, Play, Swap
from table.rules.events import EventKind
from table.rules.flow import (
    SKIPPED,
    announce_turn,
    check_in_play,
    check_seat,
    penalty_event,
    uno_ahead,
)
from table.rules.state import Event, Phase, State
from table.rules.variant_state import replace
from table.rules.variants.base import Variant

if TYPE_CHECKING:
    from table.rules.options import Options


def _can_jump(s: State, p: int, cards: tuple[Card, ...]) -> bool:
    """割り込み [000] local rule 8: 「場のカードと色も数字/記号も一致するカードは、番を無視して
    いきなり出すことができる」. Choice: one card at a time, never a wild (it has no colour to
    be identical in), and not while a draw is pending, a colour or a swap is awaited."""
    top = s.top
    return (
        s.phase is Phase.PLAY
        and 0 <= p < s.n
        and not s.eliminated[p]
        and len(cards) == 1
        and top is not None
        and cards[0] is top
        and not top.is_wild
        and not s.pending
        and s.awaiting_color is None
        and s.rules.awaiting(s) is None
    )


class JumpIn(Variant):
    """Jump-in: an identical card played out of turn (local rule 1)."""
    @classmethod
    def applies(cls, options: Options) -> bool:
        """Whether ``options`` turn this rule on."""
        return options.jump_in

    def may_jump(self, s: State, p: int, cards: tuple[Card, ...]) -> bool:
        """Whether ``p``, not on turn, may play ``cards`` now (jump in)."""
        return _can_jump(s, p, cards) or super().may_jump(s, p, cards)

    def out_of_turn(self, s: State) -> list[Action]:
        """The out-of-turn actions this rule accepts now: each jump-in of a known card the
        play's own checks accept (what a round may end on), and the UNO call of each seat
        about to jump in down to one card (:func:`~table.rules.flow.uno_ahead`)."""
        from table.rules.play import check_kept

        out: list[Action] = []
        top = s.top
        if top is not None and s.phase is Phase.PLAY:
            for seat in s.active:
                if seat == s.turn or not _can_jump(s, seat, (top,)):
                    continue
                if top in s.hands[seat].known:
                    try:
                        check_kept(s, seat, (top,), True)
                        out.append(Play(seat, (top,)))
                    except IllegalPlay:
                        pass
                if not s.called[seat] and uno_ahead(s, seat):
                    out.append(CallUno(seat))
        return out + super().out_of_turn(s)


class FirstActionRedraw(Variant):
    """``first_action = "redraw"`` [000] 「最初の1枚目が記号カードの時は山札の間に戻し、もう一枚
    めくったりする」: every first card that is not a number (記号カード) goes back."""

    @classmethod
    def applies(cls, options: Options) -> bool:
        """Whether ``options`` turn this rule on."""
        return options.first_action == "redraw"

    def buries(self, s: State, card: Card, official: bool) -> bool:
        """Whether the first card turned up goes back into the pile, under this rule."""
        return card.number is None or super().buries(s, card, official)


class ActionFinish(Variant):
    """``action_finish = false``: a round cannot end on an action or wild card."""

    @classmethod
    def applies(cls, options: Options) -> bool:
        """Whether ``options`` turn this rule on."""
        return not options.action_finish

    def check_going_out(self, s: State, p: int, cards: tuple[Card, ...], left: int) -> None:
        """Raise unless ``p`` may go out (or down to one) with ``cards``, under this rule."""
        if left == 0 and cards[-1].number is None:
            raise IllegalPlay("no-action-finish", "a round cannot end on an action or wild card")
        super().check_going_out(s, p, cards, left)


_DRAWS = (DRAW_TWO, WILD_DRAW_FOUR)


class DrawFinish(Variant):
    """``draw_finish = false``: a round cannot end on a draw card. [002] 「人によっては、
    「ドロー2上がり」を禁止しています」; [004] tells of the older rule that a last action card
    could not go out. The Wild Draw Four is a draw card as much as the Draw Two
    (``draw_finish_cards = "draw-two-and-four"``), or, as [002] names only the Draw Two, not
    (``"draw-two"``). Choice (no seed decides): a group of Draw Twos is refused as one card is;
    the player draws instead."""

    @classmethod
    def applies(cls, options: Options) -> bool:
        """Whether ``options`` turn this rule on."""
        return not options.draw_finish

    def check_going_out(self, s: State, p: int, cards: tuple[Card, ...], left: int) -> None:
        """Raise unless ``p`` may go out (or down to one) with ``cards``, under this rule."""
        banned = (DRAW_TWO,) if s.options.draw_finish_cards == "draw-two" else _DRAWS
        if left == 0 and cards[-1].rank in banned:
            raise IllegalPlay("no-draw-finish", "a round cannot end on a draw card")
        super().check_going_out(s, p, cards, left)


class WildKeepsSymbol(Variant):
    """[002] 「「ワイルド」は色を変えるだけなので、その直前にだされたカードの数字や文字は
    いきています」. Choice: only a plain Wild keeps the rank; the seed says it of 「ワイルド」
    alone."""

    @classmethod
    def applies(cls, options: Options) -> bool:
        """Whether ``options`` turn this rule on."""
        return options.wild_keeps_symbol

    def rank_after_wild(self, s: State, card: Card, prior: str | None) -> str | None:
        """The rank the next card may match after the wild ``card``, under this rule."""
        if card.rank == WILD:
            return prior
        return super().rank_after_wild(s, card, prior)


class MissedUnoLosesTurn(Variant):
    """``uno_penalty_kind = "lose-turn"`` [000] local rule 5: 「これを破った(又はバレた)場合、
    だいたいはドローや次の番を飛ばすなどのペナルティが課される」: a missed UNO call costs the
    player their next turn instead of cards. Choice: the turn is lost at the next hand-over
    to that seat with no draw pending (a seat that must draw or stack takes that turn, and
    loses the one after); a round's end forgives it."""

    @classmethod
    def applies(cls, options: Options) -> bool:
        """Whether ``options`` turn this rule on."""
        return options.uno_penalty_kind == "lose-turn"

    def uno_missed(self, s: State, seat: int, events: list[Event]) -> bool:
        """The seat will lose its next turn (said now, as a penalty)."""
        s.extra = replace(s.extra, loses_turn=s.extra.loses_turn | 1 << seat)
        events.append(penalty_event(seat, 0, "uno-lose-turn"))
        return True

    def handing_over(self, s: State, seat: int, events: list[Event]) -> int:
        """A seat that owes a turn is skipped as the turn comes to it."""
        while not s.pending and s.extra.loses_turn >> seat & 1:
            s.extra = replace(s.extra, loses_turn=s.extra.loses_turn & ~(1 << seat))
            events.append(SKIPPED[seat])
            seat = s.next_seat(seat)
        return super().handing_over(s, seat, events)


class SevenO(Variant):
    """``seven_o``: a 7's player names whose hand to swap with (:class:`Swap`); after a 0 every
    hand passes one seat in the direction of play. Choice, as for Shuffle Hands: UNO calls are
    cleared and a player handed a single card is not catchable."""

    @classmethod
    def applies(cls, options: Options) -> bool:
        """Whether ``options`` turn this rule on."""
        return options.seven_o

    def awaiting(self, s: State) -> int | None:
        """The seat that must act before play goes on under this rule, else ``None``."""
        swapper = s.extra.awaiting_swap
        return super().awaiting(s) if swapper is None else swapper

    def check_turn(self, s: State) -> None:
        """Raise unless the player on turn may act now, under this rule."""
        if s.extra.awaiting_swap is not None:
            raise IllegalPlay("swap-needed", "the player of the 7 names whose hand to swap")
        super().check_turn(s)

    def after_play(
        self, s: State, p: int, cards: tuple[Card, ...], color: Color | None, events: list[Event]
    ) -> bool:
        """What this rule does once a play's effect is done; whether it holds the turn."""
        card = cards[-1]
        if card.number == 7:
            s.extra = replace(s.extra, awaiting_swap=p)
        elif card.number == 0:
            seats = s.active
            moved = {s.next_seat(i): s.hands[i] for i in seats}
            for i, hand in moved.items():
                s.hands[i] = hand
            s.called = [False] * s.n
            s.uno_window = None
            events.append(Event(EventKind.HANDS_PASSED, player=p, count=s.direction))
        held = super().after_play(s, p, cards, color, events)
        if s.extra.awaiting_swap is not None:
            events.append(Event(EventKind.SWAP_NEEDED, player=p))
            return True
        return held

    def waiting_actions(self, s: State) -> list[Action] | None:
        """The legal actions while this rule waits for a seat."""
        swapper = s.extra.awaiting_swap
        if swapper is None:
            return super().waiting_actions(s)
        return [Swap(swapper, t) for t in s.active if t != swapper]

    def on_swap(self, s: State, a: Swap, events: list[Event]) -> None:
        """The Swap action of Seven-O."""
        p, t = a.player, a.target
        check_seat(s, p)
        check_seat(s, t)
        check_in_play(s)
        swapper = s.extra.awaiting_swap
        if swapper is None:
            raise IllegalPlay("no-swap-needed", "no 7 is waiting for a swap")
        if p != swapper:
            raise IllegalPlay("not-your-turn", f"{s.players[swapper]} names the swap")
        if t == p:
            raise IllegalPlay("swap-with-yourself", "name another player")
        s.hands[p], s.hands[t] = s.hands[t], s.hands[p]
        s.called[p] = s.called[t] = False
        s.uno_window = None
        s.extra = replace(s.extra, awaiting_swap=None)
        events.append(Event(EventKind.SWAPPED, player=p, target=t))
        announce_turn(s, events)
