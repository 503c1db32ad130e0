"""The replay JSON of every scenario, pinned: ``tests/scenarios/expected/`` holds what
``uno-table replay --json`` gives for each file of ``tests/scenarios/`` and ``examples/``
(indented, one file each), and ``test_replay_pins.py`` compares them byte for byte.

A change to the rules, the referee or the phrases that changes a replay on purpose rewrites
the pins with ``python tests/replay_pins.py``; ``git diff`` then shows what changed.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXPECTED = ROOT / "tests" / "scenarios" / "expected"
SOURCES = (ROOT / "tests" / "scenarios", ROOT / "examples")


def scenarios() -> list[tuple[Path, Path]]:
    """Every pinned scenario with the file that pins it."""
    out = []
    for source in SOURCES:
        pins = EXPECTED if source.name == "scenarios" else EXPECTED / source.name
        out += [(scn, pins / f"{scn.stem}.json") for scn in sorted(source.glob("*.scn"))]
    return out


def rendered(scn: Path) -> bytes:
    """The replay JSON of ``scn`` as the pin holds it."""
    from table.referee.scenario import replay_file

    result = replay_file(str(scn)).result()
    return (json.dumps(result, ensure_ascii=False, indent=1) + "\n").encode("utf-8")


def write() -> int:
    pairs = scenarios()
    wanted = {pin for _, pin in pairs}
    for stale in EXPECTED.rglob("*.json"):
        if stale not in wanted:
            stale.unlink()
    for scn, pin in pairs:
        pin.parent.mkdir(parents=True, exist_ok=True)
        pin.write_bytes(rendered(scn))
    print(f"{len(pairs)} replays pinned under {EXPECTED.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    raise SystemExit(write())
