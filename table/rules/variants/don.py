"""Don (ドン), the Musician rules' out-of-turn win (docs/rules.md §6, [002]).

「手持ちのカードが何枚であれ、数字ばっかりなら、その数字を全部たした数が場にでると『ドン』と宣言して
上がれる」: a hand of number cards only (any number of cards, any colours) wins at once when a
number card equal to its sum is played, whoever's turn it is.

Choices, each from the seed's words:
- The Don is open while that card is the top of the discard pile (「場にでると」: it is on the
  table); the next card played closes it.
- The rotation: 「自分がだしてから、次にもう一度自分がだすまでが1周です。その1周で、初めて目当ての
  数が出た時だけがチャンスです。2度めが出た時に『ドン』をしたら「チョンボ」です。2枚ひかされます。」
  Each seat remembers the numbers played since its own last play; a Don on a number already
  seen in that rotation is a chombo. Only a play starts a new rotation (「だしてから」), and the
  player's own card does not count in it (nobody Dons their own card).
- Any Don the referee finds false (a number it has seen, a sum that is not the card, a hand
  with an action or wild card) is a chombo: the caller draws ``false_don_penalty`` (2) and play
  goes on. A Don with nothing to claim (no number card on top), or on one's own card, is
  refused and changes nothing.
- Double and Triple Don: 「「ドン」をされた人が1番下流です。上がったひとの中で、その流れの1番上流に
  いる人が次の親です。」 Play flows downstream to the Don'd player, so the winner furthest
  upstream is the first Don caller after the Don'd player in the direction of play. Dons on the
  same card are simultaneous: one after the round was won by a Don on that card joins it, and
  the round is scored again.
- A caller whose hand the referee does not know shows it (on the play pad); the Don is judged
  on the cards shown.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import TYPE_CHECKING

from table.cards import Card, Color
from table.errors import IllegalPlay
from table.rules import flow
from table.rules.actions import Action, Don
from table.rules.events import EventKind
from table.rules.state import Event, Phase, State
from table.rules.variant_state import Finish, replace
from table.rules.variants.base import Variant
from table.rules.variants.musician import backs_for

if TYPE_CHECKING:
    from table.rules.options import Options


def note_play(s: State, p: int, last: Card) -> None:
    """A play by ``p`` whose top card is ``last``: update the rotations and the open Don."""
    x = s.extra
    seen = list(x.seen)
    seen[p] = 0
    stale = 0
    if last.number is None:
        s.extra = replace(x, seen=tuple(seen), don_card=None, don_by=None, don_first=False)
        return
    bit = 1 << last.number
    for seat in range(s.n):
        if seat != p:
            if seen[seat] & bit:
                stale |= 1 << seat
            seen[seat] |= bit
    s.extra = replace(
        x, seen=tuple(seen), don_card=last, don_by=p, don_first=False, don_stale=stale
    )


def note_turn_up(s: State, card: Card) -> None:
    """The dealer turned up ``card``: a Don on it is a テンホー, the dealer is the one Don'd."""
    if card.number is None:
        return
    bit = 1 << card.number
    s.extra = replace(
        s.extra,
        seen=(bit,) * s.n,
        don_card=card,
        don_by=s.dealer,
        don_first=True,
        don_stale=0,
    )


def _is_win(s: State, p: int, cards: Sequence[Card]) -> bool:
    x = s.extra
    card = x.don_card
    return (
        card is not None
        and card.number is not None
        and bool(cards)
        and all(c.number is not None for c in cards)
        and sum(c.number or 0 for c in cards) == card.number
        and not (x.don_stale >> p) & 1
    )


def _joins(s: State, p: int) -> bool:
    """Whether ``p`` may still join a Don already won on this card (Double/Triple Don)."""
    f = s.extra.finish
    return (
        s.phase in (Phase.ROUND_OVER, Phase.MATCH_OVER)
        and f is not None
        and f.kind == "don"
        and p not in f.winners
        and s.top is f.card
    )


def winning_seats(s: State) -> list[int]:
    """Seats whose known hand would win a Don now (for self-play and tests)."""
    x = s.extra
    if x.don_card is None or s.top is not x.don_card or s.awaiting_show is not None:
        return []
    if s.phase is not Phase.PLAY and not (s.phase is Phase.ROUND_OVER and x.finish is not None):
        return []
    out = []
    for p in s.active:
        hand = s.hands[p]
        if p == x.don_by or hand.unknown or not _is_win(s, p, hand.known):
            continue
        if s.phase is Phase.PLAY or _joins(s, p):
            out.append(p)
    return out


def on_don(s: State, a: Don, events: list[Event]) -> None:
    """The Don action: a win out of turn, or a false Don's penalty."""
    p = a.player
    flow.check_seat(s, p)
    joining = _joins(s, p)
    if not joining:
        flow.check_in_play(s)
    if s.awaiting_show is not None:
        raise IllegalPlay("show-needed", f"{s.players[s.awaiting_show]} must show their hand first")
    x = s.extra
    if x.don_card is None or s.top is not x.don_card:
        raise IllegalPlay("nothing-to-don", "Don is called on the number card just played")
    if p == x.don_by:
        raise IllegalPlay("don-own-card", "nobody Dons their own card")
    hand = s.hands[p]
    if a.cards:
        flow.check_show(s, p, a.cards)
    cards = list(a.cards) if a.cards else hand.known
    if joining and (a.cards or not hand.unknown) and not _is_win(s, p, cards):
        raise IllegalPlay("false-don", "that Don does not win, and the round is over")
    # --- accepted ---
    if a.cards:
        flow.reveal(s, p, a.cards, events)
    if hand.unknown:
        events.append(Event(EventKind.DON, player=p))
        s.awaiting_show = p
        s.extra = replace(x, don_claim=p)
        events.append(Event(EventKind.SHOW_NEEDED, player=p, reason="don"))
        return
    judge(s, p, events)


def judge(s: State, p: int, events: list[Event]) -> None:
    """Judge ``p``'s Don on their (now known) hand."""
    x = s.extra
    s.extra = x = replace(x, don_claim=None)
    if s.awaiting_show == p:
        s.awaiting_show = None
    hand = s.hands[p].known
    if not _is_win(s, p, hand):
        if s.phase is not Phase.PLAY:  # a hidden hand joining a won round: nothing to draw
            events.append(Event(EventKind.REJECTED, player=p, reason="false-don"))
            return
        flow.draw_cards(s, p, s.options.false_don_penalty, events, "false-don")
        return
    card = x.don_card
    donned = x.don_by
    assert card is not None and donned is not None
    events.append(Event(EventKind.DON, player=p, target=donned))
    bonuses: tuple[tuple[str, int], ...] = ()
    if len(hand) == 1 and hand[0] is card:
        bonuses += (("same_color_don", donned),)  # 同色ドン
    if card.number == 0:
        bonuses += (("zero_don", donned),)  # 0ドン: 「手持ちが1枚でも2枚でも3枚でも「0」の時」
    bonuses += backs_for(s, p)
    f = x.finish
    if f is not None and f.kind == "don" and s.phase is not Phase.PLAY:
        _rejoin(s, f, p, bonuses, events)
        return
    s.extra = replace(x, finish=Finish("don", (p,), card, donned, x.don_first, bonuses))
    flow.win_round(s, p, events, "don")


def _rejoin(
    s: State, f: Finish, p: int, bonuses: tuple[tuple[str, int], ...], events: list[Event]
) -> None:
    """A second (third) Don on the same card: the round is won again, by several players."""
    x = s.extra
    donned = f.donned
    assert donned is not None

    def upstream(seat: int) -> int:
        return ((seat - donned) * s.direction) % s.n

    winners = tuple(sorted((*f.winners, p), key=upstream))
    if len(s.results) >= s.round:  # already scored: score it again with every winner
        s.results = s.results[:-1]
        s.scores = list(x.base_scores)
        x = replace(x, don_streak=x.base_streak)
    finish = dataclasses.replace(f, winners=winners, bonuses=f.bonuses + bonuses)
    s.extra = replace(x, finish=finish)
    s.winner = winners[0]
    s.phase = Phase.ROUND_OVER
    events.append(Event(EventKind.MULTI_DON, player=winners[0], count=len(winners)))
    flow.try_score(s, events)


class DonRule(Variant):
    """``don``: the Don action, the rotations it needs, and a Double Don scored again."""

    @classmethod
    def applies(cls, options: Options) -> bool:
        """Whether ``options`` turn this rule on."""
        return options.don

    def turned_up(self, s: State, card: Card) -> None:
        """``card`` stays turned up: what this rule remembers of it."""
        note_turn_up(s, card)
        super().turned_up(s, card)

    def after_play(
        self, s: State, p: int, cards: tuple[Card, ...], color: Color | None, events: list[Event]
    ) -> bool:
        """What this rule does once a play's effect is done; whether it holds the turn."""
        note_play(s, p, cards[-1])
        return super().after_play(s, p, cards, color, events)

    def shown(self, s: State, p: int, events: list[Event]) -> bool:
        """Judge what waited for ``p``'s shown hand under this rule; whether anything did."""
        if s.extra.don_claim == p:
            judge(s, p, events)
            return True
        return super().shown(s, p, events)

    def on_don(self, s: State, a: Don, events: list[Event]) -> None:
        """The Don action, under this rule."""
        on_don(s, a, events)

    def out_of_turn(self, s: State) -> list[Action]:
        """The out-of-turn actions this rule accepts now."""
        dons: list[Action] = [Don(seat) for seat in winning_seats(s)]
        return dons + super().out_of_turn(s)

    def round_points(self, s: State, events: list[Event]) -> tuple[int, ...]:
        # What a Double Don that comes after the scoring starts again from.
        """Each seat's points for the round just won, under this rule."""
        s.extra = replace(s.extra, base_scores=tuple(s.scores), base_streak=s.extra.don_streak)
        return super().round_points(s, events)
