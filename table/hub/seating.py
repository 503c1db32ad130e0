"""Who sits at which table in each round of the evening: pure functions of the players, the
round, the opponents already met and the standings.

- ``round-robin``: the circle method (one player fixed, the others turning one seat a round),
  cut into tables in order: with tables of two, everyone meets everyone once.
- ``random``: random tables with no repeat opponents while that is possible (many random
  greedy seatings tried, the one with the fewest repeats kept, seeded so a round is seated
  the same again).
- ``swiss``: by standing, the first players at the first table, and so on.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Final

FORMATS: Final = ("round-robin", "random", "swiss")
TRIES: Final = 2000


def table_sizes(count: int, size: int) -> list[int]:
    """``count`` players at tables of ``size``, the tables as even as possible (never fewer
    than 2 at a table): 10 players at tables of 4 sit 4, 3, 3."""
    tables = max(1, -(-count // size))
    base, extra = divmod(count, tables)
    return [base + 1] * extra + [base] * (tables - extra)


def cut(order: Sequence[str], size: int) -> list[list[str]]:
    """Cut players in order into tables of at most ``size``, as even as they go."""
    out: list[list[str]] = []
    at = 0
    for n in table_sizes(len(order), size):
        out.append(list(order[at:at + n]))
        at += n
    return out


def round_robin(players: Sequence[str], round_no: int, size: int) -> list[list[str]]:
    """Round ``round_no`` of a round-robin (the circle method): its pairs cut into tables."""
    ring = list(players) + ([""] if len(players) % 2 else [])
    rest = ring[1:]
    k = (round_no - 1) % max(1, len(rest))
    turned = [ring[0], *rest[-k:], *rest[:-k]] if k else ring
    # Pairs from the two ends of the circle, then the pairs cut into tables.
    half = len(turned) // 2
    pairs = [(turned[i], turned[-1 - i]) for i in range(half)]
    order = [p for pair in pairs for p in pair if p]
    return cut(order, size)


def repeats(tables: Sequence[Sequence[str]], met: set[frozenset[str]]) -> int:
    """How many pairs seated together in ``tables`` have met before (``met``)."""
    return sum(1 for t in tables for i, a in enumerate(t) for b in t[i + 1:]
               if frozenset((a, b)) in met)


def random_groups(players: Sequence[str], size: int, met: set[frozenset[str]],
                  seed: int) -> list[list[str]]:
    """Many random greedy seatings (each player, in a shuffled order, at the first table with
    room where they have met nobody, else where they have met the fewest); the one with the
    fewest repeat opponents."""
    rng = random.Random(seed)
    sizes = table_sizes(len(players), size)
    best: list[list[str]] | None = None
    best_repeats = -1
    order = list(players)
    for _ in range(TRIES):
        rng.shuffle(order)
        tables: list[list[str]] = [[] for _ in sizes]
        for p in order:
            open_tables = [t for t, n in zip(tables, sizes, strict=True) if len(t) < n]
            clash = [sum(frozenset((p, q)) in met for q in t) for t in open_tables]
            open_tables[clash.index(min(clash))].append(p)
        n = repeats(tables, met)
        if best is None or n < best_repeats:
            best, best_repeats = tables, n
            if n == 0:
                break
    assert best is not None
    return best


def swiss(ranked: Sequence[str], size: int) -> list[list[str]]:
    """Swiss seating: players of like standing together, best first (``ranked`` in order)."""
    return cut(ranked, size)


def seat(format_name: str, players: Sequence[str], round_no: int, size: int,
         met: set[frozenset[str]], ranked: Sequence[str], seed: int) -> list[list[str]]:
    """The tables of round ``round_no`` (from 1). ``ranked``: the players by standing."""
    if format_name == "round-robin":
        return round_robin(players, round_no, size)
    if format_name == "random":
        return random_groups(players, size, met, seed * 1000 + round_no)
    order = [p for p in ranked if p in players] + [p for p in players if p not in ranked]
    return swiss(order, size)
