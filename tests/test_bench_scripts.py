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


@pytest.mark.parametrize("script", [s for s in SCRIPTS if s not in APART])
def test_a_benchmark_starts(script: str) -> None:
    done = subprocess.run([sys.executable, str(ROOT / "bench" / script), "--help"],
                          capture_output=True, text=True, timeout=120, cwd=ROOT, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "usage" in done.stdout.lower()
