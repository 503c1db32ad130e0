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
written, in order, as soon as a write succeeds again. Those still waiting at a stop are kept
beside the journal (:mod:`table.journal.unsaved`) and written into it at the next start.

A journal is marked as one (SQLite's ``application_id`` and ``user_version``); a file that is
neither a journal nor empty (a configuration, another program's database) is refused, never
rewritten, and one that cannot be written is refused when it opens. Journals made before the
mark are known by their ``entries`` table. The journal and every file beside it are private
(:mod:`table.files.private`): the hands are in them.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import stat
import time
import urllib.parse
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Final, TypeVar

from table.errors import TableError
from table.files.private import keep_private, make_private
from table.inputs import Kept
from table.journal import unsaved
from table.journal.records import (
    INPUT_KINDS,
    MatchSetup,
    RowError,
    Snapshot,
    input_from_json,
    input_json,
    input_kind,
)

log = logging.getLogger(__name__)
T = TypeVar("T")

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
MAGIC: Final = b"SQLite format 3\x00"
APPLICATION_ID: Final = 0x554E4F54  # "UNOT": PRAGMA application_id of an uno-table journal
FORMAT: Final = 1  # PRAGMA user_version: the journal format this code writes and reads
OWN_TABLES: Final = {
    "entries": ("id", "t", "kind", "body", "crc"),
    "snapshots": ("match", "after", "version", "data", "crc"),
    "room": ("b",),
    "outbox": ("id", "body", "sent"),  # results waiting for the broker (table.journal.outbox)
}
COMPANIONS: Final = ("-wal", "-shm", ".lock")  # the files SQLite and the lock keep beside it
INPUT_ROWS: Final = frozenset({*INPUT_KINDS, "press"})  # the kinds of row that hold an input


class JournalError(TableError, OSError):
    """A journal that cannot be opened at all (a folder that is not writable, a file that is
    no journal...)."""


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
    inputs: list[Kept] = field(default_factory=list)
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


@dataclass(frozen=True)
class Found:
    """What a journal path holds."""

    kind: str  # missing | empty | journal | damaged
    salvaged: list[Entry] = field(default_factory=list)  # damaged: its intact rows


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
        return _read_marks(_uri(path))
    except sqlite3.Error as exc:
        if getattr(exc, "sqlite_errorcode", None) in DAMAGED:
            raise
        return _read_marks(_uri(path) + "&immutable=1")


def _read_marks(uri: str) -> tuple[int, int, dict[str, tuple[str, ...]]]:
    db = sqlite3.connect(uri, uri=True)
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
        salvaged = _salvage(path)
        if salvaged or head[68:72] == APPLICATION_ID.to_bytes(4, "big"):
            return Found("damaged", salvaged)
        what = "an SQLite database that cannot be read" if head.startswith(MAGIC) \
            else "not an SQLite database"
        raise JournalError(f"{path}: not an uno-table journal ({what}); a journal is a new "
                           "or empty file, or one uno-table wrote") from None
    _judge(path, app, version, tables)
    return Found("journal")


def _uri(path: Path) -> str:
    """The URI that opens ``path`` read only (any character of its name quoted)."""
    return f"file:{urllib.parse.quote(str(path))}?mode=ro"


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
    from table.journal.salvage import page_rows

    candidates: dict[int, list[Entry]] = {}
    try:
        db = sqlite3.connect(_uri(path), uri=True)
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


def _damage(exc: sqlite3.Error, path: Path, doing: str = "open") -> bool:
    """True for an error that says the file is damaged; any other (no permission, read-only,
    disk full...) is raised as :class:`JournalError`: repairing would not fix it."""
    if getattr(exc, "sqlite_errorcode", None) in DAMAGED:
        return True
    what = "cannot be written" if doing == "write" else "cannot be opened"
    raise JournalError(f"{path}: the journal {what}: {exc}") from None


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
        return self._rebuild(_salvage(self.path))

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
        os.replace(fresh, self.path)
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
        if not _follows(kept, last_id, last_crc):
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
            records = _records(iter(self._newest), self.path)
            return records[-1] if records else None
        start = self.db.execute("SELECT MAX(id) FROM entries WHERE kind = 'match'").fetchone()[0]
        if start is None:
            return None
        records = _records(_rows(self.db, int(start) - 1), self.path)
        return records[-1] if records else None

    def matches(self) -> list[MatchRecord]:
        return _records(_rows(self.db), self.path)

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

    def append(self, item: Kept, verdict: str) -> bool:
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
        rows = _chain(self._last_id, self._last_crc, self.waiting)
        try:
            self.db.execute("BEGIN IMMEDIATE")
            self.db.executemany(f"INSERT INTO entries ({COLUMNS}) VALUES (?, ?, ?, ?, ?)",
                                [(e.id, e.t, e.kind, e.body, e.crc) for e in rows])
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
        matches = [e.id for e in rows if e.kind == "match"]
        if matches:
            self.match_id = matches[-1]
        self._last_id, self._last_crc = rows[-1].id, rows[-1].crc
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
        self.db.close()
        self._lock.close()


def _moved(kept: unsaved.Unsaved, move: Callable[[unsaved.Unsaved], T]) -> T:
    """``move(kept)``: a file of unsaved inputs set aside or removed, or a JournalError."""
    try:
        return move(kept)
    except OSError as exc:
        raise JournalError(f"{kept.path}: cannot be moved or removed: {exc.strerror}") from None


def _chain(last_id: int, last_crc: int, rows: list[tuple[float, str, str]]) -> list[Entry]:
    """``rows`` (time, kind, body) as the entries that follow entry ``last_id``, checksums
    chained from ``last_crc``."""
    out = []
    for t, kind, body in rows:
        last_id += 1
        last_crc = checksum(last_id, kind, body, 0 if kind == "match" else last_crc)
        out.append(Entry(last_id, t, kind, body, last_crc))
    return out


def _follows(kept: unsaved.Unsaved, last_id: int, last_crc: int) -> bool:
    """Whether inputs kept beside a journal follow its last entry (id ``last_id``)."""
    starts_match = bool(kept.rows) and kept.rows[0][1] == "match"
    return kept.after == last_id and (starts_match or kept.crc == last_crc)


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


def _records(entries: Iterator[Entry], path: Path) -> list[MatchRecord]:
    records: list[MatchRecord] = []
    for e in intact(entries):
        try:
            if e.kind == "match":
                records.append(MatchRecord(e.id, e.t, MatchSetup.from_json(e.body)))
            elif records:
                records[-1].inputs.append(input_from_json(e.kind, e.body))
                records[-1].times.append(e.t)
                records[-1].ids.append(e.id)
        except RowError as exc:
            raise JournalError(f"{path}: entry {e.id} ({e.kind}) cannot be read: {exc} (was "
                               "it written by another version of uno-table?)") from None
    return records


def read_journal(path: str | Path) -> list[MatchRecord]:
    """Every match of a journal file, read only (for status and history), with the inputs
    kept beside it at the last stop, if any."""
    path = Path(path)
    found = identify(path)
    if found.kind == "missing":
        raise JournalError(f"{path}: no such journal file")
    if found.kind == "empty":
        raise JournalError(f"{path}: an empty file: the journal holds no match yet")
    rows = found.salvaged
    if found.kind == "journal":
        try:
            db = sqlite3.connect(_uri(path), uri=True)
            try:
                rows = list(_rows(db))
            finally:
                db.close()
        except sqlite3.Error:
            rows = _salvage(path)
    if not rows and found.kind == "damaged":
        raise JournalError(f"{path}: not a readable uno-table journal")
    return _records(iter(_with_unsaved(path, rows)), path)


def last_entry(path: str | Path) -> int | None:
    """The id of the journal's latest row, read only: it changes with every input and every
    match the table writes (what a report built from the journal is cached by). None: no
    journal file there, or not one SQLite can read."""
    path = Path(path)
    if not path.is_file():
        return None
    try:
        db = sqlite3.connect(_uri(path), uri=True)
        try:
            row = db.execute("SELECT max(id) FROM entries").fetchone()
        finally:
            db.close()
    except sqlite3.Error:
        return None
    return int(row[0]) if row and row[0] is not None else 0


def _with_unsaved(path: Path, rows: list[Entry]) -> list[Entry]:
    try:
        kept = unsaved.read(path)
    except unsaved.UnsavedError as exc:
        raise JournalError(str(exc)) from None
    if kept is None or not rows or not _follows(kept, rows[-1].id, rows[-1].crc):
        return rows
    return rows + _chain(rows[-1].id, rows[-1].crc, kept.rows)
