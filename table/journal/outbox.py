"""The outbox: results a table must deliver, kept in the journal file until the broker has them.

A result (a round's or a match's end, docs/design.md §3's MQTT face) is written here *before* it
is sent, under an id made of the table, the match and the round, so writing it twice is writing
it once. The sender marks a row sent when the broker acknowledges it (QoS 1); rows not marked
are sent again when the broker is back, also after the daemon restarts. The receiver counts each
id once, so a row sent twice (acknowledged, then the acknowledgement lost) does no harm.

The outbox has its own connection to the journal file (SQLite's WAL lets it write beside the
journal's own), so the sender's thread never touches the journal's connection.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from pathlib import Path
from typing import Any, Final

from table.errors import TableError

SCHEMA: Final = """
CREATE TABLE IF NOT EXISTS outbox (
    id TEXT PRIMARY KEY,
    body TEXT NOT NULL,
    sent INTEGER NOT NULL DEFAULT 0
)
"""
COLUMNS: Final = ("id", "body", "sent")


class OutboxError(TableError, OSError):
    """The outbox cannot be read or written."""


class Outbox:
    """Results waiting for the broker, in ``path`` (the journal file; ``:memory:`` for a
    simulated table that keeps no journal). Safe to use from several threads."""

    def __init__(self, path: Path | str) -> None:
        self.path = str(path)
        self._lock = threading.Lock()
        try:
            self.db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False,
                                      timeout=10.0)
            if self.path != ":memory:":
                self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=FULL")
            self.db.execute(SCHEMA)
        except sqlite3.Error as exc:
            raise OutboxError(f"{self.path}: the outbox cannot be opened: {exc}") from None

    def add(self, result: dict[str, Any]) -> bool:
        """Keep ``result`` (its ``id`` names it) until it is sent; False when it was already
        there (sent or not)."""
        body = json.dumps(result, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
        with self._lock:
            try:
                cur = self.db.execute("INSERT OR IGNORE INTO outbox (id, body) VALUES (?, ?)",
                                      (str(result["id"]), body))
            except sqlite3.Error as exc:
                raise OutboxError(f"{self.path}: result {result['id']} cannot be kept: "
                                  f"{exc}") from None
            return cur.rowcount == 1

    def unsent(self) -> list[dict[str, Any]]:
        """The results not yet acknowledged, oldest first."""
        with self._lock:
            rows = self.db.execute("SELECT body FROM outbox WHERE sent = 0 ORDER BY rowid")
            return [json.loads(body) for (body,) in rows.fetchall()]

    def mark_sent(self, result_id: str) -> None:
        """The broker has the result ``result_id``: it is not sent again."""
        with self._lock:
            self.db.execute("UPDATE outbox SET sent = 1 WHERE id = ?", (result_id,))

    def send_again(self, prefix: str) -> int:
        """Mark the results whose id starts with ``prefix`` unsent (a hub that came late asks
        for them); how many."""
        pattern = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        with self._lock:
            cur = self.db.execute("UPDATE outbox SET sent = 0 WHERE id LIKE ? ESCAPE '\\'",
                                  (pattern,))
        return cur.rowcount

    def counts(self) -> tuple[int, int]:
        """(sent, waiting)."""
        with self._lock:
            row = self.db.execute(
                "SELECT COALESCE(SUM(sent), 0), COUNT(*) - COALESCE(SUM(sent), 0) FROM outbox"
            ).fetchone()
        return int(row[0]), int(row[1])

    def close(self) -> None:
        """Close the outbox's connection."""
        with self._lock:
            self.db.close()
