"""The electrical rules: each has a circuit that breaks it, and the circuits the table is built
from break none. A configuration the rules refuse is refused in one line naming the pin, what
holds it and the fix (exit 2)."""

from __future__ import annotations

import dataclasses
import tomllib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from table.circuit import Circuit, Net, bridge_board, check
from table.circuit import parts as P
from table.circuit.pi_wiring import Control, PiSetup, SpiReader, build
from table.commands.cli import main

ROOT = Path(__file__).resolve().parent.parent


def rules_of(c: Circuit) -> set[str]:
    return {f.rule for f in check(c)}


def test_the_bridge_board_and_a_plain_pad_break_no_rule() -> None:
    assert check(bridge_board.build()) == []
    assert check(build(PiSetup(readers=(SpiReader("pad", 0, 0, 25),)))) == []


def _bridge_with(*, drop: str = "", nets: tuple[Net, ...] = ()) -> Circuit:
    c = bridge_board.build()
    kept = tuple(n for n in c.nets if not n.name.startswith(drop)) if drop else c.nets
    return dataclasses.replace(c, nets=kept + nets)


def test_five_volt_output_into_a_reader_is_refused() -> None:
    """The Nano's SCK wired straight to a reader, as the old docs had it."""
    c = _bridge_with(drop="SCK0", nets=(Net("SCK0", (("M1", "D13"), ("R0", "SCK"))),))
    found = [f for f in check(c) if f.rule == "5V-into-3V3"]
    assert found and "M1 D13 drives 5 V into R0 SCK" in found[0].what
    assert "74LVC245" in found[0].fix


def test_reader_miso_into_the_nano_is_refused() -> None:
    """The reader's MISO (2.9 V high at worst) read by the 5 V Nano (3.0 V needed)."""
    c = _bridge_with(drop="MISO0", nets=(Net("MISO0", (("R0", "MISO"), ("M1", "D12"))),))
    assert "3V3-into-5V" in rules_of(c)


def test_two_outputs_on_a_net_are_refused() -> None:
    c = _bridge_with(nets=(Net("short", (("U1", "B1"), ("U1", "B2"))),))
    assert "two-drivers" in rules_of(c)


def test_shared_miso_without_a_tristate_path_is_refused_and_a_buffer_or_diode_fixes_it(
) -> None:
    readers = (SpiReader("readers[0] (pad)", 0, 0, 25), SpiReader("readers[1] (b)", 0, 1, 24))
    found = check(build(PiSetup(readers=readers)))
    assert [f.rule for f in found] == ["shared-miso"]
    assert "anode at the module, cathode to the bus" in found[0].fix
    assert check(build(PiSetup(readers=readers, miso="buffer"))) == []
    assert check(build(PiSetup(readers=readers, miso="diode"))) == []


def test_a_rail_asked_for_more_than_it_gives_is_refused() -> None:
    """Four readers on the Nano's own 3.3 V pin (50 mA), and five on a Zero 2 W's rail."""
    c = bridge_board.build()
    nets = tuple(dataclasses.replace(n, ends=(("M1", "3V3"), *n.ends[1:])) if n.name == "3V3"
                 else n for n in c.nets)
    found = [f for f in check(dataclasses.replace(c, nets=nets)) if f.rule == "rail"]
    assert found and "asked of M1 3V3" in found[0].what
    many = tuple(SpiReader(f"r{i}", 0, 0, 25, cs_pin=pin) for i, pin in enumerate((5, 6, 12)))
    assert "rail" in rules_of(build(PiSetup(board="zero2w", miso="buffer", readers=many)))
    assert "rail" not in rules_of(build(PiSetup(board="zero2w", miso="buffer",
                                                readers=many[:2])))


def test_a_buzzer_straight_on_a_pin_is_refused_but_not_through_a_transistor() -> None:
    c = build(PiSetup(controls=(Control("controls.buzzer", "buzzer", 26),)))
    assert check(c) == []
    direct = P.buzzer_direct("BZ1")
    parts = (*(p for p in c.parts if not p.ref.startswith("Q")), direct)
    nets = tuple(Net("controls.buzzer", (("J1", "GPIO26"), ("BZ1", "+")), "controls.buzzer")
                 if n.name == "controls.buzzer" else
                 Net("GND", (("J1", "GND"), ("BZ1", "-"))) if n.name == "GND" else n
                 for n in c.nets if n.name != "5V")
    found = check(dataclasses.replace(c, parts=parts, nets=nets))
    assert [f.rule for f in found] == ["pin-current"]
    assert "30 mA asked of J1 GPIO26" in found[0].what


def test_a_gpio_used_twice_or_held_by_an_overlay_is_refused() -> None:
    twice = build(PiSetup(controls=(Control("controls.seats.A.uno", "button", 5),
                                    Control("controls.seats.B.uno", "button", 5))))
    assert rules_of(twice) == {"pin-twice"}
    for audio, uart, pin in (("i2s", False, 20), ("jack", True, 14)):
        c = build(PiSetup(audio=audio, uart=uart,
                          controls=(Control("controls.seats.A.uno", "button", pin),)))
        assert rules_of(c) == {"pin-held"}
    spi1 = build(PiSetup(readers=(SpiReader("r", 1, 0, 25),),
                         controls=(Control("controls.seats.A.uno", "button", 19),)))
    assert "pin-held" in rules_of(spi1)
    spi0 = build(PiSetup(readers=(SpiReader("r", 0, 0, 25),),
                         controls=(Control("controls.seats.A.uno", "button", 7),)))
    assert rules_of(spi0) == {"pin-held"}


def test_a_button_with_no_pull_is_refused() -> None:
    c = build(PiSetup(controls=(Control("controls.seats.A.uno", "button", 5),)))
    pi = c.part("J1")
    pins = tuple(dataclasses.replace(p, pull=None) if p.name == "GPIO5" else p for p in pi.pins)
    bare = dataclasses.replace(c, parts=(dataclasses.replace(pi, pins=pins), *c.parts[1:]))
    assert rules_of(bare) == {"button-pull"}
    assert check(c) == []


def _four_seats(tmp_path: Path, edit: str = "") -> Path:
    text = (ROOT / "examples" / "bridge-four-seats.toml").read_text(encoding="utf-8")
    data = tomllib.loads(text)
    path = tmp_path / "table.toml"
    device = tmp_path / "device"
    if not device.is_symlink():
        device.symlink_to("/dev/null")  # the bridge's port: a character device
    text = text.replace(data["readers"][1]["port"], str(device))
    text = text.replace("/var/lib/uno-table/journal.sqlite3", str(tmp_path / "j.sqlite3"))
    text = text.replace('file = "deck.toml"', 'file = "virtual"')
    for old, new in (line.split("->") for line in edit.splitlines() if line):
        assert old in text
        text = text.replace(old, new)
    path.write_text(text, encoding="utf-8")
    return path


def test_the_configuration_check_refuses_a_button_on_an_i2s_pin(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """BCM 20 with I2S audio: one line naming the pin and what holds it, exit 2."""
    from table.runtime.config import ConfigError, load_config

    good = _four_seats(tmp_path)
    assert load_config(good).board.audio == "jack"
    bad = _four_seats(tmp_path, 'audio = "jack"->audio = "i2s"\n')
    with pytest.raises(ConfigError) as caught:
        load_config(bad)
    line = str(caught.value)
    assert "\n" not in line
    assert "controls.seats.Mio.uno: BCM 18 is held by I2S audio" in line
    assert "fix: move it to a free pin: BCM 24, 26, 27" in line
    assert main(["wiring", str(bad)]) == 2
    out = capsys.readouterr().out
    assert "controls.seats.Mio.pass: BCM 20 is held by I2S audio" in out
    assert "J1  Raspberry Pi 4" in out and "SW1" in out


def test_wiring_prints_every_pin_and_writes_the_schematic(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    svg = tmp_path / "table.svg"
    assert main(["wiring", str(ROOT / "examples" / "bridge-four-seats.toml"),
                 "--svg", str(svg)]) == 0
    out = capsys.readouterr().out
    assert "The electrical rules find nothing wrong." in out
    assert "controls.seats.Yui.pass    -> J1 GPIO23" in out
    assert "free GPIO: BCM 24, BCM 26, BCM 27" in out
    drawn = svg.read_text(encoding="utf-8")
    assert drawn.startswith("<svg") and f"schematic written to {svg}" in out
    for words in ("J1 Raspberry Pi 4", "GPIO23 (pin 16)", "controls.seats.Yui.pass", "U1 MFRC522"):
        assert f">{words}" in drawn, words
    assert main(["wiring", "--bridge"]) == 0
    assert "U3  74AHCT125 (5 V)" in capsys.readouterr().out
    assert main(["wiring", str(ROOT / "examples" / "sim.toml"), "--svg", ""]) == 2
    assert "--svg '': an empty path" in capsys.readouterr().err
    assert main(["wiring", "--bridge", "--svg", str(tmp_path / "no" / "such.svg")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cannot write it" in err
    assert main(["wiring", str(ROOT / "examples" / "sim.toml")]) == 0
    assert "Nothing is wired to it: every reader is on USB." in capsys.readouterr().out
    assert main(["wiring", str(tmp_path / "missing.toml")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "missing.toml" in err


@settings(max_examples=60, deadline=None)
@given(pins=st.lists(st.integers(0, 27), min_size=1, max_size=6),
       audio=st.sampled_from(["jack", "hdmi", "usb", "i2s", "spdif", 3]),
       uart=st.sampled_from([True, False, "yes"]),
       miso=st.sampled_from(["direct", "buffer", "diode", ""]),
       model=st.sampled_from(["pi3", "pi4", "pi5", "zero2w", "pi6"]))
def test_any_board_and_pins_are_accepted_or_refused_in_one_line(
        pins: list[int], audio: object, uart: object, miso: str, model: str) -> None:
    """Whatever the [board] and the pins, the check gives a configuration or one line naming
    a key: never a traceback."""
    from table.runtime.config import ConfigError, parse_config

    names = ("uno", "draw", "pass", "challenge", "don", "led")
    data = {"table": {"players": ["A", "B"]}, "deck": {"file": "virtual"},
            "readers": [{"name": "pad", "kind": "sim", "role": "play"},
                        {"name": "p2", "kind": "mfrc522", "role": "seat", "seat": "B",
                         "device": 1}],
            "board": {"model": model, "audio": audio, "uart": uart, "miso": miso},
            "controls": {"seats": {"A": dict(zip(names, pins, strict=False))}}}
    try:
        config = parse_config(data, ROOT / "table.toml")
    except ConfigError as exc:
        line = str(exc)
        assert "\n" not in line and line.startswith(str(ROOT / "table.toml") + ": ")
    else:
        assert config.board.model == model
