"""A card taken off a pad and tapped again is a new tap, from the reader to the journal; a card
resting on a pad is still one read."""

from __future__ import annotations

import queue
from pathlib import Path

from pad_table import pad_referee, uid

from sim.hardware.serial_pty import SerialPty
from table.inputs import JournaledInput, Press, ReaderRole, ReaderStatus, Report, TagLifted, TagRead
from table.journal.records import MatchSetup, feed_referee, rebuild
from table.journal.store import Journal
from table.readers.factory import SimReader
from table.readers.serial_reader import SerialReader
from table.referee.referee import Referee
from table.referee.registry import virtual_deck
from table.rules import make_options


def refused_out_of_turn() -> tuple[Referee, str]:
    """Ken taps his seat token and his R7 while Aki is to play (refused); Aki then draws and
    passes by buttons, so no other tag comes between Ken's two taps of the same card."""
    ref = pad_referee("B1 B2 B3", "R7 G2 G3")
    r7 = uid(ref, "R7#1")
    ref.handle(TagRead("pad", uid(ref, "token:seat:2")))
    assert ref.handle(TagRead("pad", r7)).reason == "not-your-turn"
    assert ref.handle(Press(0, "draw")).verdict == "accepted"
    assert ref.handle(Press(0, "pass")).verdict == "accepted"
    return ref, r7


def test_a_card_left_on_the_pad_is_one_read() -> None:
    ref, r7 = refused_out_of_turn()
    out = ref.handle(TagRead("pad", r7))  # the same read again, the card never lifted
    assert (out.verdict, out.reason) == ("ignored", "still-on-pad")
    assert ref.state.current_player == 1


def test_a_refused_card_lifted_and_tapped_again_is_played() -> None:
    ref, r7 = refused_out_of_turn()
    assert ref.handle(TagLifted("pad", r7)).announcements == ()
    out = ref.handle(TagRead("pad", r7))
    assert out.verdict == "accepted"
    assert ref.state.discard[-1].code == "R7"


def test_the_sim_pad_reports_a_lift() -> None:
    got: list[Report] = []
    pad = SimReader("pad", got.append)
    pad.tap("04A1B2C3")
    pad.tap("04A1B2C3")
    assert [type(r).__name__ for r in got] == ["TagRead", "TagLifted", "TagRead", "TagLifted"]


def test_a_serial_reader_reports_the_same_card_put_back(tmp_path: Path) -> None:
    """A plain UID module prints a line per placement: the same UID again after the hold time
    is the card put back, so the reader reports the lift it could not see before the read."""
    reports: queue.Queue[Report] = queue.Queue()
    pty = SerialPty(tmp_path / "usb-reader")
    ticks = iter(float(i) for i in range(1000))
    reader = SerialReader("pad", str(pty.link), "serial-line", reports.put, backoff=(0.05,),
                          hold=0.5, clock=lambda: next(ticks))
    reader.start()
    try:
        while not (isinstance(item := reports.get(timeout=10), ReaderStatus)
                   and item.state == "live"):
            pass
        pty.send(b"04A1B2C3\n04A1B2C3\n")
        got = [reports.get(timeout=10) for _ in range(3)]
    finally:
        reader.stop()
        pty.close()
    assert [type(r).__name__ for r in got] == ["TagRead", "TagLifted", "TagRead"]
    assert {r.uid for r in got if not isinstance(r, ReaderStatus)} == {"04A1B2C3"}


def test_lifts_are_journaled_and_replayed(tmp_path: Path) -> None:
    """Without the lift in the journal, a resume would take the second tap for the card still
    resting on the pad, and lose an accepted play."""
    setup = MatchSetup(("Aki", "Ken"), make_options(), 1, (ReaderRole("pad", "play"),),
                       virtual_deck())
    ref = setup.referee()
    r7 = uid(ref, "R7#1")
    # R5 turned up; Ken taps R7 out of turn; Aki draws and passes; Ken lifts R7 and taps it.
    inputs: list[JournaledInput] = [
        TagRead("pad", uid(ref, "R5#1")), TagRead("pad", uid(ref, "token:seat:2")),
        TagRead("pad", r7), Press(0, "draw"), Press(0, "pass"),
        TagLifted("pad", r7), TagRead("pad", r7),
    ]
    journal = Journal(tmp_path / "journal.sqlite3")
    journal.begin(setup)
    verdicts = []
    for item in inputs:
        out = feed_referee(ref, item)
        verdicts.append((out.verdict, out.reason))
        assert journal.append(item, out.journal_word)
    journal.close()
    assert verdicts[2] == ("rejected", "not-your-turn")
    assert verdicts[-1][0] == "accepted"
    record = Journal(tmp_path / "journal.sqlite3").last_match()
    assert record is not None
    assert record.inputs == inputs
    resumed = rebuild(setup, record.inputs)
    assert resumed.state == ref.state
    assert resumed.state.discard[-1].code == "R7"
