"""What a table publishes, built only from the public views (:mod:`table.referee.views`) and the
event stream's public events: counts of hands, never their contents.
"""

from __future__ import annotations

from typing import Any, Final

from table.rules import Phase, State, standings

# The event stream's kinds a table publishes on PREFIX/TABLE/event. ``start`` and ``journal``
# name files of the Pi and stay home.
PUBLIC_EVENTS: Final = frozenset({
    "tag", "lift", "press", "admin", "verdict", "announcement", "state", "reader", "new-match",
    "resumed", "ready", "stopped", "assignment",
})


def result_id(table: str, match: str | int, round_no: int) -> str:
    """A result's id: the table, the match, the round. The hub counts each id once."""
    return f"{table}/{match}/{round_no}"


def round_results(table: str, match: str | int, s: State, hub_round: int | None = None,
                  start: int = 0) -> list[dict[str, Any]]:
    """The results of ``s``'s finished rounds from ``start`` (0-based) on, as published on
    PREFIX/TABLE/result: the round's points and winner, the totals after it, and on the round
    that ends the match the match's winner."""
    names = s.players
    out: list[dict[str, Any]] = []
    totals = [0] * len(names)
    for index, r in enumerate(s.results):
        totals = [t + p for t, p in zip(totals, r.points, strict=True)]
        if index < start:
            continue
        last = index == len(s.results) - 1 and s.phase is Phase.MATCH_OVER
        result: dict[str, Any] = {
            "id": result_id(table, match, index + 1),
            "table": table,
            "match": str(match),
            "round": index + 1,
            "players": list(names),
            "winner": names[r.winner],
            "points": dict(zip(names, r.points, strict=True)),
            "totals": dict(zip(names, totals, strict=True)),
            "scoring": s.options.scoring,
            "match_over": last,
            "match_winner": names[standings(s)[0]] if last else None,
            "hub_round": hub_round,
        }
        out.append(result)
    return out
