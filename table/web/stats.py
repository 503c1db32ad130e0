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

# The report loads nothing and runs no script; its style sheet and the plots' styles are inline.
CSP: Final = ("default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; "
              "form-action 'none'; frame-ancestors 'self'")
# The page's own words, in the table's language (the report's are in evening_report.WORDS).
NOTES: Final[dict[str, dict[str, str]]] = {
    "en": {
        "back": '<p><a href="/">← the table</a></p>',
        "unreadable": "The journal cannot be read just now, so there is no report. Try again "
                      "in a moment; the table's log says why.",
        "empty": "No match in the journal yet: the report starts with the first card.",
        "no plots": "No plots: {how}.",
    },
    "ja": {
        "back": '<p><a href="/?lang=ja">← テーブルへ</a></p>',
        "unreadable": "記録が今は読めないので、レポートはありません。"
                      "少ししてから開き直してください。理由はテーブルのログにあります。",
        "empty": "記録にはまだ試合がありません。レポートは最初のカードから始まります。",
        "no plots": "グラフはありません(matplotlibが必要です: pip install 'uno-table[stats]')。",
    },
}


@dataclass(frozen=True)
class Report:
    status: int
    html: str


class StatsPage:
    """The report of the journal at ``journal`` (None: the table keeps none), cached by the
    journal's latest row."""

    def __init__(self, journal: Path | None, language: str = "en") -> None:
        self.journal = journal
        self.lang = language if language in evening_report.LANGUAGES else "en"
        self.title = evening_report.WORDS[self.lang]["title"]
        self.builds = 0  # reports built so far (each a read of the journal, and plots)
        self._lock = threading.Lock()
        self._cached: dict[str, tuple[int, Report]] = {}  # by language

    def report(self, lang: str | None = None) -> Report:
        """The report as the journal stands now, in ``lang`` (the page's choice, ``?lang=``)
        or the table's language. Blocking: call it in a worker thread."""
        assert self.journal is not None, "no journal: the page says so without a report"
        lang = lang if lang in evening_report.LANGUAGES else self.lang
        with self._lock:
            key = last_entry(self.journal)  # read first: a row written during a build rebuilds
            cached = self._cached.get(lang)
            if key is not None and cached is not None and cached[0] == key:
                return cached[1]
            built = self._build(self.journal, lang)
            self.builds += 1
            if key is not None:
                self._cached[lang] = (key, built)
            return built

    def _build(self, journal: Path, lang: str) -> Report:
        title = evening_report.WORDS[lang]["title"]
        words = NOTES[lang]
        back = words["back"]
        try:
            records = read_journal(journal)
        except JournalError as exc:
            log.warning("/stats: %s", exc)
            return Report(503, page(title, back + note(words["unreadable"]), lang))
        if not records:
            return Report(200, page(title, back + f"<h1>{title}</h1>" + note(words["empty"]),
                                    lang))
        facts = [evening.match_facts(number, record) for number, record in
                 evening.select(records)]
        summary = evening.summary(facts)
        why = ""
        plots: dict[str, tuple[str, str]] = {}
        try:
            plt = load()
        except PlotsUnavailable:
            why = words["no plots"].format(how=HOW_TO_GET)
        else:
            made = evening_report.make_plots(SvgOnly(plt), summary, evening.turn_times(facts),
                                             lang)
            plots = {p.name: (p.title, p.svg) for p in made}
        return Report(200, page(title, back + evening_report.body(summary, plots, why, lang),
                                lang))
