"""Musician scoring (ミュージシャンルール, RULES.md §6; [002] 「点数計算」, 「オプションルール」).

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

from typing import Final

from table.rules.events import EventKind
from table.rules.state import Event, State
from table.rules.variant_state import Finish, replace

BONUS: Final = {
    "color_call": 10,
    "reverse_back": 10,
    "skip_back": 10,
    "same_color_don": 5,
    "zero_don": 5,
}
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
            pay[payer] += BONUS[name]
            events.append(Event(BONUS_EVENT[name], player=payer, count=BONUS[name]))
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
