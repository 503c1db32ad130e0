"""The project's error hierarchy.

Every error uno-table raises on purpose subclasses :class:`TableError` and a built-in, so callers
can catch either (``except ValueError`` keeps working for code that does not know us).
"""

from __future__ import annotations


class TableError(Exception):
    """Base class of every error raised on purpose by uno-table."""


class CardCodeError(TableError, ValueError):
    """A card code (``R5``, ``W+4#2``) could not be read."""


class OptionError(TableError, ValueError):
    """An unknown rules option, a value of the wrong type, or a value that is not allowed."""


class SetupError(TableError, ValueError):
    """A round set-up that cannot exist (too many copies of a card, wrong player count...)."""


class IllegalPlay(TableError, ValueError):
    """An action the rules do not allow. Carries a stable machine-readable ``reason`` code."""

    def __init__(self, reason: str, message: str = "") -> None:
        super().__init__(message or reason)
        self.reason = reason


class ScenarioError(TableError, ValueError):
    """A scenario line the parser cannot read. ``str()`` is ``file:line: message``."""

    def __init__(self, path: str, line: int, message: str) -> None:
        super().__init__(f"{path}:{line}: {message}")
        self.path = path
        self.line = line
        self.message = message
