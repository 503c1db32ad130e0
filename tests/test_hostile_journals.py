"""Files that are not journals this code can keep, given to every command that reads a journal
(``status``, ``history``, and ``run`` with the file as its ``[journal] path``): each gets one
line on stderr and exit code 2, and the file is left as it was, never rewritten or salvaged.

An empty file is the one exception for ``run``: it is where a new journal is made."""

from __future__ import annotations

import os
import sqlite3
import stat
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from daemon_harness import refusal, refused, write_config
from test_journal import write_journal
from unprivileged import check_held, unprivileged

from sim.hardware.ptys import PtyReader
from table.commands.cli import main
from table.journal.store import checksum

PLAYERS = ("Aki", "Ken", "Mio")


def rewrite(path: Path, entry_id: int, body: str) -> None:
    """Give entry ``entry_id`` another body, its checksum and those after it made right again:
    a row as another version of uno-table might write it, not a damaged one."""
    db = sqlite3.connect(path, isolation_level=None)
    previous = 0
    for rid, kind, old in db.execute("SELECT id, kind, body FROM entries ORDER BY id").fetchall():
        text = body if rid == entry_id else old
        previous = checksum(rid, kind, text, 0 if kind == "match" else previous)
        db.execute("UPDATE entries SET body = ?, crc = ? WHERE id = ?", (text, previous, rid))
    db.close()


def other_program(path: Path) -> None:
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT)")
    db.executemany("INSERT INTO notes (text) VALUES (?)", [("a note " * 20,)] * 40)
    db.close()


def other_application(path: Path) -> None:
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA application_id = 252006674")  # Fossil's
    db.execute("CREATE TABLE entries (id INTEGER PRIMARY KEY, t, kind, body, crc)")
    db.close()


def other_entries(path: Path) -> None:
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("CREATE TABLE entries (id INTEGER PRIMARY KEY, name TEXT, value TEXT)")
    db.execute("INSERT INTO entries (name, value) VALUES ('colour', 'blue')")
    db.close()


def newer_format(path: Path) -> None:
    write_journal(path, 20)
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA user_version = 7")
    db.close()


def unreadable(path: Path) -> None:
    write_journal(path, 20)
    path.chmod(0)


Maker = Callable[[Path], None]
HOSTILE: dict[str, tuple[Maker, str]] = {
    "binary": (lambda p: p.write_bytes(bytes(range(256)) * 32), "not an SQLite database"),
    "not-utf8-text": (lambda p: p.write_bytes("café au lait\n".encode("latin-1") * 400),
                      "not an SQLite database"),
    "empty": (lambda p: p.write_bytes(b""), "an empty file"),
    "folder": (lambda p: p.mkdir(), "a folder, not a journal file"),
    "fifo": (lambda p: os.mkfifo(p), "not a regular file"),
    "unreadable": (unreadable, "cannot read the journal: Permission denied"),
    "other-program": (other_program, "not an uno-table journal (its tables: notes)"),
    "other-application": (other_application, "another program (application id 0xf055112)"),
    "other-entries": (other_entries, "its entries table has the columns id, name, value"),
    "newer-format": (newer_format, "a journal of a newer uno-table (format 7"),
    "bad-json": (lambda p: (write_journal(p, 20), rewrite(p, 5, '{"r":"pad","u":'))[0],
                 "entry 5 (tag) cannot be read: an input that is not JSON"),
    "missing-key": (lambda p: (write_journal(p, 20), rewrite(p, 5, '{"r":"pad","v":"x"}'))[0],
                    "entry 5 (tag) cannot be read: an input that is not whole (no 'u')"),
    "bad-setup": (lambda p: (write_journal(p, 20), rewrite(p, 1, '{"players":["Aki"]}'))[0],
                  "entry 1 (match) cannot be read: a set-up that is not whole (no 'options')"),
}


def state_of(path: Path) -> object:
    """What must not change: a folder's listing, a file's bytes, a journal's rows."""
    mode = os.stat(path).st_mode
    if stat.S_ISDIR(mode):
        return sorted(os.listdir(path))
    if not stat.S_ISREG(mode):
        return stat.S_IFMT(mode)
    data = path.read_bytes()
    if not data.startswith(b"SQLite format 3\x00"):
        return data
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        return {t: db.execute(f"SELECT * FROM {t} ORDER BY 1").fetchall() for t in tables
                if t != "room"}
    finally:
        db.close()


def one_line(code: int, err: str, path: Path, expected: str) -> None:
    line = refusal(code, err)
    assert line.startswith(f"uno-table: {path}: ") and expected in line, line


def held_cli(*args: str) -> tuple[int, str]:
    """``uno-table ARGS`` in a process held to file permissions: its exit code and stderr."""
    done = subprocess.run(unprivileged([sys.executable, "-m", "table.commands.cli", *args]),
                          capture_output=True, text=True, timeout=60)
    return done.returncode, done.stderr


@pytest.mark.parametrize("command", ["status", "history"])
@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_reading_a_hostile_journal_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], case: str, command: str
) -> None:
    make, expected = HOSTILE[case]
    path = tmp_path / "journal.sqlite3"
    make(path)
    if case == "unreadable":
        check_held(tmp_path)
        code, err = held_cli(command, "--journal", str(path))
    else:
        before = state_of(path)
        code = main([command, "--journal", str(path)])
        err = capsys.readouterr().err
        assert state_of(path) == before
    one_line(code, err, path, expected)


@pytest.mark.parametrize("case", sorted(set(HOSTILE) - {"empty"}))
def test_running_on_a_hostile_journal_is_one_line_and_exit_2(tmp_path: Path, case: str) -> None:
    make, expected = HOSTILE[case]
    if case == "unreadable":
        check_held(tmp_path)
    pad = PtyReader(tmp_path / "pad")
    config = write_config(tmp_path, PLAYERS)
    path = tmp_path / "journal.sqlite3"
    make(path)
    before = state_of(path)
    try:
        done = refused(config, unprivileged if case == "unreadable" else list)
    finally:
        pad.close()
    one_line(done.returncode, done.stderr, path, expected)
    assert '"type":"ready"' not in done.stdout and '"type":"new-match"' not in done.stdout
    assert state_of(path) == before
    assert not list(tmp_path.glob("journal.sqlite3.damaged-*"))
