"""``python -m table.commands.circuit_files``: write every file made from the circuit model, or
with ``--check`` only say which are out of step (exit 1). The files: the bridge firmware's
``pins.h``; a schematic per example configuration and for the bridge board
(``docs/circuits/*.svg``, drawn with schemdraw); the wiring tables and cable harness between
their markers in ``docs/hardware.md``; the SPI lines' waveforms and chosen values (ngspice,
spice.py); the pins of each example configuration (``examples/*.toml``, between its
``# made:hardware`` markers, from table/circuit/examples.py).
``tests/test_circuit_files.py`` fails when any is edited by hand."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from table.circuit import bridge_board, drawing, examples, schematic, spice
from table.circuit.model import Circuit


def example_files(root: Path, pi_khz: int) -> dict[Path, str]:
    """Each example configuration with its pins written from table/circuit/examples.py."""
    out = {}
    for example in examples.EXAMPLES.values():
        path = root / example.path
        out[path] = examples.with_hardware(path.read_text(encoding="utf-8"), example, pi_khz)
    return out


def circuits(files: dict[Path, str]) -> dict[str, Circuit]:
    """The bridge board and each example configuration's Pi side, by name, drawn from the
    example files as they are to be written (``files``, from :func:`example_files`)."""
    from table.circuit.pi_wiring import build
    from table.runtime.config import load_for_wiring, pi_setup

    out = {"bridge": bridge_board.build()}
    drawn = {e.path for e in examples.EXAMPLES.values() if e.drawn}
    with tempfile.TemporaryDirectory() as tmp:
        for path, text in files.items():
            if not any(path.as_posix().endswith(d) for d in drawn):
                continue
            copy = Path(tmp) / path.name
            copy.write_text(text, encoding="utf-8")
            out[path.stem] = build(pi_setup(load_for_wiring(copy)), path.stem)
    return out


def blocks(made: dict[str, Circuit], study: spice.Study) -> dict[str, str]:
    """Marker name to the Markdown between ``<!-- made:NAME -->`` and ``<!-- /made:NAME -->``."""
    out = {f"wiring-{name}": drawing.markdown(c) for name, c in made.items()}
    out["harness-bridge"] = drawing.harness(made["bridge"])
    out["spi-signals"] = spice.table_md(study)
    return out


def expected(root: Path) -> dict[Path, str]:
    """Each made file's path and the text it must hold."""
    study = spice.study()
    files = example_files(root, study.pi_khz)
    made = circuits(files)
    files[root / "firmware_bridge" / "firmware" / "pins.h"] = bridge_board.pins_header()
    files.update({root / "docs" / "circuits" / f"{name}.svg": schematic.svg(c)
                  for name, c in made.items()})
    files.update({root / "docs" / "circuits" / f"spi-{name}.svg": spice.plot_svg(
        study.choices[name], *study.waves[name]) for name in study.choices})
    doc = root / "docs" / "hardware.md"
    text = doc.read_text(encoding="utf-8")
    for name, body in blocks(made, study).items():
        start, end = f"<!-- made:{name} -->\n", f"<!-- /made:{name} -->"
        first = text.find(start)
        last = text.find(end, first)
        if first < 0 or last < 0:
            raise SystemExit(f"{doc}: no {start.strip()} block")
        text = text[:first + len(start)] + body + text[last:]
    files[doc] = text
    return files


def main(argv: list[str]) -> int:
    """Write the files (or ``--check`` them); the exit code."""
    root = Path(__file__).resolve().parent.parent.parent
    stale = []
    try:
        made = expected(root)
    except schematic.SchematicUnavailable as exc:
        print(f"circuit_files: {exc}", file=sys.stderr)
        return 2
    for path, text in made.items():
        if path.exists() and path.read_text(encoding="utf-8") == text:
            continue
        stale.append(path)
        if "--check" not in argv:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
    for path in stale:
        print(f"{'out of step' if '--check' in argv else 'written'}: {path.relative_to(root)}")
    return 1 if stale and "--check" in argv else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
