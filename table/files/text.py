"""Reading the files a user hands us (configuration, deck, scenario) as UTF-8 text or TOML.

Every way such a file can be wrong is one line naming the file: not there, a folder, not
readable, too large, UTF-16, not UTF-8, binary, not TOML, nested too deeply. The caller says
what the file is ("deck file") and which error to raise, so each command keeps its own error
class and wording around the same checks.
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

from table.errors import TableError

MAX_BYTES: Final = 16 * 1024 * 1024  # far above any deck, configuration or scenario
_UTF16_BOMS: Final = (b"\xff\xfe", b"\xfe\xff")


class InputFileError(TableError, ValueError):
    """A file that cannot be read as the text it should be. ``str()`` starts with the path."""


Error = Callable[[str], Exception]


def _line_of(data: bytes, offset: int) -> int:
    return data.count(b"\n", 0, offset) + 1


def read_text(path: str | Path, what: str, error: Error = InputFileError) -> str:
    """The text of the ``what`` at ``path`` (UTF-8, a leading byte-order mark dropped).
    Raises ``error(message)``, the message one line."""
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_BYTES + 1)
    except FileNotFoundError:
        raise error(f"{path}: no such {what}") from None
    except IsADirectoryError:
        raise error(f"{path}: a folder, not a {what}") from None
    except OSError as exc:
        raise error(f"{path}: cannot read the {what}: {exc.strerror or exc}") from None
    if len(data) > MAX_BYTES:
        raise error(f"{path}: larger than {MAX_BYTES // 2**20} MiB, so not a {what}")
    if data.startswith(_UTF16_BOMS):
        raise error(f"{path}: UTF-16 text: save the {what} as UTF-8")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        byte = data[exc.start]
        where = f"byte 0x{byte:02X} on line {_line_of(data, exc.start)}"
        raise error(f"{path}: not UTF-8 text ({where}): save the {what} as UTF-8") from None
    nul = data.find(b"\0")
    if nul >= 0:
        line = _line_of(data, nul)
        raise error(f"{path}: a binary file (a NUL byte on line {line}), not a {what}")
    return text


def read_toml(path: str | Path, what: str, error: Error = InputFileError) -> dict[str, Any]:
    """The TOML ``what`` at ``path``, read by :func:`read_text`. Raises ``error(message)``."""
    text = read_text(path, what, error)
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise error(f"{path}: not valid TOML: {exc}") from None
    except RecursionError:  # tomllib reads nested arrays and inline tables recursively
        raise error(f"{path}: not valid TOML: arrays or tables nested too deeply") from None
