"""``uno-table check-table`` on bridge readers, end to end: the compiled firmware in simavr
reads each chip's VersionReg at boot and reports it in its info message; check-table prints
what each version means. One chip is a Fudan FM17522 clone (0x88, usable), one a counterfeit
(0x12)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from test_bridge_board import BOUND

from sim.hardware.avr_board import AvrBoard, build_board, build_firmware
from table.commands.check_table import check_table
from table.readers.bridge import shared_port
from table.readers.factory import ReaderSpec

NAMES = ["pad", "Aki", "Ken", "shoe"]


@pytest.fixture(scope="module")
def built() -> None:
    build_firmware()
    build_board()


def test_check_table_reports_each_bridge_chip_by_its_version(built: None, tmp_path: Path
                                                             ) -> None:
    with AvrBoard(tmp_path / "usb-bridge") as board:
        board.version(1, 0x88)  # Aki's module: an FM17522 clone
        board.version(2, 0x12)  # Ken's: a counterfeit
        board.reset()  # the firmware reads the versions as it starts
        link = str(board.link)
        specs = [ReaderSpec(name, "bridge", port=link, channel=ch)
                 for ch, name in enumerate(NAMES)]

        def ask(action: str, pad: str) -> None:
            channel = NAMES.index(pad)
            if action == "place":
                board.place(channel, f"04A1B2C3D4E5{channel:02X}")
            else:
                board.remove(channel)

        def settle(pad: str) -> None:
            """Until the board's clock has moved 300 ms on: six polls of every reader."""
            state = shared_port(link).board
            start = state.uptime_ms or 0
            deadline = time.monotonic() + BOUND
            while (state.uptime_ms or 0) < start + 300:
                assert time.monotonic() < deadline, "the board's clock stopped"
                time.sleep(0.02)

        lines: list[str] = []
        assert check_table(specs, ask, settle, BOUND, lines.append) == 1
    text = "\n".join(lines)
    assert "PASS  reader pad: chip version 0x92 (MFRC522 version 2.0)" in lines
    assert ("PASS  reader Aki: chip version 0x88 (Fudan FM17522, a clone that answers as an "
            "MFRC522 does: usable, its range not measured here)") in lines
    assert ("FAIL  reader Ken: chip version 0x12: a counterfeit MFRC522\n"
            "      means: counterfeit chips read at a shorter range and hang\n") in text
    assert "PASS  pad Aki: reads 04A1B2C3D4E501" in lines  # the clone reads tags
    assert [line.split("\n")[0] for line in lines if line.startswith("FAIL")] == [
        "FAIL  reader Ken: chip version 0x12: a counterfeit MFRC522"]
