"""Inputs the journal could not take when the daemon stopped (a full disk), kept beside it.

When a journal opens, room is set aside beside it: ``journal.sqlite3.reserve``, RESERVE bytes
already allocated on the disk. A stop with inputs still waiting writes them into that file in
place (a full disk has no room for a new file, but this one's blocks are taken already) and
renames it ``journal.sqlite3.unsaved``. The next start writes them into the journal before
anything else, then removes the file; ``status`` and ``history`` read them too.

The file: a first line naming the journal row the inputs follow (its id and checksum), then one
JSON line per input with its time, kind and body, exactly as the journal stores them.
"""

from __future__ import annotations

import errno
import json
import logging
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from table.errors import TableError
from table.files.durable import replace_durably, sync_folder
from table.files.private import open_private

log = logging.getLogger(__name__)

RESERVE: Final = 256 * 1024  # about 2,500 inputs
NO_ROOM: Final = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)
Row = tuple[float, str, str]  # time, kind, body


class UnsavedError(TableError, ValueError):
    """A file of unsaved inputs that cannot be read back."""


@dataclass(frozen=True)
class Unsaved:
    """Inputs kept beside a journal: its file, the journal row they follow, and the rows."""

    path: Path
    after: int  # the id of the journal row the inputs follow
    crc: int  # that row's checksum
    rows: list[Row]

    def follows(self, last_id: int, last_crc: int) -> bool:
        """Whether these inputs follow a journal whose last entry is ``last_id``."""
        starts_match = bool(self.rows) and self.rows[0][1] == "match"
        return self.after == last_id and (starts_match or self.crc == last_crc)


def unsaved_path(journal: Path) -> Path:
    """The file beside ``journal`` that holds the inputs a stop could not write into it."""
    return journal.with_name(journal.name + ".unsaved")


def reserve_path(journal: Path) -> Path:
    """The file beside ``journal`` whose blocks are set aside for the unsaved inputs."""
    return journal.with_name(journal.name + ".reserve")


def reserve(journal: Path) -> None:
    """Set room aside for the inputs a stop may not be able to write into the journal."""
    path = reserve_path(journal)
    try:
        fd = open_private(path, os.O_WRONLY)
        try:
            if os.fstat(fd).st_size < RESERVE:
                os.posix_fallocate(fd, 0, RESERVE)
        finally:
            os.close(fd)
    except OSError as exc:
        log.warning("no room set aside in %s for inputs a stop could not write (%s)",
                    path, exc.strerror)


def keep(journal: Path, after: int, crc: int, rows: Sequence[Row]) -> tuple[Path, int]:
    """Write ``rows`` beside the journal: the file, and how many of them it holds (fewer than
    all only when even the room set aside ran out)."""
    lines = [json.dumps({"after": after, "crc": crc}) + "\n"]
    lines += [json.dumps({"t": t, "kind": k, "body": b}, ensure_ascii=False) + "\n"
              for t, k, b in rows]
    data = "".join(lines).encode()
    target = unsaved_path(journal)
    if target.exists():  # never over inputs kept before (they are replayed at start)
        target = target.with_name(f"{target.name}-{time.strftime('%Y%m%dT%H%M%S')}")
    source = reserve_path(journal)
    if not source.exists():
        source = target
    fd = open_private(source, os.O_WRONLY)
    try:
        written = _write_all(fd, data)
        whole = data.rfind(b"\n", 0, written) + 1  # complete lines only
        os.ftruncate(fd, whole)
        os.fsync(fd)
    finally:
        os.close(fd)
    kept = max(data.count(b"\n", 0, whole) - 1, 0)
    if not kept:
        source.unlink()
        return target, 0
    if source != target:
        replace_durably(source, target)
    else:
        sync_folder(target.parent)
    return target, kept


def _write_all(fd: int, data: bytes) -> int:
    view = memoryview(data)
    written = 0
    while written < len(data):
        try:
            written += os.write(fd, view[written:])
        except OSError as exc:
            if exc.errno not in NO_ROOM:
                raise
            break
    return written


def read(journal: Path) -> Unsaved | None:
    """The inputs kept beside ``journal`` at the last stop, or None."""
    path = unsaved_path(journal)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise UnsavedError(f"{path}: the inputs kept at the last stop cannot be read: "
                           f"{getattr(exc, 'strerror', None) or exc}") from None
    try:
        head, *body = [json.loads(line) for line in text.splitlines()]
        rows = [(float(r["t"]), str(r["kind"]), str(r["body"])) for r in body]
        return Unsaved(path, int(head["after"]), int(head["crc"]), rows)
    except (ValueError, KeyError, TypeError) as exc:
        raise UnsavedError(f"{path}: the inputs kept at the last stop cannot be read "
                           f"({type(exc).__name__}: {exc}); move the file away to start "
                           "without them") from None


def set_aside(kept: Unsaved) -> Path:
    """Move a file of unsaved inputs that no longer fits its journal out of the way."""
    moved = kept.path.with_name(f"{kept.path.name}-{time.strftime('%Y%m%dT%H%M%S')}")
    replace_durably(kept.path, moved)
    return moved


def done(kept: Unsaved) -> None:
    """The inputs are in the journal: the file goes."""
    kept.path.unlink(missing_ok=True)
    sync_folder(kept.path.parent)
