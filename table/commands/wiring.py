"""``uno-table wiring CONFIG [--svg FILE]``: the wiring of a configuration, every part, pin and
wire, and the electrical rules' verdict with the fix for each finding (exit 2 on a finding);
``--bridge`` the bridge board's. The circuit is table/circuit/'s model."""

from __future__ import annotations

import argparse
from pathlib import Path

from table.circuit import bridge_board, check, drawing, schematic
from table.circuit.boards import free_pins
from table.circuit.model import Circuit
from table.commands.checks import OptionValueError, given_path

EXIT_FINDINGS = 2


def _advice(circuit: Circuit) -> list[str]:
    """What the rules allow but a maker should know."""
    notes = []
    resets = [n for n in circuit.nets if n.name.startswith("RST") and len(n.ends) > 2]
    for net in resets:
        notes.append(f"{net.name} resets {len(net.ends) - 1} readers: doctor can tell which "
                     "module holds MISO only with one reset pin a reader")
    held = {int(pin.removeprefix("GPIO")) for ref, pin in circuit.held if ref == "J1"}
    used = {int(pin.removeprefix("GPIO")) for n in circuit.nets for ref, pin in n.ends
            if ref == "J1" and pin.startswith("GPIO")}
    if circuit.name != "bridge":
        left = [p for p in free_pins(held | used)]
        notes.append("free GPIO: " + (", ".join(f"BCM {p}" for p in left) or "none"))
    return notes


def _wiring(args: argparse.Namespace) -> int:
    from table.runtime.board import wiring_of
    from table.runtime.config import load_for_wiring, pi_setup

    out = None
    if args.svg is not None:
        out = Path(given_path("--svg", args.svg, "a file to write the schematic to"))
    if args.bridge:
        circuit = bridge_board.build()
        findings = check(circuit)
    else:
        if args.config is None:
            raise OptionValueError("wiring: no configuration file; allowed: CONFIG or --bridge")
        config = load_for_wiring(Path(given_path("CONFIG", args.config, "a configuration")))
        circuit, findings = wiring_of(config.path.stem, pi_setup(config))
    print(drawing.text(circuit, findings, _advice(circuit)), end="")
    if out is not None:
        try:
            drawn = schematic.svg(circuit)
        except schematic.SchematicUnavailable as exc:
            raise OptionValueError(f"--svg {out}: {exc}") from None
        try:
            out.write_text(drawn, encoding="utf-8")
        except OSError as exc:
            raise OptionValueError(f"--svg {out}: cannot write it: {exc.strerror}; allowed: a "
                                   "file in a folder this user can write in") from None
        print(f"schematic written to {out}")
    return EXIT_FINDINGS if findings else 0


def add_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """The ``wiring`` sub-command."""
    p = sub.add_parser("wiring", help="the wiring of a configuration (or the bridge board), "
                       "checked by the electrical rules; a schematic as SVG")
    p.add_argument("config", nargs="?", metavar="CONFIG", help="the configuration file")
    p.add_argument("--bridge", action="store_true", help="the bridge board instead")
    p.add_argument("--svg", metavar="FILE", help="write the schematic to FILE")
    p.set_defaults(run=_wiring)
