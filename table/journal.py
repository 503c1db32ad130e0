"""The journal: every match's set-up and every input the table took, in SQLite.

One table, ``entries``: a ``match`` row holds a set-up (JSON), and the ``tag`` and ``press`` rows
after it are that match's inputs, in order. Each row carries a CRC-32 chained from the row
before it in the same match, so a garbled row (SQLite itself has no checksum on its pages) and
everything after it are found and cut off.

Durability: WAL mode with ``synchronous = FULL`` (the default ``sync = "full"``) makes each
append durable when :meth:`Journal.append` returns, before anything is announced; a power cut
loses nothing that was said. SQLite's own WAL checksums drop a torn last write; a damaged
database file is salvaged row by row into a fresh one, the damaged file kept beside it.

A write that fails (a full disk) does not stop the game: the inputs wait in memory and are
written, in order, as soon as a write succeeds again.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import time
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Final

from table.errors import TableError
from table.match import INPUT_KINDS, Input, MatchSetup, input_from_json, input_json, input_kind

log = logging.getLogger(__name__)

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
INPUT_ROWS: Final = frozenset({*INPUT_KINDS, "press"})  # the kinds of row that hold an input


class JournalError(TableError, OSError):
    """A journal that cannot be opened at all (a folder that is not writable...)."""


@dataclass(frozen=True, slots=True)
class Entry:
    id: int
    t: float
    kind: str  # match | tag | press
    body: str
    crc: int


def checksum(entry_id: int, kind: str, body: str, previous: int) -> int:
    return zlib.crc32(f"{entry_id}|{kind}|{body}|{previous}".encode())


@dataclass
class MatchRecord:
    """One match read back: its set-up and inputs (with their times and verdicts)."""

    id: int
    started: float
    setup: MatchSetup
    inputs: list[Input] = field(default_factory=list)
    times: list[float] = field(default_factory=list)
    ids: list[int] = field(default_factory=list)  # each input's entry id


@dataclass
class Repair:
    """What opening the journal had to fix."""

    kept: int
    dropped: int | None  # None: unknown (the file itself was damaged)
    moved_to: Path | None = None

    def message(self, path: Path) -> str:
        where = f"; the damaged file is kept as {self.moved_to}" if self.moved_to else ""
        dropped = f"{self.dropped} entries" if self.dropped is not None else "the unreadable rest"
        return (
            f"journal {path} was damaged: {dropped} cut off, "
            f"{self.kept} intact entries kept{where}"
        )


def _connect(path: Path, sync: str) -> sqlite3.Connection:
    db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute(f"PRAGMA synchronous={'FULL' if sync == 'full' else 'NORMAL'}")
    db.execute(SCHEMA)
    db.execute(SNAPSHOTS)
    return db


def _rows(db: sqlite3.Connection, after: int = 0) -> Iterator[Entry]:
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


def _salvage(path: Path) -> list[Entry]:
    """Every intact row of a damaged file: what SQLite can still read, and what a page by
    page scan of the file and its WAL finds."""
    from table.salvage import page_rows

    candidates: dict[int, list[Entry]] = {}
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
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


ROOM_BYTES: Final = 4_000_000  # about SQLite's automatic checkpoint (1000 pages of 4 KiB)


def _make_room(db: sqlite3.Connection) -> None:
    """Grow the WAL (and free pages in the file) once, so that the commits of the evening
    overwrite space the file already has: an fsync that does not change a file's size is
    cheaper and steadier (the tap-to-verdict tail, bench/daemon.py)."""
    try:
        db.execute("CREATE TABLE IF NOT EXISTS room (b BLOB)")
        db.execute("INSERT INTO room VALUES (zeroblob(?))", (ROOM_BYTES,))
        db.execute("DELETE FROM room")
        db.execute("PRAGMA wal_checkpoint(RESTART)")
    except sqlite3.Error as exc:  # no room to make (a full disk): commits still work
        log.debug("journal: no room made (%s)", exc)


DAMAGED: Final = (11, 26)  # SQLITE_CORRUPT, SQLITE_NOTADB: the file itself is damaged


def _damage(exc: sqlite3.Error, path: Path) -> bool:
    """True for an error that says the file is damaged; any other (no permission, read-only,
    disk full...) is raised as :class:`JournalError`: repairing would not fix it."""
    if getattr(exc, "sqlite_errorcode", None) in DAMAGED:
        return True
    raise JournalError(f"{path}: cannot open the journal: {exc}") from None


def _health(db: sqlite3.Connection, path: Path) -> bool:
    try:
        return bool(db.execute("PRAGMA quick_check").fetchone()[0] == "ok")
    except sqlite3.Error as exc:
        return not _damage(exc, path)


class Journal:
    def __init__(self, path: Path, sync: str = "full", max_pages: int | None = None,
                 preallocate: bool = True, auto_checkpoint: bool = True) -> None:
        self.path = Path(path)
        self.sync = sync
        self.repair: Repair | None = None
        self.healthy = True  # False while writes fail (a full disk): inputs wait in memory
        self.waiting: list[tuple[float, str, str]] = []
        self._last_crc = 0
        self._last_id = 0
        self._newest: list[Entry] | None = None
        self.match_id: int | None = None  # the match being appended to
        self._lock = _lock(self.path)
        self.db = self._open(max_pages)
        if preallocate:
            _make_room(self.db)
        self.unchecked = 0  # commits since the last checkpoint
        if not auto_checkpoint:
            # The owner calls checkpoint() at a moment of its choosing (after a verdict is
            # out, or when the table pauses) instead of SQLite doing it inside a commit.
            self.db.execute("PRAGMA wal_autocheckpoint=0")

    # --- opening and repair -------------------------------------------------------------------

    def _open(self, max_pages: int | None) -> sqlite3.Connection:
        db: sqlite3.Connection | None = None
        try:
            db = _connect(self.path, self.sync)
            ok = _health(db, self.path)
        except sqlite3.Error as exc:
            if db is not None:
                db.close()
            ok = not _damage(exc, self.path)
            db = None
        if ok and db is not None:
            kept = self._cut_tail(db)
            if kept is not None:
                self.repair = kept
        else:
            if db is not None:
                db.close()
            db = self._rebuild()
        if max_pages is not None:
            db.execute(f"PRAGMA max_page_count={int(max_pages)}")
        last = db.execute("SELECT MAX(id) FROM entries").fetchone()[0]
        self._last_id = int(last or 0)
        return db

    def _cut_tail(self, db: sqlite3.Connection) -> Repair | None:
        """Drop a garbled row and everything after it (checked from the last match on)."""
        start = db.execute("SELECT MAX(id) FROM entries WHERE kind = 'match'").fetchone()[0]
        if start is None:
            total = db.execute("SELECT COUNT(*) FROM entries").fetchone()[0]
            if total:
                db.execute("DELETE FROM entries")
                return Repair(0, int(total))
            return None
        good = list(intact(_rows(db, int(start) - 1)))
        self._newest = good  # the newest match, read once: last_match() needs no second pass
        last_good = good[-1].id if good else int(start) - 1
        after = (last_good,)
        dropped = db.execute("SELECT COUNT(*) FROM entries WHERE id > ?", after).fetchone()[0]
        if not dropped:
            return None
        db.execute("DELETE FROM entries WHERE id > ?", (last_good,))
        kept = db.execute("SELECT COUNT(*) FROM entries").fetchone()[0]
        return Repair(int(kept), int(dropped))

    def _rebuild(self) -> sqlite3.Connection:
        """Salvage what can be read into a fresh file; keep the damaged one beside it."""
        salvaged = _salvage(self.path)
        stamp = time.strftime("%Y%m%dT%H%M%S")
        moved = self.path.with_name(f"{self.path.name}.damaged-{stamp}")
        fresh = self.path.with_name(f"{self.path.name}.repair")
        for leftover in (fresh, fresh.with_name(fresh.name + "-wal")):
            leftover.unlink(missing_ok=True)
        db = _connect(fresh, self.sync)
        with db:
            db.execute("BEGIN")
            db.executemany(
                f"INSERT INTO entries ({COLUMNS}) VALUES (?, ?, ?, ?, ?)",
                [(e.id, e.t, e.kind, e.body, e.crc) for e in salvaged],
            )
        db.close()
        for suffix in ("", "-wal", "-shm"):
            src = Path(str(self.path) + suffix)
            if src.exists():
                os.replace(src, Path(str(moved) + suffix))
        os.replace(fresh, self.path)
        self.repair = Repair(len(salvaged), None, moved)
        return _connect(self.path, self.sync)

    # --- matches ------------------------------------------------------------------------------

    def last_match(self) -> MatchRecord | None:
        """The newest match with its inputs, or None for an empty journal."""
        if self._newest is not None:
            records = _records(iter(self._newest))
            return records[-1] if records else None
        start = self.db.execute("SELECT MAX(id) FROM entries WHERE kind = 'match'").fetchone()[0]
        if start is None:
            return None
        records = _records(_rows(self.db, int(start) - 1))
        return records[-1] if records else None

    def matches(self) -> list[MatchRecord]:
        return _records(_rows(self.db))

    def carry_on(self, record: MatchRecord) -> None:
        """Append the next inputs to ``record``, the newest match."""
        self.match_id = record.id
        rows = self._newest if self._newest is not None else list(
            intact(_rows(self.db, record.id - 1))
        )
        self._last_crc = rows[-1].crc if rows else 0
        self._last_id = rows[-1].id if rows else record.id

    def begin(self, setup: MatchSetup) -> None:
        """Start a new match with ``setup``."""
        self._last_crc = 0
        self._write("match", setup.to_json())

    # --- snapshots: derived data that shortens a resume; never needed, checked before use ------

    def save_snapshot(self, data: bytes, version: str) -> bool:
        """Store the referee as it is after the last input written (only when none waits)."""
        if self.match_id is None or self.waiting or not self.healthy:
            return False
        packed = zlib.compress(data, 1)
        row = (self.match_id, self._last_id, version, packed,
               zlib.crc32(packed, self._last_id))
        try:
            self.db.execute("INSERT OR REPLACE INTO snapshots (match, after, version, data, crc) "
                            "VALUES (?, ?, ?, ?, ?)", row)
        except sqlite3.Error as exc:
            log.debug("no snapshot (%s): a resume replays the whole match", exc)
            return False
        return True

    def snapshot(self, record: MatchRecord, version: str) -> tuple[int, bytes] | None:
        """The newest usable snapshot of ``record``: how many of its inputs it covers, and the
        data. None when there is none, or it is damaged, of another version, or past the end."""
        try:
            row = self.db.execute("SELECT after, version, data, crc FROM snapshots WHERE match = ?",
                                  (record.id,)).fetchone()
        except sqlite3.Error:
            return None
        if row is None:
            return None
        after, stored_version, packed, crc = row
        if stored_version != version or zlib.crc32(packed, after) != crc:
            return None
        if after == record.id:
            covered = 0
        elif record.ids and after in record.ids:
            covered = record.ids.index(after) + 1
        else:
            return None
        try:
            return covered, zlib.decompress(packed)
        except zlib.error:
            return None

    # --- appending ----------------------------------------------------------------------------

    def append(self, item: Input, verdict: str) -> bool:
        """Write one input; True when it is on disk. False: it waits in memory (see healthy)."""
        return self._write(input_kind(item), input_json(item, verdict))

    def checkpoint(self) -> None:
        """Copy the WAL into the database file, so that the WAL starts over."""
        try:
            self.db.execute("PRAGMA wal_checkpoint(PASSIVE)")
            self.unchecked = 0
        except sqlite3.Error as exc:
            log.debug("journal: checkpoint failed (%s)", exc)

    def flush(self) -> bool:
        """Try once more to write the inputs waiting in memory; True when none is left."""
        return not self.waiting or self._write(None, "")

    def _write(self, kind: str | None, body: str) -> bool:
        if kind is not None:
            self.waiting.append((time.time(), kind, body))
        try:
            self.db.execute("BEGIN IMMEDIATE")
            last_id, last_crc = self._last_id, self._last_crc
            rows = []
            match_id = self.match_id
            for t, k, b in self.waiting:
                last_id += 1
                last_crc = checksum(last_id, k, b, 0 if k == "match" else last_crc)
                if k == "match":
                    match_id = last_id
                rows.append((last_id, t, k, b, last_crc))
            self.db.executemany(f"INSERT INTO entries ({COLUMNS}) VALUES (?, ?, ?, ?, ?)", rows)
            self.db.execute("COMMIT")
        except sqlite3.Error as exc:
            if self.db.in_transaction:
                self.db.execute("ROLLBACK")
            if self.healthy:
                log.error("journal %s cannot be written (%s): inputs kept in memory",
                          self.path, exc)
            self.healthy = False
            return False
        self._last_id, self._last_crc, self.match_id = last_id, last_crc, match_id
        self.unchecked += 1
        self._newest = None
        self.waiting.clear()
        if not self.healthy:
            log.warning("journal %s is written again", self.path)
        self.healthy = True
        return True

    def close(self) -> None:
        self.db.close()
        self._lock.close()


def _lock(path: Path) -> IO[str]:
    """One table per journal: a second daemon on the same file is refused."""
    import fcntl

    try:
        handle = open(Path(str(path) + ".lock"), "a+", encoding="utf-8")  # noqa: SIM115
    except OSError as exc:
        raise JournalError(f"{path}: cannot create the journal: {exc.strerror}") from None
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        handle.close()
        raise JournalError(f"{path}: the journal is in use by another uno-table") from None
    return handle


def in_use(path: str | Path) -> bool:
    """Whether a running uno-table holds the journal at ``path`` (the lock :func:`_lock`
    takes). Creates nothing and keeps nothing: the lock is tried, shared, for an instant.
    An OSError when the lock file exists but cannot be opened (another user's journal)."""
    import fcntl

    try:
        with open(Path(str(path) + ".lock"), encoding="utf-8") as handle:
            fcntl.flock(handle, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except FileNotFoundError:
        return False
    except BlockingIOError:
        return True
    return False


def _records(entries: Iterator[Entry]) -> list[MatchRecord]:
    records: list[MatchRecord] = []
    for e in intact(entries):
        if e.kind == "match":
            records.append(MatchRecord(e.id, e.t, MatchSetup.from_json(e.body)))
        elif records:
            records[-1].inputs.append(input_from_json(e.kind, e.body))
            records[-1].times.append(e.t)
            records[-1].ids.append(e.id)
    return records


def read_journal(path: str | Path) -> list[MatchRecord]:
    """Every match of a journal file, read only (for status and history)."""
    path = Path(path)
    if not path.is_file():
        raise JournalError(f"{path}: no such journal file")
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            return _records(_rows(db))
        finally:
            db.close()
    except sqlite3.Error:
        salvaged = _salvage(path)
        if not salvaged:
            raise JournalError(f"{path}: not a readable uno-table journal") from None
        return _records(iter(salvaged))
