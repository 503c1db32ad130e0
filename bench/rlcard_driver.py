"""Raw UNO game throughput of RLCard 1.2.0, for comparison with uno-table's engine.

A random agent plays complete games of ``rlcard.games.uno.game.UnoGame`` (the bare game, without
the ``Env`` wrapper and its observation encoding) the way any driver of the raw game must: take
the legal actions from the state that ``init_game()`` / ``step()`` return, pick one, step, and
ask ``is_over()``.

RLCard is optional. Nothing here imports it until a function is called, so this module imports
cleanly without it; check :func:`rlcard_available` first.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import Final

MAX_STEPS_PER_GAME: Final = 10_000
"""A game still running after this many steps is stopped and counted in ``"capped"``."""


def rlcard_available() -> bool:
    """Whether RLCard's UNO game can be imported."""
    try:
        import rlcard.games.uno.game  # noqa: F401
    except ImportError:
        return False
    return True


def run_rlcard(
    num_players: int,
    games: int,
    seed: int,
    clock: Callable[[], float] = time.perf_counter,
    on_game: Callable[[int, int], None] | None = None,
) -> dict[str, float]:
    """Play ``games`` complete games of RLCard's raw ``UnoGame`` with uniformly random moves.

    Moves are drawn with ``random.Random(seed)`` from the distinct entries of the state's
    ``legal_actions`` (RLCard lists e.g. ``"r-5"`` twice when the hand holds two red fives; its
    ``UnoEnv`` removes the repeats the same way). The deck is shuffled by the game's own
    ``np_random``, seeded as ``Env.seed()`` does it, so a run is repeatable.

    A turn is one ``game.step(action)`` call. Only the play is timed (with ``clock``):
    ``init_game()``, the steps and the agent's per-step work. Building the game object and
    seeding are not.

    Returns ``games``, ``turns`` (total steps), ``seconds``, ``turns_per_s``, ``games_per_s`` and
    ``capped`` (games stopped at :data:`MAX_STEPS_PER_GAME`; their steps are in ``turns``).
    ``on_game(games done, steps so far)``, if given, is called after each game (for progress,
    as ``bench/engine.py`` does for our engine).
    """
    if num_players < 2:
        raise ValueError(f"num_players must be at least 2, got {num_players}")
    if games < 1:
        raise ValueError(f"games must be at least 1, got {games}")

    from rlcard.games.uno.game import UnoGame
    from rlcard.utils.seeding import np_random

    game = UnoGame(num_players=num_players)
    # init_game() hands game.np_random to the dealer, round and players it builds, so it must be
    # seeded before the first game.
    game.np_random, _ = np_random(seed)
    rng = random.Random(seed)

    # The calls made every turn, bound once, as bench/engine.py does for our engine.
    step, is_over, choice, fromkeys = game.step, game.is_over, rng.choice, dict.fromkeys
    total_turns = 0
    capped = 0
    start = clock()
    for done in range(1, games + 1):
        state, _ = game.init_game()
        turns = 0
        while not is_over():
            if turns == MAX_STEPS_PER_GAME:
                capped += 1
                break
            legal = list(fromkeys(state["legal_actions"]))
            state, _ = step(choice(legal))
            turns += 1
        total_turns += turns
        if on_game is not None:
            on_game(done, total_turns)
    elapsed = clock() - start

    return {
        "games": games,
        "turns": total_turns,
        "seconds": elapsed,
        "turns_per_s": total_turns / elapsed,
        "games_per_s": games / elapsed,
        "capped": capped,
    }


if __name__ == "__main__":
    if not rlcard_available():
        raise SystemExit("rlcard is not installed (pip install rlcard==1.2.0)")
    for players in (2, 4):
        result = run_rlcard(players, games=200, seed=1)
        print(
            f"rlcard {players} players: {result['games']:.0f} games, {result['turns']:.0f} turns"
            f" in {result['seconds']:.3f} s = {result['turns_per_s']:,.0f} turns/s,"
            f" {result['games_per_s']:,.1f} games/s, {result['capped']:.0f} capped"
        )
