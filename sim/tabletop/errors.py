"""The simulated table's own error."""

from __future__ import annotations

from table.errors import TableError


class SimError(TableError, RuntimeError):
    """The simulated table cannot go on (a reader that never answers, a bot stuck)."""
