"""The heuristic bot against the random bot, and the demo's speed.

    python bench/bots.py [--rounds 2000] [--seed 1] [--demos 5]

1. ``--rounds`` two-player rounds on the pure engine, heuristic against random, half of them
   with the heuristic bot in the first seat: its win rate with a 95% Wilson interval.
   Target: above 60%.
2. ``--demos`` fast demo matches (three heuristic bots, official rules, to 500 points) through
   the referee's loop and virtual readers, without and with every fault injected: seconds per
   match. Target: a match "in seconds".
"""

from __future__ import annotations

import argparse
import statistics
import time

from sim.hardware.faults import Faults
from sim.players.arena import bot_selfplay, wilson
from sim.tabletop.demo import DemoConfig, run_demo


def duel(rounds: int, seed: int) -> None:
    start = time.perf_counter()
    first = bot_selfplay(["heuristic", "random"], rounds // 2, seed)
    second = bot_selfplay(["random", "heuristic"], rounds - rounds // 2, seed + 1)
    took = time.perf_counter() - start
    wins = first.wins[0] + second.wins[1]
    low, high = wilson(wins, rounds)
    print(f"heuristic vs random, {rounds} two-player rounds: heuristic wins {wins} "
          f"= {wins / rounds:.1%} (95% interval {low:.1%} to {high:.1%}); "
          f"in seat 1 {first.wins[0]}/{first.rounds}, in seat 2 {second.wins[1]}/{second.rounds}; "
          f"capped {first.capped + second.capped}; {rounds / took:,.0f} rounds/s")


def demos(count: int, seed: int) -> None:
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
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--demos", type=int, default=5)
    args = ap.parse_args()
    duel(args.rounds, args.seed)
    demos(args.demos, args.seed)


if __name__ == "__main__":
    main()
