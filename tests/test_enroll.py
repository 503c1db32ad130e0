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

import pytest
from daemon_harness import RUNNING, write_config

from sim.hardware.ptys import PtyReader
from table.commands.cli import main
from table.commands.enroll import wanted
from table.referee.announcements import Announcement
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
            pad.send_uid(uids[codes[1]])
            refused = second.next_line("      ")
            assert f"already enrolled as {codes[1]}" in refused
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


def test_the_sorting_sheet_is_the_order_asked(capsys: pytest.CaptureFixture[str]) -> None:
    """The undo token first, then R0, R1#1, R1#2 ... W+4#4, then the other tokens: 123 tags for
    classic-108 with four seats, 127 for 2018-112."""
    for edition, seats, count, last_card in (("classic-108", 4, 123, "W+4#4"),
                                             ("2018-112", 4, 127, "WC#3")):
        assert main(["enroll", "--sheet", "--edition", edition, "--seats", str(seats)]) == 0
        lines = capsys.readouterr().out.splitlines()
        assert lines[0].startswith(f"uno-table enroll: {count} tags of {edition}")
        rows = [line.split() for line in lines if line[:4].strip().isdigit()]
        assert [int(r[0]) for r in rows] == list(range(1, count + 1))
        codes = [r[3] for r in rows]
        assert codes == wanted(edition, seats)
        assert codes[:5] == ["token:undo", "R0#1", "R1#1", "R1#2", "R2#1"]
        cards = [c for c in codes if not c.startswith("token:")]
        assert cards[-1] == last_card and codes.index(last_card) == len(cards)
        assert codes[len(cards) + 1:] == [
            "token:color:red", "token:color:yellow", "token:color:green", "token:color:blue",
            "token:draw", "token:pass", "token:uno", "token:challenge", "token:don",
            "token:next-round", "token:seat:1", "token:seat:2", "token:seat:3", "token:seat:4"]
        assert any("R5#1" in line and "red five (copy 1 of 2)" in line for line in lines)
    assert main(["enroll", "--sheet", "--seats", "11"]) == 2


class Taps:
    """Taps fed to an enrolment in this process, as its reader would report them."""

    def __init__(self) -> None:
        from table.inputs import ReaderStatus

        self.queue: queue.SimpleQueue[object] = queue.SimpleQueue()
        self.queue.put(ReaderStatus("pad", "live", 0.0))
        self.said: list[str] = []

    def tap(self, *uids: str) -> None:
        from table.inputs import TagLifted, TagRead

        for uid in uids:
            self.queue.put(TagRead("pad", uid, 0.0))
            self.queue.put(TagLifted("pad", uid, 0.0))

    def say(self, announcement: Announcement) -> None:
        self.said.append(announcement.key)


def test_a_wrong_card_is_taken_back_with_one_tap_of_undo(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from table.commands.enroll import Enrolment, Stopped

    out = tmp_path / "deck.toml"
    taps = Taps()
    enrolment = Enrolment(out, "classic-108", 4, taps.say)
    undo, red0, green7, red1 = ("04000000000001", "04000000000002", "04000000C0FFEE",
                                "04000000000003")
    # R1#1 asked for, a green seven tapped by mistake and enrolled; R1#2 is asked next. One tap
    # of the undo token takes the green seven back and R1#1 is asked again.
    taps.tap(undo, red0, green7, undo, red1)
    taps.queue.put(None)
    with pytest.raises(Stopped):
        enrolment.run(taps.queue, "en")  # type: ignore[arg-type]
    entries = {uid: tag.code for uid, tag in load_deck(out, "classic-108").tags.items()}
    assert entries == {undo: "token:undo", red0: "R0#1", red1: "R1#1"}
    shown = capsys.readouterr().out
    assert f"      taken back: {green7} is no longer R1#1" in shown
    asked = [line.split("] ")[1].split(": tap")[0] for line in shown.splitlines()
             if line.startswith("[")]
    assert asked == ["token:undo", "R0#1", "R1#1", "R1#2", "R1#1", "R1#2"]
    assert taps.said.count("enroll-undone") == 1
    assert enrolment.todo[0] == "R1#2"


def test_undo_takes_back_the_last_tag_even_after_a_resume(tmp_path: Path) -> None:
    from table.commands.enroll import Enrolment, save

    out = tmp_path / "deck.toml"
    save(out, {"04000000000001": "token:undo", "04000000000002": "R0#1",
               "04000000000003": "R1#1"}, "classic-108")
    enrolment = Enrolment(out, "classic-108", 4, lambda a: None)
    assert enrolment.todo[0] == "R1#2"
    enrolment.undo()
    assert enrolment.todo[:2] == ["R1#1", "R1#2"]
    assert set(load_deck(out, "classic-108").tags) == {"04000000000001", "04000000000002"}


def test_the_verify_pass_names_each_tag_and_ends_with_those_never_tapped(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from table.commands.enroll import Verify, save

    out = tmp_path / "deck.toml"
    entries = {f"040000000000{n:02X}": code for n, code in enumerate(
        ["token:undo", "R0#1", "R1#1", "R1#2", "W+4#4", "token:color:red", "token:next-round"])}
    uid = {code: u for u, code in entries.items()}
    save(out, entries, "classic-108")
    taps = Taps()
    verify = Verify(load_deck(out, "classic-108"), taps.say)
    taps.tap(uid["R1#2"], "04DEADBEEF0000", uid["token:color:red"], uid["R1#2"], uid["W+4#4"],
             uid["token:next-round"], uid["R0#1"])
    never = verify.run(taps.queue, "en")  # type: ignore[arg-type]
    assert never == ["token:undo", "R0#1", "R1#1"]  # in the enrolment's order
    shown = capsys.readouterr().out.splitlines()
    assert [line.strip() for line in shown if line.startswith("      ")] == [
        "R1#2: red one (copy 2 of 2)", "04DEADBEEF0000: not in this deck",
        "token:color:red: the red colour token", "R1#2: red one (copy 2 of 2)",
        "W+4#4: Wild Draw Four (copy 4 of 4)"]
    assert taps.said == ["enroll-named", "enroll-unknown", "enroll-named-token", "enroll-named",
                         "enroll-named"]


def test_enroll_verify_on_a_real_reader_exits_1_naming_the_tags_never_tapped(
        tmp_path: Path) -> None:
    from table.commands.enroll import save

    pad = PtyReader(tmp_path / "pad")
    config = write_config(tmp_path)
    out = tmp_path / "checked.toml"
    save(out, {"04000000000001": "token:undo", "04000000000002": "R0#1",
               "04000000000003": "R1#1", "04000000000004": "token:next-round"}, "classic-108")
    run = Enroll("--verify", "--out", str(out), "--config", str(config))
    run.next_line("waiting for the reader")
    run.next_line("tap any card")
    pad.send_uid("04000000000003")
    assert run.next_line("      ") == "      R1#1: red one (copy 1 of 2)"
    pad.send_uid("04000000000004")
    assert run.next_line("2 tags") == "2 tags never tapped: token:undo R0#1"
    assert run.proc.wait(20) == 1
    pad.close()
