"""``uno-table check-table`` on a simulated table: three MFRC522 readers (CE0, CE1, a GPIO chip
select) on the real ``mfrc522`` package over simulated chips. A good table passes; a reader
that never answers, one that holds MISO, a counterfeit chip and two pads that see each other's
cards each give their own FAIL line, with what it means and what to change."""

from __future__ import annotations

import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from sim.hardware.mfrc522_model import Mfrc522Model, VirtualTag
from sim.hardware.rpi_fakes import SimBoard, simulated_pi
from sim.hardware.supply import CARD_MA, FIELD_MA, SaggingSupply
from table.commands import check_table as check_table_module
from table.commands.check_table import check_table
from table.inputs import ReaderStatus, Report
from table.readers.factory import ReaderSpec
from table.readers.iso14443 import REQA

SPECS = [
    ReaderSpec("pad", "mfrc522", device=0, reset_pin=25),
    ReaderSpec("shoe", "mfrc522", role="draw", device=1, reset_pin=25),
    ReaderSpec("aki", "mfrc522", role="seat", seat="Aki", extra={"cs_pin": 5}),
]


class HeldMiso(SimBoard):
    """A bus where one module pulls MISO low whenever it is not selected."""

    holder: Mfrc522Model | None = None

    def transfer(self, bus: int, device: int, data: list[int]) -> list[int]:
        with self.lock:
            before = self.holder.transfers if self.holder else 0
            reply = super().transfer(bus, device, data)
            if self.holder is not None and self.holder.transfers == before:
                return [0] * len(data)
            return reply


class SimTable:
    """The chips of :data:`SPECS` and hands that put a tag on a pad when asked (and a twin of
    it on every pad that sees that one)."""

    def __init__(self, board: SimBoard, specs: list[ReaderSpec] = SPECS) -> None:
        self.board, self.specs = board, specs
        aki_reset = specs[2].reset_pin
        self.chips = {"pad": board.add_chip(ce=0), "shoe": board.add_chip(ce=1),
                      "aki": board.add_chip(cs_pin=5, reset_pin=aki_reset or 25)}
        self.sees: dict[str, list[str]] = {}
        self.placed: list[tuple[Mfrc522Model, VirtualTag]] = []
        self.lines: list[str] = []

    def ask(self, action: str, pad: str) -> None:
        if action == "place":
            uid = f"04A1B2C3D4E5{list(self.chips).index(pad):02X}"
            for name in (pad, *self.sees.get(pad, [])):
                chip = self.chips[name]
                self.placed.append((chip, chip.place(VirtualTag.of(uid))))
        else:
            for chip, tag in self.placed:
                chip.remove(tag)
            self.placed.clear()

    def settle(self, pad: str) -> None:
        """Ten polls of every chip that is being polled."""
        for chip in self.chips.values():
            if chip.sent[REQA]:
                chip.wait_frames(10, REQA)

    def run(self, timeout: float = 10.0) -> int:
        return check_table(self.specs, self.ask, self.settle, timeout, self.lines.append)

    def fails(self) -> list[str]:
        return [line for line in self.lines if line.startswith("FAIL")]

    def after(self, first: str) -> list[str]:
        """The line starting with ``first`` and its means/fix lines."""
        start = next(i for i, line in enumerate(self.lines) if line.startswith(first))
        return self.lines[start].split("\n")


@pytest.fixture
def table() -> Iterator[SimTable]:
    board = HeldMiso()
    sim = SimTable(board)
    with simulated_pi(board):
        yield sim


def test_a_good_table_passes_every_check(table: SimTable) -> None:
    assert table.run() == 0
    assert table.lines == [
        "PASS  reader pad (mfrc522): live", "PASS  reader shoe (mfrc522): live",
        "PASS  reader aki (mfrc522): live",
        "PASS  reader pad: chip version 0x92 (MFRC522 version 2.0)",
        "PASS  reader shoe: chip version 0x92 (MFRC522 version 2.0)",
        "PASS  reader aki: chip version 0x92 (MFRC522 version 2.0)",
        "PASS  pad pad: reads 04A1B2C3D4E500", "PASS  pad pad: every other pad silent",
        "PASS  pad shoe: reads 04A1B2C3D4E501", "PASS  pad shoe: every other pad silent",
        "PASS  pad aki: reads 04A1B2C3D4E502", "PASS  pad aki: every other pad silent",
        "PASS  power: 3 readers polled together, none lost",
        "\nall PASS: enrol the deck next (uno-table enroll)",
    ]


def test_a_reader_that_never_answers_is_named_with_its_wires(table: SimTable) -> None:
    table.chips["shoe"].unplug()
    assert table.run(timeout=5.0) == 1
    assert [line.split("\n")[0] for line in table.fails()] == [
        "FAIL  reader shoe (mfrc522): not live after 5 s (connecting)",
        "FAIL  reader shoe: chip version 0x00"]
    assert table.after("FAIL  reader shoe (mfrc522)")[1:] == [
        "      means: nothing answers at this reader's address",
        "      fix:   check its SDA to CE1 (header pin 26), MISO to header pin 21, MOSI 19, "
        "SCK 23, RST to GPIO 25, 3.3 V (never 5 V) and GND"]
    assert "PASS  pad pad: reads 04A1B2C3D4E500" in table.lines  # the others are checked


def test_a_reader_holding_miso_is_one_bus_line_not_two_dead_readers(table: SimTable) -> None:
    board = table.board
    assert isinstance(board, HeldMiso)
    board.holder = table.chips["aki"]
    assert table.run(timeout=5.0) == 1
    fails = table.fails()
    assert "FAIL  SPI bus 0: pad, shoe read 0x00 while aki answers" in [
        f.split("\n")[0] for f in fails]
    held = table.after("FAIL  SPI bus 0")
    assert "holds MISO low while it is not selected" in held[1]
    assert "Schottky diode" in held[2] and "anode at the module, cathode to the bus" in held[2]
    assert not [f for f in fails if f.startswith("FAIL  reader pad: chip version")]
    assert "PASS  reader aki: chip version 0x92 (MFRC522 version 2.0)" in table.lines


def test_a_counterfeit_chip_is_named(table: SimTable) -> None:
    chip = table.chips["pad"]
    chip.version = 0x12
    chip.soft_reset()
    assert table.run() == 1
    assert [f.split("\n") for f in table.fails()] == [[
        "FAIL  reader pad: chip version 0x12: a counterfeit MFRC522",
        "      means: counterfeit chips read at a shorter range and hang",
        "      fix:   replace the module with one whose chip says 0x91 or 0x92 "
        "(docs/building.md: parts)"]]


def test_a_fudan_clone_passes_and_an_unknown_chip_is_not_called_silent(table: SimTable
                                                                      ) -> None:
    """0x88 (FM17522) is a working clone, not a dead module; 0x55 answers but is unknown."""
    table.chips["pad"].version = 0x88
    table.chips["pad"].soft_reset()
    table.chips["shoe"].version = 0x55
    table.chips["shoe"].soft_reset()
    assert table.run() == 1
    assert any(line.startswith("PASS  reader pad: chip version 0x88 (Fudan FM17522, a clone")
               for line in table.lines)
    unknown = table.after("FAIL  reader shoe: chip version 0x55")
    assert "does not know" in unknown[1] and "does not answer" not in unknown[1]


def test_a_bridge_readers_chip_version_is_the_boards_report() -> None:
    """check-table reads a bridge channel's version from the board's info message."""
    from types import SimpleNamespace

    from table.readers.bridge import BridgeReader

    reader = BridgeReader("aki", "/dev/null", 2, lambda report: None)
    assert reader.chip_version() is None  # not started: the board has not said
    board = SimpleNamespace(identified=True, chips=bytes([0x92, 0x88, 0x00, 0x91]))
    reader._bridge = SimpleNamespace(board=board)  # type: ignore[assignment]
    assert reader.chip_version() == 0x00
    reader.channel = 1
    assert reader.chip_version() == 0x88
    table = check_table_module.Table([ReaderSpec("aki", "bridge", port="/dev/null", channel=1)])
    table.readers = {"aki": reader}
    assert table.version("aki") == 0x88


def test_two_pads_that_see_each_others_cards_fail_as_cross_talk(table: SimTable) -> None:
    table.sees = {"pad": ["shoe"], "shoe": ["pad"]}
    assert table.run() == 1
    assert [f.split("\n")[0] for f in table.fails()] == [
        "FAIL  pads pad and shoe: shoe read the card on pad",
        "FAIL  pads shoe and pad: pad read the card on shoe"]
    assert "15 cm" in table.after("FAIL  pads pad and shoe")[2]
    assert "PASS  pad aki: every other pad silent" in table.lines


def test_check_table_needs_no_deck_and_a_missing_card_is_a_fail_line(tmp_path: Path) -> None:
    """The command on a configuration whose deck file does not exist yet: a serial pad that
    nobody taps gives a FAIL line after --timeout, no traceback, exit 1."""
    from daemon_harness import write_config

    from sim.hardware.ptys import PtyReader

    pad = PtyReader(tmp_path / "pad")
    config = write_config(tmp_path)
    text = config.read_text(encoding="utf-8")
    config.write_text(text.replace('file = "virtual"', 'file = "deck.toml"'), encoding="utf-8")
    assert 'file = "deck.toml"' in config.read_text(encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "table.commands.cli", "check-table",
                           "--config", str(config), "--timeout", "2"],
                          capture_output=True, text=True, timeout=60)
    pad.close()
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr
    assert "PASS  reader pad (serial-line): live" in done.stdout
    assert ">>> put any tagged card on pad pad, nothing on the others" in done.stdout
    assert "FAIL  pad pad: no card read in 2 s" in done.stdout


def test_a_supply_that_sags_with_every_field_on_is_the_power_fail(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The three modules on a rail that carries their three fields but not a card's load on
    top: with a card on a pad, the module at the rail's far end (Aki's, on a reset line of its
    own) browns out and drops off the bus while every field is on. The power check names it,
    with the regulator fix."""
    supply = SaggingSupply(capacity_ma=3 * FIELD_MA + CARD_MA / 2)
    board = SimBoard(on_transfer=supply.update)
    specs = [*SPECS[:2], replace(SPECS[2], reset_pin=6)]
    sim = SimTable(board, specs)
    supply.chips, supply.victim = list(sim.chips.values()), sim.chips["aki"]
    aki_lost = threading.Event()

    class Watched(check_table_module.Table):
        """The command's table, telling the test when Aki's reader reports it lost."""

        def __init__(self, specs: list[ReaderSpec]) -> None:
            super().__init__(specs)
            put = self.reports.put

            def watch(report: Report) -> None:
                put(report)
                if isinstance(report, ReaderStatus) and report.reader == "aki" \
                        and report.state == "lost":
                    aki_lost.set()

            self.reports.put = watch  # type: ignore[method-assign]

    def settle(pad: str) -> None:
        """Ten polls of each reader the sag leaves on the bus; with the first card down,
        until Aki's reader has told of its loss."""
        for name in ("pad", "shoe"):
            sim.chips[name].wait_frames(10, REQA)
        if pad == "pad":
            assert aki_lost.wait(10.0)

    monkeypatch.setattr(check_table_module, "Table", Watched)
    sim.settle = settle  # type: ignore[method-assign]
    with simulated_pi(board):
        assert sim.run(timeout=3.0) == 1
    assert "PASS  reader aki (mfrc522): live" in sim.lines  # it comes up: fields alone fit
    assert "PASS  pad pad: reads 04A1B2C3D4E500" in sim.lines
    assert sim.after("FAIL  power") == [
        "FAIL  power: aki lost while every reader's field was on",
        "      means: the 3.3 V supply sags when all the antennas transmit",
        "      fix:   feed the readers from a 3.3 V regulator of at least 100 mA per reader "
        "(not the Pi's or the Nano's 3.3 V pin), with short, thick supply wires"]
