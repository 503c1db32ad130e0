"""The timed loop of ``bench/engine.py``: our engine's rounds under ``play-first``.

A module of its own so that a whole-process run (``bench/engine.py --clock process``) imports
only what plays the rounds, as RLCard's run imports only ``bench/rlcard_driver.py``: not the
bench's reporting (argparse, JSON, statistics, profiling, subprocesses).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Final

from table.analysis.selfplay import RandomTable
from table.rules import (
    COMPILED,
    Options,
    Phase,
    apply_legal,
    legal_actions,
    make_options,
    new_game,
)
from table.rules.engine import dealer_after
from table.rules.legal import out_of_turn_actions

POLICY: Final = "play-first"
MAX_ACTIONS_PER_ROUND: Final = 20_000
"""A round still running after this many actions is stopped and counted in ``capped``."""
OURS: Final = "uno-table"
BUILD: Final = "compiled" if COMPILED else "pure"
"""Which build of the engine ran: its Python source, or the optional compiled one (setup.py)."""


@dataclass(frozen=True)
class Result:
    engine: str
    players: int
    rounds: int
    actions: int
    seconds: float
    capped: int
    cap: int

    @property
    def rounds_per_s(self) -> float:
        return self.rounds / self.seconds if self.seconds else 0.0

    @property
    def actions_per_round(self) -> float:
        return self.actions / self.rounds if self.rounds else 0.0

    @property
    def actions_per_s(self) -> float:
        return self.actions / self.seconds if self.seconds else 0.0

    def as_dict(self) -> dict[str, object]:
        out: dict[str, object] = asdict(self)
        out["rounds_per_s"] = round(self.rounds_per_s, 1)
        out["actions_per_round"] = round(self.actions_per_round, 2)
        out["actions_per_s"] = round(self.actions_per_s)
        return out


def bench_options() -> Options:
    """The official rules, with the machinery the benchmark must exercise stated explicitly."""
    options = make_options("official", challenge=True, uno_enforcement="catch", uno_catchers="any")
    assert options.challengeable
    return options


def run_engine(
    num_players: int,
    rounds: int,
    seed: int,
    clock: Callable[[], float] = time.perf_counter,
    on_round: Callable[[int, int], None] | None = None,
) -> Result:
    """Play ``rounds`` rounds under ``play-first``, each scored on its own, the dealer drawn once
    and the deal passed on as at a table (the rounds of :func:`table.analysis.selfplay.rounds`)."""
    if num_players < 2:
        raise ValueError(f"num_players must be at least 2, got {num_players}")
    if rounds < 1:
        raise ValueError(f"rounds must be at least 1, got {rounds}")
    options = bench_options()
    table = RandomTable(options, num_players, seed, POLICY)  # chance and choices: one seed
    policy = table.policy
    # The calls made every action, bound once, as bench/rlcard_driver.py does for RLCard.
    supply_chance, act, react = table.supply_chance, policy.act, policy.react
    legal, late_actions, push = legal_actions, out_of_turn_actions, apply_legal
    deal, dealer, after, names = table.deal, table.dealer, dealer_after, table.names
    play, cap = Phase.PLAY, MAX_ACTIONS_PER_ROUND

    total = capped = 0
    start = clock()
    seat = dealer()  # drawn once, then dealt on as a table deals (selfplay.rounds)
    for done in range(1, rounds + 1):
        s, _ = new_game(options, names, seat, deal())
        supply_chance(s)
        actions = 0
        while s.phase is play:
            if actions >= cap:
                capped += 1
                break
            push(s, act(s, legal(s)))
            actions += 1
            supply_chance(s)
            late = late_actions(s)
            if late:
                reaction = react(s, late)
                if reaction is not None:
                    push(s, reaction)
                    actions += 1
                    supply_chance(s)
        total += actions
        seat = after(s) if s.winner is not None else dealer()
        if on_round is not None:
            on_round(done, total)
    elapsed = clock() - start
    return Result(OURS, num_players, rounds, total, elapsed, capped, MAX_ACTIONS_PER_ROUND)
