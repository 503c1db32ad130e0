"""The evening's report (``uno-table stats``, the web view's ``/stats``): tables as text and
HTML, and its plots, in English or Japanese (the table's language)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from table.analysis import plots as P
from table.analysis.evening import COLOURS
from table.analysis.report import figures, fragment, note, page, table_html, table_text
from table.referee import phrases
from table.referee.phrases import LANGUAGES as LANGUAGES  # the report is in these
from table.rules.events import PENALTY_KINDS

# Every word of the report, by language (the [report] and [rules] sections of the table's
# phrases). The penalty kinds, colours and finishes are keyed as the summary names them
# (summary.json keeps those keys whatever the language).
WORDS: Final = {lang: {**phrases.words("report", lang), **phrases.words("rules", lang)}
                for lang in LANGUAGES}

PLAYER_HEADERS = ("player", "points", "rounds won", "points paid", "penalties",
                  "penalty cards", "catches", "turns", "s/turn", "median s/turn")


def _w(lang: str, key: str, **values: Any) -> str:
    """The report's word ``key`` in ``lang`` (a key without one is said as it is)."""
    word = WORDS[lang].get(key, key)
    return word.format(**values) if values else word


def _headers(lang: str, keys: Sequence[str]) -> list[str]:
    return [_w(lang, k) for k in keys]


def _player_rows(players: Mapping[str, Any]) -> list[list[Any]]:
    return [[name, p["points"], p["rounds_won"], p["points_paid"], p["penalties"],
             p["penalty_cards"], p["catches"], p["turns"], p["seconds_per_turn"],
             p["median_seconds_per_turn"]] for name, p in players.items()]


def _penalty_rows(penalties: Mapping[str, Mapping[str, int]]) -> list[list[Any]]:
    return [[name, *(kinds.get(k, 0) for k in PENALTY_KINDS)] for name, kinds in penalties.items()]


def _round_rows(match: Mapping[str, Any], lang: str) -> list[list[Any]]:
    names = list(match["players"])
    rows = []
    for r in match["rounds"]:
        rows.append([r["round"], r["winner"], _w(lang, r["finish"]), r["turns"], r["seconds"],
                     *(r["points"][n] for n in names)])
    return rows


def _round_headers(match: Mapping[str, Any], lang: str) -> list[str]:
    return [*_headers(lang, ("round", "winner", "finish", "turns", "seconds")),
            *match["players"]]


def _penalty_headers(lang: str) -> list[str]:
    return [_w(lang, "player"), *(_w(lang, k) for k in PENALTY_KINDS)]


def _count(n: int, what: str, lang: str) -> str:
    """``n`` matches or rounds (``what``: match, round), one or more."""
    plural = "" if n == 1 else "es" if what.endswith("h") else "s"
    return _w(lang, f"count-{what}{plural}", n=n)


def _longest(longest: Mapping[str, Any] | None, lang: str) -> str:
    if longest is None:
        return _w(lang, "no longest")
    if longest["seconds"] < 1:  # a demo run --fast: seconds say nothing, turns do
        return _w(lang, "longest fast", match=longest["match"], round=longest["round"],
                  turns=longest["turns"])
    return _w(lang, "longest", match=longest["match"], round=longest["round"],
              seconds=longest["seconds"], turns=longest["turns"])


def _colours(data: Mapping[str, Any], lang: str) -> str:
    counts = ", ".join(f"{_w(lang, c)} {data['colours'][c]}" for c in COLOURS)
    top = data["most_played_colour"]
    return _w(lang, "colour", colour=_w(lang, top) if top else "–", counts=counts)


def _state(m: Mapping[str, Any], lang: str) -> str:
    return _w(lang, "over", winner=m["winner"]) if m["over"] else _w(lang, "in progress")


def _evening(ev: Mapping[str, Any], lang: str, key: str) -> str:
    return _w(lang, key, matches=_count(ev["matches"], "match", lang),
              rounds=_count(ev["rounds"], "round", lang))


def text(summary: Mapping[str, Any], lang: str = "en") -> str:
    """The tables for a terminal."""
    blocks = []
    players = _headers(lang, PLAYER_HEADERS)
    for m in summary["matches"]:
        blocks.append("\n".join([
            _w(lang, "match text", match=m["match"], started=m["started"],
               rules=_w(lang, m["rules"]),
               state=_state(m, lang)),
            table_text(_round_headers(m, lang), _round_rows(m, lang)),
            "",
            table_text(players, _player_rows(m["players"])),
        ]))
    ev = summary["evening"]
    blocks.append("\n".join([
        _evening(ev, lang, "evening text"),
        table_text(players, _player_rows(ev["players"])),
        "",
        _w(lang, "penalties by kind"),
        table_text(_penalty_headers(lang), _penalty_rows(ev["penalties"])),
        "",
        _longest(ev["longest_round"], lang),
        _colours(ev, lang),
    ]))
    return "\n\n".join(blocks)


def make_plots(plt: Any, summary: Mapping[str, Any],
               turn_times: Mapping[str, Sequence[float]], lang: str = "en") -> list[P.Plot]:
    """The report's plots that have something to draw, in ``lang``."""
    ev = summary["evening"]
    players = ev["players"]
    out = []
    for m in summary["matches"]:
        out.append(P.lines(plt, f"scores-match-{m['match']}",
                           _w(lang, "plot scores", match=m["match"]), m["cumulative"],
                           _w(lang, "round"), _w(lang, "score")))
    out.append(P.bars(plt, "rounds-won", _w(lang, "plot rounds won"),
                      {n: p["rounds_won"] for n, p in players.items()}, _w(lang, "rounds")))
    out.append(P.bars(plt, "points-paid", _w(lang, "plot points paid"),
                      {n: p["points_paid"] for n, p in players.items()}, _w(lang, "points")))
    names = list(ev["penalties"])
    layers = {_w(lang, kind): [ev["penalties"][n].get(kind, 0) for n in names]
              for kind in PENALTY_KINDS
              if any(ev["penalties"][n].get(kind, 0) for n in names)}
    out.append(P.stacked(plt, "penalties", _w(lang, "Penalties by kind"), names, layers,
                         _w(lang, "penalties")))
    out.append(P.boxes(plt, "turn-times", _w(lang, "plot turn times"),
                       {n: turn_times.get(n, []) for n in players}, _w(lang, "seconds")))
    out.append(P.bars(plt, "colours", _w(lang, "plot colours"),
                      {_w(lang, c): k for c, k in ev["colours"].items()}, _w(lang, "cards"),
                      colours={_w(lang, c): ink for c, ink in P.COLOUR_INK.items()}))
    return [p for p, enough in zip(out, _enough(summary, turn_times), strict=True) if enough]


def _enough(summary: Mapping[str, Any], turn_times: Mapping[str, Sequence[float]]) -> list[bool]:
    """Which of :func:`make_plots`' plots, in its order, have something to draw: a score line
    needs a finished round, bars a value that is not zero, boxes two turn times; an empty
    plot (axes -0.04 to 0.04, one dot) early in a match says nothing."""
    ev = summary["evening"]
    players = ev["players"]
    scores = [len(m["rounds"]) >= 1 for m in summary["matches"]]
    penalties = any(k for by in ev["penalties"].values() for k in by.values())
    return [*scores, any(p["rounds_won"] for p in players.values()),
            any(p["points_paid"] for p in players.values()), penalties,
            any(len(v) >= 2 for v in turn_times.values()), any(ev["colours"].values())]


def body(summary: Mapping[str, Any], plots: Mapping[str, tuple[str, str]],
         plot_note: str = "", lang: str = "en") -> str:
    """The report's HTML without the page around it; ``plots``: name -> (title, svg)."""
    ev = summary["evening"]
    players = _headers(lang, PLAYER_HEADERS)
    sections = []
    evening = [note(plot_note)] if plot_note else []
    if not plots and not plot_note:  # every plot left out: nothing to draw yet
        evening.append(note(_w(lang, "not enough")))
    evening += [
        table_html(players, _player_rows(ev["players"])),
        figures(plots, "rounds-won", "points-paid"),
        f"<h3>{_w(lang, 'Penalties by kind')}</h3>",
        table_html(_penalty_headers(lang), _penalty_rows(ev["penalties"])),
        figures(plots, "penalties", "turn-times"),
        f"<p>{_longest(ev['longest_round'], lang)}</p><p>{_colours(ev, lang)}</p>",
        figures(plots, "colours"),
    ]
    sections.append((_evening(ev, lang, "evening heading"), "".join(evening)))
    for m in summary["matches"]:
        sections.append((
            _w(lang, "match heading", match=m["match"], started=m["started"],
               rules=_w(lang, m["rules"]),
               state=_state(m, lang)),
            figures(plots, f"scores-match-{m['match']}")
            + table_html(_round_headers(m, lang), _round_rows(m, lang), _w(lang, "not enough"))
            + table_html(players, _player_rows(m["players"]))
            + table_html(_penalty_headers(lang), _penalty_rows(m["penalties"]))
            + f"<p>{_longest(m['longest_round'], lang)}</p><p>{_colours(m, lang)}</p>",
        ))
    return fragment(_w(lang, "title"), sections)


def html(summary: Mapping[str, Any], plots: Mapping[str, tuple[str, str]],
         plot_note: str = "", lang: str = "en") -> str:
    """The whole ``report.html``."""
    return page(_w(lang, "title"), body(summary, plots, plot_note, lang), lang)
