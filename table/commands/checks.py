"""Command-line paths checked before anything is made of them: an empty one is one line naming
the option and what is allowed (exit 2), never the current folder written into by accident."""

from __future__ import annotations

from table.errors import TableError


class OptionValueError(TableError, ValueError):
    """A command-line option's value that the command refuses."""


def given_path(option: str, text: str, allowed: str) -> str:
    """``text`` unchanged when it names a file or folder; an empty (or blank) one is refused:
    ``Path("")`` is the current folder, which no one means by it."""
    if not text.strip():
        raise OptionValueError(f"{option} {text!r}: an empty path; allowed: {allowed}")
    return text

