"""A Wild Draw Four challenged, and a hand shown: the challenge's verdict and what it costs.

Split from :mod:`table.rules.engine`, which dispatches these actions to it.
"""

from __future__ import annotations

import dataclasses

from table.cards import DRAW_TWO, Card
from table.errors import IllegalPlay
from table.rules.actions import Challenge, Show
from table.rules.events import EventKind
from table.rules.flow import (
    SKIPPED,
    begin_turn,
    check_in_play,
    check_seat,
    check_show,
    draw_cards,
    move_turn,
    reveal,
    try_score,
)
from table.rules.matching import wd4_guilty
from table.rules.state import ChallengeWindow, Event, Phase, State


def on_challenge(s: State, a: Challenge, events: list[Event]) -> None:
    """A challenge of the Wild Draw Four just played: judged now, or once the hand is shown."""
    p = a.player
    check_seat(s, p)
    check_in_play(s)
    window = s.challenge
    if window is None or not s.pending:
        raise IllegalPlay("nothing-to-challenge", "there is no Wild Draw Four to challenge")
    rules = s.rules
    if p != window.target and not ("may_challenge" in rules.hooked and rules.may_challenge(s, p)):
        if p == window.offender and "may_challenge" in rules.hooked:  # where others may
            raise IllegalPlay("own-wild-draw-four", "nobody challenges their own Wild Draw Four")
        raise IllegalPlay(
            "only-next-player-challenges", "only the player who must draw may challenge"
        )
    if s.awaiting_color is not None:
        raise IllegalPlay("color-not-chosen", "the colour of the wild has not been named")
    if p != window.target:  # another player (challengers = "any"), judged with their seat
        window = s.challenge = dataclasses.replace(window, challenger=p)
    begin_turn(s, events)
    events.append(Event(EventKind.CHALLENGE, player=p, target=window.offender))
    if window.hand_unknown or s.hands[window.offender].unknown:
        # The referee cannot see the hand: the offender shows it (to the challenger alone).
        events.append(Event(EventKind.SHOW_NEEDED, player=window.offender, reason="challenge"))
        s.awaiting_show = window.offender
        return
    judge_challenge(s, window, list(window.hand), events)


def judge_challenge(
    s: State, window: ChallengeWindow, hand: list[Card], events: list[Event]
) -> None:
    """Announce only guilty or innocent: the hand's contents are never announced [M]."""
    opts = s.options
    p, offender = window.target, window.offender
    challenger = p if window.challenger is None else window.challenger
    # Stacked, the whole pending count is at stake (4 for a lone Wild Draw Four).
    count = s.pending or 4
    s.pending = 0
    s.challenge = None
    if window.stacked:
        # [000] 「「ワイルド・ドロー4を出したプレイヤー」の手札に場と同じ色の「ドロー2」があること
        # が「チャレンジ成功」の条件」
        guilty = any(c.rank == DRAW_TWO and c.color is window.prior_color for c in hand)
    else:
        guilty = wd4_guilty(hand, window.prior_color, window.prior_rank, opts.wild_draw_four)
    if guilty:
        events.append(Event(EventKind.GUILTY, player=offender, target=challenger))
        # [001] 「罰則として出したプレイヤーが山札から6枚カードを引きます」: guilty_penalty = 2.
        count += opts.guilty_penalty
        if opts.challenge_success != "offender-draws":
            # [000][004] take-back: the card goes back, the offender draws 4 and plays again
            # legally. [004] discard: 「手札に戻さず破棄する」, the card goes under the card it
            # covered, on the discard pile (no card leaves the game).
            taken = [s.discard.pop() for _ in range(window.cards)]
            if opts.challenge_success == "take-back":
                s.hands[offender].known += taken
            else:
                s.discard[-1:-1] = taken
            s.color = window.prior_color
            s.live_rank = window.prior_rank
            draw_cards(s, offender, count, events, "illegal-wild-draw-four")
            seat = offender
        else:
            # [M]: the card stays, its colour stands, the challenger takes a normal turn.
            draw_cards(s, offender, count, events, "illegal-wild-draw-four")
            seat = p
    else:
        events.append(Event(EventKind.INNOCENT, player=offender, target=challenger))
        if challenger == p:
            draw_cards(s, p, count + opts.challenge_penalty, events, "challenge-failed")
        else:  # another player was wrong: the extra is theirs, the draw still the target's
            draw_cards(s, challenger, opts.challenge_penalty, events, "challenge-failed")
            draw_cards(s, p, count, events, "wild-draw-four")
        events.append(SKIPPED[p])
        seat = s.next_seat(p)
    move_turn(s, seat, events)


def on_show(s: State, a: Show, events: list[Event]) -> None:
    """A hand shown: to judge a challenge, to back a Don, or to score a round."""
    p = a.player
    check_seat(s, p)
    if s.phase is Phase.MATCH_OVER:
        raise IllegalPlay("match-over", "the match is over")
    check_show(s, p, a.cards)
    reveal(s, p, a.cards, events)
    window = s.challenge
    if s.rules.shown(s, p, events):
        pass
    elif window is not None and s.awaiting_show == p:
        s.awaiting_show = None
        judge_challenge(s, window, list(a.cards), events)
    elif s.phase is Phase.ROUND_OVER and len(s.results) < s.round:
        try_score(s, events)
