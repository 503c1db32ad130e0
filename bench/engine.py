"""Self-play throughput of uno-table's rules engine, side by side with RLCard's raw UNO game.

Our engine plays complete rounds under the official rules with every feature on (Wild Draw Four
challenges, UNO calls, catches). The driver mirrors ``bench/rlcard_driver.py``: each turn it
picks a uniformly random action from ``legal_actions(state)`` with ``random.Random(seed)``.
On top of that, whenever ``out_of_turn_actions(state)`` is non-empty it takes a random one of
them with probability 0.5, and after every action ``RandomTable.supply_chance`` names the cards
that became unknown (reshuffled pile), as the seat pads of a real table would.

Actions taken from those lists go through ``apply_legal``, the engine's entry point for
actions it listed itself (it does not check a play again, as python-chess's ``push`` does not;
RLCard's ``step`` checks nothing either).

A turn is one call applying a game action (``Identify`` calls made by ``supply_chance`` are
not counted). Only the play is timed, as for RLCard: the dealer draw, the
deal, ``new_game`` and the rounds themselves. A uniformly random policy draws about as often as
it plays, so rounds are long; mean turns per round are printed for both engines so that turns/s
can be read in context. RLCard's games are some 30 times shorter, so it plays more of them
(``--rlcard-games``) for a comparable number of turns.

Each player count is measured ``--repeat`` times, the two engines alternating, with the same
seed each time (the same games); the table shows the median repetition of each engine, and
the ratio is the median of the per-repetition ratios, which is what a busy machine disturbs
least. Both engines are timed by the same clock: this process's CPU time by default (on a
shared machine, wall-clock time also counts the waits for a core), or ``--clock wall``.

Usage::

    python bench/engine.py [--games N] [--rlcard-games N] [--repeat R] [--seed S]
                           [--clock cpu|wall] [--players 2 4] [--json] [--profile]
"""

from __future__ import annotations

import argparse
import cProfile
import json
import pstats
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Final

sys.path.insert(0, str(Path(__file__).resolve().parent))  # run as a script: find rlcard_driver

from rlcard_driver import MAX_STEPS_PER_GAME, rlcard_available, run_rlcard

from table.analysis.selfplay import RandomTable
from table.rules import (
    Action,
    Options,
    Phase,
    Show,
    State,
    apply_in_place,
    apply_legal,
    legal_actions,
    make_options,
    new_game,
)
from table.rules.legal import out_of_turn_actions

MAX_ACTIONS_PER_ROUND: Final = 20_000
"""A round still running after this many turns is stopped and counted in ``capped``."""

TARGET_RATIO: Final = 2.0
"""Our turns/s must be at least this many times RLCard's."""

OUT_OF_TURN_PROBABILITY: Final = 0.5
CLOCKS: Final[dict[str, Callable[[], float]]] = {
    "cpu": time.process_time,  # this process's CPU time: what a busy machine disturbs least
    "wall": time.perf_counter,
}
PROGRESS_INTERVAL_S: Final = 2.0


@dataclass(frozen=True)
class Result:
    engine: str
    players: int
    games: int
    turns: int
    seconds: float
    capped: int
    cap: int

    @property
    def turns_per_s(self) -> float:
        return self.turns / self.seconds if self.seconds else 0.0

    @property
    def games_per_s(self) -> float:
        return self.games / self.seconds if self.seconds else 0.0

    @property
    def mean_turns(self) -> float:
        return self.turns / self.games if self.games else 0.0

    def as_dict(self) -> dict[str, object]:
        out: dict[str, object] = asdict(self)
        out["turns_per_s"] = round(self.turns_per_s, 1)
        out["games_per_s"] = round(self.games_per_s, 2)
        out["mean_turns_per_game"] = round(self.mean_turns, 2)
        return out


def bench_options() -> Options:
    """The official rules, with the features the benchmark must exercise stated explicitly."""
    options = make_options("official", challenge=True, uno_enforcement="catch", uno_catchers="any")
    assert options.challengeable
    return options


def _play_round(table: RandomTable, s: State, rng: random.Random) -> tuple[int, bool]:
    """Play the freshly dealt round ``s`` to its end. Returns (turns, capped)."""
    # The functions called every turn, bound once: locals are read faster than globals and
    # attributes. What is done per turn is the same.
    supply_chance = table.supply_chance
    choice = rng.choice
    chance = rng.random
    legal, late_actions, push = legal_actions, out_of_turn_actions, apply_legal
    cap = MAX_ACTIONS_PER_ROUND
    turns = 0
    supply_chance(s)
    play = Phase.PLAY  # a local is read faster than an enum member
    while s.phase is play:
        if turns >= cap:
            return turns, True
        acts: list[Action] = legal(s)
        if acts:
            push(s, choice(acts))
        elif s.awaiting_show is not None:
            # Only reachable when a challenged hand held unknown cards; supply_chance keeps every
            # hand known, so this is a safety net: show the (now fully known) hand.
            seat = s.awaiting_show
            apply_in_place(s, Show(seat, tuple(s.hands[seat].known)))
        else:  # pragma: no cover - a state in PLAY always has an action
            raise RuntimeError(f"no legal action in phase {s.phase} on turn {s.turn}")
        turns += 1
        supply_chance(s)
        late = late_actions(s)
        if late and chance() < OUT_OF_TURN_PROBABILITY:
            push(s, choice(late))
            turns += 1
            supply_chance(s)
    return turns, False


def run_engine(
    num_players: int,
    games: int,
    seed: int,
    progress: bool = False,
    clock: Callable[[], float] = time.perf_counter,
) -> Result:
    """Play ``games`` independent rounds (each a new match with a drawn dealer)."""
    if num_players < 2:
        raise ValueError(f"num_players must be at least 2, got {num_players}")
    if games < 1:
        raise ValueError(f"games must be at least 1, got {games}")
    options = bench_options()
    table = RandomTable(options, num_players, seed)
    rng = random.Random(seed)

    total_turns = 0
    capped = 0
    start = clock()
    next_report = time.monotonic() + PROGRESS_INTERVAL_S
    for played in range(1, games + 1):
        s, _ = new_game(options, table.names, table.dealer(), table.deal())
        turns, was_capped = _play_round(table, s, rng)
        total_turns += turns
        capped += was_capped
        if progress and (now := time.monotonic()) >= next_report:
            next_report = now + PROGRESS_INTERVAL_S
            _progress(f"  uno-table {num_players}p: {played}/{games} games, {total_turns} turns")
    elapsed = clock() - start
    return Result(
        "uno-table", num_players, games, total_turns, elapsed, capped, MAX_ACTIONS_PER_ROUND
    )


def run_reference(
    num_players: int, games: int, seed: int, clock: Callable[[], float] = time.perf_counter
) -> Result:
    raw = run_rlcard(num_players, games, seed, clock)
    return Result(
        "rlcard 1.2.0",
        num_players,
        games,
        int(raw["turns"]),
        raw["seconds"],
        int(raw["capped"]),
        MAX_STEPS_PER_GAME,
    )


def _progress(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def _ratio(ours: Result, theirs: Result | None) -> float | None:
    if theirs is None or not theirs.turns_per_s:
        return None
    return ours.turns_per_s / theirs.turns_per_s


@dataclass(frozen=True)
class Measured:
    """One player count: every repetition of both engines."""

    ours: list[Result]
    theirs: list[Result]

    @staticmethod
    def _median(runs: list[Result]) -> Result:
        return sorted(runs, key=lambda r: r.turns_per_s)[(len(runs) - 1) // 2]

    @property
    def median_ours(self) -> Result:
        return self._median(self.ours)

    @property
    def median_theirs(self) -> Result | None:
        return self._median(self.theirs) if self.theirs else None

    @property
    def ratios(self) -> list[float]:
        return [o.turns_per_s / t.turns_per_s for o, t in zip(self.ours, self.theirs, strict=True)]

    @property
    def ratio(self) -> float | None:
        """The median of the per-repetition ratios (``None`` without RLCard)."""
        return statistics.median(self.ratios) if self.theirs else None


def measure(
    players: int,
    games: int,
    rlcard_games: int,
    seed: int,
    repeat: int,
    with_rlcard: bool,
    clock: Callable[[], float] = time.perf_counter,
    profiler: cProfile.Profile | None = None,
) -> Measured:
    """Run both engines ``repeat`` times, alternating which goes first."""
    ours: list[Result] = []
    theirs: list[Result] = []
    for rep in range(1, repeat + 1):
        steps: list[str] = ["ours", "theirs"] if rep % 2 else ["theirs", "ours"]
        for step in steps:
            if step == "ours":
                _progress(f"uno-table, {players} players, {games} games, run {rep}/{repeat} ...")
                if profiler is not None:
                    profiler.enable()
                ours.append(run_engine(players, games, seed, progress=True, clock=clock))
                if profiler is not None:
                    profiler.disable()
            elif with_rlcard:
                _progress(
                    f"rlcard, {players} players, {rlcard_games} games, run {rep}/{repeat} ..."
                )
                theirs.append(run_reference(players, rlcard_games, seed, clock))
    return Measured(ours, theirs)


def markdown(measured: Sequence[Measured]) -> str:
    lines = [
        "| engine | players | games | turns | mean turns/game | capped | turns/s | games/s"
        " | ours/RLCard turns/s |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    ratios: list[float] = []
    for m in measured:
        ours, theirs, ratio = m.median_ours, m.median_theirs, m.ratio
        for r in (ours, theirs):
            if r is None:
                continue
            cell = f"{ratio:.2f}x" if r is ours and ratio is not None else ""
            lines.append(
                f"| {r.engine} | {r.players} | {r.games:,} | {r.turns:,} | {r.mean_turns:,.1f}"
                f" | {r.capped} | {r.turns_per_s:,.0f} | {r.games_per_s:,.2f} | {cell} |"
            )
        if ratio is not None:
            ratios.append(ratio)
    lines.append("")
    for m in measured:
        if m.theirs:
            spread = ", ".join(f"{r:.2f}x" for r in sorted(m.ratios))
            lines.append(f"{m.median_ours.players} players, ratio per repetition: {spread}  ")
    if len(ratios) != len(measured):
        lines.append("2x target: not checked (RLCard was not run)")
    else:
        met = all(r >= TARGET_RATIO for r in ratios)
        worst = min(ratios)
        lines.append(
            f"2x target (ours >= {TARGET_RATIO:g} x RLCard turns/s at every player count, "
            f"median of {len(measured[0].ours)} repetitions): "
            f"{'MET' if met else 'NOT MET'} (lowest ratio {worst:.2f}x)"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=200, help="our rounds per run")
    parser.add_argument(
        "--rlcard-games", type=int, default=6_000, help="RLCard's games per run (shorter games)"
    )
    parser.add_argument("--repeat", type=int, default=5, help="runs per engine and count")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--clock",
        choices=sorted(CLOCKS),
        default="cpu",
        help="time the runs by this process's CPU time (default) or by wall-clock time",
    )
    parser.add_argument("--players", type=int, nargs="+", default=[2, 4])
    parser.add_argument("--json", action="store_true", help="print JSON instead of Markdown")
    parser.add_argument("--no-rlcard", action="store_true", help="measure our engine only")
    parser.add_argument(
        "--profile",
        action="store_true",
        help="profile our engine's runs (cProfile, by tottime) and print the top to stderr",
    )
    args = parser.parse_args(argv)
    for name in ("games", "rlcard_games", "repeat"):
        if getattr(args, name) < 1:
            parser.error(f"--{name.replace('_', '-')} must be at least 1")

    with_rlcard = not args.no_rlcard and rlcard_available()
    if not args.no_rlcard and not with_rlcard:
        _progress("rlcard is not installed: measuring uno-table only (pip install -e '.[bench]')")
    profiler = cProfile.Profile() if args.profile else None

    measured = [
        measure(
            players,
            args.games,
            args.rlcard_games,
            args.seed,
            args.repeat,
            with_rlcard,
            CLOCKS[args.clock],
            profiler,
        )
        for players in args.players
    ]

    if args.json:
        report = {
            "seed": args.seed,
            "target_ratio": TARGET_RATIO,
            "repeat": args.repeat,
            "clock": args.clock,
            "profiled": args.profile,
            "runs": [
                {
                    "players": m.median_ours.players,
                    "uno_table": m.median_ours.as_dict(),
                    "rlcard": theirs.as_dict() if (theirs := m.median_theirs) else None,
                    "ratio_turns_per_s": round(r, 3) if (r := m.ratio) is not None else None,
                    "ratios_per_repetition": [round(x, 3) for x in m.ratios],
                }
                for m in measured
            ],
        }
        print(json.dumps(report, indent=2))
    else:
        print(markdown(measured))
        if args.profile:
            print("\n(our timings include cProfile overhead)")

    if profiler is not None:
        stats = pstats.Stats(profiler, stream=sys.stderr)
        stats.sort_stats("tottime").print_stats(30)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
