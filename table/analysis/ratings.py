"""Ratings of players from who won which games: the Bradley-Terry model, in Luce's form for
games of more than two seats, on the Elo scale, with bootstrap intervals.

Each player ``i`` has a strength ``r_i``; a game among a set of seats (one player may hold
several) is won by seat ``s`` with probability ``r_s / sum(r over the seats)``. With two seats
that is Bradley-Terry (``P(A beats B) = r_A / (r_A + r_B)``); with one A among three B, A's fair
share is a quarter when ``r_A = r_B``. The strengths are fitted by maximum likelihood with
Hunter's MM iteration (*MM algorithms for generalized Bradley-Terry models*, 2004) and shown on
the Elo scale (``400 log10 r``: 200 points is a 76% chance in a game of two), the anchor at 0.

Intervals come from the bootstrap: whole blocks of games (all the replays of one deal) are drawn
again with replacement within each match, the fit is made again, and the 2.5th and 97.5th
percentiles of each rating are its 95% interval (relative to the anchor).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from math import exp, log, log10
from typing import Final

ELO: Final = 400.0  # Elo points per factor ten of strength
PRIOR_GAMES: Final = 1.0  # each player's virtual win and loss against a player of strength 1


@dataclass(frozen=True, slots=True)
class Game:
    """One game: who sat (a player once per seat it held) and which player won."""

    seats: tuple[str, ...]
    winner: str


@dataclass(frozen=True, slots=True)
class Rating:
    """A player's rating on the Elo scale, its 95% interval and its record."""

    name: str
    elo: float
    low: float
    high: float
    games: int
    wins: int


def fit(games: Sequence[Game], names: Sequence[str], prior: float = PRIOR_GAMES,
        iterations: int = 100, tolerance: float = 1e-10) -> dict[str, float]:
    """The strengths of ``names`` (their geometric mean 1) that make ``games`` likeliest.

    ``prior`` adds, for every player, that many virtual wins and as many losses against a player
    of strength 1: a player who never won (or never lost) still gets a finite rating, and with
    hundreds of games it moves a rating by a few Elo at most. ``prior=0`` is the bare fit (the
    first name's strength then held while the others are fitted). Newton's method on the log
    strengths, whose likelihood is concave, with the step halved while it does not climb."""
    index = {n: i for i, n in enumerate(names)}
    wins = [prior] * len(names)
    seatings: Counter[tuple[str, ...]] = Counter()
    for g in games:
        wins[index[g.winner]] += 1
        seatings[g.seats] += 1
    kinds: Counter[tuple[tuple[int, int], ...]] = Counter()
    for seats, count in seatings.items():
        kinds[tuple(sorted(Counter(index[p] for p in seats).items()))] += count
    model = _Model(wins, list(kinds.items()), prior)
    theta = [0.0] * len(names)
    free = list(range(0 if prior else 1, len(names)))
    for _ in range(iterations):
        grad, hess = model.derivatives(theta)
        step = _solve([[-hess[i][j] for j in free] for i in free], [grad[i] for i in free])
        before, scale = model.loglik(theta), 1.0
        while True:
            trial = list(theta)
            for k, i in enumerate(free):
                trial[i] += scale * step[k]
            if model.loglik(trial) >= before - 1e-12 or scale < 1e-6:
                break
            scale /= 2
        moved = max((abs(a - b) for a, b in zip(trial, theta, strict=True)), default=0.0)
        theta = trial
        if moved < tolerance:
            break
    mean = sum(theta) / len(theta) if theta else 0.0
    return {n: exp(theta[i] - mean) for n, i in index.items()}


class _Model:
    """The log-likelihood of Luce's model, its gradient and Hessian in the log strengths."""

    def __init__(self, wins: list[float], kinds: list[tuple[tuple[tuple[int, int], ...], int]],
                 prior: float) -> None:
        self.wins, self.kinds, self.prior = wins, kinds, prior

    def loglik(self, theta: list[float]) -> float:
        """The log-likelihood of the games (and the prior's virtual games) at ``theta``."""
        total = sum(w * t for w, t in zip(self.wins, theta, strict=True))
        for kind, count in self.kinds:
            total -= count * log(sum(m * exp(theta[i]) for i, m in kind))
        return total - 2 * self.prior * sum(log(1.0 + exp(t)) for t in theta)

    def derivatives(self, theta: list[float]) -> tuple[list[float], list[list[float]]]:
        """The gradient and the Hessian of :meth:`loglik` at ``theta``."""
        n = len(theta)
        grad = list(self.wins)
        hess = [[0.0] * n for _ in range(n)]
        for kind, count in self.kinds:
            total = sum(m * exp(theta[i]) for i, m in kind)
            share = [(i, m * exp(theta[i]) / total) for i, m in kind]
            for i, q in share:
                grad[i] -= count * q
                hess[i][i] -= count * q
                for j, p in share:
                    hess[i][j] += count * q * p
        for i, t in enumerate(theta):
            sigma = 1.0 / (1.0 + exp(-t))
            grad[i] -= 2 * self.prior * sigma
            hess[i][i] -= 2 * self.prior * sigma * (1.0 - sigma)
        return grad, hess


def _solve(a: list[list[float]], b: list[float]) -> list[float]:
    """``x`` with ``a x = b`` (Gauss-Jordan with partial pivoting; a tiny pivot gives 0)."""
    n = len(b)
    rows = [[*row, b[i]] for i, row in enumerate(a)]
    for c in range(n):
        pivot = max(range(c, n), key=lambda r: abs(rows[r][c]))
        rows[c], rows[pivot] = rows[pivot], rows[c]
        if abs(rows[c][c]) < 1e-12:
            continue
        for r in range(n):
            if r != c and rows[r][c]:
                f = rows[r][c] / rows[c][c]
                rows[r] = [x - f * y for x, y in zip(rows[r], rows[c], strict=True)]
    return [rows[i][n] / rows[i][i] if abs(rows[i][i]) >= 1e-12 else 0.0 for i in range(n)]


def elo(strengths: Mapping[str, float], anchor: str | None = None) -> dict[str, float]:
    """The strengths on the Elo scale, ``anchor`` at 0 (the geometric mean without one)."""
    base = log10(strengths[anchor]) if anchor is not None else 0.0
    return {n: ELO * (log10(v) - base) for n, v in strengths.items()}


def rate(blocks: Mapping[str, Sequence[Sequence[Game]]], names: Sequence[str],
         anchor: str | None = None, resamples: int = 200, seed: int = 0) -> list[Rating]:
    """Ratings from ``blocks``: per match, its blocks of games (the replays of one deal), with
    bootstrap 95% intervals over ``resamples`` draws of the blocks; best first."""
    every = [g for match in blocks.values() for block in match for g in block]
    point = elo(fit(every, names), anchor)
    rng = random.Random(seed)
    draws: dict[str, list[float]] = {n: [] for n in names}
    for _ in range(resamples):
        sample = [g for match in blocks.values() if match
                  for _ in range(len(match)) for g in rng.choice(match)]
        for n, v in elo(fit(sample, names), anchor).items():
            draws[n].append(v)
    played: Counter[str] = Counter()
    won: Counter[str] = Counter(g.winner for g in every)
    for g in every:
        for n in set(g.seats):
            played[n] += 1
    out = []
    for n in names:
        low, high = _percentiles(draws[n]) if resamples else (point[n], point[n])
        out.append(Rating(n, point[n], low, high, played[n], won[n]))
    return sorted(out, key=lambda x: -x.elo)


def _percentiles(values: list[float]) -> tuple[float, float]:
    ordered = sorted(values)
    last = len(ordered) - 1
    return ordered[round(0.025 * last)], ordered[round(0.975 * last)]
