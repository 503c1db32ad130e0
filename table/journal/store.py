"""The journal as the table writes it: every match's set-up and every input, in SQLite.

The rows and their chained checksums are :mod:`table.journal.entries`; what a path holds (and
the salvage of a damaged file) :mod:`table.journal.identify`; reading a journal back
:mod:`table.journal.reading`. Their public names are importable from here too.

Durability: WAL mode with ``synchronous = FULL`` (the default ``sync = "full"``) makes each
append durable when :meth:`Journal.append` returns, before anything is announced; a power cut
loses nothing that was said. SQLite's own WAL checksums drop a torn last write; a damaged
database file is salvaged row by row into a fresh one, the damaged file kept beside it.

A write that fails (a full disk) does not stop the game: the inputs wait in memory and are
written, in order, as soon as a write succeeds again. Those still waiting at a stop are kept
beside the journal (:mod:`table.journal.unsaved`) and written into it at the next start.

A file that is neither a journal nor empty is refused, never rewritten, and one that cannot be
written is refused when it opens. The journal and every file beside it are private
(:mod:`table.files.private`): the hands are in them.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Final, TypeVar

from table.files.durable import replace_durably
from table.files.private import keep_private, make_private
from table.inputs import JournaledInput
from table.journal import unsaved
from table.journal.entries import (
    COLUMNS,
    SCHEMA,
    SNAPSHOTS,
    Entry,
    JournalError,
    chain,
    chains,
    checksum,
    intact,
    rows,
)
from table.journal.identify import APPLICATION_ID, DAMAGED, FORMAT, Found, identify, salvage
from table.journal.reading import MatchRecord, last_entry, read_journal, records
from table.journal.records import MatchSetup, Snapshot, input_json, input_kind

__all__ = [
    "APPLICATION_ID", "Entry", "Found", "Journal", "JournalError", "MatchRecord", "Repair",
    "chains", "checksum", "identify", "in_use", "intact", "last_entry", "read_journal",
]

log = logging.getLogger(__name__)
T = TypeVar("T")
COMPANIONS: Final = ("-wal", "-shm", ".lock")  # the files SQLite and the lock keep beside it


@dataclass
class Repair:
    """What opening the journal had to fix."""

    kept: int
    dropped: int | None  # None: unknown (the file itself was damaged)
    moved_to: Path | None = None

    def message(self, path: Path) -> str:
        """The repair in one line, for the log and the console."""
        where = f"; the damaged file is kept as {self.moved_to}" if self.moved_to else ""
        dropped = f"{self.dropped} entries" if self.dropped is not None else "the unreadable rest"
        return (
            f"journal {path} was damaged: {dropped} cut off, "
            f"{self.kept} intact entries kept{where}"
        )


def _connect(path: Path, sync: str) -> sqlite3.Connection:
    """A connection to the journal at ``path`` for writing: WAL, ``sync`` and its tables."""
    db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute(f"PRAGMA synchronous={'FULL' if sync == 'full' else 'NORMAL'}")
    db.execute(SCHEMA)
    db.execute(SNAPSHOTS)
    return db


def _create(path: Path) -> None:
    """A new journal (``path`` missing or empty): private, and marked as a journal in the same
    first write that makes its tables."""
    make_private(path)
    db = sqlite3.connect(path, isolation_level=None)
    try:
        db.execute("BEGIN")
        db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
        db.execute(f"PRAGMA user_version = {FORMAT}")
        db.execute(SCHEMA)
        db.execute(SNAPSHOTS)
        db.execute("COMMIT")
    finally:
        db.close()


def _create_or_refuse(path: Path) -> None:
    """:func:`_create`, or a JournalError saying why the journal cannot be written."""
    try:
        _create(path)
    except OSError as exc:
        raise JournalError(f"{path}: the journal cannot be written: {exc.strerror}") from None
    except sqlite3.Error as exc:
        raise JournalError(f"{path}: the journal cannot be written: {exc}") from None


def _mark(db: sqlite3.Connection, path: Path) -> bool:
    """Mark the journal (one made before the mark gets it now). This is the evening's first
    write, made at once: a journal that cannot be written is refused here, not at the first
    tap. False: the file turned out damaged."""
    try:
        db.execute("BEGIN IMMEDIATE")
        db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
        db.execute(f"PRAGMA user_version = {FORMAT}")
        db.execute("COMMIT")
    except sqlite3.Error as exc:
        if db.in_transaction:
            db.execute("ROLLBACK")
        return not _damage(exc, path, "write")
    return True


def _why_unwritable(path: Path) -> str | None:
    """Why the journal at ``path`` cannot be written, in the system's words; None: it can."""
    try:
        os.close(os.open(path, os.O_RDWR | os.O_NONBLOCK))
    except FileNotFoundError:
        pass
    except OSError as exc:
        return exc.strerror or str(exc)
    if not os.access(path.parent, os.W_OK | os.X_OK):
        return f"its folder {path.parent} is not writable (SQLite keeps its -wal and -shm there)"
    return None


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


def _damage(exc: sqlite3.Error, path: Path, doing: str = "open") -> bool:
    """True for an error that says the file is damaged; any other (no permission, read-only,
    disk full...) is raised as :class:`JournalError`: repairing would not fix it."""
    if getattr(exc, "sqlite_errorcode", None) in DAMAGED:
        return True
    what = "cannot be written" if doing == "write" else "cannot be opened"
    raise JournalError(f"{path}: the journal {what}: {exc}") from None


def _health(db: sqlite3.Connection, path: Path) -> bool:
    """Whether SQLite finds the file sound (a JournalError when it cannot even look)."""
    try:
        return bool(db.execute("PRAGMA quick_check").fetchone()[0] == "ok")
    except sqlite3.Error as exc:
        return not _damage(exc, path)


class Journal:
    """The journal of one table, open for writing (one table a journal: it holds a lock)."""

    def __init__(self, path: Path, sync: str = "full", max_pages: int | None = None,
                 preallocate: bool = True, auto_checkpoint: bool = True) -> None:
        self.path = Path(path)
        self.sync = sync
        self.repair: Repair | None = None
        self.healthy = True  # False while writes fail (a full disk): inputs wait in memory
        self.error = ""  # why the last write failed
        self.waiting: list[tuple[float, str, str]] = []
        self.restored = 0  # inputs kept beside the journal at the last stop, written back now
        self._last_crc = 0
        self._last_id = 0
        self._newest: list[Entry] | None = None
        self.match_id: int | None = None  # the match being appended to
        self.unchecked = 0  # commits since the last checkpoint
        found = identify(self.path)  # before anything is written beside it
        self._lock = _lock(self.path)
        try:
            self.db = self._open(found, max_pages)
        except BaseException:
            self._lock.close()
            raise
        try:
            self._restore()
        except BaseException:
            self.close()
            raise
        unsaved.reserve(self.path)
        if preallocate:
            _make_room(self.db)
        if not auto_checkpoint:
            # The owner calls checkpoint() at a moment of its choosing (after a verdict is
            # out, or when the table pauses) instead of SQLite doing it inside a commit.
            self.db.execute("PRAGMA wal_autocheckpoint=0")

    # --- opening and repair -------------------------------------------------------------------

    def _open(self, found: Found, max_pages: int | None) -> sqlite3.Connection:
        for suffix in ("", *COMPANIONS):  # a journal made before files were private
            keep_private(Path(str(self.path) + suffix))
        damaged = found.kind == "damaged"
        db = self._rebuild(found.salvaged) if damaged else self._connect(found)
        if max_pages is not None:
            db.execute(f"PRAGMA max_page_count={int(max_pages)}")
        last = db.execute("SELECT MAX(id) FROM entries").fetchone()[0]
        self._last_id = int(last or 0)
        return db

    def _connect(self, found: Found) -> sqlite3.Connection:
        """The journal opened for writing: made when new, refused when it cannot be written,
        its garbled tail cut off, rebuilt when the file turns out damaged."""
        if found.kind != "journal":
            _create_or_refuse(self.path)
        else:
            cause = _why_unwritable(self.path)
            if cause is not None:
                raise JournalError(f"{self.path}: the journal cannot be written: {cause} (the "
                                   "user running uno-table must be able to write it and its "
                                   "folder)")
        db: sqlite3.Connection | None = None
        try:
            db = _connect(self.path, self.sync)
            ok = _mark(db, self.path) and _health(db, self.path)
        except BaseException as exc:
            if db is not None:
                db.close()
            if not isinstance(exc, sqlite3.Error):
                raise
            _damage(exc, self.path)  # raises unless the file itself is damaged
            db, ok = None, False
        if ok and db is not None:
            kept = self._cut_tail(db)
            if kept is not None:
                self.repair = kept
            return db
        if db is not None:
            db.close()
        return self._rebuild(salvage(self.path))

    def _cut_tail(self, db: sqlite3.Connection) -> Repair | None:
        """Drop a garbled row and everything after it (checked from the last match on)."""
        start = db.execute("SELECT MAX(id) FROM entries WHERE kind = 'match'").fetchone()[0]
        if start is None:
            total = db.execute("SELECT COUNT(*) FROM entries").fetchone()[0]
            if total:
                db.execute("DELETE FROM entries")
                return Repair(0, int(total))
            return None
        good = list(intact(rows(db, int(start) - 1)))
        self._newest = good  # the newest match, read once: last_match() needs no second pass
        last_good = good[-1].id if good else int(start) - 1
        after = (last_good,)
        dropped = db.execute("SELECT COUNT(*) FROM entries WHERE id > ?", after).fetchone()[0]
        if not dropped:
            return None
        db.execute("DELETE FROM entries WHERE id > ?", (last_good,))
        kept = db.execute("SELECT COUNT(*) FROM entries").fetchone()[0]
        return Repair(int(kept), int(dropped))

    def _rebuild(self, salvaged: list[Entry]) -> sqlite3.Connection:
        """Write the rows salvaged from a damaged journal into a fresh file; keep the damaged
        one beside it."""
        stamp = time.strftime("%Y%m%dT%H%M%S")
        moved = self.path.with_name(f"{self.path.name}.damaged-{stamp}")
        fresh = self.path.with_name(f"{self.path.name}.repair")
        for leftover in (fresh, fresh.with_name(fresh.name + "-wal")):
            leftover.unlink(missing_ok=True)
        _create_or_refuse(fresh)
        try:
            db = _connect(fresh, self.sync)
            with db:
                db.execute("BEGIN")
                db.executemany(
                    f"INSERT INTO entries ({COLUMNS}) VALUES (?, ?, ?, ?, ?)",
                    [(e.id, e.t, e.kind, e.body, e.crc) for e in salvaged],
                )
            db.close()
        except sqlite3.Error as exc:
            raise JournalError(f"{fresh}: the repaired journal cannot be written: {exc}") from None
        for suffix in ("", "-wal", "-shm"):
            src = Path(str(self.path) + suffix)
            if src.exists():
                os.replace(src, Path(str(moved) + suffix))
        replace_durably(fresh, self.path)  # the folder synced: the damaged names too
        self.repair = Repair(len(salvaged), None, moved)
        return _connect(self.path, self.sync)

    def _restore(self) -> None:
        """Write the inputs kept beside the journal at the last stop (a full disk) into it,
        before anything else; refused when they still cannot be written."""
        try:
            kept = unsaved.read(self.path)
        except unsaved.UnsavedError as exc:
            raise JournalError(str(exc)) from None
        if kept is None:
            return
        row = self.db.execute("SELECT id, crc FROM entries ORDER BY id DESC LIMIT 1").fetchone()
        last_id, last_crc = (int(row[0]), int(row[1])) if row else (0, 0)
        if not kept.follows(last_id, last_crc):
            moved = _moved(kept, unsaved.set_aside)
            log.error("journal %s: the %d inputs kept in %s at the last stop do not follow its "
                      "last entry any more (it was repaired since); they are left in %s",
                      self.path, len(kept.rows), kept.path, moved)
            return
        self._last_id, self._last_crc = last_id, last_crc
        self.waiting = list(kept.rows)
        if not self.flush():
            self.waiting.clear()  # they stay in the file, for the next start
            raise JournalError(f"{self.path}: the {len(kept.rows)} inputs kept in {kept.path} "
                               f"at the last stop cannot be written back ({self.error}): make "
                               "room, then start again")
        _moved(kept, unsaved.done)
        self.restored = len(kept.rows)
        log.warning("journal %s: the %d inputs kept in %s at the last stop are written back",
                    self.path, self.restored, kept.path)

    # --- matches ------------------------------------------------------------------------------

    def last_match(self) -> MatchRecord | None:
        """The newest match with its inputs, or None for an empty journal."""
        if self._newest is not None:
            newest = records(iter(self._newest), self.path)
            return newest[-1] if newest else None
        start = self.db.execute("SELECT MAX(id) FROM entries WHERE kind = 'match'").fetchone()[0]
        if start is None:
            return None
        newest = records(rows(self.db, int(start) - 1), self.path)
        return newest[-1] if newest else None

    def matches(self) -> list[MatchRecord]:
        """Every match of the journal, with its inputs."""
        return records(rows(self.db), self.path)

    def carry_on(self, record: MatchRecord) -> None:
        """Append the next inputs to ``record``, the newest match."""
        self.match_id = record.id
        newest = self._newest if self._newest is not None else list(
            intact(rows(self.db, record.id - 1))
        )
        self._last_crc = newest[-1].crc if newest else 0
        self._last_id = newest[-1].id if newest else record.id

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

    def snapshot(self, record: MatchRecord) -> Snapshot | None:
        """The newest usable snapshot of ``record``: how many of its inputs it covers, the
        data and the shape it was written with (:func:`table.journal.records.thaw` checks it). None
        when there is none, or it is damaged or past the end."""
        try:
            row = self.db.execute("SELECT after, version, data, crc FROM snapshots WHERE match = ?",
                                  (record.id,)).fetchone()
        except sqlite3.Error:
            return None
        if row is None:
            return None
        after, version, packed, crc = row
        if zlib.crc32(packed, after) != crc:
            return None
        if after == record.id:
            covered = 0
        elif record.ids and after in record.ids:
            covered = record.ids.index(after) + 1
        else:
            return None
        try:
            return Snapshot(covered, zlib.decompress(packed), str(version))
        except zlib.error:
            return None

    # --- appending ----------------------------------------------------------------------------

    def append(self, item: JournaledInput, verdict: str) -> bool:
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
        """Write the inputs waiting (with ``kind`` and ``body`` after them, unless None) in
        one transaction; False, and they keep waiting, when the write fails."""
        if kind is not None:
            self.waiting.append((time.time(), kind, body))
        written = chain(self._last_id, self._last_crc, self.waiting)
        try:
            self.db.execute("BEGIN IMMEDIATE")
            self.db.executemany(f"INSERT INTO entries ({COLUMNS}) VALUES (?, ?, ?, ?, ?)",
                                [(e.id, e.t, e.kind, e.body, e.crc) for e in written])
            self.db.execute("COMMIT")
        except sqlite3.Error as exc:
            if self.db.in_transaction:
                self.db.execute("ROLLBACK")
            if self.healthy:
                log.error("journal %s cannot be written (%s): inputs kept in memory",
                          self.path, exc)
            self.healthy = False
            self.error = str(exc)
            return False
        matches = [e.id for e in written if e.kind == "match"]
        if matches:
            self.match_id = matches[-1]
        self._last_id, self._last_crc = written[-1].id, written[-1].crc
        self.unchecked += 1
        self._newest = None
        self.waiting.clear()
        if not self.healthy:
            log.warning("journal %s is written again", self.path)
        self.healthy = True
        return True

    def keep_unsaved(self) -> tuple[Path, int]:
        """Write the inputs still waiting into a file beside the journal (a stop while it
        cannot be written, see :mod:`table.journal.unsaved`); the file, and how many it holds. Those
        it holds leave memory."""
        where, kept = unsaved.keep(self.path, self._last_id, self._last_crc, self.waiting)
        del self.waiting[:kept]
        return where, kept

    def close(self) -> None:
        """Close the journal and let go of its lock."""
        self.db.close()
        self._lock.close()


def _moved(kept: unsaved.Unsaved, move: Callable[[unsaved.Unsaved], T]) -> T:
    """``move(kept)``: a file of unsaved inputs set aside or removed, or a JournalError."""
    try:
        return move(kept)
    except OSError as exc:
        raise JournalError(f"{kept.path}: cannot be moved or removed: {exc.strerror}") from None


def _lock(path: Path) -> IO[str]:
    """One table per journal: a second daemon on the same file is refused."""
    import fcntl

    from table.files.private import open_private

    try:
        handle = os.fdopen(open_private(Path(str(path) + ".lock"), os.O_RDWR | os.O_APPEND),
                           "a+", encoding="utf-8")
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
