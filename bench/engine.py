"""Complete rounds per second of uno-table's rules engine and of RLCard's raw UNO game, both
playing the same way.

The unit is the round: from the deal to a player's last card (a match of UNO is many rounds,
played to 500 points; RLCard's ``UnoGame`` is one round). Rounds per second is the headline
because the engines' steps are not the same unit: ours counts every action a referee takes in
(a UNO call, a penalty draw, a draw and then the pass or the play of the drawn card, each one
action), while RLCard's ``step`` is a whole turn (a draw and the play of the drawn card in one
step, penalty draws done inside the step, no UNO calls). Actions per round are shown for both.

Both engines play the same policy. Ours plays ``play-first`` (``table/analysis/policies.py``):
a uniformly random playable card, a Wild Draw Four only when nothing else plays, otherwise a
draw and the drawn card if it plays; it always calls UNO, never challenges. RLCard is driven by
a uniformly random legal action (``bench/rlcard_driver.py``), which in RLCard's game is the
same policy: it lists only playable cards (a Wild Draw Four only when nothing else plays),
``draw`` only when nothing plays, and its draw plays the drawn card when it can.

Our engine runs the official rules with all their machinery on: UNO calls, a window in which a
forgotten call can be caught (by any player), a challenge window after every Wild Draw Four,
penalties, and scoring at the end of each round. After every action ``supply_chance`` names the
order of a reshuffled pile, as a real table's seat pads would, and the out-of-turn actions open
are offered to the policy. Actions come from the engine's own lists and go through
``apply_legal`` (which does not check a listed play again, as RLCard's ``step`` checks nothing).

Timing: each engine plays ``--rounds`` rounds, each a new deal, with the same seed every time
(the same rounds; ours are those of ``uno-table selfplay --policy play-first`` with that seed and
player count); the timed part is the play and the deal (for us the shuffle and ``new_game``,
and the dealer draw, made once as at a table, which then deals on per ``next_dealer``; for
RLCard ``init_game``), not building the game object. Each player count is
measured ``--repeat`` times, the engines alternating; the table shows each engine's median
repetition and the ratio is the median of the per-repetition ratios, which is what a busy
machine disturbs least. Both are timed by this process's CPU time by default (``--clock
wall`` for wall-clock time). ``--clock process`` times each run as a user would: a new Python
process that imports only its own engine's driver (ours, the build this process runs; or
RLCard, with NumPy) and plays the rounds, by the wall clock from its start to its exit.

``--callgrind`` also counts the instructions per round under ``valgrind --tool=callgrind``
(a run of ``--callgrind-rounds`` rounds minus a run of one, same seed, so start-up and imports
cancel out), which a shared machine does not disturb.

The report says which build of uno-table ran: the pure-Python source (the default install) or
the optional compiled one (``UNO_TABLE_COMPILE=1``, setup.py), whose numbers are not the same.

Usage::

    python bench/engine.py [--rounds N] [--repeat R] [--seed S] [--clock cpu|wall|process]
                           [--players 2 4] [--json] [--no-rlcard] [--profile]
                           [--callgrind] [--callgrind-rounds N]
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

sys.path.insert(0, str(Path(__file__).resolve().parent))  # run as a script: find the drivers

from engine_run import (
    BUILD,
    OURS,
    POLICY,
    Result,
    run_engine,
)
from rlcard_driver import MAX_STEPS_PER_GAME, rlcard_available, run_rlcard

import table

TARGET_RATIO: Final = 2.0
"""Our rounds/s should be at least this many times RLCard's."""

CLOCKS: Final[dict[str, Callable[[], float]]] = {
    "cpu": time.process_time,  # this process's CPU time: what a busy machine disturbs least
    "wall": time.perf_counter,
}
PROGRESS_INTERVAL_S: Final = 2.0
RLCARD: Final = "rlcard 1.2.0"
PROCESS: Final = "process"
"""The clock that times each run as a process of its own, start to exit (:func:`run_process`)."""
CLOCK_NAMES: Final = {
    "cpu": "this process's CPU time, the play only",
    "wall": "the wall clock, the play only",
    PROCESS: "the wall clock, each run a new Python process from its start to its exit",
}
BENCH_DIR: Final = Path(__file__).resolve().parent
PACKAGE_DIR: Final = Path(table.__file__ or ".").resolve().parent.parent
"""Where the parent process found ``table``: a run's process imports the same build from it."""
_CHILD: Final = {
    OURS: (
        "from engine_run import BUILD, run_engine as run; "
        "print(run({players}, {rounds}, {seed}).actions, BUILD)"
    ),
    RLCARD: (
        "from rlcard_driver import run_rlcard as run; "
        "print(int(run({players}, {rounds}, {seed})['turns']), 'rlcard')"
    ),
}


class Progress:
    """A line on stderr every few seconds of a long run."""

    def __init__(self, label: str, total: int, enabled: bool = True) -> None:
        self.label, self.total, self.enabled = label, total, enabled
        self.next = time.monotonic() + PROGRESS_INTERVAL_S

    def __call__(self, done: int, actions: int) -> None:
        if self.enabled and (now := time.monotonic()) >= self.next:
            self.next = now + PROGRESS_INTERVAL_S
            _progress(f"  {self.label}: {done}/{self.total} rounds, {actions} actions")


def run_reference(
    num_players: int,
    rounds: int,
    seed: int,
    clock: Callable[[], float] = time.perf_counter,
    on_round: Callable[[int, int], None] | None = None,
) -> Result:
    raw = run_rlcard(num_players, rounds, seed, clock, on_round)
    return Result(
        RLCARD,
        num_players,
        rounds,
        int(raw["turns"]),
        raw["seconds"],
        int(raw["capped"]),
        MAX_STEPS_PER_GAME,
    )


class ProcessError(RuntimeError):
    """A run's own process failed, or imported another build than this one."""


def run_process(engine: str, players: int, rounds: int, seed: int) -> Result:
    """``rounds`` rounds of ``engine`` in a new Python process, timed by the wall clock from its
    start to its exit: the interpreter's start, the imports (ours, or RLCard's and NumPy's),
    the set-up and the play, as a user timing a run would see it. Each process imports only
    its own engine's driver; ours imports the build this process runs."""
    program = (
        f"import sys; sys.path[:0] = [{str(BENCH_DIR)!r}, {str(PACKAGE_DIR)!r}]; "
        + _CHILD[engine].format(players=players, rounds=rounds, seed=seed)
    )
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, check=False
    )
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        tail = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise ProcessError(f"the process of {engine} failed ({done.returncode}): {tail}")
    actions, build = done.stdout.split()
    if engine == OURS and build != BUILD:
        raise ProcessError(f"the process of {engine} ran the {build} build, not the {BUILD} one")
    return Result(engine, players, rounds, int(actions), seconds, 0, 0)


def _progress(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


@dataclass(frozen=True)
class Measured:
    """One player count: every repetition of both engines, and instructions if counted."""

    ours: list[Result]
    theirs: list[Result]
    instructions: dict[str, float] | None = None  # engine -> instructions per round

    @staticmethod
    def _median(runs: list[Result]) -> Result:
        return sorted(runs, key=lambda r: r.rounds_per_s)[(len(runs) - 1) // 2]

    @property
    def players(self) -> int:
        return self.ours[0].players

    @property
    def median_ours(self) -> Result:
        return self._median(self.ours)

    @property
    def median_theirs(self) -> Result | None:
        return self._median(self.theirs) if self.theirs else None

    @property
    def ratios(self) -> list[float]:
        if not self.theirs:
            return []
        return [
            o.rounds_per_s / t.rounds_per_s for o, t in zip(self.ours, self.theirs, strict=True)
        ]

    @property
    def ratio(self) -> float | None:
        """The median of the per-repetition ratios of rounds/s (``None`` without RLCard)."""
        return statistics.median(self.ratios) if self.theirs else None


def measure(
    players: int,
    rounds: int,
    seed: int,
    repeat: int,
    with_rlcard: bool,
    clock: Callable[[], float] = time.perf_counter,
    profiler: cProfile.Profile | None = None,
    process: bool = False,
) -> Measured:
    """Run both engines ``repeat`` times, alternating which goes first (``process``: each run
    a process of its own, :func:`run_process`)."""
    ours: list[Result] = []
    theirs: list[Result] = []
    for rep in range(1, repeat + 1):
        for engine in (OURS, RLCARD) if rep % 2 else (RLCARD, OURS):
            if engine == RLCARD and not with_rlcard:
                continue
            label = f"{engine}, {players} players, run {rep}/{repeat}"
            _progress(f"{label}: {rounds} rounds ...")
            progress = Progress(label, rounds)
            if process:
                run = run_process(engine, players, rounds, seed)
                (ours if engine == OURS else theirs).append(run)
            elif engine == OURS:
                if profiler is not None:
                    profiler.enable()
                ours.append(run_engine(players, rounds, seed, clock, progress))
                if profiler is not None:
                    profiler.disable()
            else:
                theirs.append(run_reference(players, rounds, seed, clock, progress))
    return Measured(ours, theirs)


# --- instructions per round (callgrind) ------------------------------------------------------


class CallgrindError(RuntimeError):
    """valgrind is missing or a run under it failed."""


def _callgrind_total(engine: str, players: int, rounds: int, seed: int, out: Path) -> int:
    """The instructions of one run of ``rounds`` rounds of ``engine`` under callgrind."""
    command = [
        "valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
        sys.executable, str(Path(__file__).resolve()), "--run-once", engine,
        "--players", str(players), "--rounds", str(rounds), "--seed", str(seed),
    ]  # fmt: skip
    env = dict(os.environ, PYTHONHASHSEED="0")  # the same dict and set orders every run
    done = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
    if done.returncode != 0:
        tail = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise CallgrindError(f"callgrind run of {engine} failed ({done.returncode}): {tail}")
    match = re.search(r"^(?:summary|totals): (\d+)", out.read_text(), re.MULTILINE)
    if match is None:
        raise CallgrindError(f"{out}: no instruction total in callgrind's output")
    return int(match.group(1))


def instructions_per_round(
    engine: str, players: int, rounds: int, seed: int
) -> float:
    """(instructions of ``rounds`` rounds - instructions of one round) / (``rounds`` - 1)."""
    with tempfile.TemporaryDirectory() as tmp:
        totals = []
        for n in (rounds, 1):
            _progress(f"callgrind: {engine}, {players} players, {n} rounds ...")
            totals.append(_callgrind_total(engine, players, n, seed, Path(tmp) / f"cg.{n}"))
    return (totals[0] - totals[1]) / (rounds - 1)


def _run_once(engine: str, players: int, rounds: int, seed: int) -> int:
    """One untimed run, for callgrind."""
    if engine == OURS:
        run_engine(players, rounds, seed)
    else:
        run_reference(players, rounds, seed)
    return 0


# --- report ----------------------------------------------------------------------------------


BUILD_NAMES: Final = {
    "pure": "pure Python (the source as it is)",
    "compiled": "compiled (mypyc, UNO_TABLE_COMPILE=1)",
}


def markdown(measured: Sequence[Measured], clock: str = "cpu") -> str:
    counted = any(m.instructions for m in measured)
    head = (
        "| engine | players | rounds | actions | actions/round | capped | rounds/s | actions/s"
        " | ours/RLCard rounds/s |"
    )
    rule = "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
    if counted:
        head += " instructions/round |"
        rule += "---:|"
    lines = [head, rule]
    for m in measured:
        ours, theirs, ratio = m.median_ours, m.median_theirs, m.ratio
        for r in (ours, theirs):
            if r is None:
                continue
            cell = f"{ratio:.2f}x" if r is ours and ratio is not None else ""
            line = (
                f"| {r.engine} | {r.players} | {r.rounds:,} | {r.actions:,}"
                f" | {r.actions_per_round:,.1f} | {r.capped} | {r.rounds_per_s:,.0f}"
                f" | {r.actions_per_s:,.0f} | {cell} |"
            )
            if counted:
                count = (m.instructions or {}).get(r.engine)
                line += f" {count:,.0f} |" if count is not None else " |"
            lines.append(line)
    lines.append("")
    lines.append(f"uno-table build: {BUILD_NAMES[BUILD]}  ")
    lines.append(f"timed by: {CLOCK_NAMES[clock]}  ")
    for m in measured:
        if m.theirs:
            spread = ", ".join(f"{r:.2f}x" for r in sorted(m.ratios))
            lines.append(f"{m.players} players, ratio per repetition: {spread}  ")
        if m.instructions and len(m.instructions) == 2:
            fewer = m.instructions[RLCARD] / m.instructions[OURS]
            lines.append(
                f"{m.players} players, RLCard's instructions per round / ours: {fewer:.2f}x  "
            )
    ratios = [m.ratio for m in measured if m.ratio is not None]
    if len(ratios) != len(measured):
        lines.append("2x target: not checked (RLCard was not run)")
    else:
        met = all(r >= TARGET_RATIO for r in ratios)
        lines.append(
            f"2x target (ours >= {TARGET_RATIO:g} x RLCard rounds/s at every player count, "
            f"median of {len(measured[0].ours)} repetitions): "
            f"{'MET' if met else 'NOT MET'} (lowest ratio {min(ratios):.2f}x)"
        )
    return "\n".join(lines)


def report_json(measured: Sequence[Measured], args: argparse.Namespace) -> str:
    return json.dumps(
        {
            "unit": "a round: from the deal to a player's last card",
            "build": BUILD,
            "policy": POLICY,
            "seed": args.seed,
            "target_ratio": TARGET_RATIO,
            "repeat": args.repeat,
            "clock": args.clock,
            "profiled": args.profile,
            "runs": [
                {
                    "players": m.players,
                    "uno_table": m.median_ours.as_dict(),
                    "rlcard": theirs.as_dict() if (theirs := m.median_theirs) else None,
                    "ratio_rounds_per_s": round(r, 3) if (r := m.ratio) is not None else None,
                    "ratios_per_repetition": [round(x, 3) for x in m.ratios],
                    "instructions_per_round": (
                        {k: round(v) for k, v in m.instructions.items()}
                        if m.instructions
                        else None
                    ),
                }
                for m in measured
            ],
        },
        indent=2,
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=2_000, help="rounds per run and engine")
    parser.add_argument("--repeat", type=int, default=5, help="runs per engine and count")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--clock",
        choices=sorted([*CLOCKS, PROCESS]),
        default="cpu",
        help="time the play by this process's CPU time (default) or by wall-clock time, or "
        "(process) each run as a new Python process by the wall clock, start to exit",
    )
    parser.add_argument("--players", type=int, nargs="+", default=[2, 4])
    parser.add_argument("--json", action="store_true", help="print JSON instead of Markdown")
    parser.add_argument("--no-rlcard", action="store_true", help="measure our engine only")
    parser.add_argument(
        "--profile",
        action="store_true",
        help="profile our engine's runs (cProfile, by tottime) and print the top to stderr",
    )
    parser.add_argument(
        "--callgrind",
        action="store_true",
        help="also count instructions per round with valgrind's callgrind",
    )
    parser.add_argument(
        "--callgrind-rounds", type=int, default=200, help="rounds of a callgrind run"
    )
    parser.add_argument("--run-once", choices=(OURS, RLCARD), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    for name in ("rounds", "repeat"):
        if getattr(args, name) < 1:
            parser.error(f"--{name} must be at least 1")
    if args.callgrind_rounds < 2:
        parser.error("--callgrind-rounds must be at least 2")
    if any(not 2 <= p <= 10 for p in args.players):
        parser.error("--players takes player counts from 2 to 10")
    if args.run_once is not None:
        return _run_once(args.run_once, args.players[0], args.rounds, args.seed)

    with_rlcard = not args.no_rlcard and rlcard_available()
    if not args.no_rlcard and not with_rlcard:
        _progress("rlcard is not installed: measuring uno-table only (pip install -e '.[bench]')")
    if args.callgrind and shutil.which("valgrind") is None:
        parser.error("--callgrind needs valgrind (Debian: apt-get install valgrind)")
    process = args.clock == PROCESS
    if process and (args.profile or args.callgrind):
        parser.error("--clock process times whole processes: no --profile or --callgrind")
    profiler = cProfile.Profile() if args.profile else None

    measured = []
    for players in args.players:
        clock = CLOCKS.get(args.clock, time.perf_counter)
        try:
            m = measure(
                players, args.rounds, args.seed, args.repeat, with_rlcard, clock, profiler, process
            )
        except ProcessError as exc:
            print(f"engine.py: {exc}", file=sys.stderr)
            return 2
        if args.callgrind:
            engines = (OURS, RLCARD) if with_rlcard else (OURS,)
            try:
                counts = {
                    e: instructions_per_round(e, players, args.callgrind_rounds, args.seed)
                    for e in engines
                }
            except CallgrindError as exc:
                print(f"engine.py: {exc}", file=sys.stderr)
                return 2
            m = Measured(m.ours, m.theirs, counts)
        measured.append(m)

    if args.json:
        print(report_json(measured, args))
    else:
        print(markdown(measured, args.clock))
        if args.profile:
            print("\n(our timings include cProfile overhead)")

    if profiler is not None:
        stats = pstats.Stats(profiler, stream=sys.stderr)
        stats.sort_stats("tottime").print_stats(30)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
