"""Every file renamed into place is followed by an fsync of its folder: a power cut just after
can bring back neither the old name nor a missing file (the deck file of an hour's enrolment, a
repaired journal, inputs kept beside a journal). Each ``os.replace`` and each fsync of a folder
is recorded, in order, as the code under test makes them."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_journal import resumed_inputs, write_journal

from table.commands.enroll import save
from table.journal import unsaved
from table.voice.backends import DiskCache

Events = list[tuple[str, str]]


@pytest.fixture
def events(monkeypatch: pytest.MonkeyPatch) -> Iterator[Events]:
    seen: Events = []
    replace, fsync = os.replace, os.fsync

    def replacing(src: object, dst: object) -> None:
        replace(src, dst)  # type: ignore[arg-type]
        seen.append(("replace", os.path.realpath(os.fspath(dst))))  # type: ignore[arg-type]

    def syncing(fd: int) -> None:
        fsync(fd)
        what = "fsync folder" if stat.S_ISDIR(os.fstat(fd).st_mode) else "fsync file"
        seen.append((what, os.readlink(f"/proc/self/fd/{fd}")))

    monkeypatch.setattr(os, "replace", replacing)
    monkeypatch.setattr(os, "fsync", syncing)
    yield seen


def unsynced(seen: Events) -> list[str]:
    """The targets of renames that no later fsync of their folder covers."""
    left = []
    for at, (what, path) in enumerate(seen):
        folder = os.path.dirname(path)
        if what == "replace" and ("fsync folder", folder) not in seen[at + 1:]:
            left.append(path)
    return left


def test_the_enrolled_deck_file(tmp_path: Path, events: Events) -> None:
    save(tmp_path / "deck.toml", {"04A1B2C3": "R5#1"}, "classic-108")
    save(tmp_path / "deck.toml", {"04A1B2C3": "R5#1", "04A1B2C4": "R6#1"}, "classic-108")
    assert [e[0] for e in events].count("replace") == 2
    assert unsynced(events) == []


def test_a_repaired_journal(tmp_path: Path, events: Events) -> None:
    path = tmp_path / "journal.sqlite3"
    write_journal(path, 120)
    path.write_bytes(path.read_bytes()[:-4096])  # damaged: salvaged into a fresh file
    events.clear()
    journal, _ = resumed_inputs(path)
    journal.close()
    assert ("replace", str(path.resolve())) in events
    assert unsynced(events) == []


def test_inputs_kept_beside_a_journal_set_aside(tmp_path: Path, events: Events) -> None:
    kept = tmp_path / "journal.sqlite3.unsaved"
    kept.write_text("{}\n")
    moved = unsaved.set_aside(unsaved.Unsaved(kept, 1, 2, []))
    assert next(e for e in events if e[0] != "fsync file") == ("replace", str(moved.resolve()))
    assert unsynced(events) == []


def test_a_phrase_kept_in_the_voice_cache(tmp_path: Path, events: Events) -> None:
    """The phrase cache renames a rendered WAV into place: its bytes synced before the rename,
    its folder after, so a cut never leaves a name on half a phrase."""
    cache = DiskCache(tmp_path / "phrases")
    wav = b"RIFF" + bytes(100)
    cache.put(("espeak-ng", "en", "Red five"), wav)
    target = str(cache.path(("espeak-ng", "en", "Red five")).resolve())
    (at,) = [i for i, e in enumerate(events) if e == ("replace", target)]
    assert [e[0] for e in events[:at]] == ["fsync file"]
    assert unsynced(events) == []
    assert cache.get(("espeak-ng", "en", "Red five")) == wav
