"""The hub's own SQLite store: every result heard (each id once), the players with their drops
and late entries, and each round's seating."""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any, Final

from table.errors import TableError

SCHEMA: Final = (
    """CREATE TABLE IF NOT EXISTS results (
        id TEXT PRIMARY KEY, tbl TEXT NOT NULL, match TEXT NOT NULL, round INTEGER NOT NULL,
        hub_round INTEGER NOT NULL, body TEXT NOT NULL, flag TEXT, received REAL NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS players (
        name TEXT PRIMARY KEY, active INTEGER NOT NULL, joined INTEGER NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS rounds (
        number INTEGER PRIMARY KEY, tables TEXT NOT NULL, started REAL NOT NULL, ends_at REAL)""",
)


class HubStoreError(TableError, OSError):
    """The hub's store cannot be opened or written."""


class HubStore:
    def __init__(self, path: Path | str, create: bool = True) -> None:
        self.path = Path(path)
        if not create and not self.path.is_file():
            raise HubStoreError(f"{self.path}: no hub store there; allowed: the --store FILE "
                                "of a hub that has run")
        self._lock = threading.Lock()
        try:
            self.db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False,
                                      timeout=10.0)
            self.db.execute("PRAGMA journal_mode=WAL")
            # A result is also in its table's journal: the hub's store survives a crash of the
            # hub, and trades only the last commits before a power cut for speed.
            self.db.execute("PRAGMA synchronous=NORMAL")
            for statement in SCHEMA:
                self.db.execute(statement)
        except sqlite3.Error as exc:
            raise HubStoreError(f"{self.path}: not a hub store this hub can use ({exc})") \
                from None
        self.duplicates = 0  # results heard again (an id already kept)

    # --- results ------------------------------------------------------------------------------

    def add_result(self, result: dict[str, Any], hub_round: int, flag: str | None) -> bool:
        """Keep ``result`` once; False when its id was already kept."""
        with self._lock:
            cur = self.db.execute(
                "INSERT OR IGNORE INTO results VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (str(result["id"]), str(result["table"]), str(result["match"]),
                 int(result["round"]), hub_round, json.dumps(result, sort_keys=True), flag,
                 time.time()))
            if cur.rowcount != 1:
                self.duplicates += 1
            return cur.rowcount == 1

    def results(self) -> list[dict[str, Any]]:
        """Every result, in the order heard, with ``hub_round`` and ``flag`` as the hub saw
        them."""
        with self._lock:
            rows = self.db.execute(
                "SELECT body, hub_round, flag FROM results ORDER BY rowid").fetchall()
        out = []
        for body, hub_round, flag in rows:
            result = json.loads(body)
            result["hub_round"], result["flag"] = hub_round, flag
            out.append(result)
        return out

    def match_rounds(self, table: str, match: str) -> list[dict[str, Any]]:
        with self._lock:
            rows = self.db.execute("SELECT body FROM results WHERE tbl = ? AND match = ? "
                                   "ORDER BY round", (table, match)).fetchall()
        return [json.loads(body) for (body,) in rows]

    # --- players ------------------------------------------------------------------------------

    def enter(self, name: str, round_no: int) -> None:
        """A player joins (at the start, or late: from round ``round_no`` on)."""
        with self._lock:
            self.db.execute("INSERT INTO players VALUES (?, 1, ?) ON CONFLICT(name) DO UPDATE "
                            "SET active = 1", (name, round_no))

    def drop(self, name: str) -> bool:
        with self._lock:
            cur = self.db.execute("UPDATE players SET active = 0 WHERE name = ?", (name,))
            return cur.rowcount == 1

    def players(self, active_only: bool = True) -> list[str]:
        with self._lock:
            query = "SELECT name FROM players" + (" WHERE active = 1" if active_only else "")
            return [name for (name,) in self.db.execute(query + " ORDER BY rowid")]

    # --- rounds -------------------------------------------------------------------------------

    def seat(self, number: int, tables: dict[str, list[str]], ends_at: float | None) -> None:
        with self._lock:
            self.db.execute("INSERT OR REPLACE INTO rounds VALUES (?, ?, ?, ?)",
                            (number, json.dumps(tables), time.time(), ends_at))

    def current_round(self) -> tuple[int, dict[str, list[str]], float | None]:
        """The latest round seated: its number (0: none yet), tables and end."""
        with self._lock:
            row = self.db.execute("SELECT number, tables, ends_at FROM rounds "
                                  "ORDER BY number DESC LIMIT 1").fetchone()
        if row is None:
            return 0, {}, None
        return int(row[0]), json.loads(row[1]), row[2]

    def seatings(self) -> list[dict[str, list[str]]]:
        with self._lock:
            rows = self.db.execute("SELECT tables FROM rounds ORDER BY number").fetchall()
        return [json.loads(tables) for (tables,) in rows]

    def close(self) -> None:
        with self._lock:
            self.db.close()
