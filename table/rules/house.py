"""Plays under the competition, local and Musician rules (RULES.md §4, §5, §6).

The engine hands a play here when ``state.extra.on`` (some rule of these sections is on), so
the official game keeps its fast path. Everything the official play checks is checked here
too, plus: several cards at once (``two_card_play``, ``multi_play``), stacking on a pending
draw, jumping in out of turn, the finishing restrictions (``action_finish``, ``chin``), a Wild
that keeps the rank under it, Seven-O, the dealer playing first, and the marks the Musician
scoring needs (Don, 色指定, リバース返し, スキップ返し).

Like the engine, every check runs before the first change: a rejected play changes nothing.
"""

from __future__ import annotations

from collections import Counter

from table.cards import (
    COLORS,
    DRAW_TWO,
    REVERSE,
    SHUFFLE_HANDS,
    SKIP,
    WILD,
    WILD_DRAW_FOUR,
    Card,
    Color,
)
from table.errors import IllegalPlay
from table.rules import don
from table.rules import engine as E
from table.rules.actions import (
    Action,
    CallUno,
    Challenge,
    ChooseColor,
    Don,
    Draw,
    Pass,
    Play,
    Swap,
)
from table.rules.events import EventKind
from table.rules.matching import matches, wd4_guilty
from table.rules.stacking import answerable, can_stack
from table.rules.state import ChallengeWindow, Event, Phase, State
from table.rules.variant_state import Finish, replace

_DRAWS = {DRAW_TWO: 2, WILD_DRAW_FOUR: 4}
_WILDS = (WILD, WILD_DRAW_FOUR)


# ---------------------------------------------------------------------------------------------
# Checks


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
        and s.extra.awaiting_swap is None
    )


def _check_group(s: State, cards: tuple[Card, ...]) -> None:
    """Several cards at once. ``multi_play = "same-number"`` [000] local rule 4: cards of one
    number or one symbol (「記号か数字が一致している」), the first playable, the last the new top.
    ``two_card_play`` [000] 4-2: two identical number cards
    (「色と数字が一致する同一の数字カード」);
    action cards one at a time. Choice: wild cards are always played one at a time."""
    opts = s.options
    lead = cards[0]
    if any(c.is_wild for c in cards):
        raise IllegalPlay("one-card-at-a-time", "wild cards are played one at a time")
    if opts.multi_play == "same-number" and all(c.rank == lead.rank for c in cards):
        return
    if opts.two_card_play and len(cards) == 2 and cards[1] is lead and lead.number is not None:
        return
    if opts.multi_play == "same-number" or (opts.two_card_play and lead.number is not None):
        raise IllegalPlay("not-same-card", "only cards of the same number go down together")
    raise IllegalPlay("one-card-at-a-time", "cards are played one at a time")


def _check_cards(s: State, p: int, cards: tuple[Card, ...], jump: bool) -> None:
    hand = s.hands[p]
    if s.has_drawn and not jump:
        card = cards[0]
        if len(cards) != 1:
            raise IllegalPlay("must-play-drawn-card", "only the card just drawn may be played")
        if s.drawn is not None:
            if card is not s.drawn:
                raise IllegalPlay("must-play-drawn-card", "only the card just drawn may be played")
        elif not (s.drawn_unknown and hand.unknown and s.is_available(card)):
            raise IllegalPlay("must-play-drawn-card", "only the card just drawn may be played")
        return
    if len(cards) == 1 and cards[0] in hand.known:
        return
    short = Counter(cards)
    short.subtract(Counter(hand.known))
    short = +short
    if not short:
        return
    if sum(short.values()) > hand.unknown:
        raise IllegalPlay("card-not-in-hand", f"{cards[0]} is not in that hand")
    pool = s.unknown_pool()
    if any(pool[c] < k for c, k in short.items()):
        raise IllegalPlay("card-not-available", "that card is already accounted for")


def check_play(s: State, a: Play) -> bool:
    """Raise :class:`IllegalPlay` unless ``a`` may be played now; return whether it jumps in."""
    p, cards = a.player, a.cards
    opts = s.options
    if not cards:
        raise IllegalPlay("one-card-at-a-time", "name the card played")
    jump = p != s.turn and opts.jump_in and _can_jump(s, p, cards)
    if not jump:
        E._on_turn(s, p)
        if s.extra.awaiting_swap is not None:
            raise IllegalPlay("swap-needed", "the player of the 7 names whose hand to swap")
    if len(cards) > 1:
        _check_group(s, cards)
    _check_cards(s, p, cards, jump)
    lead = cards[0]
    if s.pending:
        # The dealer answering a first Draw Two or Wild Draw Four may use either [002].
        first = opts.first_player == "dealer" and len(s.discard) == 1 and lead.is_draw
        if not (first or can_stack(opts.stacking, s.top, s.color, lead)):
            raise IllegalPlay("draw-penalty-pending", "draw the penalty cards (or challenge) first")
    elif not matches(s, lead):
        raise IllegalPlay("wrong-color-or-number", f"{lead} does not match")
    hand = s.hands[p]
    left = len(hand) - len(cards)
    last = cards[-1]
    if left == 0:
        if not opts.action_finish and last.number is None:
            raise IllegalPlay("no-action-finish", "a round cannot end on an action or wild card")
        if opts.chin and last.rank in _WILDS:
            # [002] 「1-「ドロー4」や「ワイルド」では上がれない」
            raise IllegalPlay("no-wild-finish", "a round cannot end on a Wild or Wild Draw Four")
        if len(cards) == 2 and opts.multi_play == "off" and not s.called[p]:
            # [000] 4-2: 「「ウノ」を宣言していなかった場合 ... あがることができずカードは1枚のみ」
            raise IllegalPlay("uno-first", "call UNO before going out with two cards")
    if opts.chin and left == 1 and lead.rank in _WILDS and len(s.active) <= 3:
        # [002] 「2-「ウノ」を宣言する時「ドロー4」や「ワイルド」は出せない。(4人以上ならO.K.です)」
        raise IllegalPlay("no-wild-to-uno", "with three players or fewer no wild down to one card")
    restricted = opts.wild_draw_four != "unrestricted" and not opts.challengeable
    if lead.rank == WILD_DRAW_FOUR and restricted and not s.pending:
        rest = hand.known.copy()
        if lead in rest:
            rest.remove(lead)
        if wd4_guilty(rest, s.color, s.live_rank, opts.wild_draw_four):
            raise IllegalPlay(
                "wild-draw-four-not-allowed", "a Wild Draw Four needs no matching card in hand"
            )
    return jump


def has_play(s: State, p: int) -> bool:
    """Whether the player on turn holds a known card these rules let them play now."""
    return any(isinstance(a, Play) for a in _plays(s, p))


# ---------------------------------------------------------------------------------------------
# The play


def play(s: State, a: Play, events: list[Event]) -> None:
    jump = check_play(s, a)
    p, cards = a.player, a.cards
    opts = s.options
    lead, last = cards[0], cards[-1]
    hand = s.hands[p]
    prior_color, prior_rank, prior_top = s.color, s.live_rank, s.top
    stacked = s.pending
    rest: list[Card] = []
    unknown_rest = 0
    if lead.rank == WILD_DRAW_FOUR:
        rest = hand.known.copy()
        if lead in rest:
            rest.remove(lead)
            unknown_rest = hand.unknown
        else:
            unknown_rest = hand.unknown - 1

    # --- accepted ---
    restricted = opts.wild_draw_four != "unrestricted" and not opts.challengeable
    if lead.rank == WILD_DRAW_FOUR and restricted and not stacked and unknown_rest > 0:
        s.unverified += 1  # the referee could not see whether the restriction held
        events.append(Event(EventKind.UNVERIFIED, player=p))
    if jump:
        events.append(Event(EventKind.JUMP_IN, player=p, target=s.turn))
        s.turn = p
    if s.uno_window is not None:
        E._begin_turn(s, events)
    for card in cards:
        if card in hand.known:
            hand.known.remove(card)
        else:
            hand.unknown -= 1
            s.hidden -= 1
        s.discard.append(card)
        events.append(Event(EventKind.PLAYED, p, None, card, a.color if card.is_wild else None))
    s.has_drawn = False
    s.drawn = None
    s.drawn_unknown = False
    if last.is_wild:
        s.color = a.color
        # [002] 「「ワイルド」は色を変えるだけなので、その直前にだされたカードの
        # 数字や文字はいきています」
        # Choice: only a plain Wild keeps the rank; the seed says it of 「ワイルド」 alone.
        keep = opts.wild_keeps_symbol and last.rank == WILD
        s.live_rank = prior_rank if keep else None
    else:
        s.color = last.color
        s.live_rank = last.rank
    if opts.don:
        don.note_play(s, p, last)
    if lead.rank == SHUFFLE_HANDS and (len(hand) or opts.shuffle_hands_last_card == "redeal"):
        E._shuffle_hands(s, p, events)
        hand = s.hands[p]
    if len(hand) == 0:
        _finish(s, p, cards, events)
        return
    if len(hand) == 1 and not s.called[p] and lead.rank != SHUFFLE_HANDS:
        s.uno_window = p
    elif len(hand) > 1:
        s.called[p] = False  # a call made for a multi-card play that did not come
    _effect(s, p, cards, events, stacked, prior_top, rest, unknown_rest, prior_color, prior_rank)
    if opts.scoring == "musician":
        _marks(s, p, cards, a.color)
    if opts.seven_o and last.number in (0, 7):
        _seven_o(s, p, last, events)
    if s.uno_window == p:
        s.uno_next = s.turn
    if last.is_wild and a.color is None:
        s.awaiting_color = p
        events.append(Event(EventKind.COLOR_NEEDED, player=p))
    elif s.extra.awaiting_swap is not None:
        events.append(Event(EventKind.SWAP_NEEDED, player=p))
    else:
        E._announce_turn(s, events)


def _effect(
    s: State,
    p: int,
    cards: tuple[Card, ...],
    events: list[Event],
    stacked: int,
    prior_top: Card | None,
    rest: list[Card],
    unknown_rest: int,
    prior_color: Color | None,
    prior_rank: str | None,
) -> None:
    """The effect of the cards just played. Several action cards stack their effects [000]:
    「ドロー2」を3枚 → 6枚; Skips skip one player each (「自分から4番目、6番目の人とターンが飛ぶ」);
    「奇数枚出すと順番が逆に、偶数枚だとそのまま」. Choice: Skips never skip their own player."""
    opts = s.options
    last = cards[-1]
    rank, count = last.rank, len(cards)
    nxt = s.next_seat(p)
    two = len(s.active) == 2
    if last.number is not None:
        s.turn = nxt
    elif rank == SKIP or (rank == REVERSE and two and opts.two_player_reverse_is_skip):
        seat = p
        for _ in range(min(count, len(s.active) - 1)):
            seat = s.next_seat(seat)
            events.append(Event(EventKind.SKIPPED, player=seat))
        s.turn = s.next_seat(seat)
    elif rank == REVERSE:
        if count % 2:
            s.direction = -s.direction
            events.append(Event(EventKind.REVERSED, count=s.direction))
        s.turn = s.next_seat(p)
    elif rank in _DRAWS:
        total = stacked + _DRAWS[rank] * count
        window: ChallengeWindow | None = None
        on_four = stacked and prior_top is not None and prior_top.rank == WILD_DRAW_FOUR
        if rank == WILD_DRAW_FOUR and opts.challengeable and not on_four:
            # [000] 「「ワイルド・ドロー4」の上にさらに「ワイルド・ドロー4」が重ねられた場合、
            # 「チャレンジ」ができない。ただし「ドロー2」の上に重ねた「ワイルド・ドロー4」には
            # 「チャレンジ」ができる」
            window = ChallengeWindow(
                p, nxt, tuple(rest), unknown_rest, prior_color, prior_rank, True, bool(stacked)
            )
        s.pending = 0
        s.challenge = None
        if window is not None or answerable(opts.stacking, rank):
            s.pending = total
            s.challenge = window
            s.turn = nxt
        else:
            reason = "draw-two" if rank == DRAW_TWO else "wild-draw-four"
            E._draw_cards(s, nxt, total, events, reason)
            events.append(Event(EventKind.SKIPPED, player=nxt))
            s.turn = s.next_seat(nxt)
    else:
        E._resolve_effect(s, p, last, events, rest, unknown_rest, prior_color, prior_rank)


def _finish(s: State, p: int, cards: tuple[Card, ...], events: list[Event]) -> None:
    """``p`` went out (チン in the Musician rules). A last draw card (several, or stacked on a
    pending draw) is still drawn by the next player, in full."""
    last = cards[-1]
    nxt = s.next_seat(p)
    total = s.pending + _DRAWS.get(last.rank, 0) * len(cards)
    if total:
        reason = "draw-two" if last.rank == DRAW_TWO else "wild-draw-four"
        E._draw_cards(s, nxt, total, events, reason)
    if s.options.scoring == "musician":
        bonuses = _chin_bonuses(s, p, last)
        s.extra = replace(s.extra, finish=Finish("chin", (p,), last, bonuses=bonuses))
    don.win_round(s, p, events)


# ---------------------------------------------------------------------------------------------
# Musician marks: 色指定, リバース返し, スキップ返し


def _on_uno(s: State, skip: int = -1) -> int:
    """Seats (bit per seat) that called UNO and hold one card."""
    mask = 0
    for i in s.active:
        if i != skip and s.called[i] and len(s.hands[i]) == 1:
            mask |= 1 << i
    return mask


def _marks(s: State, p: int, cards: tuple[Card, ...], color: Color | None) -> None:
    """[002] 色指定: 「誰かが「ウノ」をコールしている時、「ワイルド」か「ドロー4」で色を指定し、
    そのコールしていた人が指定した色で上がった場合 (途中で「リバース」や「スキップ」がはいると
    「色指定」にはならない。)」. リバース返し / スキップ返し: 「その人に向かって「リバース」を
    だし、その人が上がった場合」.

    Choices: a Reverse is played *towards* the player it sends play to, a Skip towards each
    player it skips; the mark holds until that player's own next action (a play that does not
    win, a draw), so the win must come with the turn the card aimed at, or by a Don before it.
    A later wild replaces a colour call."""
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


def color_named(s: State, p: int, color: Color) -> None:
    """A wild's colour named after the play (a colour token): it may be a 色指定."""
    top = s.top
    if s.options.scoring != "musician" or top is None or top.rank not in _WILDS:
        return
    mask = _on_uno(s, p)
    s.extra = replace(s.extra, color_call=(p, color, mask) if mask else None)


def _chin_bonuses(s: State, p: int, last: Card) -> tuple[tuple[str, int], ...]:
    out = don.backs_for(s, p)
    call = s.extra.color_call
    if call is not None and call[0] != p and (call[2] >> p) & 1 and last.color is call[1]:
        out += (("color_call", call[0]),)
    return out


def before_turn_action(s: State, p: int) -> None:
    """A draw or a pass by the player on turn: refused while a swap is awaited; it ends the
    marks aimed at that player."""
    x = s.extra
    if x.awaiting_swap is not None:
        raise IllegalPlay("swap-needed", "the player of the 7 names whose hand to swap")
    if any(b[2] == p for b in x.backs):
        s.extra = replace(x, backs=tuple(b for b in x.backs if b[2] != p))


# ---------------------------------------------------------------------------------------------
# Seven-O (Mattel House Rules edition)


def _seven_o(s: State, p: int, card: Card, events: list[Event]) -> None:
    """A 7: its player names whose hand to swap with (:class:`Swap`). A 0: every hand passes
    one seat in the direction of play. Choice, as for Shuffle Hands: UNO calls are cleared and
    a player handed a single card is not catchable."""
    if card.number == 7:
        s.extra = replace(s.extra, awaiting_swap=p)
        return
    seats = s.active
    moved = {s.next_seat(i): s.hands[i] for i in seats}
    for i, hand in moved.items():
        s.hands[i] = hand
    s.called = [False] * s.n
    s.uno_window = None
    events.append(Event(EventKind.HANDS_PASSED, player=p, count=s.direction))


def on_swap(s: State, a: Swap, events: list[Event]) -> None:
    p, t = a.player, a.target
    E._seat(s, p)
    E._seat(s, t)
    E._in_play(s)
    if s.extra.awaiting_swap is None:
        raise IllegalPlay("no-swap-needed", "no 7 is waiting for a swap")
    if p != s.extra.awaiting_swap:
        raise IllegalPlay("not-your-turn", f"{s.players[s.extra.awaiting_swap]} names the swap")
    if t == p:
        raise IllegalPlay("swap-with-yourself", "name another player")
    s.hands[p], s.hands[t] = s.hands[t], s.hands[p]
    s.called[p] = s.called[t] = False
    s.uno_window = None
    s.extra = replace(s.extra, awaiting_swap=None)
    events.append(Event(EventKind.SWAPPED, player=p, target=t))
    E._announce_turn(s, events)


# ---------------------------------------------------------------------------------------------
# The first card


def bury_first(s: State, card: Card) -> bool:
    """``first_action = "redraw"`` [000] 「最初の1枚目が記号カードの時は山札の間に戻し、もう一枚
    めくったりする」: every card that is not a number (記号カード) goes back."""
    return s.options.first_action == "redraw" and card.number is None


def dealer_first(s: State, card: Card, events: list[Event]) -> None:
    """``first_player = "dealer"`` [002] 「親から、場にでているカードと同じ色か同じ数字のカードを
    場に出していきます」: the dealer plays first. 「OPENカードが「ドロー2」か「ドロー4」の場合、
    手持ちに「ドロー2」か「ドロー4」がなければ親は、そのカードの指示に従ってカードをひいて下さい。」:
    the dealer draws unless they answer it with either draw card (a Draw Two or a Wild Draw
    Four, whatever ``stacking`` says later in the round). 「「スキップ」なら、親の
    左隣の人からゲームスタート」; 「「リバース」なら、親がだして次は右隣の人」.
    Choice: for a Wild or Wild Draw Four turned up the dealer names the colour."""
    d = s.dealer
    s.turn = d
    if card.rank == SKIP:
        events.append(Event(EventKind.SKIPPED, player=d))
        s.turn = s.next_seat(d)
    elif card.rank == REVERSE:
        s.direction = -1
        events.append(Event(EventKind.REVERSED, count=-1))
    elif card.rank in _DRAWS:
        s.pending = _DRAWS[card.rank]
    if card.is_wild:
        s.awaiting_color = d
        events.append(Event(EventKind.COLOR_NEEDED, player=d))
        return
    E._announce_turn(s, events)


# ---------------------------------------------------------------------------------------------
# Legal actions


def _candidates(s: State, p: int) -> list[tuple[Card, ...]]:
    if s.has_drawn:
        return [(s.drawn,)] if s.drawn is not None else []
    known = s.hands[p].known
    unique = list(dict.fromkeys(known))
    out: list[tuple[Card, ...]] = [(c,) for c in unique]
    opts = s.options
    if opts.multi_play == "same-number":
        by_rank: dict[str, list[Card]] = {}
        for c in known:
            if not c.is_wild:
                by_rank.setdefault(c.rank, []).append(c)
        for group in by_rank.values():
            if len(group) > 1:
                for lead in dict.fromkeys(group):
                    others = group.copy()
                    others.remove(lead)
                    out.append((lead, *others))
    if opts.two_card_play:
        out += [(c, c) for c in unique if c.number is not None and known.count(c) > 1]
    return out


def _plays(s: State, p: int) -> list[Action]:
    out: list[Action] = []
    for cards in _candidates(s, p):
        try:
            check_play(s, Play(p, cards))
        except IllegalPlay:
            continue
        colors: tuple[Color | None, ...] = COLORS if cards[0].is_wild else (None,)
        out += [Play(p, cards, c) for c in colors]
    return out


def legal(s: State) -> list[Action]:
    """:func:`table.rules.legal.legal_actions` under these rules."""
    if s.phase is not Phase.PLAY or s.awaiting_show is not None:
        return []
    if s.awaiting_color is not None:
        return [ChooseColor(s.awaiting_color, c) for c in COLORS]
    swapper = s.extra.awaiting_swap
    if swapper is not None:
        return [Swap(swapper, t) for t in s.active if t != swapper]
    p = s.turn
    out = _plays(s, p)
    opts = s.options
    if s.pending:
        out.append(Draw(p))
        if s.challenge is not None and s.challenge.target == p:
            out.append(Challenge(p))
        return out
    if s.has_drawn:
        again = opts.draw == "until-playable" and (
            s.drawn is None or not matches(s, s.drawn)
        )
        out.append(Draw(p) if again else Pass(p))
        if s.drawn is None:
            out.append(Pass(p))
        return list(dict.fromkeys(out))
    if opts.draw_by_choice or not out:
        out.append(Draw(p))
    size = len(s.hands[p])
    if (size == 2 or several_at_once(s, size)) and not s.called[p]:
        out.append(CallUno(p))
    return out


def several_at_once(s: State, size: int) -> bool:
    """Whether a hand of ``size`` cards may go down to one in a single play (so UNO is due)."""
    return size > 2 and (s.options.multi_play != "off" or s.options.two_card_play)


def out_of_turn(s: State) -> list[Action]:
    """Jump-ins and Dons that would be accepted now."""
    out: list[Action] = []
    top = s.top
    if s.options.jump_in and top is not None and s.phase is Phase.PLAY:
        for seat in s.active:
            if seat != s.turn and top in s.hands[seat].known and _can_jump(s, seat, (top,)):
                out.append(Play(seat, (top,)))
    if s.options.don:
        out += [Don(seat) for seat in don.winning_seats(s)]
    return out
