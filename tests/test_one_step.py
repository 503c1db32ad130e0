"""The table's one step, checked against a recorded evening: every journal row and every event
a daemon wrote for it, in order, byte for byte but the clock."""

from __future__ import annotations

from pathlib import Path

from recorded_evening import load, play


def test_a_recorded_evening_gives_the_same_journal_and_events(tmp_path: Path) -> None:
    setup, items, rows, events = load()
    got_rows, got_events = play(tmp_path, setup, items)
    assert got_rows == rows
    assert len(got_events) == len(events)
    for i, (got, want) in enumerate(zip(got_events, events, strict=True)):
        assert got == want, f"event {i}"
