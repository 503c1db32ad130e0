"""Self-play speed under each rules preset: what the local and Musician rules cost.

Every preset takes the one play path (``table/rules/play.py``); a variant adds the hooks of
the rules it turns on (``table/rules/variants/``). This prints turns per
second and mean turns per round of ``table.analysis.selfplay`` (the random-but-lively players)
for every preset, same seed, same number of rounds.

Usage::

    python bench/variants.py [--games N] [--players P] [--seed S] [--json]
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from table.analysis.selfplay import RandomTable, Stats, rounds
from table.rules import PRESETS, make_options


def measure(preset: str, games: int, players: int, seed: int) -> dict[str, object]:
    table = RandomTable(make_options(preset), players, seed)
    stats = Stats()
    start = time.perf_counter()
    for done, _ in enumerate(rounds(table, games, stats), start=1):
        if done % max(1, games // 4) == 0:
            print(f"  {preset}: {done}/{games} rounds", file=sys.stderr, flush=True)
    seconds = time.perf_counter() - start
    return {
        "preset": preset,
        "players": players,
        "games": games,
        "turns_per_s": round(stats.turns / seconds),
        "mean_turns_per_round": round(stats.turns / games, 1),
        "capped": stats.capped,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    rows = [measure(p, args.games, args.players, args.seed) for p in sorted(PRESETS)]
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    print("| preset | players | turns/s | mean turns per round |")
    print("|---|---:|---:|---:|")
    for r in rows:
        print(
            f"| {r['preset']} | {r['players']} | {r['turns_per_s']:,} | "
            f"{r['mean_turns_per_round']} |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
