"""The Musician rules (ミュージシャンルール, docs/rules.md §6, [002]) but Don (``variants/don.py``):
the dealer plays first, Chin, and the scoring (「点数計算」, 「オプションルール」) with the marks
it needs (色指定, リバース返し, スキップ返し).

Each loser adds their hand (Wild/WD4 50, Draw Two/Reverse/Skip 20, numbers face value), rounds
half up to ten and drops the last digit: 「合計が34なら負け点は「3」、合計が67なら負け点「7」」.
The player Don'd pays 5 more per Don. Bonuses of the options are added to whoever they charge,
then the multipliers apply; the winner scores what the losers pay, and each loser loses it.

Choices where [002] is open, each tested in the golden scenarios:
- Double/Triple Don: the other Don winners take 5 each
  (「その他の人は「ドン」の5点づつもらえます」), the winner furthest upstream takes the rest;
  they pay nothing.
- 連ドン: 「同じ人が「ドン」を3回されると、3回目から「ドン」の分がプラス10点」. The score sheet's
  rows (市川氏 Don'd in rows 4, 5, 6; 加龍氏 in row 11 and Double-Don'd in row 12 「先の「ドン」と
  今回の「ダブルドン」で「連ドン」です」; 市川氏 again in row 13 without 連ドン) read as: Dons
  suffered in consecutive rounds, a Double Don counting two; a round without one resets the
  count. Each Don from the third on costs 10 instead of 5.
- Multipliers do not multiply each other: テンホー (×10) and 8連チャン (×10) and 連チャン (×2)
  give the largest; the 3rd 連チャン's 御祝儀 of 10 is added after it.
- パンパカパーン: 「B君、C君、D君の負け点数がそれぞれ3点 ... A君は15点負け」 — the seed's 15 is
  not 3 × 3. The round stays zero-sum: the winner pays what the losers would have paid (9 for
  three losers at 3; 15 for three at 5) and each loser gains their amount. It needs at least two
  losers (with one, "everyone equal" would always hold), and is not applied to a テンホー
  (「「テンホー」の10倍は御祝儀なので、「パンパカパーン」にはなりません」) nor to a Double Don.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from table.cards import REVERSE, SKIP, WILD, WILD_DRAW_FOUR, Card, Color
from table.errors import IllegalPlay
from table.rules.events import EventKind
from table.rules.flow import move_turn
from table.rules.play import DRAWS
from table.rules.state import Event, State
from table.rules.variant_state import Finish, replace
from table.rules.variants.base import Variant

if TYPE_CHECKING:
    from table.rules.options import Options

_WILDS = (WILD, WILD_DRAW_FOUR)

BONUS: Final = {
    "color_call": 10,
    "reverse_back": 10,
    "skip_back": 10,
    "same_color_don": 5,
    "zero_don": 5,
}
_BACKS: Final = frozenset({"reverse_back", "skip_back"})  # their points are an option
BONUS_EVENT: Final = {
    "color_call": EventKind.COLOR_CALL,
    "reverse_back": EventKind.REVERSE_BACK,
    "skip_back": EventKind.SKIP_BACK,
    "same_color_don": EventKind.SAME_COLOR_DON,
    "zero_don": EventKind.ZERO_DON,
}


def loss_points(hand_total: int) -> int:
    """A hand's points rounded half up to ten, last digit dropped: 34 -> 3, 67 -> 7, 45 -> 5."""
    return (hand_total + 5) // 10


def win_run(s: State, winner: int) -> int:
    """How many rounds in a row ``winner`` has now won, this one included."""
    run = 1
    for result in reversed(s.results):
        if result.winner != winner:
            break
        run += 1
    return run


def score(s: State) -> tuple[tuple[int, ...], list[Event]]:
    """Each seat's points for the round just won, and the events that explain them."""
    o = s.options
    x = s.extra
    assert s.winner is not None
    f = x.finish or Finish("chin", (s.winner,), s.discard[-1])
    w = f.winners[0]
    others = f.winners[1:]
    events: list[Event] = []
    losers = [i for i in s.active if i not in f.winners]
    pay = {i: loss_points(sum(c.points for c in s.hands[i].known)) for i in losers}
    streak = list(x.don_streak) if x.don_streak else [0] * s.n
    if f.kind == "don" and f.donned is not None:
        d = f.donned
        dons = len(f.winners)
        charge = 0
        for nth in range(streak[d] + 1, streak[d] + dons + 1):
            charge += 10 if o.musician_rendon and nth >= 3 else 5
        if o.musician_rendon and streak[d] + dons >= 3:
            events.append(Event(EventKind.RENDON, player=d, count=streak[d] + dons))
        pay[d] = pay.get(d, 0) + charge
        streak = [streak[i] + dons if i == d else 0 for i in range(s.n)]
    else:
        streak = [0] * s.n
    for name, payer in f.bonuses:
        if getattr(o, f"musician_{name}") and payer in pay:
            # [002] 「人によっては、20点増しでやってます」: musician_back_points = 20.
            bonus = o.musician_back_points if name in _BACKS else BONUS[name]
            pay[payer] += bonus
            events.append(Event(BONUS_EVENT[name], player=payer, count=bonus))
    times, gift = 1, 0
    tenhou = o.musician_tenhou and f.tenhou
    if tenhou:
        times = 10
        events.append(Event(EventKind.TENHOU, player=w))
    run = win_run(s, w)
    if o.musician_eight_renchan and run == 8:
        times = 10
        events.append(Event(EventKind.RENCHAN, player=w, count=run))
    elif o.musician_renchan and run >= 3:
        times = max(times, 2)
        gift = 10 if run == 3 else 0
        events.append(Event(EventKind.RENCHAN, player=w, count=run))
    pay = {i: v * times + gift for i, v in pay.items()}
    total = sum(pay.values())
    points = [0] * s.n
    flip = (
        o.musician_panpakapan
        and not tenhou
        and not others
        and len(pay) >= 2
        and len(set(pay.values())) == 1
    )
    if flip:
        events.append(Event(EventKind.PANPAKAPAN, player=w, count=total))
        points[w] = -total
        for i, v in pay.items():
            points[i] = v
    else:
        for i, v in pay.items():
            points[i] = -v
        for i in others:
            points[i] = 5
        points[w] = total - 5 * len(others)
    s.extra = replace(x, don_streak=tuple(streak))
    return tuple(points), events


# ---------------------------------------------------------------------------------------------
# The rules


class DealerFirst(Variant):
    """``first_player = "dealer"`` [002] 「親から、場にでているカードと同じ色か同じ数字のカードを
    場に出していきます」: the dealer plays first. 「OPENカードが「ドロー2」か「ドロー4」の場合、
    手持ちに「ドロー2」か「ドロー4」がなければ親は、そのカードの指示に従ってカードをひいて下さい。」:
    the dealer draws unless they answer it with either draw card (a Draw Two or a Wild Draw
    Four, whatever ``stacking`` says later in the round). 「「スキップ」なら、親の
    左隣の人からゲームスタート」; 「「リバース」なら、親がだして次は右隣の人」.
    Choice: for a Wild or Wild Draw Four turned up the dealer names the colour."""

    @classmethod
    def applies(cls, options: Options) -> bool:
        """Whether ``options`` turn this rule on."""
        return options.first_player == "dealer"

    def buries(self, s: State, card: Card, official: bool) -> bool:
        """Whether the first card turned up goes back into the pile, under this rule."""
        if card.rank == WILD_DRAW_FOUR:
            # [002]: the dealer draws it (or stacks), unless every first action card goes back.
            return s.options.first_action == "redraw"
        return super().buries(s, card, official)

    def first_turn(self, s: State, card: Card, events: list[Event]) -> bool:
        """Start play after the first card in this rule's way; whether it did."""
        d = first = s.dealer
        if card.rank == SKIP:
            events.append(Event(EventKind.SKIPPED, player=d))
            first = s.next_seat(d)
        elif card.rank == REVERSE:
            s.direction = -1
            events.append(Event(EventKind.REVERSED, count=-1))
        elif card.rank in DRAWS:
            s.pending = DRAWS[card.rank]
        if card.is_wild:
            move_turn(s, d)
            s.awaiting_color = d
            events.append(Event(EventKind.COLOR_NEEDED, player=d))
            return True
        move_turn(s, first, events)
        return True

    def may_stack(self, s: State, card: Card) -> bool:
        # The dealer answering a first Draw Two or Wild Draw Four may use either [002].
        """Whether ``card`` may be played on a pending draw, under this rule."""
        first = len(s.discard) == 1 and card.is_draw
        return first or super().may_stack(s, card)


class Chin(Variant):
    """``chin`` [002]: 「1-「ドロー4」や「ワイルド」では上がれない」; 「2-「ウノ」を宣言する時
    「ドロー4」や「ワイルド」は出せない。(4人以上ならO.K.です)」."""

    @classmethod
    def applies(cls, options: Options) -> bool:
        """Whether ``options`` turn this rule on."""
        return options.chin

    def check_going_out(self, s: State, p: int, cards: tuple[Card, ...], left: int) -> None:
        """Raise unless ``p`` may go out (or down to one) with ``cards``, under this rule."""
        if left == 0 and cards[-1].rank in _WILDS:
            raise IllegalPlay("no-wild-finish", "a round cannot end on a Wild or Wild Draw Four")
        super().check_going_out(s, p, cards, left)
        if left == 1 and cards[0].rank in _WILDS and len(s.active) <= 3:
            raise IllegalPlay(
                "no-wild-to-uno", "with three players or fewer no wild down to one card"
            )


def backs_for(s: State, winner: int) -> tuple[tuple[str, int], ...]:
    """The リバース返し / スキップ返し marks aimed at ``winner``: (option, who pays)."""
    return tuple((kind, player) for kind, player, target in s.extra.backs if target == winner)


def _on_uno(s: State, skip: int = -1) -> int:
    """Seats (bit per seat) that called UNO and hold one card."""
    mask = 0
    for i in s.active:
        if i != skip and s.called[i] and len(s.hands[i]) == 1:
            mask |= 1 << i
    return mask


class MusicianScoring(Variant):
    """``scoring = "musician"``: the scoring above, and the marks its bonuses need."""

    @classmethod
    def applies(cls, options: Options) -> bool:
        """Whether ``options`` turn this rule on."""
        return options.scoring == "musician"

    def after_play(
        self, s: State, p: int, cards: tuple[Card, ...], color: Color | None, events: list[Event]
    ) -> bool:
        """[002] 色指定: 「誰かが「ウノ」をコールしている時、「ワイルド」か「ドロー4」で色を
        指定し、そのコールしていた人が指定した色で上がった場合 (途中で「リバース」や「スキップ」
        がはいると「色指定」にはならない。)」. リバース返し / スキップ返し: 「その人に向かって
        「リバース」をだし、その人が上がった場合」.

        Choices: a Reverse is played *towards* the player it sends play to, a Skip towards each
        player it skips; the mark holds until that player's own next action (a play that does
        not win, a draw), so the win must come with the turn the card aimed at, or by a Don
        before it. A later wild replaces a colour call."""
        x = s.extra
        last = cards[-1]
        backs = tuple(b for b in x.backs if b[2] != p)
        call = x.color_call
        if last.rank in _WILDS:
            mask = _on_uno(s, p)
            call = (p, color, mask) if mask and color is not None else None
        elif last.rank in (REVERSE, SKIP):
            call = None
            as_skip = len(s.active) == 2 and s.options.two_player_reverse_is_skip
            if last.rank == REVERSE and not as_skip:
                targets = [s.turn]
                kind = "reverse_back"
            else:
                kind = "reverse_back" if last.rank == REVERSE else "skip_back"
                targets = []
                seat = p
                while True:
                    seat = s.next_seat(seat)
                    if seat == s.turn:
                        break
                    targets.append(seat)
            uno = _on_uno(s, p)
            backs += tuple((kind, p, t) for t in targets if (uno >> t) & 1)
        s.extra = replace(x, backs=backs, color_call=call)
        return super().after_play(s, p, cards, color, events)

    def color_named(self, s: State, p: int, color: Color) -> None:
        """A wild's colour named after the play (a colour token): it may be a 色指定."""
        top = s.top
        if top is not None and top.rank in _WILDS:
            mask = _on_uno(s, p)
            s.extra = replace(s.extra, color_call=(p, color, mask) if mask else None)
        super().color_named(s, p, color)

    def turn_action(self, s: State, p: int) -> None:
        """A draw or a pass ends the marks aimed at its player."""
        x = s.extra
        if any(b[2] == p for b in x.backs):
            s.extra = replace(x, backs=tuple(b for b in x.backs if b[2] != p))
        super().turn_action(s, p)

    def going_out(self, s: State, p: int, last: Card) -> None:
        """チン: the bonuses of the marks aimed at the winner, for the scoring."""
        bonuses = backs_for(s, p)
        call = s.extra.color_call
        if call is not None and call[0] != p and (call[2] >> p) & 1 and last.color is call[1]:
            bonuses += (("color_call", call[0]),)
        s.extra = replace(s.extra, finish=Finish("chin", (p,), last, bonuses=bonuses))
        super().going_out(s, p, last)

    def round_points(self, s: State, events: list[Event]) -> tuple[int, ...]:
        """Each seat's points for the round just won, under this rule."""
        points, why = score(s)
        events += why
        return points
