"""The study's report (``uno-table study``): tables as text and HTML, and its plots."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from table.analysis import plots as P
from table.analysis.report import figures, fragment, note, page, table_html, table_text

HEADERS = ("variant", "players", "rounds", "turns (mean)", "95% interval", "median", "p10",
           "p90", "points", "first seat", "95% interval", "dealer's left", "95% interval",
           "fair", "Don/Chin", "penalties")


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def _rows(summary: Mapping[str, Any]) -> list[list[Any]]:
    rows = []
    for v in summary["variants"]:
        for c in v["cells"]:
            t, first, left = c["turns"], c["first_seat"], c["dealer_left"]
            rows.append([
                v["name"], c["players"], c["rounds"], t["mean"],
                f"{t['mean_low']:.1f}–{t['mean_high']:.1f}", t["median"], t["p10"], t["p90"],
                c["points"]["mean"],
                _pct(first["rate"]), f"{_pct(first['low'])}–{_pct(first['high'])}",
                _pct(left["rate"]), f"{_pct(left['low'])}–{_pct(left['high'])}",
                _pct(c["fair_share"]), _pct(c["don_or_chin_share"]), c["penalties_per_round"],
            ])
    return rows


def _heading(summary: Mapping[str, Any]) -> str:
    sets = f", with {' '.join(summary['set'])}" if summary["set"] else ""
    return (f"{summary['rounds_per_cell']} rounds per variant and player count, "
            f"policy {summary['policy']}, seed {summary['seed']}{sets}")


def text(summary: Mapping[str, Any]) -> str:
    """The study as a plain-text table, under a heading that says how it was run."""
    return _heading(summary) + "\n" + table_text(HEADERS, _rows(summary))


def _series(summary: Mapping[str, Any], pick: str) -> dict[str, list[tuple[int, float, float,
                                                                           float]]]:
    out: dict[str, list[tuple[int, float, float, float]]] = {}
    for v in summary["variants"]:
        points = []
        for c in v["cells"]:
            if pick == "turns":
                t = c["turns"]
                points.append((c["players"], t["mean"], t["mean_low"], t["mean_high"]))
            elif pick in ("first_seat", "dealer_left"):
                r = c[pick]
                points.append((c["players"], r["rate"], r["low"], r["high"]))
            elif pick == "points":
                m = c["points"]["mean"]
                points.append((c["players"], m, m, m))
            else:
                x = c[pick]
                points.append((c["players"], x, x, x))
        out[v["name"]] = points
    return out


def make_plots(plt: Any, summary: Mapping[str, Any]) -> list[P.Plot]:
    """The study's plots: the figures by player count, then round lengths at each count."""
    players = [c["players"] for c in summary["variants"][0]["cells"]]
    fair = [(n, 1 / n) for n in players]
    out = [
        P.by_players(plt, "round-length", "Round length (mean turns, 95% interval)",
                     _series(summary, "turns"), "turns"),
        P.by_players(plt, "points", "The winner's points per round",
                     _series(summary, "points"), "points"),
        P.by_players(plt, "first-seat", "First player's win rate (95% interval)",
                     _series(summary, "first_seat"), "share of rounds won", fair),
        P.by_players(plt, "dealer-left", "Dealer's left neighbour's win rate (95% interval)",
                     _series(summary, "dealer_left"), "share of rounds won", fair),
        P.by_players(plt, "don-chin", "Rounds ended by Don or Chin",
                     _series(summary, "don_or_chin_share"), "share of rounds"),
        P.by_players(plt, "penalties", "Penalties per round",
                     _series(summary, "penalties_per_round"), "penalties"),
    ]
    for n in players:
        hists = {}
        for v in summary["variants"]:
            cell = next(c for c in v["cells"] if c["players"] == n)
            hists[v["name"]] = {int(k): x for k, x in cell["turns"]["histogram"].items()}
        out.append(P.histograms(plt, f"turns-{n}-players",
                                f"Round length at {n} players", hists, "turns"))
    return out


def body(summary: Mapping[str, Any], plots: Mapping[str, tuple[str, str]],
         plot_note: str = "") -> str:
    """The study as an HTML fragment: the table of figures, then the plots by section."""
    players = [c["players"] for c in summary["variants"][0]["cells"]]
    intro = (note(plot_note) if plot_note else "") + f"<p>{_heading(summary)}.</p>"
    sections = [
        ("The figures", intro + table_html(HEADERS, _rows(summary))),
        ("Round length", figures(plots, "round-length",
                                 *(f"turns-{n}-players" for n in players))),
        ("Points", figures(plots, "points")),
        ("Who wins", figures(plots, "first-seat", "dealer-left")),
        ("Endings and penalties", figures(plots, "don-chin", "penalties")),
    ]
    return fragment("Rule variants compared", sections)


def html(summary: Mapping[str, Any], plots: Mapping[str, tuple[str, str]],
         plot_note: str = "") -> str:
    """The study as a page of its own (:func:`body` in the report's page)."""
    return page("Rule variants compared", body(summary, plots, plot_note))
