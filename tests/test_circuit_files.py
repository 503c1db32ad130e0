"""Every file made from the circuit model is in step with it: the firmware's pins.h, the
schematics in docs/circuits/, the wiring tables and cable harness in docs/hardware.md, and the
example configurations' pins (their hardware described in table/circuit/examples.py, the
pins placed there and by table/circuit/plan.py)."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from table.circuit import examples
from table.commands import circuit_files
from table.runtime.config import load_for_wiring

ROOT = Path(__file__).resolve().parent.parent


def test_every_made_file_is_in_step_with_the_model() -> None:
    for path, text in circuit_files.expected(ROOT).items():
        assert path.read_text(encoding="utf-8") == text, (
            f"{path.relative_to(ROOT)} is out of step with table/circuit/: run "
            "python -m table.commands.circuit_files")


def test_a_wiring_table_edited_by_hand_is_caught(tmp_path: Path) -> None:
    for rel in ("docs/hardware.md", *(e.path for e in examples.EXAMPLES.values())):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        text = (ROOT / rel).read_text(encoding="utf-8")
        if rel.endswith(".md"):
            assert "| SPI0 SCK | J1 GPIO11 (pin 23)," in text
            text = text.replace("| SPI0 SCK | J1 GPIO11 (pin 23),", "| SPI0 SCK | J1 GPIO12,", 1)
        (tmp_path / rel).write_text(text, encoding="utf-8")
    made = circuit_files.expected(tmp_path)
    doc = tmp_path / "docs" / "hardware.md"
    assert made[doc] != doc.read_text(encoding="utf-8")


def test_every_example_takes_its_pins_from_the_description() -> None:
    """Each example configuration's reset lines, buttons, LEDs and buzzer are the ones
    table/circuit/examples.py places (one reset line a reader, controls by the plan)."""
    for name, example in examples.EXAMPLES.items():
        config = load_for_wiring(ROOT / example.path)
        spi = [x for x in config.readers if x.kind == "mfrc522"]
        pins = {f"readers[{i}].reset_pin": r.reset_pin for i, r in enumerate(spi)}
        pins.update({f"readers[{i}].cs_pin": r.extra["cs_pin"] for i, r in enumerate(spi)
                     if "cs_pin" in r.extra})
        if config.buzzer is not None:
            pins["controls.buzzer"] = config.buzzer
        for seat in config.controls:
            who = config.players[seat.seat]
            pins.update({f"controls.seats.{who}.{b}": p for b, p in seat.buttons.items()})
            if seat.led is not None:
                pins[f"controls.seats.{who}.led"] = seat.led
        assert pins == examples.pins(example), name
        assert config.board.model == example.board and config.board.audio == example.audio


@pytest.mark.parametrize(("name", "line", "edited"), [
    ("spi-pad", "reset_pin = 25 ", "reset_pin = 24 "),
    ("spi-pad", "device = 0 ", "device = 1 "),
    ("bridge-four-seats", "led = 13", "led = 26"),
    ("example-table", "reset_pin = 24 ", "reset_pin = 25 "),
])
def test_an_example_pin_edited_by_hand_is_caught(tmp_path: Path, name: str, line: str,
                                                 edited: str) -> None:
    rel = examples.EXAMPLES[name].path
    text = (ROOT / rel).read_text(encoding="utf-8")
    assert line in text
    for other in examples.EXAMPLES.values():
        (tmp_path / other.path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / other.path).write_text((ROOT / other.path).read_text(encoding="utf-8"),
                                           encoding="utf-8")
    (tmp_path / rel).write_text(text.replace(line, edited, 1), encoding="utf-8")
    khz = tomllib.loads(text)["readers"][0]["speed_hz"] // 1000  # the simulation's, tested below
    made = circuit_files.example_files(tmp_path, khz)
    assert made[tmp_path / rel] == text  # written back as the description has it


def test_the_firmware_takes_its_pins_from_the_generated_header() -> None:
    source = (ROOT / "firmware_bridge" / "firmware" / "mfrc522.c").read_text(encoding="utf-8")
    assert "PB2" not in source and "PD7" not in source
    assert '#include "pins.h"' in (ROOT / "firmware_bridge" / "firmware" / "board.h").read_text(
        encoding="utf-8")
    board = (ROOT / "sim" / "hardware" / "avr_board.c").read_text(encoding="utf-8")
    assert '#include "pins.h"' in board and "'B', 2" not in board  # the simulated board's too


def test_the_chosen_resistors_and_clocks_are_the_simulations() -> None:
    """ngspice's choice is what the model, the firmware's default and the examples use; and
    without the resistors the lines ring (the simulation can tell them apart)."""
    import tomllib

    from table.circuit import bridge_board, pi_wiring, spice

    study = spice.study()
    assert study.choices["bridge-sck"].edge.ohms == bridge_board.SERIES_OHMS
    assert study.choices["pi-sck"].edge.ohms == pi_wiring.SERIES_OHMS
    assert study.choices["bridge-sck"].edges[0].overshoot > 1.0  # no resistor: it rings
    makefile = (ROOT / "firmware_bridge" / "firmware" / "Makefile").read_text(encoding="utf-8")
    assert f"SPI_KHZ ?= {study.bridge_khz}\n" in makefile
    board_h = (ROOT / "firmware_bridge" / "firmware" / "board.h").read_text(encoding="utf-8")
    assert f"#define SPI_KHZ {study.bridge_khz}\n" in board_h
    for name in ("spi-pad.toml", "bridge-four-seats.toml"):
        data = tomllib.loads((ROOT / "examples" / name).read_text(encoding="utf-8"))
        pads = [r for r in data["readers"] if r["kind"] == "mfrc522"]
        assert pads and all(r["speed_hz"] == study.pi_khz * 1000 for r in pads)


def test_the_firmware_size_the_docs_give_is_the_builds(tmp_path: Path) -> None:
    """The default build's size line, as make prints it, is the one the docs quote."""
    import subprocess

    out = subprocess.run(["make", "-s", "-C", str(ROOT / "firmware_bridge" / "firmware"),
                          f"BUILD={tmp_path}"], capture_output=True, text=True, check=True,
                         timeout=300).stdout
    line = next(x for x in out.splitlines() if x.startswith("flash "))
    for doc in ("docs/hardware.md", "docs/building.md", "docs/performance.md"):
        assert f"`{line}`" in (ROOT / doc).read_text(encoding="utf-8"), doc
    flash = line.split()[1]
    assert f"avrdude: {flash} bytes of flash written" in (ROOT / "docs/building.md").read_text(
        encoding="utf-8")


def test_the_readme_writes_the_config_before_the_steps_that_need_it() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    steps = text[text.index("## From a box of cards"):text.index("## Commands")]
    order = [steps.index(f"**{name}.**") for name in (
        "Install on the Pi", "Write the config", "Check the wiring", "Enrol the deck", "Doctor",
        "Run")]
    assert order == sorted(order)
    assert text.split("```")[1] == "\n./uno demo\n./uno test\n"
