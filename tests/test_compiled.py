"""The compiled build (``UNO_TABLE_COMPILE=1``, setup.py) passes the engine's own tests.

The modules setup.py compiles are built with mypyc into a copy of ``table/`` in a temporary
folder, the way ``pip install`` builds them, and the engine's pins, the listing property tests,
the self-play digests and the snapshots run again against that copy, in a child process that
imports it. About two minutes on two cores, most of it the C compiler; marked ``compiled``
(``-m "not compiled"`` leaves it out). Skipped where the build cannot run: no C compiler, no
Python headers, or no mypy.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# The engine's tests that hold its behaviour to the byte: the replay and engine pins, the
# listing against the play, self-play's digests, the bench's rounds, the variants, snapshots.
ENGINE_TESTS = (
    "test_engine_pins.py",
    "test_replay_pins.py",
    "test_listing.py",
    "test_apply_legal.py",
    "test_policies.py",
    "test_bench_engine.py",
    "test_variants.py",
    "test_snapshots.py",
)


def _missing() -> str | None:
    """What the build needs that this machine lacks, or None."""
    compiler = (sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(compiler) is None:
        return "no C compiler"
    if not (Path(sysconfig.get_paths()["include"]) / "Python.h").exists():
        return "no Python headers"
    if importlib.util.find_spec("mypyc") is None:
        return "no mypy (mypyc comes with it)"
    return None


@pytest.mark.compiled
def test_the_compiled_engine_passes_the_engine_tests(tmp_path: Path) -> None:
    missing = _missing()
    if missing:
        pytest.skip(f"the compiled build cannot run here: {missing}")
    build = tmp_path / "build"
    build.mkdir()
    shutil.copytree(ROOT / "table", build / "table",
                    ignore=shutil.ignore_patterns("__pycache__", "*.so", "*.pyd"))
    for name in ("setup.py", "pyproject.toml"):
        shutil.copy(ROOT / name, build / name)
    env = dict(os.environ, UNO_TABLE_COMPILE="1")
    made = subprocess.run(
        [sys.executable, "setup.py", "build_ext", "--inplace"],
        cwd=build, env=env, capture_output=True, text=True, check=False,
    )
    assert made.returncode == 0, made.stdout[-3000:] + made.stderr[-3000:]

    # The copy comes first on the path of every process from here on.
    env.pop("UNO_TABLE_COMPILE")
    # and of the processes the tests start (the bench); the simulator from the tree under test
    env["PYTHONPATH"] = os.pathsep.join((str(build), str(ROOT)))
    which = subprocess.run(
        [sys.executable, "-c", "import table.rules as r, table.rules.play as p;"
         " print(r.COMPILED, p.__file__)"],
        cwd=build, env=env, capture_output=True, text=True, check=True,
    )
    compiled, where = which.stdout.split()
    assert compiled == "True" and Path(where).parent.parent.parent == build, which.stdout

    tests = [str(ROOT / "tests" / name) for name in ENGINE_TESTS]
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--rootdir", str(ROOT),
         "-c", str(ROOT / "pyproject.toml"), *tests],
        cwd=build, env=env, capture_output=True, text=True, check=False,
    )
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-3000:]
