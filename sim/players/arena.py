"""Bots against each other on the pure engine: fast, for win rates (``selfplay --bots``).

Chance (shuffles, the dealer draw, reshuffles) comes from
:class:`table.analysis.selfplay.RandomTable` with the run's seed; each seat's bot has a random
source of its own, so the same seed gives the same games. Every round is a fresh deal with a drawn
dealer, so no seat keeps the first turn.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from math import sqrt

from sim.players.bots import Bot, make_bot, seat_rng, seat_view
from table.analysis.selfplay import MAX_ACTIONS, RandomTable
from table.rules import Phase, State, apply_in_place, make_options, new_game


@dataclass
class ArenaStats:
    """Wins, rounds and actions of a bot self-play run."""
    bots: list[str]
    rounds: int = 0
    capped: int = 0
    actions: int = 0
    wins: Counter[int] = field(default_factory=Counter)

    def bot_rates(self) -> dict[str, dict[str, object]]:
        """Win rate per bot kind, with a 95% Wilson interval."""
        out: dict[str, dict[str, object]] = {}
        for name in dict.fromkeys(self.bots):
            seats = [i for i, b in enumerate(self.bots) if b == name]
            wins = sum(self.wins[i] for i in seats)
            played = self.rounds * len(seats)
            low, high = wilson(wins, self.rounds)
            out[name] = {
                "seats": len(seats),
                "wins": wins,
                "win_rate": round(wins / self.rounds, 4) if self.rounds else 0.0,
                "ci95": [round(low, 4), round(high, 4)],
                "seat_rounds": played,
            }
        return out

    def summary(self) -> dict[str, object]:
        """The JSON summary of ``selfplay --bots``."""
        return {
            "rounds": self.rounds,
            "capped": self.capped,
            "bots": self.bots,
            "wins_per_seat": [self.wins[i] for i in range(len(self.bots))],
            "win_rate_per_seat": [
                round(self.wins[i] / self.rounds, 4) if self.rounds else 0.0
                for i in range(len(self.bots))
            ],
            "win_rate_per_bot": self.bot_rates(),
        }


def wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a win rate (``z`` = 1.96: 95%)."""
    if n == 0:
        return (0.0, 1.0)
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (centre - half, centre + half)


def play_bot_round(table: RandomTable, s: State, bots: list[Bot], stats: ArenaStats) -> State:
    """Play the dealt round ``s`` to its end with ``bots``, in place."""
    actions = 0
    n = len(bots)
    while s.phase is Phase.PLAY:
        if actions >= MAX_ACTIONS:
            stats.capped += 1
            break
        table.supply_chance(s)
        seat = s.current_player
        assert seat is not None
        apply_in_place(s, bots[seat].act(seat_view(s, seat)))
        actions += 1
        if s.uno_window is not None and s.phase is Phase.PLAY:
            # Out of turn: the player who went down to one card first, then the others.
            for k in range(n):
                who = (s.uno_window + k) % n
                late = bots[who].react(seat_view(s, who))
                if late is not None:
                    apply_in_place(s, late)
                    actions += 1
                    break
    table.supply_chance(s)
    stats.actions += actions
    stats.rounds += 1
    if s.winner is not None and s.phase is not Phase.PLAY:
        stats.wins[s.winner] += 1
    return s


def bot_selfplay(
    bot_names: list[str], rounds: int, seed: int, preset: str = "official"
) -> ArenaStats:
    """``rounds`` independent rounds among ``bot_names`` (one bot a seat)."""
    options = make_options(preset)
    table = RandomTable(options, len(bot_names), seed)
    bots = [make_bot(name, seat_rng(seed, i)) for i, name in enumerate(bot_names)]
    stats = ArenaStats(list(bot_names))
    for _ in range(rounds):
        s, _ = new_game(options, table.names, table.dealer(), table.deal())
        play_bot_round(table, s, bots, stats)
    return stats
