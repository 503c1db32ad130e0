"""The expert's model of an opponent's draw, fitted from self-play: how often a bot draws on its
turn while holding a card that the model (``sim.players.expert.Drew``) says it would have played.

    python bench/draw_model.py [--bots heuristic,mix] [--deals 150] [--seed 7] [--json]

Each bot plays the ladder's deals (as ``sim.players.ladder.play_deal`` does) against itself at two
players. At every first draw of a turn (no draw penalty pending, a colour in force), the
drawing seat's own hand is tested with ``Drew.chance`` (no card drawn since: the hand then is
the hand it holds): a chance of 0 is a draw the model calls impossible, a slip. The share of
slips, with its Wilson interval, is what ``DRAW_SLIP`` in sim/players/expert.py is set from
(docs/performance.md).
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from typing import Any

from sim.players.arena import ArenaStats, play_bot_round, wilson
from sim.players.bots import Bot, SeatView, make_bot, seat_rng
from sim.players.expert import Drew
from sim.players.ladder import deal_seed, dealt
from table.rules import Action, Draw, Pass, make_options


class Watched:
    """A bot whose first draws of a turn are tested against the model, as it plays."""

    def __init__(self, bot: Any, seen: Counter[str]) -> None:
        self.bot, self.seen = bot, seen
        self.name = bot.name

    def act(self, view: SeatView) -> Action:
        """The bot's action; a first draw of the turn is counted, a slip apart."""
        action: Action = self.bot.act(view)
        first = not any(isinstance(a, Pass) for a in view.legal)
        if isinstance(action, Draw) and first and not view.pending and view.color:
            drew = Drew(view.color, view.live_rank or "", view.closest_opponent(), len(view.hand))
            self.seen["draws"] += 1
            self.seen["slips"] += drew.chance(list(view.hand), 0) == 0.0
        return action

    def react(self, view: SeatView) -> Action | None:
        """The bot's own reaction."""
        reaction: Action | None = self.bot.react(view)
        return reaction


def fit(bots: list[str], deals: int, seed: int) -> dict[str, Any]:
    """Per bot: its draws, the slips among them, the share and its 95% interval."""
    options = make_options("official")
    out: dict[str, Any] = {}
    for name in bots:
        seen: Counter[str] = Counter()
        for d in range(deals):
            deal = deal_seed(seed, d)
            table, s = dealt(options, 2, deal)
            players: list[Bot] = [Watched(make_bot(name, seat_rng(deal, i)), seen)
                                  for i in range(2)]
            play_bot_round(table, s, players, ArenaStats([name, name]))
        draws, slips = seen["draws"], seen["slips"]
        low, high = wilson(slips, draws)
        out[name] = {"draws": draws, "slips": slips, "share": round(slips / max(draws, 1), 4),
                     "ci95": [round(low, 4), round(high, 4)]}
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--bots", default="heuristic,mix")
    ap.add_argument("--deals", type=int, default=150)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    result = fit(args.bots.split(","), args.deals, args.seed)
    if args.json:
        print(json.dumps(result, indent=2))
        return
    for name, row in result.items():
        print(f"{name}: {row['slips']} slips in {row['draws']} draws = {row['share']:.2%} "
              f"(95% {row['ci95'][0]:.2%} to {row['ci95'][1]:.2%})")


if __name__ == "__main__":
    main()
