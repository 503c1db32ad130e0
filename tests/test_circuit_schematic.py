"""The schematics (table/circuit/schematic.py, drawn with schemdraw) show what a reader of them
needs: every part wired to anything, named, and every pin a net joins named with that net's
label beside it; the same circuit gives the same bytes; without schemdraw, ``wiring --svg``
says how to get it in one line."""

from __future__ import annotations

import sys
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path
from typing import NamedTuple

import pytest

from table.circuit import Net, bridge_board, schematic
from table.circuit import parts as P
from table.circuit.drawing import connected, pin_label
from table.circuit.model import Circuit
from table.commands import circuit_files
from table.commands.cli import main

ROOT = Path(__file__).resolve().parent.parent
SVG = "{http://www.w3.org/2000/svg}"
PITCH = 18  # points between two pins of a block


class Text(NamedTuple):
    """One text of a drawing: what it says, where (its anchor point, the line's middle) and
    how it is anchored (a pin's name ends at its block's edge, a net's label starts there)."""

    words: str
    x: float
    y: float
    anchor: str


def texts(svg: str) -> list[Text]:
    """Every text of the drawing."""
    out = []
    for t in ET.fromstring(svg).iter(f"{SVG}text"):
        dy = sum(float(s.get("dy", "0")) for s in t.iter(f"{SVG}tspan"))
        out.append(Text("".join(t.itertext()), float(t.get("x", "0")),
                        float(t.get("y", "0")) + dy, t.get("text-anchor", "")))
    return out


def drawn() -> dict[str, Circuit]:
    """Each circuit docs/circuits/ draws."""
    return circuit_files.circuits(circuit_files.example_files(ROOT, 1000))


@pytest.mark.parametrize("name", ["bridge", "spi-pad", "bridge-four-seats"])
def test_every_part_and_every_pin_on_a_net_is_labelled(name: str) -> None:
    circuit = drawn()[name]
    words = texts(schematic.svg(circuit))
    assert (circuit.title or circuit.name) in {t.words for t in words}
    pin_names = [t for t in words if t.anchor == "end"]
    net_labels = [t for t in words if t.anchor == "start"]
    wired = [(p, connected(circuit, p)) for p in circuit.parts]
    assert sum(1 for _, pins in wired if pins) >= 2
    for part, pins in wired:
        if pins:
            what = part.value.split(" (")[0][:20]  # a long name's words before its bracket
            assert any(t.words.startswith(f"{part.ref} {what}") for t in words), part.ref
        for pin, net in pins:
            named = net.name + (f" ({net.series} Ω)" if net.series else "")
            # the pin's name, and its net's label just right of it on the same row
            assert any(p.words == pin_label(part, pin) and n.words == named
                       and abs(p.y - n.y) < PITCH / 2 and 0 < n.x - p.x < 80
                       for p in pin_names for n in net_labels), (part.ref, pin, named)
    # one net label a connected pin: every end of every net is drawn, none twice
    ends = Counter(net.name + (f" ({net.series} Ω)" if net.series else "")
                   for _, pins in wired for _, net in pins)
    assert Counter(t.words for t in net_labels if t.words in ends) == ends
    assert len(pin_names) == sum(ends.values())


def test_the_same_circuit_draws_the_same_bytes_and_no_ids() -> None:
    circuit = bridge_board.build()
    first = schematic.svg(circuit)
    assert first == schematic.svg(circuit)
    assert first.startswith("<svg") and first.endswith("</svg>\n")
    assert " id=" not in first


def test_a_name_with_markup_in_it_is_drawn_as_text() -> None:
    sw = P.button("SW1", "Aki")
    net = Net("Aki & <Ken> $1$", (("SW1", "1"),))
    words = [t.words for t in texts(schematic.svg(Circuit("odd", (sw,), (net,))))]
    assert "Aki & <Ken> \uff041\uff04" in words


def test_wiring_without_schemdraw_says_how_to_get_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "schemdraw", None)  # import schemdraw raises ImportError
    out = tmp_path / "bridge.svg"
    assert main(["wiring", "--bridge", "--svg", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "pip install schemdraw" in err
    assert not out.exists()
    assert circuit_files.main(["--check"]) == 2
    assert "pip install schemdraw" in capsys.readouterr().err
