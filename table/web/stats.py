"""``/stats``: the evening's report (``uno-table stats``) for the journal the table is writing,
with the same tables and plots as its ``report.html``.

The report is built on request in a process of its own (:func:`build_in_child`, waited for by
a worker thread of the web server), from the journal read only (as ``status`` reads it while
the table plays): the referee never waits for it, and never shares its interpreter with it
(a build on a 50,000-input journal takes seconds of processor; in a thread it held the
interpreter's lock long enough to delay taps by a tenth of a second). One build runs at a
time; a built report is served for :data:`FRESH` seconds without a look at the journal, then
again until the journal gains a row (an input, or a new match). A request waits at most
:data:`WAIT` seconds for a build: then it gets the report before (however old) or a short page
that reloads itself. Each client may ask :data:`ASKS` (a burst, then a rate) before a 429: a
page polled in a loop costs the table one build every :data:`FRESH` seconds at most.
Everything in it is public: scores, points, penalties, turn times and the colours of the cards
played, never a card of a hand.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from table import CHILD_FOLDER, child_command
from table.analysis import evening, evening_report
from table.analysis.plots import HOW_TO_GET, PlotsUnavailable, SvgOnly, load
from table.analysis.report import note, page
from table.journal.store import JournalError, last_entry, read_journal
from table.referee import phrases
from table.web.guard import Throttle

log = logging.getLogger(__name__)

FRESH: Final = 30.0  # seconds a report is served as it is, however the journal has moved
WAIT: Final = 0.5  # seconds a request waits for a build before it gets the page before
BUILD_TIMEOUT: Final = 600.0  # seconds a build may take before it is given up
NICE: Final = 10  # the build's nice value
ASKS: Final = (1.0, 5.0)  # requests a client: 5, then 1 a second
RELOAD: Final = "2"  # seconds before the "being built" page asks again

# The report loads nothing and runs no script; its style sheet and the plots' styles are inline.
CSP: Final = ("default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; "
              "form-action 'none'; frame-ancestors 'self'")
# The page's own words, by language (the [stats] section of the table's phrases; the report's
# are in evening_report.WORDS).
NOTES: Final = {lang: phrases.words("stats", lang) for lang in phrases.LANGUAGES}

@dataclass(frozen=True)
class Report:
    """A page of the report: its status, HTML and any header of its own."""

    status: int
    html: str
    headers: dict[str, str] = field(default_factory=dict)


class StatsPage:
    """The report of the journal at ``journal`` (None: the table keeps none), cached by the
    journal's latest row and for :attr:`fresh` seconds, built one at a time."""

    def __init__(self, journal: Path | None, language: str = "en",
                 clock: Callable[[], float] = time.monotonic,
                 builder: Callable[[Path, str], Report] | None = None) -> None:
        self.journal = journal
        self.lang = language if language in evening_report.LANGUAGES else "en"
        self.title = evening_report.WORDS[self.lang]["title"]
        self.builds = 0  # reports built so far (each a read of the journal, and plots)
        self.fresh = FRESH
        self.wait = WAIT
        self.clock = clock
        self.builder = builder or build_in_child  # (Path, lang) -> Report, blocking
        self.asks = Throttle(*ASKS, clock=clock)
        self._lock = threading.Lock()
        # by language: the journal's row, when, the report; and the build under way
        self._cached: dict[str, tuple[int, float, Report]] = {}
        self._building: dict[str, asyncio.Future[Report]] = {}

    def asked(self, client: str) -> float:
        """Count a request of ``client``; the seconds it must wait first (0: none)."""
        wait = self.asks.wait(client)
        if not wait:
            self.asks.charge(client)
        return wait

    def language(self, lang: str | None) -> str:
        """``lang`` (the page's choice, ``?lang=``) when the report has it, else the table's."""
        return lang if lang in evening_report.LANGUAGES else self.lang

    async def current(self, lang: str | None = None) -> Report:
        """The report to serve now (in the server's loop), in ``lang`` or the table's language:
        the kept one while fresh, else a build's (started if none runs), waiting for it at most
        :attr:`wait` seconds."""
        lang = self.language(lang)
        cached = self._cached.get(lang)
        if cached is not None and self.clock() - cached[1] < self.fresh:
            return cached[2]
        building = self._building.get(lang)
        if building is None or building.done():
            building = asyncio.ensure_future(asyncio.to_thread(self.report, lang))
            self._building[lang] = building
        try:
            return await asyncio.wait_for(asyncio.shield(building), self.wait)
        except TimeoutError:
            if cached is not None:
                return cached[2]
            words = NOTES[lang]
            title = evening_report.WORDS[lang]["title"]
            return Report(202, page(title, words["back"] + note(words["building"]), lang),
                          {"refresh": RELOAD})

    def report(self, lang: str | None = None) -> Report:
        """The report as the journal stands now, in ``lang`` (the page's choice, ``?lang=``)
        or the table's language. Blocking: call it in a worker thread."""
        assert self.journal is not None, "no journal: the page says so without a report"
        lang = self.language(lang)
        with self._lock:
            key = last_entry(self.journal)  # read first: a row written during a build rebuilds
            cached = self._cached.get(lang)
            if key is not None and cached is not None and cached[0] == key:
                self._cached[lang] = (key, self.clock(), cached[2])
                return cached[2]
            built = self.builder(self.journal, lang)
            self.builds += 1
            if key is not None:
                self._cached[lang] = (key, self.clock(), built)
            return built


def build(journal: Path, lang: str) -> Report:
    """The report of ``journal`` in ``lang`` (here, in this process)."""
    title = evening_report.WORDS[lang]["title"]
    words = NOTES[lang]
    back = words["back"]
    try:
        records = read_journal(journal)
    except JournalError as exc:
        log.warning("/stats: %s", exc)
        return Report(503, page(title, back + note(words["unreadable"]), lang))
    if not records:
        return Report(200, page(title, back + f"<h1>{title}</h1>" + note(words["empty"]), lang))
    facts = [evening.match_facts(number, record) for number, record in evening.select(records)]
    summary = evening.summary(facts)
    why = ""
    plots: dict[str, tuple[str, str]] = {}
    try:
        plt = load()
    except PlotsUnavailable:
        why = words["no plots"].format(how=HOW_TO_GET)
    else:
        made = evening_report.make_plots(SvgOnly(plt), summary, evening.turn_times(facts), lang)
        plots = {p.name: (p.title, p.svg) for p in made}
    return Report(200, page(title, back + evening_report.body(summary, plots, why, lang), lang))


def build_in_child(journal: Path, lang: str) -> Report:
    """:func:`build` in a process of its own (``python -m table.web.stats``, at a nice value
    of :data:`NICE`): the referee's interpreter never shares its lock with the build, and the
    plots' memory goes back when the child ends."""
    try:
        done = subprocess.run(child_command("table.web.stats", str(journal.absolute()), lang),
                              capture_output=True, timeout=BUILD_TIMEOUT, check=False,
                              cwd=CHILD_FOLDER)
    except (OSError, subprocess.TimeoutExpired) as exc:
        why = str(exc)
    else:
        why = (done.stderr.decode("utf-8", "replace").strip().splitlines() or ["no output"])[-1]
        if done.returncode == 0:
            with contextlib.suppress(ValueError, KeyError, TypeError):
                data = json.loads(done.stdout)
                return Report(int(data["status"]), str(data["html"]))
    log.warning("/stats: the report could not be built: %s", why[:200])
    words = NOTES[lang]
    title = evening_report.WORDS[lang]["title"]
    return Report(503, page(title, words["back"] + note(words["unreadable"]), lang))


def main(argv: list[str]) -> int:
    """``python -m table.web.stats JOURNAL LANG``: the report as JSON on stdout."""
    with contextlib.suppress(OSError):
        os.nice(NICE)  # the table's processes first
    journal, lang = argv
    report = build(Path(journal), lang if lang in evening_report.LANGUAGES else "en")
    sys.stdout.write(json.dumps({"status": report.status, "html": report.html}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
