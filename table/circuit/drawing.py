"""A circuit made readable: its wiring as text and Markdown tables, and the cable harness of
each pad (its schematic: schematic.py). Pure functions of the model: the same circuit, the same
bytes."""

from __future__ import annotations

from table.circuit.model import Circuit, Finding, Net, Part
from table.readers.pi_header import BCM_TO_BOARD

# Each reader's cable (Cat5e, four twisted pairs): every fast line twisted with a return.
HARNESS = (("blue", "SCK"), ("white-blue", "GND"), ("green", "MISO"), ("white-green", "GND"),
           ("orange", "MOSI"), ("white-orange", "3.3V"), ("brown", "SDA"), ("white-brown", "RST"))


def connected(c: Circuit, part: Part) -> list[tuple[str, Net]]:
    """The pins of ``part`` that are on a net, each with its (first) net, in the part's order."""
    out = []
    for pin in part.pins:
        net = c.net_of(part.ref, pin.name)
        if net is not None:
            out.append((pin.name, net))
    return out


HEADER_POWER = {"3V3": "pin 1", "5V": "pin 2", "GND": "pin 6"}


def pin_label(part: Part, name: str) -> str:
    """A pin's name, with its header pin on the Pi's header (``GPIO25 (pin 22)``)."""
    if part.ref != "J1":
        return name
    if name.startswith("GPIO"):
        return f"{name} (pin {BCM_TO_BOARD.get(int(name[4:]), '?')})"
    return f"{name} ({HEADER_POWER[name]})" if name in HEADER_POWER else name


def _series(net: Net) -> str:
    return f"{net.series} Ω at {net.ends[0][0]} {net.ends[0][1]}" if net.series else ""


def _ends(c: Circuit, net: Net) -> str:
    return ", ".join(f"{ref} {pin_label(c.part(ref), pin)}" for ref, pin in net.ends)


def markdown(c: Circuit) -> str:
    """The parts and the nets as two Markdown tables."""
    lines = ["| part | what | figures from |", "|---|---|---|"]
    lines += [f"| {p.ref} | {p.value}{' (' + p.note + ')' if p.note else ''} | "
              f"{p.source or '-'} |" for p in c.parts]
    lines += ["", "| net | joins | series | set by |", "|---|---|---|---|"]
    lines += [f"| {n.name} | {_ends(c, n)} | {_series(n) or '-'} | {n.where or 'the board'} |"
              for n in c.nets]
    return "\n".join(lines) + "\n"


def harness(c: Circuit) -> str:
    """Each reader's cable as a Markdown table: the pair colour, the signal, both ends."""
    readers = [p for p in c.parts if p.value == "MFRC522 module"]
    lines = ["| wire (Cat5e) | signal | " + " | ".join(f"{r.ref} ({r.note})" for r in readers)
             + " |", "|---|---|" + "---|" * len(readers)]
    for colour, signal in HARNESS:
        row = []
        for r in readers:
            net = c.net_of(r.ref, signal)
            far = [f"{ref} {pin}" for ref, pin in (net.ends if net else ())
                   if ref != r.ref][:1]
            row.append(far[0] if far else "-")
        lines.append(f"| {colour} | {signal} | " + " | ".join(row) + " |")
    return "\n".join(lines) + "\n"


def text(c: Circuit, findings: list[Finding], advice: list[str]) -> str:
    """The wiring as ``uno-table wiring`` prints it: each part, its pins and nets, then the
    rules' verdict with the fix for each finding."""
    lines = [c.title or c.name, ""]
    for part in c.parts:
        pins = connected(c, part)
        if not pins:
            continue
        lines.append(f"{part.ref}  {part.value}" + (f"  ({part.note})" if part.note else ""))
        for name, net in pins:
            others = ", ".join(f"{r} {p}" for r, p in net.ends if r != part.ref)
            via = f" ({_series(net)})" if net.series else ""
            lines.append(f"    {pin_label(part, name):<16} {net.name:<26} -> {others or '-'}{via}")
    if len(lines) == 2:
        lines.append("Nothing is wired to it: every reader is on USB.")
    lines.append("")
    if findings:
        lines.append(f"{len(findings)} finding(s):")
        lines += [f"  {f.line()}" for f in findings]
    else:
        lines.append("The electrical rules find nothing wrong.")
    lines += [f"  note: {a}" for a in advice]
    return "\n".join(lines) + "\n"
