"""The voice's error, in a module of its own so that every voice module can raise it without
importing another (espeak-ng, Open JTalk and the kana readings import nothing of each other's
for it)."""

from __future__ import annotations

from table.errors import TableError


class SpeechError(TableError, RuntimeError):
    """The speech engine is missing or failed."""
