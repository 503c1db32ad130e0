"""A journal read back, read only: every match with its inputs (for ``status``, ``history``,
``stats`` and the web view's report), and the latest row's id a report is cached by."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from table.inputs import JournaledInput
from table.journal import unsaved
from table.journal.entries import Entry, JournalError, chain, intact, rows
from table.journal.identify import identify, salvage, uri
from table.journal.records import MatchSetup, RowError, input_from_json


@dataclass
class MatchRecord:
    """One match read back: its set-up and inputs (with their times and verdicts)."""

    id: int
    started: float
    setup: MatchSetup
    inputs: list[JournaledInput] = field(default_factory=list)
    times: list[float] = field(default_factory=list)
    ids: list[int] = field(default_factory=list)  # each input's entry id


def records(entries: Iterator[Entry], path: Path) -> list[MatchRecord]:
    """The matches in ``entries`` up to the first garbled row; a row this version cannot
    read is a JournalError naming it."""
    out: list[MatchRecord] = []
    for e in intact(entries):
        try:
            if e.kind == "match":
                out.append(MatchRecord(e.id, e.t, MatchSetup.from_json(e.body)))
            elif out:
                out[-1].inputs.append(input_from_json(e.kind, e.body))
                out[-1].times.append(e.t)
                out[-1].ids.append(e.id)
        except RowError as exc:
            raise JournalError(f"{path}: entry {e.id} ({e.kind}) cannot be read: {exc} (was "
                               "it written by another version of uno-table?)") from None
    return out


def read_journal(path: str | Path) -> list[MatchRecord]:
    """Every match of a journal file, read only (for status and history), with the inputs
    kept beside it at the last stop, if any."""
    path = Path(path)
    found = identify(path)
    if found.kind == "missing":
        raise JournalError(f"{path}: no such journal file")
    if found.kind == "empty":
        raise JournalError(f"{path}: an empty file: the journal holds no match yet")
    kept = found.salvaged
    if found.kind == "journal":
        try:
            db = sqlite3.connect(uri(path), uri=True)
            try:
                kept = list(rows(db))
            finally:
                db.close()
        except sqlite3.Error:
            kept = salvage(path)
    if not kept and found.kind == "damaged":
        raise JournalError(f"{path}: not a readable uno-table journal")
    return records(iter(_with_unsaved(path, kept)), path)


def last_entry(path: str | Path) -> int | None:
    """The id of the journal's latest row, read only: it changes with every input and every
    match the table writes (what a report built from the journal is cached by). None: no
    journal file there, or not one SQLite can read."""
    path = Path(path)
    if not path.is_file():
        return None
    try:
        db = sqlite3.connect(uri(path), uri=True)
        try:
            row = db.execute("SELECT max(id) FROM entries").fetchone()
        finally:
            db.close()
    except sqlite3.Error:
        return None
    return int(row[0]) if row and row[0] is not None else 0


def _with_unsaved(path: Path, kept: list[Entry]) -> list[Entry]:
    """``kept`` and, after them, the inputs kept beside the journal when they follow it."""
    try:
        waiting = unsaved.read(path)
    except unsaved.UnsavedError as exc:
        raise JournalError(str(exc)) from None
    if waiting is None or not kept or not waiting.follows(kept[-1].id, kept[-1].crc):
        return kept
    return kept + chain(kept[-1].id, kept[-1].crc, waiting.rows)
