"""The bots head to head, the expert's time per decision, and the demo's speed.

    python bench/bots.py [--rounds 4000] [--budget N] [--seed 1] [--timing 400] [--demos 0]
                         [--only NAME,...] [--selfplay 20] [--pi] [--json]

1. Head to head on the pure engine, official rules, ``--rounds`` rounds each (the seats taking
   turns: each bot sits in each seat as often), a 95% Wilson interval on the win rate of the
   first bot named:
   ``expert-heuristic`` (2 players, target: lower bound above 60%), ``expert-mix`` (2 players,
   target above 60%), ``expert-3heuristic`` (one expert among three heuristic bots, 4 players,
   target above 35%; fair share 25%), ``prior-heuristic`` and ``prior-mix`` (the expert's
   first choice alone, without search: what its search adds), ``mix-random`` and
   ``heuristic-random`` (2 players, to place our numbers beside chausner/UnoAI's: MixBot 66.4%
   against a random player).
   The expert's budget is ``--budget`` playouts a decision (default: its full budget). A budget
   in playouts, not in time, makes the result the same on a loaded machine as on an idle one.
2. ``timing``: the expert's time per decision at its default budget in CPU time, p50 and p95,
   over every decision with more than one action open and over those it searched (``--timing``
   of them), in 2-player rounds against the heuristic bot, and its playouts per second while
   searching; and rounds per second of expert self-play (2 players, ``--selfplay`` rounds).
   Each decision's wall clock too, p50 and p95, beside the load average: the figure to read
   with ``--pi``, which runs the whole bench again as a child on bench/pi.py's budget (one core,
   a quarter of it, 400 MB; cgroup v1, as root), where a decision's wall clock is what a table
   on a Pi Zero 2 W waits for it, as the taps of bench/pi.py are.
3. ``--demos`` fast demo matches (three heuristic bots) through the referee's loop, without and
   with every fault injected: seconds per match (0: skipped; not with ``--json``).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from sim.players.arena import ArenaStats, bot_selfplay, wilson
from sim.players.bots import SeatView, make_bot, seat_rng
from sim.players.expert import ExpertBot
from table.analysis.search import DEFAULT_ITERATIONS

TARGETS = {"expert-heuristic": 0.60, "expert-mix": 0.60, "expert-3heuristic": 0.35}


def head_to_head(first: str, other: str, players: int, rounds: int, seed: int) -> dict[str, Any]:
    """``first`` in each seat in turn against ``players - 1`` copies of ``other``."""
    start = time.perf_counter()
    wins = played = capped = 0
    for seat in range(players):
        names = [other] * players
        names[seat] = first
        share = rounds // players + (seat < rounds % players)
        stats: ArenaStats = bot_selfplay(names, share, seed + seat)
        wins += stats.wins[seat]
        played += stats.rounds
        capped += stats.capped
    took = time.perf_counter() - start
    low, high = wilson(wins, played)
    return {"players": players, "rounds": played, "wins": wins,
            "win_rate": round(wins / played, 4), "ci95": [round(low, 4), round(high, 4)],
            "capped": capped, "seconds": round(took, 1)}


def timing(decisions: int, seed: int, selfplay_rounds: int = 20) -> dict[str, Any]:
    """The expert's time per searched decision at its default budget, and self-play speed."""
    expert = ExpertBot(seat_rng(seed, 0))
    times: list[float] = []
    walls: list[float] = []
    searched: list[float] = []
    act = expert.act

    def timed(view: SeatView) -> Any:
        before = expert.search.playouts
        begin, start = time.process_time(), time.perf_counter()  # this process's CPU time:
        action = act(view)  # what the load disturbs least (the search runs in one thread)
        took, wall = time.process_time() - begin, time.perf_counter() - start
        if len(set(view.legal)) > 1:
            times.append(took)
            walls.append(wall)
        if expert.search.playouts > before:
            searched.append(took)
        return action

    expert.act = timed  # type: ignore[method-assign]
    from sim.players import arena
    from table.analysis.selfplay import RandomTable
    from table.rules import make_options, new_game

    options = make_options("official")
    table = RandomTable(options, 2, seed)
    heuristic = make_bot("heuristic", seat_rng(seed, 1))
    stats = ArenaStats(["expert", "heuristic"])
    while len(searched) < decisions:
        s, _ = new_game(options, table.names, table.dealer(), table.deal())
        arena.play_bot_round(table, s, [expert, heuristic], stats)  # type: ignore[list-item]
    ms = sorted(t * 1000 for t in times)
    wall_ms = sorted(t * 1000 for t in walls)
    hard = sorted(t * 1000 for t in searched) or [0.0]
    playouts_per_s = expert.search.playouts / max(sum(searched), 1e-9)
    begin = time.process_time()
    selfplay = bot_selfplay(["expert", "expert"], selfplay_rounds, seed) if selfplay_rounds \
        else None
    took = time.process_time() - begin
    return {"budget": DEFAULT_ITERATIONS, "steps": expert.search.steps, "decisions": len(ms),
            "p50_ms": round(statistics.median(ms), 1),
            "p95_ms": round(ms[int(0.95 * (len(ms) - 1))], 1),
            "wall_p50_ms": round(statistics.median(wall_ms), 1),
            "wall_p95_ms": round(wall_ms[int(0.95 * (len(wall_ms) - 1))], 1),
            "load_average": os.getloadavg()[0],
            "searched": len(searched), "searched_p50_ms": round(statistics.median(hard), 1),
            "searched_p95_ms": round(hard[int(0.95 * (len(hard) - 1))], 1),
            "playouts_per_s": round(playouts_per_s),
            "expert_selfplay_rounds_per_s": round(selfplay.rounds / took, 2) if selfplay
            else None}


_IN_BUDGET = "UNO_TABLE_BENCH_ON_PI_BUDGET"


def on_pi_budget() -> int:
    """Run this bench again as a child on bench/pi.py's budget (its ``Budget``: one core by
    affinity, a quarter of it by the cgroup v1 cpu controller, 400 MB); what it could not set
    is said on stderr."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from pi import Budget  # bench/pi.py

    budget = Budget(f"uno-table-bots-bench-{os.getpid()}")
    print("budget: " + "; ".join(budget.by), file=sys.stderr, flush=True)
    try:
        done = subprocess.run([sys.executable, *sys.argv], check=False,
                              env={**os.environ, _IN_BUDGET: "1"}, preexec_fn=budget.enter)
    finally:
        budget.remove()
    return done.returncode


def demos(count: int, seed: int) -> None:
    """Seconds per fast demo match (three heuristic bots), without and with faults."""
    from sim.hardware.faults import Faults
    from sim.tabletop.demo import DemoConfig, run_demo

    settings = {
        "no faults": ("full", Faults()),
        "drop 10%, duplicate 10%, unplug 2%": (
            "full", Faults(drop=0.1, duplicate=0.1, unplug=0.02)
        ),
        "noisy serial pty + unplug 2%": ("full", Faults(noisy_serial=True, unplug=0.02)),
        "only a play pad (--hands counts)": ("counts", Faults()),
    }
    for label, (hands, faults) in settings.items():
        times: list[float] = []
        rounds = actions = 0
        for i in range(count):
            start = time.perf_counter()
            cfg = DemoConfig(seed=seed + i, fast=True, voice="captions", faults=faults, hands=hands)
            result = run_demo(cfg)
            times.append(time.perf_counter() - start)
            rounds += len(result.winners)
            actions += result.actions
        print(f"demo match, 3 players, {label}: median {statistics.median(times):.2f} s, "
              f"max {max(times):.2f} s per match ({rounds / count:.1f} rounds, "
              f"{actions / count:.0f} accepted actions each)")


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--rounds", type=int, default=4000, help="rounds a head to head (0: none)")
    ap.add_argument("--budget", type=int, default=DEFAULT_ITERATIONS,
                    help=f"the expert's playouts a decision (default {DEFAULT_ITERATIONS})")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--timing", type=int, default=400, help="decisions timed (0: skip)")
    ap.add_argument("--selfplay", type=int, default=20,
                    help="rounds of expert self-play timed after the decisions (0: none)")
    ap.add_argument("--demos", type=int, default=0)
    ap.add_argument("--only", default="", help="head-to-heads to run, by name (default all)")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--pi", action="store_true",
                    help="run on bench/pi.py's budget (one core, a quarter of it, 400 MB: "
                         "cgroup v1, as root); the timing's wall clock is then the figure")
    args = ap.parse_args()
    if args.pi and not os.environ.get(_IN_BUDGET):
        sys.exit(on_pi_budget())
    expert = "expert" if args.budget == DEFAULT_ITERATIONS else f"expert:{args.budget}"
    duels = {
        "expert-heuristic": (expert, "heuristic", 2),
        "expert-mix": (expert, "mix", 2),
        "expert-3heuristic": (expert, "heuristic", 4),
        "prior-heuristic": ("prior", "heuristic", 2),
        "prior-mix": ("prior", "mix", 2),
        "mix-random": ("mix", "random", 2),
        "heuristic-random": ("heuristic", "random", 2),
    }
    only = [n for n in args.only.split(",") if n] or list(duels)
    for name in only:
        if name not in duels:
            ap.error(f"--only {name!r}: use {', '.join(duels)}")
    if args.rounds == 0:
        only = []
    out: dict[str, Any] = {"rules": "official", "budget": args.budget, "seed": args.seed}
    for name in only:
        first, other, players = duels[name]
        result = head_to_head(first, other, players, args.rounds, args.seed)
        out[name] = result
        target = TARGETS.get(name)
        if not args.json:
            verdict = "" if target is None else (
                f"; target lower bound > {target:.0%}: "
                + ("met" if result["ci95"][0] > target else "NOT met"))
            print(f"{name} ({players} players, {result['rounds']} rounds): "
                  f"{result['win_rate']:.1%} (95% {result['ci95'][0]:.1%} to "
                  f"{result['ci95'][1]:.1%}), capped {result['capped']}, "
                  f"{result['seconds']} s{verdict}", flush=True)
    if args.timing:
        out["timing"] = timing(args.timing, args.seed, args.selfplay)
        if not args.json:
            t = out["timing"]
            print(f"expert at {t['budget']} playouts: {t['decisions']} decisions, p50 "
                  f"{t['p50_ms']} ms, p95 {t['p95_ms']} ms; {t['searched']} searched: p50 "
                  f"{t['searched_p50_ms']} ms, p95 {t['searched_p95_ms']} ms; wall clock "
                  f"p50 {t['wall_p50_ms']} ms, p95 {t['wall_p95_ms']} ms (load average "
                  f"{t['load_average']:.1f}); "
                  f"{t['playouts_per_s']} playouts/s "
                  "while searching; expert self-play "
                  f"{t['expert_selfplay_rounds_per_s']} rounds/s", flush=True)
    if args.demos and not args.json:
        demos(args.demos, args.seed)
    if args.json:
        print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
