"""``uno-table selfplay`` as a user runs it, a whole process, beside bench/engine.py's own loop
as a whole process: what the command costs on top of the engine.

    python bench/selfplay_process.py [--rounds 2000] [--players 2 4] [--repeat 7] [--seed 1]
                                     [--rlcard] [--study] [--json]

Each repetition starts two new Python processes (one more for each of ``--rlcard`` and
``--study``), the sides taking turns to go first: the engine's timed loop
(``bench/engine_run.py``, as ``bench/engine.py --clock process`` runs it) and ``uno-table
selfplay --policy play-first`` with the same rounds, seed and players (the same games: both
print their action count, which must agree), started as
the console script starts it. Each is timed by the wall clock and by its CPU time (user and
system, from the kernel's accounting of the child), which a loaded machine disturbs less; the
medians are reported and the overhead is the command's median over the loop's, less one. Beside
each such figure, its paired form (``_paired``): the median over the repetitions of the ratio
within each repetition, whose processes run seconds apart, so that a machine whose speed drifts
from one process to the next (here, by up to a third) moves both sides of each ratio.
``--rlcard`` adds a third process, RLCard's raw game (``bench/rlcard_driver.py``, as
``bench/engine.py --clock process`` runs it: a uniformly random legal action, the same way of
playing as ``play-first``) playing the same number of rounds at the same player count, and
gives ``selfplay``'s speed as a multiple of RLCard's (RLCard's time over ours), by each clock.
``--study`` adds ``uno-table study`` as a process too (one variant, ``official``, at the same
player count, rounds and policy, one job, no plots; its report written to a folder made for it):
its own rounds are seeded by chunk, so they are not the same deals as the loop's, and its
overhead is taken per round, over that many rounds.

First the tree's modules are compiled to bytecode (``compileall``, into ``__pycache__``), as an
installed package's are (pip compiles them, and RLCard's in the venv): otherwise, where bytecode
is not written (``PYTHONDONTWRITEBYTECODE``), every one of our processes would compile each module
again at its start, which RLCard's never do. The load average is printed with the figures.
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
TARGET = 0.10  # the command's overhead on top of the engine's loop, at most


def _loop(players: int, rounds: int, seed: int) -> list[str]:
    program = (f"import sys; sys.path[:0] = [{str(ROOT / 'bench')!r}, {str(ROOT)!r}]; "
               "from engine_run import run_engine; "
               f"print(run_engine({players}, {rounds}, {seed}).actions)")
    return [sys.executable, "-c", program]


def _command(*argv: str) -> list[str]:
    program = (f"import sys; sys.path[:0] = [{str(ROOT)!r}]; "
               "from table.commands.cli import main; sys.exit(main())")
    return [sys.executable, "-c", program, *argv]


def _selfplay(players: int, rounds: int, seed: int) -> list[str]:
    return _command("selfplay", "--policy", "play-first", "--games", str(rounds),
                    "--players", str(players), "--seed", str(seed))


def timed(command: list[str]) -> tuple[float, float, str]:
    """Wall seconds, CPU seconds and stdout of one process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=True, cwd=ROOT)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, done.stdout


def compiled_bytecode() -> None:
    """The bytecode of every module the timed processes import from the tree, written now."""
    compileall.compile_dir(ROOT / "table", quiet=1)
    compileall.compile_dir(ROOT / "sim", quiet=1)
    for name in ("engine_run.py", "rlcard_driver.py"):
        compileall.compile_file(ROOT / "bench" / name, quiet=1)


def _study(players: int, rounds: int, seed: int, out: Path) -> list[str]:
    return _command("study", "--rules", "official", "--players", str(players), "--rounds",
                    str(rounds), "--policy", "play-first", "--jobs", "1", "--seed", str(seed),
                    "--out", str(out), "--no-plots")


def _rlcard(players: int, rounds: int, seed: int) -> list[str]:
    program = (f"import sys; sys.path[:0] = [{str(ROOT / 'bench')!r}]; "
               "from rlcard_driver import run_rlcard as run; "
               f"print(int(run({players}, {rounds}, {seed})['turns']))")
    return [sys.executable, "-c", program]


def compare(name: str, command: list[str], loop: list[str], repeat: int,
            actions: Any = None, others: dict[str, list[str]] | None = None,
            beside: dict[str, list[str]] | None = None) -> dict[str, Any]:
    """``command`` against ``loop`` (and ``others``, whose speed ours is a multiple of, and
    ``beside``, whose own overhead on the loop is taken too), ``repeat`` times each, taking
    turns to go first (the order rotated each repetition)."""
    others, beside = others or {}, beside or {}
    order = [("loop", loop), (name, command), *others.items(), *beside.items()]
    runs: dict[str, list[tuple[float, float]]] = {side: [] for side, _ in order}
    for i in range(repeat):
        shift = i % len(order)
        for side, argv in order[shift:] + order[:shift]:
            wall, cpu, out = timed(argv)
            runs[side].append((wall, cpu))
            if actions is not None:
                actions(side, out)
    out: dict[str, Any] = {}
    for side, values in runs.items():
        out[side] = {"wall_s": round(statistics.median(w for w, _ in values), 3),
                     "cpu_s": round(statistics.median(c for _, c in values), 3),
                     "cpu_runs": [round(c, 3) for _, c in values]}
    for at, clock in enumerate(("wall", "cpu")):
        def ratio(top: str, bottom: str, clock: str = clock) -> float:
            return float(out[top][f"{clock}_s"] / out[bottom][f"{clock}_s"])

        def paired(top: str, bottom: str, at: int = at) -> float:
            """The median over the repetitions of ``top``'s time over ``bottom``'s in the same
            repetition (seconds apart, on the machine as it was then)."""
            return statistics.median(t[at] / b[at] for t, b in zip(runs[top], runs[bottom],
                                                                    strict=True))

        for side, prefix in ((name, ""), *((b, f"{b}_") for b in beside)):
            out[f"{prefix}overhead_{clock}"] = round(ratio(side, "loop") - 1, 3)
            out[f"{prefix}overhead_{clock}_paired"] = round(paired(side, "loop") - 1, 3)
        for other in others:  # how many times as fast as ``other``: its time over ours
            out[f"{name}_vs_{other}_{clock}"] = round(ratio(other, name), 2)
            out[f"{name}_vs_{other}_{clock}_paired"] = round(paired(other, name), 2)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--rounds", type=int, default=2000)
    ap.add_argument("--players", type=int, nargs="+", default=[2, 4])
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--rlcard", action="store_true",
                    help="also time RLCard's raw game (bench/rlcard_driver.py) as a process "
                         "playing the same number of rounds: selfplay's speed against it")
    ap.add_argument("--study", action="store_true",
                    help="also time uno-table study (official rules, the same rounds, players "
                         "and policy, one job, no plots): its overhead on the loop")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    compiled_bytecode()
    result: dict[str, Any] = {"rounds": args.rounds, "repeat": args.repeat,
                              "load_before": os.getloadavg()[0]}
    reports = tempfile.TemporaryDirectory(prefix="selfplay-bench-")  # study's, thrown away
    for players in args.players:
        seen: dict[str, int] = {}

        def actions(side: str, out: str, seen: dict[str, int] = seen) -> None:
            if side in ("loop", "selfplay", "rlcard"):  # the same games (study: its own deals)
                text = str(json.loads(out)["actions"]) if side == "selfplay" else \
                    out.split()[0]
                seen[side] = int(text)

        loop = _loop(players, args.rounds, args.seed)
        others = {"rlcard": _rlcard(players, args.rounds, args.seed)} if args.rlcard else {}
        beside = {"study": _study(players, args.rounds, args.seed,
                                  Path(reports.name) / f"{players}p")} if args.study else {}
        row = compare("selfplay", _selfplay(players, args.rounds, args.seed), loop, args.repeat,
                      actions, others, beside)
        if seen["loop"] != seen["selfplay"]:
            raise SystemExit(f"not the same games: {seen}")
        result[f"selfplay_{players}p"] = row
        if not args.json:
            print(f"{players} players, {args.rounds} rounds, {args.repeat} processes each: "
                  f"loop {row['loop']['wall_s']} s wall / {row['loop']['cpu_s']} s CPU, "
                  f"selfplay {row['selfplay']['wall_s']} s / {row['selfplay']['cpu_s']} s: "
                  f"overhead {row['overhead_wall']:+.1%} wall, {row['overhead_cpu']:+.1%} CPU; "
                  f"paired {row['overhead_wall_paired']:+.1%} wall, "
                  f"{row['overhead_cpu_paired']:+.1%} CPU (target under {TARGET:.0%})",
                  flush=True)
            if args.study:
                print(f"  study {row['study']['wall_s']} s wall / {row['study']['cpu_s']} s "
                      f"CPU: overhead {row['study_overhead_wall']:+.1%} wall, "
                      f"{row['study_overhead_cpu']:+.1%} CPU; paired "
                      f"{row['study_overhead_wall_paired']:+.1%} wall, "
                      f"{row['study_overhead_cpu_paired']:+.1%} CPU (its own deals, the same "
                      f"number of rounds)", flush=True)
            if args.rlcard:
                print(f"  RLCard {row['rlcard']['wall_s']} s wall / {row['rlcard']['cpu_s']} s "
                      f"CPU: selfplay {row['selfplay_vs_rlcard_wall']}x RLCard's speed by the "
                      f"wall clock, {row['selfplay_vs_rlcard_cpu']}x by CPU time; paired "
                      f"{row['selfplay_vs_rlcard_wall_paired']}x and "
                      f"{row['selfplay_vs_rlcard_cpu_paired']}x", flush=True)
    reports.cleanup()
    result["load_after"] = os.getloadavg()[0]
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print(f"load average {result['load_before']:.2f} before, {result['load_after']:.2f} after")


if __name__ == "__main__":
    main()
