"""A circuit's schematic as SVG, drawn with schemdraw (its own SVG backend, no matplotlib): each
part a block with its connected pins named, and on each pin a wire ending in its net's label, as
schematics with net labels are; pins on one net share a label, so the wires are the labels'
names. A pure function of the model: the same circuit, the same bytes (schemdraw writes no ids
or dates). schemdraw is imported only when a schematic is drawn."""

from __future__ import annotations

from html import escape
from typing import Any, Final

from table.circuit.drawing import connected, pin_label
from table.circuit.model import Circuit, Net, Part, PinKind
from table.errors import TableError

HOW_TO_GET: Final = "schematics need schemdraw: pip install schemdraw"

# Sizes in schemdraw's units (36 pt): a block's width, its padding, a pin's pitch, the wire to
# the label, the gap below a block, a column's width (block, wire and the longest net label).
BLOCK_W, PAD, PITCH, WIRE, GAP, COLUMN, COLUMNS = 3.2, 0.3, 0.5, 0.7, 1.1, 9.0, 3
COLOURS: Final = {PinKind.POWER_OUT: "#b00", PinKind.POWER_IN: "#b00", PinKind.GROUND: "#444"}


class SchematicUnavailable(TableError, ImportError):
    """schemdraw is not installed."""


def _load() -> Any:
    """schemdraw on its SVG backend; raises :class:`SchematicUnavailable` without it."""
    try:
        import schemdraw
    except ImportError:
        raise SchematicUnavailable(HOW_TO_GET) from None
    schemdraw.use("svg")
    return schemdraw


def _plain(text: str) -> str:
    """``text`` as schemdraw writes it verbatim: XML's special characters escaped, and no
    ``$`` to start its maths."""
    return escape(text, quote=False).replace("$", "\uff04")


def _short(value: str) -> str:
    """A part's name that fits its block: the words before a bracket when it is long."""
    return value if len(value) <= 26 else value.split(" (")[0][:26]


def _net_label(net: Net) -> str:
    return net.name + (f" ({net.series} Ω)" if net.series else "")


def _block(d: Any, elm: Any, part: Part, pins: list[tuple[str, Net]], x: float,
           y: float) -> None:
    """One part, its first pin's end at (x, y): the block, its pins, each pin's wire and
    net."""
    ic = elm.Ic(pins=[elm.IcPin(name=_plain(pin_label(part, name)), side="right",
                                anchorname=f"P{i}", slot=f"{len(pins) - i}/{len(pins)}")
                      for i, (name, _) in enumerate(pins)],
                size=(BLOCK_W, PITCH * (len(pins) - 1) + 2 * PAD), pinspacing=PITCH,
                leadlen=0.3, lsize=10)
    ic.label(_plain(f"{part.ref} {_short(part.value)}"), loc="top", fontsize=11)
    d.add(ic.at((x, y)).anchor("P0"))
    for i, (name, net) in enumerate(pins):
        colour = COLOURS.get(part.pin(name).kind, "#036")
        d.add(elm.Line().at(getattr(ic, f"P{i}")).right(WIRE).color(colour)
              .label(_plain(_net_label(net)), loc="end", halign="left", valign="center",
                     fontsize=9))


def svg(c: Circuit) -> str:
    """The schematic: parts in columns, each placed in the shortest column so far."""
    schemdraw = _load()
    elm = schemdraw.elements
    boxes = [(p, connected(c, p)) for p in c.parts]
    boxes = [(p, pins) for p, pins in boxes if pins]
    depth = [0.0] * COLUMNS
    d = schemdraw.Drawing(show=False, canvas="svg")
    d.config(font="sans-serif", fontsize=9, lw=1.2)
    d.add(elm.Label().at((-BLOCK_W, 1.2)).label(_plain(c.title or c.name), fontsize=15,
                                                halign="left"))
    for part, pins in boxes:
        col = depth.index(min(depth))
        _block(d, elm, part, pins, col * COLUMN, -depth[col])
        depth[col] += PITCH * (len(pins) - 1) + 2 * PAD + GAP
    text: str = d.get_imagedata("svg").decode("utf-8")
    return text + ("" if text.endswith("\n") else "\n")
