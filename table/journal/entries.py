"""A journal's rows: its tables, one entry, the checksum chained from row to row, and the
journal's error.

One table, ``entries``: a ``match`` row holds a set-up (JSON), and the ``tag`` and ``press`` rows
after it are that match's inputs, in order. Each row carries a CRC-32 chained from the row
before it in the same match, so a garbled row (SQLite itself has no checksum on its pages) and
everything after it are found and cut off.
"""

from __future__ import annotations

import sqlite3
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Final

from table.errors import TableError
from table.journal.records import INPUT_ROWS

SCHEMA: Final = """
CREATE TABLE IF NOT EXISTS entries (
    id INTEGER PRIMARY KEY,
    t REAL NOT NULL,
    kind TEXT NOT NULL,
    body TEXT NOT NULL,
    crc INTEGER NOT NULL
)
"""
SNAPSHOTS: Final = """
CREATE TABLE IF NOT EXISTS snapshots (
    match INTEGER PRIMARY KEY,
    after INTEGER NOT NULL,
    version TEXT NOT NULL,
    data BLOB NOT NULL,
    crc INTEGER NOT NULL
)
"""
COLUMNS: Final = "id, t, kind, body, crc"


class JournalError(TableError, OSError):
    """A journal that cannot be opened at all (a folder that is not writable, a file that is
    no journal...)."""


@dataclass(frozen=True, slots=True)
class Entry:
    """One row of ``entries``: its id, time, kind, body and chained checksum."""

    id: int
    t: float
    kind: str  # match | tag | lift | press | admin
    body: str
    crc: int


def checksum(entry_id: int, kind: str, body: str, previous: int) -> int:
    """The CRC-32 of a row, chained from the row before it (``previous``; 0 for a match)."""
    return zlib.crc32(f"{entry_id}|{kind}|{body}|{previous}".encode())


def rows(db: sqlite3.Connection, after: int = 0) -> Iterator[Entry]:
    """The entries of ``db`` after id ``after``, in order."""
    for row in db.execute(f"SELECT {COLUMNS} FROM entries WHERE id > ? ORDER BY id", (after,)):
        yield Entry(*row)


def intact(entries: Iterator[Entry]) -> Iterator[Entry]:
    """The entries up to the first one whose chained checksum is wrong."""
    previous = 0
    expected_id: int | None = None
    for e in entries:
        if e.kind == "match":
            previous = 0
        elif e.kind not in INPUT_ROWS or expected_id is None or e.id != expected_id:
            return
        if checksum(e.id, e.kind, e.body, previous) != e.crc:
            return
        previous, expected_id = e.crc, e.id + 1
        yield e


def chains(candidates: dict[int, list[Entry]]) -> list[Entry]:
    """The rows whose checksums chain, from several candidates per id: each match's intact
    beginning (a match broken in the middle loses its rest; the next match starts afresh)."""
    out: list[Entry] = []
    previous: int | None = None
    for entry_id in sorted(candidates):
        pick = None
        for e in candidates[entry_id]:
            follows = previous is not None and e.kind in INPUT_ROWS
            if follows and checksum(e.id, e.kind, e.body, previous or 0) == e.crc:
                pick = e
                break
            if e.kind == "match" and checksum(e.id, e.kind, e.body, 0) == e.crc:
                pick = e
        if pick is None or (out and pick.kind != "match" and out[-1].id != entry_id - 1):
            previous = None
            continue
        out.append(pick)
        previous = pick.crc
    return out


def chain(last_id: int, last_crc: int, rows: list[tuple[float, str, str]]) -> list[Entry]:
    """``rows`` (time, kind, body) as the entries that follow entry ``last_id``, checksums
    chained from ``last_crc``."""
    out = []
    for t, kind, body in rows:
        last_id += 1
        last_crc = checksum(last_id, kind, body, 0 if kind == "match" else last_crc)
        out.append(Entry(last_id, t, kind, body, last_crc))
    return out
