"""The test suite's running time, file by file: wall clock and CPU time (docs/performance.md).

    python bench/suite_clock.py [--workers N] [--top N] [--json] [-- PYTEST OPTIONS]

runs pytest on the whole suite (``tests`` and ``hw_tests``, as ``./uno test`` does) with
``--workers`` processes (pytest-xdist; 0: in this one process), this file loaded into pytest as
a plugin (``-p suite_clock``). Around every test, setup and teardown included, the plugin reads
the wall clock and the CPU time (user + system, of the test's process and of every child it
waited for: brokers, browsers, compilers); it adds them up per test file, and each pytest
process writes its sums into a folder that this script reads when pytest is done. It prints the
files by CPU time, the suite's own wall clock, the CPU time of every process it started, and
the load average before and after: wall time on a shared machine moves with the load, CPU time
hardly does.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
FOLDER = "SUITE_CLOCK_DIR"  # where each pytest process writes its sums


def cpu_seconds() -> float:
    """User + system time of this process and of the children it has waited for."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


_sums: dict[str, list[float]] = {}


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Generator[None, None, None]:
    """Times one test, setup and teardown (module and session fixtures' too) included."""
    wall, cpu = time.perf_counter(), cpu_seconds()
    yield
    sums = _sums.setdefault(item.nodeid.split("::")[0], [0.0, 0.0, 0])
    sums[0] += time.perf_counter() - wall
    sums[1] += cpu_seconds() - cpu
    sums[2] += 1
    _write()


def _write() -> None:
    """Each pytest process (each xdist worker) keeps its sums in a file of its own, written
    again after every test: a run stopped half-way still shows where its time went."""
    folder = os.environ.get(FOLDER)
    if folder and _sums:
        name = os.environ.get("PYTEST_XDIST_WORKER", "main")
        part = Path(folder, f"{name}.part")
        part.write_text(json.dumps(_sums), encoding="utf-8")
        part.replace(part.with_suffix(".json"))


def collect(folder: Path) -> dict[str, list[float]]:
    """The files' sums from every process: [wall, cpu, tests]."""
    files: dict[str, list[float]] = {}
    for path in sorted(folder.glob("*.json")):
        for name, (wall, cpu, count) in json.loads(path.read_text(encoding="utf-8")).items():
            sums = files.setdefault(name, [0.0, 0.0, 0])
            sums[0] += wall
            sums[1] += cpu
            sums[2] += count
    return files


def main(argv: list[str] | None = None) -> int:
    """Runs the suite under the clock and prints the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=len(os.sched_getaffinity(0)),
                        help="pytest-xdist processes (default: the cores this process may use; "
                             "0: no xdist)")
    parser.add_argument("--top", type=int, default=25, help="files listed (default 25)")
    parser.add_argument("--json", action="store_true", help="print the numbers as JSON")
    parser.add_argument("--keep", metavar="FOLDER",
                        help="keep each process's sums in FOLDER (read it while the run goes on)")
    parser.add_argument("pytest_args", nargs="*", help="more options for pytest (after --)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="suite-clock-") as temporary:
        folder = args.keep or temporary
        Path(folder).mkdir(parents=True, exist_ok=True)
        for old in Path(folder).glob("*.json"):  # a former run's
            old.unlink()
        env = dict(os.environ, **{FOLDER: folder})
        env["PYTHONPATH"] = os.pathsep.join(
            p for p in (str(ROOT / "bench"), env.get("PYTHONPATH", "")) if p)
        workers = ["-n", str(args.workers)] if args.workers else ["-p", "no:xdist"]
        command = [sys.executable, "-m", "pytest", "-p", "suite_clock", "-p", "no:cacheprovider",
                   *workers, *args.pytest_args]
        load_before = os.getloadavg()
        start, before = time.perf_counter(), resource.getrusage(resource.RUSAGE_CHILDREN)
        code = subprocess.run(command, cwd=ROOT, env=env, check=False).returncode
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        report: dict[str, Any] = {
            "workers": args.workers,
            "wall": round(time.perf_counter() - start, 1),
            "cpu": round(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, 1),
            "load_before": [round(x, 2) for x in load_before],
            "load_after": [round(x, 2) for x in os.getloadavg()],
            "exit": code,
            "files": {k: [round(v[0], 1), round(v[1], 1), int(v[2])]
                      for k, v in sorted(collect(Path(folder)).items(),
                                         key=lambda kv: -kv[1][1])},
        }
    if args.json:
        print(json.dumps(report, indent=1))
        return code
    files = report["files"]
    print(f"\n{'file':<48} {'tests':>5} {'wall s':>7} {'cpu s':>7}")
    for name, (wall, cpu, count) in list(files.items())[:args.top]:
        print(f"{name:<48} {count:>5} {wall:>7.1f} {cpu:>7.1f}")
    print(f"{'all ' + str(len(files)) + ' files':<48} {sum(v[2] for v in files.values()):>5} "
          f"{sum(v[0] for v in files.values()):>7.1f} {sum(v[1] for v in files.values()):>7.1f}")
    print(f"pytest: {report['wall']} s wall, {report['cpu']} s CPU (every process), "
          f"{args.workers or 'no'} workers; load average {report['load_before']} before, "
          f"{report['load_after']} after; exit {code}")
    return code


if __name__ == "__main__":
    sys.exit(main())
