"""The hub's own SQLite store: every result heard (each table, match and round once; a second,
different result of a round set aside), the players with their drops and late entries, and
each round's seating."""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any, Final

from table.errors import TableError
from table.hub.messages import MessageError, same_result, stored_result

SCHEMA: Final = (
    """CREATE TABLE IF NOT EXISTS results (
        id TEXT PRIMARY KEY, tbl TEXT NOT NULL, match TEXT NOT NULL, round INTEGER NOT NULL,
        hub_round INTEGER NOT NULL, body TEXT NOT NULL, flag TEXT, received REAL NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS players (
        name TEXT PRIMARY KEY, active INTEGER NOT NULL, joined INTEGER NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS conflicts (
        id TEXT PRIMARY KEY, tbl TEXT NOT NULL, body TEXT NOT NULL, received REAL NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS rounds (
        number INTEGER PRIMARY KEY, tables TEXT NOT NULL, started REAL NOT NULL, ends_at REAL)""",
)


class HubStoreError(TableError, OSError):
    """The hub's store cannot be opened or written."""


class HubStore:
    """The hub's SQLite file: results, players and rounds; one writer at a time."""

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
            # Every commit on the disk before it returns: the hub acknowledges a result to the
            # broker (PUBACK) only after keeping it, and a table that got its PUBACK never sends
            # it again, so a power cut of the hub's machine must not take a kept result back.
            # One fsync per result: a table sends one a round.
            self.db.execute("PRAGMA synchronous=FULL")
            for statement in SCHEMA:
                self.db.execute(statement)
        except sqlite3.Error as exc:
            raise HubStoreError(f"{self.path}: not a hub store this hub can use ({exc})") \
                from None
        self.duplicates = 0  # results heard again (an id already kept)

    # --- results ------------------------------------------------------------------------------

    def add_result(self, result: dict[str, Any], hub_round: int, flag: str | None) -> str:
        """Keep a checked ``result`` once per table, match and round (its id says which):
        ``new``; ``same`` when that round was kept already with the same content; ``conflict``
        when it was kept with other content (the second is set aside, never counted)."""
        body = json.dumps({**result, "hub_round": hub_round}, sort_keys=True)
        with self._lock:
            cur = self.db.execute(
                "INSERT OR IGNORE INTO results VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (result["id"], result["table"], result["match"], result["round"], hub_round,
                 body, flag, time.time()))
            if cur.rowcount == 1:
                return "new"
            self.duplicates += 1
            (kept,) = self.db.execute("SELECT body FROM results WHERE id = ?",
                                      (result["id"],)).fetchone()
            try:
                if same_result(stored_result(kept, result["table"]), result):
                    return "same"
            except MessageError:
                pass  # an older version's bad row: the round is taken, whatever it says
            self.db.execute("INSERT OR IGNORE INTO conflicts VALUES (?, ?, ?, ?)",
                            (result["id"], result["table"], body, time.time()))
            return "conflict"

    def load(self) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """Every result kept, in the order heard, checked again as it is read (with
        ``hub_round`` and ``flag`` as the hub saw them); and what is not counted: rows that fail
        the check (kept by an older version), a second row of one round, the second results
        heard for a round already kept (``id``, ``table``, ``problem``)."""
        with self._lock:
            rows = self.db.execute("SELECT id, tbl, body, hub_round, flag FROM results "
                                   "ORDER BY rowid").fetchall()
            conflicts = self.db.execute("SELECT id, tbl FROM conflicts ORDER BY rowid").fetchall()
        results: list[dict[str, Any]] = []
        problems: list[dict[str, Any]] = []
        seen: set[str] = set()
        for row_id, table, body, hub_round, flag in rows:
            try:
                result = stored_result(body, str(table))
            except MessageError as exc:
                problems.append({"id": str(row_id)[:80], "table": str(table)[:80],
                                 "problem": f"not counted: a stored row that cannot be read: "
                                            f"{exc}"})
                continue
            if result["id"] in seen:
                problems.append({"id": str(row_id)[:80], "table": result["table"],
                                 "problem": f"not counted: round {result['id']} is kept already"})
                continue
            seen.add(result["id"])
            result["hub_round"] = hub_round if isinstance(hub_round, int) else 0
            result["flag"] = flag if isinstance(flag, str) else None
            results.append(result)
        problems += [{"id": rid, "table": table,
                      "problem": "not counted: a second result for this round, with other points "
                                 "or players than the first"} for rid, table in conflicts]
        return results, problems

    def results(self) -> list[dict[str, Any]]:
        """Every result counted, in the order heard (:meth:`load`'s first half)."""
        return self.load()[0]

    # --- players ------------------------------------------------------------------------------

    def enter(self, name: str, round_no: int) -> None:
        """A player joins (at the start, or late: from round ``round_no`` on)."""
        with self._lock:
            self.db.execute("INSERT INTO players VALUES (?, 1, ?) ON CONFLICT(name) DO UPDATE "
                            "SET active = 1", (name, round_no))

    def drop(self, name: str) -> bool:
        """A player leaves: not seated from the next round on; False if unknown."""
        with self._lock:
            cur = self.db.execute("UPDATE players SET active = 0 WHERE name = ?", (name,))
            return cur.rowcount == 1

    def players(self, active_only: bool = True) -> list[str]:
        """The players in the order they entered (those still playing, or all)."""
        with self._lock:
            query = "SELECT name FROM players" + (" WHERE active = 1" if active_only else "")
            return [name for (name,) in self.db.execute(query + " ORDER BY rowid")]

    # --- rounds -------------------------------------------------------------------------------

    def seat(self, number: int, tables: dict[str, list[str]], ends_at: float | None) -> None:
        """Keep round ``number``'s seating and the end of its timer."""
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

    def seating(self, number: int) -> dict[str, list[str]]:
        """Round ``number``'s tables (empty: no such round)."""
        with self._lock:
            row = self.db.execute("SELECT tables FROM rounds WHERE number = ?",
                                  (number,)).fetchone()
        return {} if row is None else dict(json.loads(row[0]))

    def seatings(self) -> list[dict[str, list[str]]]:
        """Every round's tables, in order."""
        with self._lock:
            rows = self.db.execute("SELECT tables FROM rounds ORDER BY number").fetchall()
        return [json.loads(tables) for (tables,) in rows]

    def close(self) -> None:
        """Close the file."""
        with self._lock:
            self.db.close()
