"""The evening's report (``uno-table stats``): tables as text and HTML, and its plots."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from table.analysis import plots as P
from table.analysis.evening import COLOURS, PENALTY_KINDS
from table.analysis.report import figures, fragment, note, page, table_html, table_text

PLAYER_HEADERS = ("player", "points", "rounds won", "points paid", "penalties",
                  "penalty cards", "catches", "turns", "s/turn", "median s/turn")


def _player_rows(players: Mapping[str, Any]) -> list[list[Any]]:
    return [[name, p["points"], p["rounds_won"], p["points_paid"], p["penalties"],
             p["penalty_cards"], p["catches"], p["turns"], p["seconds_per_turn"],
             p["median_seconds_per_turn"]] for name, p in players.items()]


def _penalty_rows(penalties: Mapping[str, Mapping[str, int]]) -> list[list[Any]]:
    return [[name, *(kinds.get(k, 0) for k in PENALTY_KINDS)] for name, kinds in penalties.items()]


def _round_rows(match: Mapping[str, Any]) -> list[list[Any]]:
    names = list(match["players"])
    rows = []
    for r in match["rounds"]:
        rows.append([r["round"], r["winner"], r["finish"], r["turns"], r["seconds"],
                     *(r["points"][n] for n in names)])
    return rows


def _count(n: int, what: str) -> str:
    return f"{n} {what}" if n == 1 else f"{n} {what}es" if what.endswith("h") else f"{n} {what}s"


def _longest(longest: Mapping[str, Any] | None) -> str:
    if longest is None:
        return "longest round: none finished"
    return (f"longest round: match {longest['match']}, round {longest['round']}, "
            f"{longest['seconds']:.0f} s over {longest['turns']} turns")


def _colours(data: Mapping[str, Any]) -> str:
    counts = ", ".join(f"{c} {data['colours'][c]}" for c in COLOURS)
    return f"most played colour: {data['most_played_colour'] or '–'} ({counts})"


def text(summary: Mapping[str, Any]) -> str:
    """The tables for a terminal."""
    blocks = []
    for m in summary["matches"]:
        state = f"over, won by {m['winner']}" if m["over"] else "in progress"
        names = list(m["players"])
        blocks.append("\n".join([
            f"match {m['match']}, {m['started']}, {m['rules']} rules, {state}",
            table_text(("round", "winner", "finish", "turns", "seconds", *names),
                       _round_rows(m)),
            "",
            table_text(PLAYER_HEADERS, _player_rows(m["players"])),
        ]))
    ev = summary["evening"]
    blocks.append("\n".join([
        f"the evening: {_count(ev['matches'], 'match')}, {_count(ev['rounds'], 'round')}",
        table_text(PLAYER_HEADERS, _player_rows(ev["players"])),
        "",
        "penalties by kind",
        table_text(("player", *PENALTY_KINDS.values()), _penalty_rows(ev["penalties"])),
        "",
        _longest(ev["longest_round"]),
        _colours(ev),
    ]))
    return "\n\n".join(blocks)


def make_plots(plt: Any, summary: Mapping[str, Any],
               turn_times: Mapping[str, Sequence[float]]) -> list[P.Plot]:
    ev = summary["evening"]
    players = ev["players"]
    out = []
    for m in summary["matches"]:
        out.append(P.lines(plt, f"scores-match-{m['match']}",
                           f"Match {m['match']}: scores by round", m["cumulative"],
                           "round", "score"))
    out.append(P.bars(plt, "rounds-won", "Rounds won",
                      {n: p["rounds_won"] for n, p in players.items()}, "rounds"))
    out.append(P.bars(plt, "points-paid", "Points paid",
                      {n: p["points_paid"] for n, p in players.items()}, "points"))
    names = list(ev["penalties"])
    layers = {label: [ev["penalties"][n].get(kind, 0) for n in names]
              for kind, label in PENALTY_KINDS.items()
              if any(ev["penalties"][n].get(kind, 0) for n in names)}
    out.append(P.stacked(plt, "penalties", "Penalties by kind", names, layers, "penalties"))
    out.append(P.boxes(plt, "turn-times", "Seconds per turn (pauses left out)",
                       {n: turn_times.get(n, []) for n in players}, "seconds"))
    out.append(P.bars(plt, "colours", "Cards played by colour", ev["colours"], "cards",
                      colours=P.COLOUR_INK))
    return out


def body(summary: Mapping[str, Any], plots: Mapping[str, tuple[str, str]],
         plot_note: str = "") -> str:
    """The report's HTML without the page around it; ``plots``: name -> (title, svg)."""
    ev = summary["evening"]
    sections = []
    evening = [note(plot_note)] if plot_note else []
    evening += [
        table_html(PLAYER_HEADERS, _player_rows(ev["players"])),
        figures(plots, "rounds-won", "points-paid"),
        "<h3>Penalties by kind</h3>",
        table_html(("player", *PENALTY_KINDS.values()), _penalty_rows(ev["penalties"])),
        figures(plots, "penalties", "turn-times"),
        f"<p>{_longest(ev['longest_round'])}</p><p>{_colours(ev)}</p>",
        figures(plots, "colours"),
    ]
    sections.append((f"The evening: {_count(ev['matches'], 'match')}, "
                     f"{_count(ev['rounds'], 'round')}",
                     "".join(evening)))
    for m in summary["matches"]:
        state = f"over, won by {m['winner']}" if m["over"] else "in progress"
        names = list(m["players"])
        sections.append((
            f"Match {m['match']} ({m['started']}, {m['rules']} rules, {state})",
            figures(plots, f"scores-match-{m['match']}")
            + table_html(("round", "winner", "finish", "turns", "seconds", *names),
                         _round_rows(m))
            + table_html(PLAYER_HEADERS, _player_rows(m["players"]))
            + table_html(("player", *PENALTY_KINDS.values()), _penalty_rows(m["penalties"]))
            + f"<p>{_longest(m['longest_round'])}</p><p>{_colours(m)}</p>",
        ))
    return fragment("An evening of UNO", sections)


def html(summary: Mapping[str, Any], plots: Mapping[str, tuple[str, str]],
         plot_note: str = "") -> str:
    """The whole ``report.html``."""
    return page("An evening of UNO", body(summary, plots, plot_note))
