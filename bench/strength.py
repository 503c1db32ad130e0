"""The expert's strength targets on duplicate deals, as many rounds as a run can afford.

    python bench/strength.py --out FILE [--deals 5000] [--budget N] [--seed 1]
                             [--only NAME,...]
    python bench/strength.py --out FILE --summary [--json]

Three pairings, the issue's targets: ``expert-heuristic`` (2 players, at least 59.5%),
``expert-mix`` (2 players, at least 57%) and ``expert-3heuristic`` (one expert among three
``heuristic`` bots, 4 players, at least 30%). Each deal (the ladder's deals:
``sim.players.ladder.deal_seed``, the same hands, pile and chance) is played once per seat of
the expert: ``A B`` and ``B A`` at 2 players, the expert rotated through the 4 seats at 4. A
duplicate round is one of those games, so 10,000 rounds are 5,000 deals at 2 players and 2,500
at 4. The pairings take turns deal by deal, so a run stopped at any point has measured all
three about as far; each deal is appended to ``--out`` as one JSON line (the expert's wins, the
games, this process's CPU seconds for it), and a run started again on the same file goes on
from the deals it holds.

``--summary`` reads the file: per pairing the expert's share of the games with a 95% interval
over the deals (the deal is the unit that is independent: its games share the cards), the
Wilson interval of the games beside it, the rounds per CPU second, and what 10,000 rounds
would cost at that rate.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from sim.players.arena import wilson
from sim.players.ladder import deal_seed, play_deal
from table.analysis.search import DEFAULT_ITERATIONS
from table.rules import make_options

PAIRINGS = {"expert-heuristic": ("heuristic", 2, 0.595),
            "expert-mix": ("mix", 2, 0.57),
            "expert-3heuristic": ("heuristic", 4, 0.30)}
GOAL = 10_000


def seatings(expert: str, other: str, players: int) -> list[tuple[str, ...]]:
    """One expert among ``players - 1`` copies of ``other``, in each seat in turn."""
    return [tuple(expert if i == seat else other for i in range(players))
            for seat in range(players)]


def play(out: Path, deals: int, budget: int, seed: int, only: list[str]) -> None:
    """Play the deals not in ``out`` yet, the pairings taking turns, appending a line each."""
    expert = "expert" if budget == DEFAULT_ITERATIONS else f"expert:{budget}"
    done = {(r["pairing"], r["deal"]) for r in read(out)}
    options = make_options("official")
    with out.open("a", encoding="utf-8") as sink:
        for d in range(deals):
            for name in only:
                if (name, d) in done:
                    continue
                other, players, _ = PAIRINGS[name]
                begin = time.process_time()
                wins = games = 0
                for seat, seating in enumerate(seatings(expert, other, players)):
                    winner = play_deal(seating, options, deal_seed(seed, d))
                    if winner is not None:
                        games += 1
                        wins += winner == seat
                row = {"pairing": name, "deal": d, "expert": expert, "seed": seed,
                       "wins": wins, "games": games, "seatings": players,
                       "cpu_s": round(time.process_time() - begin, 4)}
                sink.write(json.dumps(row) + "\n")
                sink.flush()
            if (d + 1) % 10 == 0:
                print(f"strength: deal {d + 1}/{deals}", file=sys.stderr, flush=True)


def read(out: Path) -> list[dict[str, Any]]:
    """The deals recorded in ``out`` (none when it does not exist yet)."""
    if not out.exists():
        return []
    return [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines() if line]


def summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Per pairing: rate, intervals, rounds, rounds per CPU second, cost of 10,000 rounds."""
    report: dict[str, Any] = {}
    for name, (_, players, target) in PAIRINGS.items():
        mine = [r for r in rows if r["pairing"] == name]
        games = sum(r["games"] for r in mine)
        if not games:
            continue
        wins = sum(r["wins"] for r in mine)
        rate = wins / games
        shares = [r["wins"] / r["games"] for r in mine if r["games"]]
        spread = statistics.stdev(shares) / math.sqrt(len(shares)) if len(shares) > 1 else 0.5
        half = 1.96 * spread
        low, high = wilson(wins, games)
        cpu = sum(r["cpu_s"] for r in mine)
        per_s = sum(r["seatings"] for r in mine) / cpu
        report[name] = {
            "players": players, "expert": mine[0]["expert"], "deals": len(mine),
            "rounds": games, "wins": wins, "win_rate": round(rate, 4),
            "ci95_deals": [round(rate - half, 4), round(rate + half, 4)],
            "ci95_wilson": [round(low, 4), round(high, 4)], "target": target,
            "cpu_s": round(cpu, 1), "rounds_per_cpu_s": round(per_s, 3),
            "cpu_h_for_10000": round(GOAL / per_s / 3600, 2)}
    return report


def main() -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--out", type=Path, required=True, help="the JSON-lines file of the deals")
    ap.add_argument("--deals", type=int, default=5000, help="deals a pairing (default 5000)")
    ap.add_argument("--budget", type=int, default=DEFAULT_ITERATIONS,
                    help=f"the expert's playouts a decision (default {DEFAULT_ITERATIONS})")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--only", default="", help=f"pairings, by name (default {','.join(PAIRINGS)})")
    ap.add_argument("--summary", action="store_true", help="report the file, play nothing")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    only = [n for n in args.only.split(",") if n] or list(PAIRINGS)
    for name in only:
        if name not in PAIRINGS:
            ap.error(f"--only {name!r}: use {', '.join(PAIRINGS)}")
    if not args.summary:
        play(args.out, args.deals, args.budget, args.seed, only)
    report = summary(read(args.out))
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    for name, r in report.items():
        print(f"{name} ({r['expert']}, {r['players']} players): {r['win_rate']:.1%} of "
              f"{r['rounds']} rounds ({r['deals']} deals), 95% {r['ci95_deals'][0]:.1%} to "
              f"{r['ci95_deals'][1]:.1%} over deals (Wilson {r['ci95_wilson'][0]:.1%} to "
              f"{r['ci95_wilson'][1]:.1%}); target {r['target']:.1%}; "
              f"{r['rounds_per_cpu_s']} rounds per CPU s: 10,000 rounds "
              f"{r['cpu_h_for_10000']} CPU h")
    return 0


if __name__ == "__main__":
    sys.exit(main())
