"""bench/engine.py runs, and times the rounds `uno-table selfplay --policy play-first` plays."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from table.analysis.selfplay import selfplay
from table.rules import COMPILED

ROOT = Path(__file__).resolve().parent.parent


def test_the_engine_bench_plays_the_rounds_of_selfplay_play_first() -> None:
    out = subprocess.run(
        [sys.executable, "bench/engine.py", "--rounds", "30", "--repeat", "1", "--players", "2",
         "3", "--no-rlcard", "--json", "--seed", "4"],
        capture_output=True, text=True, cwd=ROOT, check=False,
    )
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert report["policy"] == "play-first"
    assert report["build"] == ("compiled" if COMPILED else "pure")  # the build this test runs
    for run in report["runs"]:
        ours = run["uno_table"]
        assert run["rlcard"] is None and run["ratio_rounds_per_s"] is None
        assert ours["rounds"] == 30 and ours["capped"] == 0 and ours["rounds_per_s"] > 0
        summary = selfplay(30, run["players"], 4, policy="play-first")
        assert ours["actions"] == summary["actions"]


def test_the_engine_bench_times_whole_processes_that_play_the_same_rounds() -> None:
    out = subprocess.run(
        [sys.executable, "bench/engine.py", "--clock", "process", "--rounds", "20", "--repeat",
         "1", "--players", "2", "--no-rlcard", "--json", "--seed", "4"],
        capture_output=True, text=True, cwd=ROOT, check=False,
    )
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert report["clock"] == "process"
    assert report["build"] == ("compiled" if COMPILED else "pure")  # the child ran this build
    ours = report["runs"][0]["uno_table"]
    assert ours["rounds"] == 20 and ours["rounds_per_s"] > 0
    assert ours["actions"] == selfplay(20, 2, 4, policy="play-first")["actions"]


def test_the_engine_bench_refuses_bad_counts_in_one_line() -> None:
    out = subprocess.run(
        [sys.executable, "bench/engine.py", "--rounds", "0"],
        capture_output=True, text=True, cwd=ROOT, check=False,
    )
    assert out.returncode == 2
    assert out.stderr.strip().splitlines()[-1].endswith("--rounds must be at least 1")
