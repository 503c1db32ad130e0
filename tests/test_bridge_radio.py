"""The bridge's own radio, on the compiled firmware in simavr: a pile on a bridge pad, a chip
that browns out, and fields switched in turn on close pads."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from test_bridge_board import Table

from sim.hardware.avr_board import AvrBoard, build_board, build_firmware
from table.inputs import TagLifted

PILE = ["04A1B2C3", "04112233445566", "DEADBEEF"]


@pytest.fixture(scope="module")
def built() -> None:
    build_firmware()
    build_firmware(turn_fields=0x0E)
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
