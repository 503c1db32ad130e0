"""Standings from the results the hub kept: one row per player per table (the contract of
``uno-table hub standings --json``), and the evening's ranking: match wins, then points
(higher first; lower first under ``lowest`` scoring)."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final

COLUMNS: Final = ("table", "player", "rounds", "wins", "points", "match_wins", "flagged")


def table_rows(results: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Per table and player: rounds played, rounds won, points (the sum of the player's round
    points under the table's scoring), matches won, and rounds of that table flagged."""
    rows: dict[tuple[str, str], dict[str, Any]] = {}
    for r in results:
        table = str(r["table"])
        for player in r["players"]:
            row = rows.setdefault((table, player), dict.fromkeys(COLUMNS, 0))
            row["table"], row["player"] = table, player
            row["rounds"] += 1
            row["wins"] += r["winner"] == player
            row["points"] += int(r["points"].get(player, 0))
            row["match_wins"] += bool(r.get("match_over")) and r.get("match_winner") == player
            row["flagged"] += bool(r.get("flag"))
    return sorted(rows.values(), key=lambda row: (_table_key(row["table"]), row["player"]))


def _table_key(table: str) -> tuple[int, str]:
    return (int(table), "") if table.isascii() and table.isdigit() else (1 << 30, table)


def ranking(results: Iterable[Mapping[str, Any]], lowest: bool = False,
            players: Sequence[str] = ()) -> list[dict[str, Any]]:
    """The evening's standings, one row per player: rank, match wins, points, rounds, wins.
    Players level on match wins and points share a rank (1, 1, 3: the standard competition
    ranking), and are listed by name."""
    totals: dict[str, dict[str, Any]] = {
        p: {"player": p, "match_wins": 0, "points": 0, "rounds": 0, "wins": 0} for p in players
    }
    for row in table_rows(results):
        t = totals.setdefault(row["player"], {"player": row["player"], "match_wins": 0,
                                              "points": 0, "rounds": 0, "wins": 0})
        for key in ("match_wins", "points", "rounds", "wins"):
            t[key] += row[key]
    sign = 1 if lowest else -1
    ordered = sorted(totals.values(),
                     key=lambda t: (-t["match_wins"], sign * t["points"], t["player"]))
    for place, t in enumerate(ordered, start=1):
        level = place > 1 and (t["match_wins"], t["points"]) == \
            (ordered[place - 2]["match_wins"], ordered[place - 2]["points"])
        t["rank"] = ordered[place - 2]["rank"] if level else place
    return ordered


def as_csv(rows: Sequence[Mapping[str, Any]], columns: Sequence[str] = COLUMNS) -> str:
    """``rows`` as CSV with a header line."""
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(columns), extrasaction="ignore",
                            lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue()
