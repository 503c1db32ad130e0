"""Rule variants compared by self-play (``uno-table study``).

Each variant is a preset with options on top (``official+stacking=any``). For each variant and
player count, rounds are played on the engine in chunks of :data:`CHUNK` rounds; a chunk's
random generator is seeded from the study's seed, the variant, the player count and the chunk's
number alone, so the figures are the same whichever process plays which chunk, and whatever
``--jobs`` is. Each round is a fresh deal with a drawn dealer, played by one policy at every
seat (:mod:`table.analysis.policies`).

Per variant and player count: round length in turns (its distribution), the winner's points
per round, how often the first player and the dealer's left-hand neighbour win (with 95%
Wilson intervals), how rounds end (plainly, by Chin or by Don), and the penalties per round.
"""

from __future__ import annotations

import itertools
import math
import os
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

from table.analysis.policies import POLICIES
from table.analysis.selfplay import RandomTable, Stats, play_round
from table.errors import TableError
from table.rules import Options, Phase, make_options, new_game
from table.rules.events import PENALTY_KINDS

if TYPE_CHECKING:
    from concurrent.futures import Future

CHUNK: Final = 200  # rounds a chunk; a chunk is the unit of work and of seeding
Z95: Final = 1.959964  # the normal quantile of a two-sided 95% interval
# The study's policy names; ``heuristic`` is the lively player of self-play.
POLICY_NAMES: Final = {"heuristic": "lively", "play-first": "play-first", "random": "random"}
MAX_PLAYERS: Final = 10
# Rounds per variant and player count: a million gives a first-seat rate to about 0.1% (its
# 95% interval), and takes hours at the heuristic's speed; more is a mistyped number.
MAX_ROUNDS: Final = 1_000_000


class StudyError(TableError, ValueError):
    """A study that cannot be run as asked (an unknown variant, a bad player range...)."""


@dataclass(frozen=True)
class Variant:
    """One variant of a study: its name as written, and the options it stands for."""

    name: str  # as the user wrote it: official+stacking=any
    options: Options


def parse_variants(text: str, common: Sequence[str] = ()) -> list[Variant]:
    """``official,official+stacking=any`` (and ``--set`` pairs for all) -> variants."""
    out: list[Variant] = []
    for name in (part.strip() for part in text.split(",")):
        if not name:
            raise StudyError(f"--rules {text!r}: an empty variant; write PRESET[+OPTION=VALUE]"
                             ",... e.g. official,official+stacking=any")
        preset, *pairs = name.split("+")
        overrides: dict[str, str] = {}
        for pair in [*common, *pairs]:
            key, eq, value = pair.partition("=")
            if not eq or not key.strip():
                raise StudyError(f"{pair!r}: write OPTION=VALUE, e.g. stacking=any")
            overrides[key.strip()] = value.strip()
        try:
            options = make_options(preset.strip(), **overrides)
        except TableError as exc:
            raise StudyError(f"variant {name!r}: {exc}") from None
        if any(v.name == name for v in out):
            raise StudyError(f"--rules names {name!r} twice")
        out.append(Variant(name, options))
    return out


def parse_players(text: str) -> list[int]:
    """``4``, ``2-6`` or ``3,5`` -> player counts. Each bound is checked before a range is
    made of it: ``2-999999999`` is refused, not counted out."""
    counts: set[int] = set()
    for part in text.split(","):
        low, dash, high = part.partition("-")
        try:
            first, last = int(low), int(high) if dash else int(low)
        except ValueError:
            raise StudyError(f"--players {text!r}: write N, A-B or N,M "
                             f"(2 to {MAX_PLAYERS})") from None
        if not 2 <= first <= last <= MAX_PLAYERS:
            raise StudyError(f"--players {text!r}: player counts go from 2 to {MAX_PLAYERS} "
                             "(A-B with A at most B)")
        counts.update(range(first, last + 1))
    return sorted(counts)


@dataclass
class Tally:
    """What a number of rounds of one variant at one player count came to. Counts only, so
    tallies add up in any order to the same result."""

    rounds: int = 0
    capped: int = 0  # rounds stopped at MAX_ACTIONS (left out of every figure)
    turns: Counter[int] = field(default_factory=Counter)  # turns -> rounds
    points: Counter[int] = field(default_factory=Counter)  # the winner's points -> rounds
    first_wins: int = 0
    left_wins: int = 0
    finishes: Counter[str] = field(default_factory=Counter)  # plain | chin | don
    penalties: Counter[str] = field(default_factory=Counter)  # kind -> count
    seat_wins: Counter[int] = field(default_factory=Counter)  # seats after the dealer -> wins

    def add(self, other: Tally) -> None:
        """Count ``other``'s rounds in this tally."""
        self.rounds += other.rounds
        self.capped += other.capped
        self.turns.update(other.turns)
        self.points.update(other.points)
        self.first_wins += other.first_wins
        self.left_wins += other.left_wins
        self.finishes.update(other.finishes)
        self.penalties.update(other.penalties)
        self.seat_wins.update(other.seat_wins)


def chunk_seed(seed: int, variant: str, players: int, chunk: int) -> str:
    """The seed of one chunk: a string, which ``random.Random`` hashes the same everywhere."""
    return f"{seed}/{variant}/{players}/{chunk}"


def play_chunk(variant: Variant, players: int, policy: str, seed: int, chunk: int,
               count: int) -> Tally:
    """``count`` rounds: the chunk numbered ``chunk`` of this variant and player count."""
    table = RandomTable(variant.options, players, 0, POLICY_NAMES.get(policy, policy))
    table.rng.seed(chunk_seed(seed, variant.name, players, chunk))
    tally = Tally()
    for _ in range(count):
        _play(table, tally)
    return tally


def _play(table: RandomTable, tally: Tally) -> None:
    dealer = table.drawn_dealer()
    s, _ = new_game(table.options, table.names, dealer, table.deal())
    first = s.turn
    # The round's turns and penalties counted by play_round's own look at each move's events
    # (a function of ours called after each move cost about 8% of a study's instructions).
    seen = Stats()
    play_round(table, s, seen)
    if s.phase is Phase.PLAY or s.winner is None or not s.results:
        tally.capped += 1  # stopped after MAX_ACTIONS actions
        return
    winner = s.winner
    tally.rounds += 1
    tally.turns[1 + seen.handovers] += 1  # the winner's last turn, and each one handed on
    tally.points[s.results[-1].points[winner]] += 1
    tally.first_wins += winner == first
    tally.left_wins += winner == (dealer + 1) % s.n
    tally.seat_wins[(winner - dealer) % s.n] += 1
    finish = s.extra.finish
    tally.finishes[finish.kind if finish is not None else "plain"] += 1
    tally.penalties.update({k: n for k, n in seen.penalties.items() if k in PENALTY_KINDS})


# --- figures --------------------------------------------------------------------------------


def wilson(k: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion ``k`` of ``n`` (95% by default)."""
    if n == 0:
        return 0.0, 1.0
    p = k / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


def _quantile(hist: Counter[int], q: float) -> int:
    """The smallest value with at least ``q`` of the rounds at or below it."""
    total = sum(hist.values())
    seen = 0
    for value in sorted(hist):
        seen += hist[value]
        if seen >= q * total:
            return value
    return 0


def _mean(hist: Counter[int]) -> float:
    total = sum(hist.values())
    return round(sum(v * c for v, c in hist.items()) / total, 3) if total else 0.0


def _mean_interval(hist: Counter[int], z: float = Z95) -> tuple[float, float]:
    """A 95% interval of the mean (normal approximation: the rounds are many)."""
    total = sum(hist.values())
    if total < 2:
        return 0.0, 0.0
    mean = sum(v * c for v, c in hist.items()) / total
    var = sum(c * (v - mean) ** 2 for v, c in hist.items()) / (total - 1)
    half = z * math.sqrt(var / total)
    return round(mean - half, 3), round(mean + half, 3)


def _rate(k: int, n: int) -> dict[str, Any]:
    low, high = wilson(k, n)
    return {"wins": k, "rate": round(k / n, 4) if n else 0.0, "low": round(low, 4),
            "high": round(high, 4)}


def cell_summary(players: int, t: Tally) -> dict[str, Any]:
    """The figures of one variant at one player count, as ``summary.json`` holds them."""
    n = t.rounds
    return {
        "players": players,
        "rounds": n,
        "capped": t.capped,
        "turns": {
            "mean": _mean(t.turns),
            "mean_low": _mean_interval(t.turns)[0],
            "mean_high": _mean_interval(t.turns)[1],
            "p10": _quantile(t.turns, 0.1),
            "median": _quantile(t.turns, 0.5),
            "p90": _quantile(t.turns, 0.9),
            "histogram": {str(k): t.turns[k] for k in sorted(t.turns)},
        },
        "points": {"mean": _mean(t.points), "median": _quantile(t.points, 0.5)},
        "fair_share": round(1 / players, 4),
        "first_seat": _rate(t.first_wins, n),
        "dealer_left": _rate(t.left_wins, n),
        "wins_by_seat_after_dealer": [t.seat_wins[i] for i in range(players)],
        "finishes": {k: t.finishes[k] for k in ("plain", "chin", "don")},
        "don_or_chin_share": round((t.finishes["chin"] + t.finishes["don"]) / n, 4) if n else 0.0,
        "penalties_per_round": round(sum(t.penalties.values()) / n, 4) if n else 0.0,
        "penalties_by_kind_per_round": {k: round(t.penalties[k] / n, 4) if n else 0.0
                                        for k in PENALTY_KINDS},
    }


@dataclass(frozen=True)
class Plan:
    """What a study plays: the variants, player counts, rounds, policy and seed."""

    variants: list[Variant]
    players: list[int]
    rounds: int  # per variant and player count
    policy: str
    seed: int
    sets: tuple[str, ...] = ()

    def chunks(self) -> list[tuple[int, int, int, int]]:
        """(variant index, players, chunk number, rounds in it), in the order they merge."""
        out = []
        for v in range(len(self.variants)):
            for n in self.players:
                for c in range(math.ceil(self.rounds / CHUNK)):
                    out.append((v, n, c, min(CHUNK, self.rounds - c * CHUNK)))
        return out


def check_plan(plan: Plan) -> None:
    """Refuse a plan that cannot be played as asked (before anything is allocated for it)."""
    if plan.rounds < 1:
        raise StudyError(f"--rounds {plan.rounds}: play at least one round")
    if plan.rounds > MAX_ROUNDS:
        raise StudyError(f"--rounds {plan.rounds}: at most {MAX_ROUNDS:,} rounds per variant "
                         "and player count")
    if plan.policy not in POLICY_NAMES and plan.policy not in POLICIES:
        raise StudyError(f"--policy {plan.policy!r}: use heuristic, play-first or random")


def run_chunk(plan: Plan, job: tuple[int, int, int, int]) -> Tally:
    """Play one chunk of ``plan`` (in a worker process, or in this one)."""
    v, n, c, count = job
    return play_chunk(plan.variants[v], n, plan.policy, plan.seed, c, count)


def summary(plan: Plan, tallies: dict[tuple[int, int], Tally]) -> dict[str, Any]:
    """What ``study`` writes to ``summary.json``: the same for the same plan, whoever played."""
    return {
        "seed": plan.seed,
        "policy": plan.policy,
        "rounds_per_cell": plan.rounds,
        "chunk": CHUNK,
        "set": list(plan.sets),
        "variants": [
            {"name": v.name, "options": v.options.as_dict(),
             "cells": [cell_summary(n, tallies[(i, n)]) for n in plan.players]}
            for i, v in enumerate(plan.variants)
        ],
    }


def workers(jobs: int, chunks: int) -> int:
    """The processes a study of ``chunks`` chunks uses when ``jobs`` are asked for: never more
    than the chunks to play or the cores this process may run on."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return max(1, min(jobs, chunks, cores or 1))


def run(plan: Plan, jobs: int,
        progress: Callable[[int], None] | None = None) -> dict[tuple[int, int], Tally]:
    """Play every chunk of ``plan`` in up to ``jobs`` processes (:func:`workers`; in this one
    for 1); ``progress`` hears the rounds of each chunk done. The tallies by (variant index,
    players)."""
    work = plan.chunks()
    done: list[Tally | None] = [None] * len(work)
    count = workers(jobs, len(work))
    if count == 1:
        for i, job in enumerate(work):
            done[i] = run_chunk(plan, job)
            if progress is not None:
                progress(job[3])
    else:
        _run_pool(plan, work, done, count, progress)
    tallies: dict[tuple[int, int], Tally] = {}
    for (v, n, _, _), tally in zip(work, done, strict=True):
        assert tally is not None
        tallies.setdefault((v, n), Tally()).add(tally)
    return tallies


def _run_pool(plan: Plan, work: list[tuple[int, int, int, int]], done: list[Tally | None],
              count: int, progress: Callable[[int], None] | None) -> None:
    """Play ``work`` in ``count`` processes into ``done``, two chunks a process in flight at
    most (a long study does not hold a future for each of its chunks)."""
    # Imported here: a study in one process (``--jobs 1``) starts without the process pool's
    # modules (multiprocessing), a tenth of a second of a short study's start.
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

    todo = iter(enumerate(work))
    pending: dict[Future[Tally], int] = {}
    with ProcessPoolExecutor(max_workers=count) as pool:
        try:
            while True:
                for i, job in itertools.islice(todo, 2 * count - len(pending)):
                    pending[pool.submit(run_chunk, plan, job)] = i
                if not pending:
                    return
                finished, _ = wait(pending, return_when=FIRST_COMPLETED)
                for future in finished:
                    i = pending.pop(future)
                    done[i] = future.result()
                    if progress is not None:
                        progress(work[i][3])
        except BaseException:
            pool.shutdown(wait=False, cancel_futures=True)
            raise
