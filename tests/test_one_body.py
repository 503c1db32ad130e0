"""One body: the simulated table is the daemon's table. The recorded evening of
tests/test_one_step.py (a daemon's every journal row and event for a long list of inputs) goes
through the simulated table's own referee thread and gives the same rows and the same events,
apart from what only a daemon has (its start and its readers all ready)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from recorded_evening import UNSTABLE, load, rows_of

from sim.tabletop.virtual import SimTable
from table.journal.store import Journal
from table.runtime.event_stream import SETTLED

DAEMON_ONLY = ("start", "ready")  # the daemon's own start, and its readers all come up


def test_the_recorded_evening_through_the_simulated_table(tmp_path: Path) -> None:
    setup, items, rows, events = load()
    journal = Journal(tmp_path / "journal.sqlite3")
    got_rows = rows_of(journal)
    got: list[dict[str, Any]] = []
    table = SimTable(setup.options, list(setup.players), 0, journal=journal,
                     first_dealer=setup.dealer)
    assert table.table.setup.digest() == setup.digest()  # the daemon's very set-up
    table.stream.subscribe(lambda e: got.append(dict(e)) if e["type"] != SETTLED else None)
    try:
        for item in items:
            table.loop.take(item)
    finally:
        journal.close()
    want = [e for e in events if e["type"] not in DAEMON_ONLY]
    assert want[0]["type"] == "new-match"  # told before the first input, as the sim's was
    want = want[1:]
    got = [{k: v for k, v in e.items() if k not in UNSTABLE} for e in got]
    assert got_rows == rows
    assert len(got) == len(want)
    for i, (mine, theirs) in enumerate(zip(got, want, strict=True)):
        assert mine == theirs, f"event {i}"
    assert any(e["type"] == "new-match" for e in got)  # the next match began here too
