"""Enrolling a whole 2018-112 deck and its tokens through a serial reader on a real pty, in a
real process: stopped half-way and resumed, a tag tapped twice refused, the deck file complete."""

from __future__ import annotations

import queue
import random
import signal
import subprocess
import sys
import threading
from pathlib import Path

from daemon_harness import RUNNING, write_config

from sim.hardware.ptys import PtyReader
from table.commands.cli import main
from table.commands.enroll import wanted
from table.referee.registry import load_deck


class Enroll:
    def __init__(self, *args: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "table.commands.cli", "enroll", *args],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, encoding="utf-8",
        )
        RUNNING.append(self.proc)
        self.lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def next_line(self, start: str) -> str:
        while True:
            line = self.lines.get(timeout=20)
            assert line is not None, "enroll ended early: " + self.proc.stderr.read()  # type: ignore[union-attr]
            if line.startswith(start):
                return line


def test_enrol_a_whole_deck_with_a_stop_and_a_resume(tmp_path: Path) -> None:
    pad = PtyReader(tmp_path / "pad")
    config = write_config(tmp_path)
    out = tmp_path / "deck.toml"
    codes = wanted("2018-112", 10)
    assert len(codes) == 112 + 4 + 7 + 10
    rng = random.Random(1)
    uids = {code: "04" + "".join(rng.choice("0123456789ABCDEF") for _ in range(12))
            for code in codes}
    args = ("--out", str(out), "--edition", "2018-112", "--config", str(config), "--seats", "10")

    first = Enroll(*args)
    first.next_line("waiting for the reader")
    for n in range(1, 41):
        prompt = first.next_line("[")
        assert prompt.startswith(f"[{n:3d}/{len(codes)}] {codes[n - 1]}: tap ")
        pad.send_uid(uids[codes[n - 1]])
        assert first.next_line("      ") == f"      {uids[codes[n - 1]]} = {codes[n - 1]}"
    assert first.next_line("[").startswith(f"[ 41/{len(codes)}]")
    first.proc.send_signal(signal.SIGINT)
    assert first.proc.wait(20) == 130
    assert first.proc.stderr is not None
    assert "stopped: 40 of 133 enrolled" in first.proc.stderr.read()
    assert len(load_deck(out, "2018-112").tags) == 40  # the partial deck file is the state

    second = Enroll(*args)
    assert "40 done already" in second.next_line("enrolling")
    second.next_line("waiting for the reader")
    for n in range(41, len(codes) + 1):
        prompt = second.next_line("[")
        code = codes[n - 1]
        assert prompt.startswith(f"[{n:3d}/{len(codes)}] {code}: tap ")
        if n == 60:  # a tag tapped again is refused, and the same card asked for again
            pad.send_uid(uids[codes[0]])
            refused = second.next_line("      ")
            assert f"already enrolled as {codes[0]}" in refused
        pad.send_uid(uids[code])
        assert second.next_line("      ") == f"      {uids[code]} = {code}"
    assert "wrote 133 tags" in second.next_line("wrote")
    assert second.proc.wait(20) == 0
    pad.close()

    deck = load_deck(out)
    assert deck.edition == "2018-112"
    assert {uid: tag.code for uid, tag in deck.tags.items()} == {u: c for c, u in uids.items()}
    assert main(["deck", "check", str(out)]) == 0
    assert oct(out.stat().st_mode & 0o777) == oct(0o600)  # the UIDs tell the hands apart


def test_a_lost_card_can_be_left_out(tmp_path: Path) -> None:
    from table.commands.enroll import Enrolment

    out = tmp_path / "deck.toml"
    enrolment = Enrolment(out, "classic-108", 2, None, frozenset({"R5#2", "token:don"}))
    assert "R5#2" not in enrolment.todo and "token:don" not in enrolment.todo
    assert enrolment.total == 108 + 4 + 7 + 2 - 2
    import pytest

    from table.errors import TableError

    with pytest.raises(TableError, match="--skip R0#2: not a card or token"):
        Enrolment(out, "classic-108", 2, None, frozenset({"R0#2"}))


def test_an_enrolled_deck_is_private(tmp_path: Path) -> None:
    """A new deck file is its owner's only, or its set-group-ID folder's group's too; one
    rewritten keeps its group and mode, less what every user could do."""
    import os

    from table.commands.enroll import save

    entries = {"04A1B2C3": "R5#1"}
    save(tmp_path / "new.toml", entries, "classic-108")
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o2750)
    save(shared / "deck.toml", entries, "classic-108")
    old = tmp_path / "old.toml"
    old.write_text("", encoding="utf-8")
    old.chmod(0o664)
    save(old, entries, "classic-108")
    modes = {p.name: oct(p.stat().st_mode & 0o777) for p in (tmp_path / "new.toml",
                                                                shared / "deck.toml", old)}
    assert modes == {"new.toml": oct(0o600), "deck.toml": oct(0o640), "old.toml": oct(0o660)}
    assert not [p for p in tmp_path.rglob("*.part")]
    assert os.stat(shared / "deck.toml").st_gid == os.stat(shared).st_gid
