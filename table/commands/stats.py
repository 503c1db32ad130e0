"""``uno-table stats`` (an evening's report from its journal) and ``uno-table study`` (rule
variants compared by self-play): tables on stdout, and in ``--out DIR`` the plots (PNG and
SVG), ``summary.json`` and ``report.html``."""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

from table.commands.checks import given_path
from table.errors import TableError


class OutputError(TableError, OSError):
    """The output folder cannot be made or written."""


def _out_dir(text: str) -> Path:
    """The ``--out`` folder, made if missing; an empty name is refused, not the current folder."""
    out = Path(given_path("--out", text, "a folder for the report (made if missing)"))
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OutputError(f"--out {text}: cannot make the folder: {exc.strerror}") from None
    return out


def _write(path: Path, data: str | bytes) -> None:
    try:
        if isinstance(data, bytes):
            path.write_bytes(data)
        else:
            path.write_text(data, encoding="utf-8")
    except OSError as exc:
        raise OutputError(f"{path}: cannot write: {exc.strerror}") from None


def _plotter(no_plots: bool) -> Any:
    """pyplot, or None (plots not asked for, or matplotlib missing: then said on stderr)."""
    if no_plots:
        return None
    from table.analysis.plots import PlotsUnavailable, load

    try:
        return load()
    except PlotsUnavailable as exc:
        print(f"uno-table: no plots: {exc}", file=sys.stderr)
        return None


def _cjk_check(names: list[str]) -> None:
    from table.analysis.plots import has_cjk_font, needs_cjk

    if needs_cjk(names) and not has_cjk_font():
        print("uno-table: no CJK font found: names in Japanese show as boxes in the plots "
              "(Debian: apt-get install fonts-noto-cjk)", file=sys.stderr)


def _save(out: Path, summary: dict[str, Any], report: str, plots: list[Any]) -> None:
    for plot in plots:
        _write(out / f"{plot.name}.svg", plot.svg)
        _write(out / f"{plot.name}.png", plot.png)
    _write(out / "summary.json", json.dumps(summary, indent=2, ensure_ascii=False) + "\n")
    _write(out / "report.html", report)
    extra = f" and {len(plots)} plots (PNG and SVG)" if plots else ""
    print(f"wrote {out / 'report.html'}, {out / 'summary.json'}{extra}")


def _stats(args: argparse.Namespace) -> int:
    from table.analysis import evening, evening_report
    from table.journal.reading import read_journal

    if args.match is not None and args.since is not None:
        raise TableError("--match and --since choose matches two ways: give one of them")
    given_path("--out", args.out, "a folder for the report (made if missing)")
    records = read_journal(given_path("--journal", args.journal, "the table's journal file"))
    if not records:
        raise TableError(f"{args.journal}: the journal holds no match yet")
    chosen = evening.select(records, args.match, args.since)
    if not chosen:
        raise TableError(f"--since {args.since}: no match of {args.journal} started then or "
                         f"later (the last started {evening.started(records[-1])})")
    out = _out_dir(args.out)
    facts = [evening.match_facts(number, record) for number, record in chosen]
    summary = evening.summary(facts)
    print(evening_report.text(summary, args.lang))
    plt = _plotter(args.no_plots)
    made = []
    if plt is not None:
        _cjk_check(list(summary["evening"]["players"]))
        made = evening_report.make_plots(plt, summary, evening.turn_times(facts), args.lang)
    why = "" if made else "No plots: " + ("--no-plots." if args.no_plots else _how())
    report = evening_report.html(summary, {p.name: (p.title, p.svg) for p in made}, why,
                                 args.lang)
    _save(out, summary, report, made)
    return 0


def _how() -> str:
    from table.analysis.plots import HOW_TO_GET

    return HOW_TO_GET + "."


class Progress:
    """A progress bar on stderr, drawn only when stderr is a terminal: rounds done, rounds per
    second and the time left."""

    def __init__(self, total: int, stream: TextIO | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.total = total
        self.done = 0
        self.stream = stream if stream is not None else sys.stderr
        self.shown = self.stream.isatty()
        self.clock = clock
        self.start = clock()

    def line(self, now: float) -> str:
        """The bar as it stands at ``now``: rounds done, rounds per second, time left."""
        elapsed = max(now - self.start, 1e-9)
        rate = self.done / elapsed
        left = (self.total - self.done) / rate if rate > 0 else 0.0
        width = 30
        filled = width * self.done // self.total if self.total else width
        minutes, seconds = divmod(int(left + 0.5), 60)
        eta = f"{minutes}m{seconds:02d}s left" if self.done else "time left not known yet"
        return (f"[{'#' * filled}{'.' * (width - filled)}] {self.done}/{self.total} rounds, "
                f"{rate:.0f} rounds/s, {eta}")

    def __call__(self, rounds: int) -> None:
        self.done += rounds
        if self.shown:
            self.stream.write("\r" + self.line(self.clock()))
            self.stream.flush()

    def close(self) -> float:
        """End the bar; the seconds it took."""
        took = self.clock() - self.start
        if self.shown:
            self.stream.write("\n")
        return took


def _study(args: argparse.Namespace) -> int:
    from table.analysis import study, study_report

    plan = study.Plan(study.parse_variants(args.rules, args.set or ()),
                      study.parse_players(args.players), args.rounds, args.policy, args.seed,
                      tuple(args.set or ()))
    study.check_plan(plan)
    jobs = args.jobs if args.jobs is not None else (os.cpu_count() or 1)
    if jobs < 1:
        raise TableError(f"--jobs {jobs}: at least one process")
    jobs = study.workers(jobs, len(plan.chunks()))  # no more than the work and the cores
    out = _out_dir(args.out)
    total = len(plan.variants) * len(plan.players) * plan.rounds
    progress = Progress(total)
    progress(0)
    tallies = study.run(plan, jobs, progress)
    took = progress.close()
    summary = study.summary(plan, tallies)
    print(study_report.text(summary))
    print(f"{total} rounds in {took:.1f} s ({total / max(took, 1e-9):.0f} rounds/s, "
          f"{jobs} process{'es' if jobs > 1 else ''})")
    plt = _plotter(args.no_plots)
    made = study_report.make_plots(plt, summary) if plt is not None else []
    why = "" if made else "No plots: " + ("--no-plots." if args.no_plots else _how())
    report = study_report.html(summary, {p.name: (p.title, p.svg) for p in made}, why)
    _save(out, summary, report, made)
    return 0


def add_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """The ``stats`` and ``study`` sub-commands."""
    p = sub.add_parser("stats", help="an evening's report from the journal: scores, "
                       "penalties, turn times, plots")
    p.add_argument("--journal", required=True, metavar="FILE", help="the journal to read")
    p.add_argument("--match", type=int, metavar="N",
                   help="only match N of the journal (from 1, as history numbers them)")
    p.add_argument("--since", metavar="DATE",
                   help="only matches started at or after DATE (YYYY-MM-DD[ HH:MM], local)")
    p.add_argument("--out", required=True, metavar="DIR",
                   help="folder for report.html, summary.json and the plots")
    p.add_argument("--no-plots", action="store_true",
                   help="tables and summary.json only (matplotlib is not imported)")
    p.add_argument("--lang", choices=("en", "ja"), default="en",
                   help="the report's language (default en; summary.json is the same in both)")
    p.set_defaults(run=_stats)

    p = sub.add_parser("study", help="compare rule variants by self-play: round length, "
                       "points, seat advantage, endings, penalties")
    p.add_argument("--rules", default="official,japanese,house,musician",
                   metavar="VARIANT,...",
                   help="variants: presets, each with +OPTION=VALUE on top "
                   "(default official,japanese,house,musician)")
    p.add_argument("--set", action="append", metavar="OPTION=VALUE",
                   help="a rules option for every variant (repeatable)")
    p.add_argument("--players", default="4", metavar="N|A-B",
                   help="player counts: 4, 2-6 or 3,5 (default 4)")
    p.add_argument("--rounds", type=int, default=10_000,
                   help="rounds per variant and player count (default 10000)")
    p.add_argument("--policy", default="heuristic",
                   choices=("heuristic", "play-first", "random", "expert"),
                   help="how every seat plays (default heuristic; expert searches each decision: "
                        "slow, keep --rounds small)")
    p.add_argument("--jobs", type=int, default=None, metavar="J",
                   help="processes (default: the cores); the results do not depend on it")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument("--out", required=True, metavar="DIR",
                   help="folder for report.html, summary.json and the plots")
    p.add_argument("--no-plots", action="store_true",
                   help="tables and summary.json only (matplotlib is not imported)")
    p.set_defaults(run=_study)
