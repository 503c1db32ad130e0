"""The same game with and without radio noise, over many seeds: ``demo --noise LEVEL`` against
``demo --noise off`` for each seed, preset (official, house, musician), 2 to 6 players and both
hand-tracking modes, a few rounds each.

    python bench/noise.py [--seeds 30] [--rounds 2] [--noise harsh]

A game is the same when every line of the transcript but those about readers (status, a card
put down again) is the same, and the accepted actions and scores are. Prints one JSON object:
games played, games that differed (target 0), the wall and CPU seconds of the noisy games
against the clean ones, the simulated seconds of polling, and the effects injected and dealt
with, summed over the games.
"""

from __future__ import annotations

import argparse
import json
import re
import time
from collections import Counter

from sim.tabletop.demo import DemoConfig, DemoResult, run_demo
from table.errors import TableError

PRESETS = ("official", "house", "musician")
NUMBER = re.compile(r"(\d+) ([A-Za-z][A-Za-z -]+?)(?=[,;(]|$)")
READER_LINE = re.compile(r"reader|no read", re.IGNORECASE)


def play(seed: int, rounds: int, noise: str) -> tuple[DemoResult, float, float]:
    """One game of the bench's pattern for ``seed``; with its wall and CPU seconds."""
    cfg = DemoConfig(seed=seed, fast=True, voice="captions", rounds=rounds, noise=noise,
                     preset=PRESETS[seed % 3], players=2 + seed % 5,
                     hands=("full", "counts")[seed // 5 % 2])
    wall, cpu = time.perf_counter(), time.process_time()
    result = run_demo(cfg)
    return result, time.perf_counter() - wall, time.process_time() - cpu


def same(a: DemoResult, b: DemoResult) -> bool:
    """The same game: every line but those about readers, the actions and the scores."""
    def game(r: DemoResult) -> list[str]:
        return [line for line in r.transcript if not READER_LINE.search(line)]
    return game(a) == game(b) and (a.actions, a.scores) == (b.actions, b.scores)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=30)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--noise", choices=("realistic", "harsh"), default="harsh")
    args = parser.parse_args()
    differed: list[int] = []
    broken: dict[int, str] = {}  # seeds whose clean game itself fails (not the radio's doing)
    totals: Counter[str] = Counter()
    clock = Counter[str]()
    for seed in range(1, args.seeds + 1):
        try:
            clean, wall, cpu = play(seed, args.rounds, "off")
        except TableError as exc:
            broken[seed] = str(exc)
            continue
        noisy, nwall, ncpu = play(seed, args.rounds, args.noise)
        clock.update({"clean_wall": wall, "clean_cpu": cpu, "noisy_wall": nwall,
                      "noisy_cpu": ncpu})
        if not same(clean, noisy):
            differed.append(seed)
        head, _, rest = noisy.noise.partition(" s of polls: ")
        totals["simulated_s"] += int(head.rsplit(" ", 1)[1])
        for n, words in NUMBER.findall(rest):
            totals[words.strip()] += int(n)
    print(json.dumps({
        "noise": args.noise, "games": args.seeds, "rounds_each": args.rounds,
        "differed": differed, "clean_game_failed": broken,
        **{k: round(v, 1) for k, v in clock.items()},
        **dict(totals),
    }))


if __name__ == "__main__":
    main()
