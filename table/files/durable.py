"""Files renamed into place durably: the rename, then an fsync of the folder that holds the new
name (and of the one that held the old name, when another).

A rename is an entry in a folder. Until that folder reaches the disk, a power cut can bring back
the old name, the file missing or the one it replaced: the deck file of an hour's enrolment,
a repaired journal, inputs kept beside a journal. The file's own bytes are its writer's to sync
before the rename.
"""

from __future__ import annotations

import os
from pathlib import Path


def sync_folder(folder: Path) -> None:
    """fsync ``folder``: its entries (names made, renamed, removed) reach the disk."""
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def replace_durably(source: Path, target: Path) -> None:
    """``os.replace(source, target)``, then the folders of both names synced."""
    os.replace(source, target)
    sync_folder(target.parent)
    if os.path.realpath(source.parent) != os.path.realpath(target.parent):
        sync_folder(source.parent)
