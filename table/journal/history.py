"""Reading a journal back: the standing of the newest match (``uno-table status``) and the
rounds and scores of every match (``uno-table history``)."""

from __future__ import annotations

import csv
import io
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from table.journal.entries import JournalError
from table.journal.reading import MatchRecord, read_journal
from table.journal.records import rebuild
from table.referee.views import standing_json
from table.rules import Phase, State


def status(path: str | Path) -> dict[str, Any]:
    """The newest match rebuilt: replay's ``state``, ``rounds``, ``scores``, ``match_over``,
    plus ``match`` (its number in the journal) and ``inputs`` (how many it has taken)."""
    records = read_journal(path)
    if not records:
        raise JournalError(f"{path}: the journal holds no match yet")
    record = records[-1]
    state = rebuild(record.setup, record.inputs).state
    return {"match": len(records), "inputs": len(record.inputs), **standing_json(state)}


def status_text(data: dict[str, Any]) -> str:
    """The standing of :func:`status` as the lines ``uno-table status`` prints."""
    s = data["state"]
    lines = [f"match {data['match']}, round {s['round']}, {data['inputs']} inputs"]
    if data["match_over"]:
        lines.append("the match is over")
    elif s["finished"]:
        lines.append("the round is over")
    elif s["turn"]:
        top = f"{s['top']} ({s['color']})" if s["top"] else "no card yet"
        lines.append(f"{s['turn']}'s turn, {s['direction']}, top card {top}")
    lines.append("cards in hand: " + ", ".join(f"{p} {n}" for p, n in s["hands"].items()))
    lines.append("scores: " + ", ".join(f"{p} {n}" for p, n in data["scores"].items()))
    return "\n".join(lines)


@dataclass(frozen=True, slots=True)
class MatchHistory:
    """One match of ``history``: its number, start, players, preset and final state."""

    number: int
    started: float
    players: tuple[str, ...]
    preset: str
    state: State

    @property
    def over(self) -> bool:
        """Whether the match has ended."""
        return self.state.phase is Phase.MATCH_OVER


def history(path: str | Path) -> list[MatchHistory]:
    """Every match of the journal at ``path``, rebuilt, numbered from 1."""
    out = []
    for number, record in enumerate(read_journal(path), start=1):
        out.append(_history(number, record))
    return out


def _history(number: int, record: MatchRecord) -> MatchHistory:
    state = rebuild(record.setup, record.inputs).state
    return MatchHistory(number, record.started, record.setup.players,
                        record.setup.options.preset, state)


def _when(t: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(t))


def history_text(matches: list[MatchHistory]) -> str:
    """The matches as the table ``uno-table history`` prints: rounds and scores."""
    if not matches:
        return "the journal holds no match yet"
    blocks = []
    for m in matches:
        names = m.players
        width = max(6, *(len(n) for n in names))
        head = f"match {m.number}, {_when(m.started)}, {m.preset} rules"
        head += ", over" if m.over else ", in progress"
        rows = [f"{'round':>5}  {'winner':<{width}}  " + "  ".join(f"{n:>{width}}" for n in names)]
        for i, r in enumerate(m.state.results, start=1):
            rows.append(f"{i:>5}  {names[r.winner]:<{width}}  "
                        + "  ".join(f"{p:>{width}}" for p in r.points))
        rows.append(f"{'total':>5}  {'':<{width}}  "
                    + "  ".join(f"{p:>{width}}" for p in m.state.scores))
        blocks.append("\n".join([head, *rows]))
    return "\n\n".join(blocks)


def history_csv(matches: list[MatchHistory]) -> str:
    """One row per player per round: match, started, round, winner, player, points, total."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["match", "started", "round", "winner", "player", "points", "total"])
    for m in matches:
        totals = [0] * len(m.players)
        for i, r in enumerate(m.state.results, start=1):
            for seat, name in enumerate(m.players):
                totals[seat] += r.points[seat]
                w.writerow([m.number, _when(m.started), i, m.players[r.winner], name,
                            r.points[seat], totals[seat]])
    return buf.getvalue()
