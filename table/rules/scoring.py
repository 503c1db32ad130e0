"""Round scores and the end of the match (docs/rules.md §3)."""

from __future__ import annotations

from table.rules.events import EventKind
from table.rules.state import Event, Phase, RoundResult, State


def hand_value(s: State, seat: int) -> int:
    """A hand's points, times (UNO calls + 1) under ``doubling`` [000] 倍付け."""
    points = 0
    for card in s.hands[seat].known:  # a loop: cheaper than sum() over a generator
        points += card.points
    if s.options.doubling:
        points *= s.uno_calls[seat] + 1
    return points


def round_points(s: State) -> tuple[int, ...]:
    """Each seat's points for the round just won. Every losing hand must be known.

    ``international``: the winner scores the sum of the other hands, the others 0.
    ``japanese``: the winner scores that sum, every other player minus their own hand, so a
    round sums to zero. ``lowest``: each player adds their own hand; the winner adds 0.
    Under ``doubling`` the winner collects the multiplied hands (``doubling_winner =
    "multiplied"``) or the hands at face value (``"face"``: the multiplication is the loser's
    own penalty, [000] 「上がれなかったことに対する一種のペナルティ」).
    """
    assert s.winner is not None
    w = s.winner
    # Choice: the other winners of a Double Don neither pay nor score outside Musician scoring.
    won = s.extra.finish.winners if s.extra.finish is not None else (w,)
    n = len(s.players)  # s.n without the property's call
    values = [0 if i in won or s.eliminated[i] else hand_value(s, i) for i in range(n)]
    scoring = s.options.scoring
    if scoring == "lowest":
        return tuple(values)
    points = [-v for v in values] if scoring == "japanese" else [0] * n
    opts = s.options
    if opts.doubling and opts.doubling_winner == "face":
        calls = s.uno_calls
        points[w] = sum(v // (calls[i] + 1) for i, v in enumerate(values))
    else:
        points[w] = sum(values)
    return tuple(points)


def standings(s: State) -> list[int]:
    """Seats from first to last: by score, highest first (lowest first under ``lowest``);
    a player eliminated earlier ranks below one still in; ties keep seat order."""
    lowest = s.options.scoring == "lowest"
    return sorted(
        range(s.n),
        key=lambda i: (s.eliminated[i], s.scores[i] if lowest else -s.scores[i], i),
    )


def match_over(s: State) -> bool:
    """Whether the match ends after the rounds played so far."""
    opts = s.options
    if opts.rounds and len(s.results) >= opts.rounds:
        return True
    if opts.scoring == "lowest" and opts.eliminate:
        return len(s.active) <= 1
    target = opts.target
    if target:
        for score in s.scores:  # a loop: cheaper than any() over a generator
            if score >= target:
                return True
    return False


def score_round(s: State, events: list[Event]) -> None:
    """Score the round just won, record it and end the match when it is over."""
    assert s.winner is not None
    rules = s.rules
    # The official points without the hook's call (and its import): a variant's hook when hooked.
    points = rules.round_points(s, events) if "round_points" in rules.hooked else round_points(s)
    for i, p in enumerate(points):
        s.scores[i] += p
    s.results = (*s.results, RoundResult(s.winner, points))  # a new tuple: copies share it
    winner = s.winner
    events.append(Event(EventKind.ROUND_SCORED, winner, None, None, None, points[winner]))
    opts = s.options
    if opts.scoring == "lowest" and opts.eliminate and opts.target:
        out = [i for i in s.active if s.scores[i] >= opts.target]
        if len(out) == len(s.active):
            # Choice: when everyone left reaches the target together, the lowest stays in.
            out.remove(min(out, key=lambda i: (s.scores[i], i)))
        for seat in out:
            s.eliminated[seat] = True
            events.append(Event(EventKind.ELIMINATED, player=seat))
    if match_over(s):
        s.phase = Phase.MATCH_OVER
        events.append(Event(EventKind.MATCH_OVER, player=standings(s)[0]))
