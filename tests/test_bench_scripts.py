"""Every benchmark under ``bench/`` still starts: its ``--help`` runs against today's code, so a
name moved or removed in ``table/`` or ``sim/`` breaks the test here, not the next person who
measures. The benchmarks themselves are long and run by hand (docs/performance.md)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPTS = sorted(p.name for p in (ROOT / "bench").glob("*.py"))
# Scripts apart: english_voices.py needs a speech recogniser installed by hand (its docstring
# says how); rlcard_driver.py and engine_run.py have no command line (the engine bench imports
# them, and runs each alone as a child with --clock process; tests/test_bench_engine.py runs it).
APART = {"english_voices.py": "pocketsphinx", "rlcard_driver.py": "", "engine_run.py": ""}
# The appliance's parts without a command line of their own (``./uno appliance`` is
# bench/appliance.py): each still imports against today's code.
PARTS = sorted(p.stem for p in (ROOT / "bench").glob("*.py")
               if p.name not in APART and "__main__" not in p.read_text(encoding="utf-8"))


@pytest.mark.parametrize("script", [s for s in SCRIPTS
                                    if s not in APART and s[:-3] not in PARTS])
def test_a_benchmark_starts(script: str) -> None:
    done = subprocess.run([sys.executable, str(ROOT / "bench" / script), "--help"],
                          capture_output=True, text=True, timeout=120, cwd=ROOT, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "usage" in done.stdout.lower()


@pytest.mark.parametrize("part", PARTS)
def test_an_appliance_part_imports(part: str) -> None:
    done = subprocess.run([sys.executable, "-c", f"import {part}"], capture_output=True,
                          text=True, timeout=120, cwd=ROOT / "bench", check=False)
    assert done.returncode == 0, done.stderr[-2000:]
