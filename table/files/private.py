"""Files that hold hidden information: the journal and the files beside it (every card read
on a seat pad is in it) and enrolled deck files (the UID of every card).

They are made readable by their owner only (0600), or by the folder's group too (0640) when
the folder has the set-group-ID bit: ``install -d -g uno-table -m 2750 /etc/uno-table`` gives
the service's group, and nobody else, the right to read what is written there. A file made
before, readable by every user, loses the other users' bits when uno-table opens it to write.
"""

from __future__ import annotations

import logging
import os
import stat
from pathlib import Path

log = logging.getLogger(__name__)

OTHERS = 0o007


def private_mode(folder: Path) -> int:
    """The mode of a new private file in ``folder``."""
    try:
        shared = os.stat(folder).st_mode & stat.S_ISGID
    except OSError:
        shared = 0
    return 0o640 if shared else 0o600


def open_private(path: Path, flags: int) -> int:
    """``os.open`` with ``O_CREAT``: a new file gets :func:`private_mode`, an existing one
    loses the other users' bits."""
    fd = os.open(path, flags | os.O_CREAT, private_mode(path.parent))
    try:
        _tighten(fd, path)
    except BaseException:
        os.close(fd)
        raise
    return fd


def make_private(path: Path) -> None:
    """Create ``path`` (empty) if it is missing; either way, private."""
    os.close(open_private(path, os.O_RDONLY))


def keep_private(path: Path) -> None:
    """An existing file loses the other users' bits (a missing one is left missing)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return
    try:
        _tighten(fd, path)
    finally:
        os.close(fd)


def _tighten(fd: int, path: Path) -> None:
    mode = os.fstat(fd).st_mode
    if stat.S_ISREG(mode) and mode & OTHERS:
        try:
            os.fchmod(fd, stat.S_IMODE(mode) & ~OTHERS)
        except OSError as exc:  # not the owner: say so, the file still works
            log.warning("%s is readable by every user and cannot be made private: %s",
                        path, exc.strerror)
