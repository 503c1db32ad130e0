"""``/stats``: the evening's report (``uno-table stats``) for the journal the table is writing,
with the same tables and plots as its ``report.html``.

The report is built on request in a worker thread of the web server, never in the referee's,
from the journal read only (as ``status`` reads it while the table plays), so the referee never
waits for it. It is kept until the journal gains a row (an input, or a new match), and one
build runs at a time (pyplot is not made for two at once). Everything in it is public: scores,
points, penalties, turn times and the colours of the cards played, never a card of a hand.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from table.analysis import evening, evening_report
from table.analysis.plots import HOW_TO_GET, PlotsUnavailable, SvgOnly, load
from table.analysis.report import note, page
from table.journal.store import JournalError, last_entry, read_journal

log = logging.getLogger(__name__)

TITLE: Final = "An evening of UNO"
# The report loads nothing and runs no script; its style sheet and the plots' styles are inline.
CSP: Final = ("default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; "
              "form-action 'none'; frame-ancestors 'self'")
BACK: Final = '<p><a href="/">← the table</a></p>'


@dataclass(frozen=True)
class Report:
    status: int
    html: str


class StatsPage:
    """The report of the journal at ``journal`` (None: the table keeps none), cached by the
    journal's latest row."""

    def __init__(self, journal: Path | None) -> None:
        self.journal = journal
        self.builds = 0  # reports built so far (each a read of the journal, and plots)
        self._lock = threading.Lock()
        self._cached: tuple[int, Report] | None = None

    def report(self) -> Report:
        """The report as the journal stands now. Blocking: call it in a worker thread."""
        assert self.journal is not None, "no journal: the page says so without a report"
        with self._lock:
            key = last_entry(self.journal)  # read first: a row written during a build rebuilds
            if key is not None and self._cached is not None and self._cached[0] == key:
                return self._cached[1]
            built = self._build(self.journal)
            self.builds += 1
            if key is not None:
                self._cached = (key, built)
            return built

    def _build(self, journal: Path) -> Report:
        try:
            records = read_journal(journal)
        except JournalError as exc:
            log.warning("/stats: %s", exc)
            return Report(503, page(TITLE, BACK + note(
                "The journal cannot be read just now, so there is no report. Try again in a "
                "moment; the table's log says why.")))
        if not records:
            return Report(200, page(TITLE, BACK + f"<h1>{TITLE}</h1>" + note(
                "No match in the journal yet: the report starts with the first card.")))
        facts = [evening.match_facts(number, record) for number, record in
                 evening.select(records)]
        summary = evening.summary(facts)
        why = ""
        plots: dict[str, tuple[str, str]] = {}
        try:
            plt = load()
        except PlotsUnavailable:
            why = f"No plots: {HOW_TO_GET}."
        else:
            made = evening_report.make_plots(SvgOnly(plt), summary, evening.turn_times(facts))
            plots = {p.name: (p.title, p.svg) for p in made}
        return Report(200, page(TITLE, BACK + evening_report.body(summary, plots, why)))
