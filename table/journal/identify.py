"""What a journal path holds: nothing, an empty file, an uno-table journal, or a damaged one
(with its intact rows salvaged); anything else is refused, never rewritten.

A journal is marked as one (SQLite's ``application_id`` and ``user_version``); a file that is
neither a journal nor empty (a configuration, another program's database) is refused. Journals
made before the mark are known by their ``entries`` table.
"""

from __future__ import annotations

import os
import sqlite3
import stat
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from table.journal.entries import COLUMNS, Entry, JournalError, chains

MAGIC: Final = b"SQLite format 3\x00"
APPLICATION_ID: Final = 0x554E4F54  # "UNOT": PRAGMA application_id of an uno-table journal
FORMAT: Final = 1  # PRAGMA user_version: the journal format this code writes and reads
OWN_TABLES: Final = {
    "entries": ("id", "t", "kind", "body", "crc"),
    "snapshots": ("match", "after", "version", "data", "crc"),
    "room": ("b",),
    "outbox": ("id", "body", "sent"),  # results waiting for the broker (table.journal.outbox)
}
DAMAGED: Final = (11, 26)  # SQLITE_CORRUPT, SQLITE_NOTADB: the file itself is damaged


@dataclass(frozen=True)
class Found:
    """What a journal path holds."""

    kind: str  # missing | empty | journal | damaged
    salvaged: list[Entry] = field(default_factory=list)  # damaged: its intact rows


def uri(path: Path) -> str:
    """The URI that opens ``path`` read only (any character of its name quoted)."""
    return f"file:{urllib.parse.quote(str(path))}?mode=ro"


def identify(path: Path) -> Found:
    """What ``path`` holds. Anything but nothing, an empty file or an uno-table journal
    (damaged or not) is a JournalError: nothing else is ever rewritten or salvaged as one."""
    head = _head(path)
    if head is None:
        return Found("missing")
    if not head:
        return Found("empty")
    try:
        app, version, tables = _marks_of(path)
    except sqlite3.Error as exc:
        if getattr(exc, "sqlite_errorcode", None) not in DAMAGED:
            raise JournalError(f"{path}: cannot read the journal: {exc}") from None
        salvaged = salvage(path)
        if salvaged or head[68:72] == APPLICATION_ID.to_bytes(4, "big"):
            return Found("damaged", salvaged)
        what = "an SQLite database that cannot be read" if head.startswith(MAGIC) \
            else "not an SQLite database"
        raise JournalError(f"{path}: not an uno-table journal ({what}); a journal is a new "
                           "or empty file, or one uno-table wrote") from None
    _judge(path, app, version, tables)
    return Found("journal")


def salvage(path: Path) -> list[Entry]:
    """Every intact row of a damaged file: what SQLite can still read, and what a page by
    page scan of the file and its WAL finds."""
    from table.journal.salvage import page_rows

    candidates: dict[int, list[Entry]] = {}
    try:
        db = sqlite3.connect(uri(path), uri=True)
        try:
            next_id = 1
            while True:
                row = db.execute(f"SELECT {COLUMNS} FROM entries WHERE id = ?",
                                 (next_id,)).fetchone()
                if row is None:
                    break
                candidates.setdefault(next_id, []).append(Entry(*row))
                next_id += 1
        finally:
            db.close()
    except sqlite3.Error:
        pass
    for entry_id, rows in page_rows(path).items():
        for row in rows:
            entry = Entry(*row)
            if entry not in candidates.setdefault(entry_id, []):
                candidates[entry_id].append(entry)
    return chains(candidates)


def _head(path: Path) -> bytes | None:
    """The first 100 bytes of the file at ``path`` (None: there is none). A folder, a pipe
    or a file that cannot be read is a JournalError (a pipe is never opened: it would block)."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise JournalError(f"{path}: cannot read the journal: {exc.strerror}") from None
    if stat.S_ISDIR(mode):
        raise JournalError(f"{path}: a folder, not a journal file")
    if not stat.S_ISREG(mode):
        raise JournalError(f"{path}: not a regular file (a pipe, a device...): a journal is "
                           "a file")
    try:
        with open(path, "rb") as f:
            return f.read(100)
    except OSError as exc:
        raise JournalError(f"{path}: cannot read the journal: {exc.strerror}") from None


def _marks(db: sqlite3.Connection) -> tuple[int, int, dict[str, tuple[str, ...]]]:
    """The application id, the user version and the tables (with their columns) of ``db``."""
    app = int(db.execute("PRAGMA application_id").fetchone()[0])
    version = int(db.execute("PRAGMA user_version").fetchone()[0])
    names = [str(r[0]) for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
    tables = {
        name: tuple(str(r[0]) for r in db.execute("SELECT name FROM pragma_table_info(?)",
                                                  (name,)))
        for name in names if not name.startswith("sqlite_")
    }
    return app, version, tables


def _marks_of(path: Path) -> tuple[int, int, dict[str, tuple[str, ...]]]:
    """:func:`_marks` of the file at ``path``, read only. A reader that may not write in the
    journal's folder cannot open its WAL: the marks and tables are then read from the file
    alone (``immutable``), which is where a journal's set-up has them."""
    try:
        return _read_marks(uri(path))
    except sqlite3.Error as exc:
        if getattr(exc, "sqlite_errorcode", None) in DAMAGED:
            raise
        return _read_marks(uri(path) + "&immutable=1")


def _read_marks(address: str) -> tuple[int, int, dict[str, tuple[str, ...]]]:
    """:func:`_marks` of the database the URI ``address`` opens."""
    db = sqlite3.connect(address, uri=True)
    try:
        return _marks(db)
    finally:
        db.close()


def _judge(path: Path, app: int, version: int, tables: dict[str, tuple[str, ...]]) -> None:
    """Refuse a database that is not an uno-table journal this code can read. A journal made
    before the mark is known by its tables: ``entries`` with exactly the journal's columns,
    and none but the journal's."""
    entries = tables.get("entries")
    if app == APPLICATION_ID and version > FORMAT:
        raise JournalError(f"{path}: a journal of a newer uno-table (format {version}; this "
                           f"one reads format {FORMAT} and older): upgrade uno-table to use it")
    if app not in (0, APPLICATION_ID):
        raise JournalError(f"{path}: an SQLite database of another program (application id "
                           f"{app:#x}), not an uno-table journal")
    if entries is not None and entries != OWN_TABLES["entries"]:
        raise JournalError(f"{path}: not an uno-table journal: its entries table has the "
                           f"columns {', '.join(entries)}, a journal's has {COLUMNS}")
    strange = sorted(set(tables) - set(OWN_TABLES))
    wrong = [name for name in tables if name in OWN_TABLES and tables[name] != OWN_TABLES[name]]
    if app == 0 and (entries is None or version != 0 or strange or wrong):
        what = ", ".join(strange or wrong or sorted(tables)) or "none"
        raise JournalError(f"{path}: an SQLite database that is not an uno-table journal "
                           f"(its tables: {what})")
