"""The bridge's own radio, on the compiled firmware in simavr: a pile on a bridge pad, a chip
that browns out, fields switched in turn on close pads, and the gain built in."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_bridge_board import Table

from sim.hardware.avr_board import FIRMWARE_DIR, AvrBoard, build_board, build_firmware
from table.inputs import TagLifted

PILE = ["04A1B2C3", "04112233445566", "DEADBEEF"]
RF_CFG = 0x26  # MFRC522 RFCfgReg: the receiver gain in bits 6-4


@pytest.fixture(scope="module")
def built() -> None:
    build_firmware()
    build_firmware(turn_fields=0x0E)
    build_firmware(gain=48)
    build_board()


@pytest.fixture
def board(built: None, tmp_path: Path) -> Iterator[AvrBoard]:
    with AvrBoard(tmp_path / "usb-bridge") as b:
        yield b


@pytest.fixture
def table(board: AvrBoard) -> Iterator[Table]:
    t = Table(board.link)
    t.wait_status("live")
    yield t
    t.stop()


def test_each_card_played_on_the_pile_is_read_and_the_pile_stays_silent(
    board: AvrBoard, table: Table
) -> None:
    """The play pad under the pile: each card put on it is read once, the cards under it
    (halted, and never woken by a request) neither collide with it nor are read again."""
    for uid in PILE:
        board.place(0, uid)
        assert table.reads(1) == [("pad", uid)]
    table.settle()  # heartbeats repeat the top card only; nothing is read again


def test_the_card_on_top_leaving_is_a_lift_and_the_next_one_is_read(
    board: AvrBoard, table: Table
) -> None:
    for uid in PILE[:2]:
        board.place(0, uid)
        assert table.reads(1) == [("pad", uid)]
    board.remove(0, PILE[1])  # taken back: the card under it stays, silent
    table.until(lambda: any(isinstance(r, TagLifted) for r in list(table.reports.queue)))
    lifted = [r for r in list(table.reports.queue) if isinstance(r, TagLifted)]
    assert [(r.reader, r.uid) for r in lifted] == [("pad", PILE[1])]
    board.place(0, PILE[2])
    assert table.reads(1) == [("pad", PILE[2])]


def test_a_chip_that_browns_out_is_set_up_again(board: AvrBoard, table: Table) -> None:
    board.brownout(1)  # Aki's chip: settings lost, antenna off
    board.place(1, PILE[0])
    assert table.reads(1) == [("Aki", PILE[0])]


def test_close_pads_take_turns_with_their_fields(built: None, tmp_path: Path) -> None:
    """Built with TURN_FIELDS=0x0E, the three seats' fields are never on together (the play
    pad's stays on, for its pile); built without, they overlap at every poll."""
    for turn, overlapping in ((0x0E, False), (0x00, True)):
        with AvrBoard(tmp_path / f"usb-bridge-{turn}", turn_fields=turn) as board:
            table = Table(board.link)
            try:
                table.wait_status("live")
                board.place(2, PILE[0])  # a card tapped on Ken's pad is still read
                assert table.reads(1) == [("Ken", PILE[0])]
                table.settle(300)
                seats = board.overlaps()
            finally:
                table.stop()
        between_seats = sum(seats[i][j] for i in (1, 2, 3) for j in (1, 2, 3) if i != j)
        assert (between_seats > 0) == overlapping, seats


def test_the_gain_built_in_reaches_every_chip_and_comes_back_after_a_brownout(
    built: None, tmp_path: Path
) -> None:
    """Built with GAIN=48, every chip's RFCfgReg holds RxGain 7 (48 dB), set again when a chip
    browns out; the default build leaves the chips at 33 dB (0x48)."""
    with AvrBoard(tmp_path / "usb-bridge-gain", gain=48) as board:
        table = Table(board.link)
        try:
            table.wait_status("live")
            assert [board.register(r, RF_CFG) for r in range(4)] == [0x78] * 4
            board.brownout(2)  # Ken's chip back to its reset values (0x48: 33 dB)
            board.place(2, PILE[0])  # it is set up again before it reads
            assert table.reads(1) == [("Ken", PILE[0])]
            assert board.register(2, RF_CFG) == 0x78
        finally:
            table.stop()


def test_the_default_build_leaves_the_gain_at_33_db(board: AvrBoard, table: Table) -> None:
    assert [board.register(r, RF_CFG) for r in range(4)] == [0x48] * 4


@pytest.mark.parametrize(
    ("setting", "message"),
    [("GAIN=40", "GAIN must be 18, 23, 33, 38, 43 or 48"), ("MISSES=0", "MISSES must be 1 to 20")],
)
def test_a_bad_build_setting_stops_make_with_one_line(
    tmp_path: Path, setting: str, message: str
) -> None:
    out = subprocess.run(
        ["make", "--no-print-directory", "-s", "-C", str(FIRMWARE_DIR),
         f"BUILD={tmp_path / 'build'}", setting],
        capture_output=True, text=True, timeout=120,
    )
    assert out.returncode != 0
    errors = [line for line in out.stderr.splitlines() if "#error" in line]
    assert errors and all(message in line for line in errors)
