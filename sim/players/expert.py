"""The ``expert`` bot: determinised information-set Monte Carlo tree search from a seat's view.

It reads :attr:`SeatView.table`, the table as its seat knows it (every card it cannot see is an
unknown card there), and searches it with :class:`table.analysis.search.Search`: each playout
deals the unseen cards at random, plays one of its actions and the rest of the round through the
rules engine, and the action that wins most playouts is played. The heuristic bot's choice is
the search's prior, so the expert leaves it only when the playouts show something clearly
better; and it searches only in the end game (a hand of ``ENDGAME`` cards or fewer) and for a
wild's colour, where playouts to the end of the round are short and exact enough to trust
(earlier, playouts by a quick policy misjudge the heuristic's long-term choices: measured, see
docs/performance.md).
"""

from __future__ import annotations

import random

from sim.players.bots import HeuristicBot, SeatView
from table.analysis.search import DEFAULT_ITERATIONS, Search, candidates, reaction
from table.rules import Action, ChooseColor

ENDGAME = 3  # the expert searches once a hand holds this many cards or fewer ...
ENDGAME_DEPTH = 60  # ... with playouts this long: to the end of the round, nearly always


class ExpertBot:
    """Searches every decision with more than one sensible answer; ``iterations`` playouts a
    decision (``seconds``, when given, caps the time as well)."""

    name = "expert"

    def __init__(self, rng: random.Random, iterations: int = DEFAULT_ITERATIONS,
                 seconds: float | None = None) -> None:
        self.search = Search(rng, iterations, seconds)
        self.search.depth = ENDGAME_DEPTH
        # The prior: a heuristic player that never forgets UNO and never bluffs.
        self.prior = HeuristicBot(random.Random(rng.getrandbits(64)), forget=0.0, bluff=0.0)

    def act(self, view: SeatView) -> Action:
        """The action among ``view.legal`` that wins most playouts from this seat's view."""
        options = candidates(view.legal)
        if len(options) == 1:
            return options[0]
        prior = self.prior.act(view)
        if min(view.counts) > ENDGAME and not isinstance(options[0], ChooseColor):
            return prior  # early in the round the heuristic is better than short playouts
        return self.search.choose(view.table, view.seat, options, prior)

    def react(self, view: SeatView) -> Action | None:
        """A winning Don, every catch, its own late UNO call."""
        return reaction(view.reactions, view.seat)
