"""``uno-table ladder``: bots rated against each other on duplicate deals (docs/performance.md,
"The ladder"): progress on stderr, the table on stdout (or JSON)."""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

from table.errors import TableError

#: Where ``sim --level`` sits on the ladder: the bot each level seats (table.commands.cli).
LEVEL_OF = {"random": "easy", "heuristic": "normal", "expert": "hard"}


def add_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``ladder`` to the command line."""
    p = sub.add_parser("ladder", help="rate the bots against each other on duplicate deals")
    p.add_argument("--bots", metavar="BOT,BOT,...",
                   help="the entrants, 2 or more (default random, rlcard-rule, mix, heuristic, "
                        "prior, expert:40, expert)")
    p.add_argument("--players", type=int, default=2, help="seats at the table, 2 to 10 "
                   "(default 2; at more, one bot among copies of the other, rotated)")
    p.add_argument("--deals", type=int, default=500,
                   help="deals a pair plays, each once per seating (default 500)")
    p.add_argument("--expert-deals", type=int, default=None, metavar="N",
                   help="deals for a pair with an expert in it (default --deals; its search "
                        "takes 20 to 200 times as long a round)")
    p.add_argument("--seed", type=int, default=1, help="the deals' seed (default 1)")
    p.add_argument("--rules", default="official", help="rules preset (default official)")
    p.add_argument("--resamples", type=int, default=200,
                   help="bootstrap draws for the 95%% intervals (default 200)")
    p.add_argument("--json", action="store_true", help="print JSON instead of the table")
    p.set_defaults(run=_ladder)


class _Progress:
    """One line on stderr, rewritten in place on a terminal, a line a pair otherwise."""

    def __init__(self, stream: Any, deals: dict[tuple[str, str], int]) -> None:
        self.stream = stream
        self.deals = deals
        self.live = bool(getattr(stream, "isatty", lambda: False)())
        self.start = time.monotonic()
        self.total = sum(deals.values())
        self.done = 0

    def __call__(self, k: int, pairs: int, a: str, b: str, done: int) -> None:
        self.done += 1
        of = self.deals[(a, b)]
        if not self.live and done != of:
            return
        spent = time.monotonic() - self.start
        left = spent / self.done * (self.total - self.done)
        line = (f"ladder: pair {k}/{pairs} {a} v {b}: deal {done}/{of}; "
                f"{spent:.0f} s so far, about {left:.0f} s left")
        if self.live:
            self.stream.write(f"\r{line}\x1b[K" + ("\n" if k == pairs and done == of else ""))
        else:
            self.stream.write(line + "\n")
        self.stream.flush()


def _ladder(args: argparse.Namespace) -> int:
    from sim.players.bots import parse_bots
    from sim.players.ladder import DEFAULT_ENTRANTS, pairs, run_ladder
    from table.rules import make_options

    make_options(args.rules)
    names = parse_bots(args.bots) if args.bots else list(DEFAULT_ENTRANTS)
    if len(set(names)) != len(names) or len(names) < 2:
        raise TableError("--bots names two or more different bots, e.g. heuristic,mix,expert")
    if not 2 <= args.players <= 10:
        raise TableError(f"--players {args.players}: from 2 to 10")
    expert_deals = args.deals if args.expert_deals is None else args.expert_deals
    if args.deals < 1 or expert_deals < 1 or args.resamples < 0:
        raise TableError("--deals and --expert-deals must be at least 1, --resamples at least 0")
    todo = pairs(names)
    deals = {(a, b): expert_deals if _searches(a) or _searches(b) else args.deals
             for a, b in todo}
    ladder = run_ladder(names, args.players, deals, args.seed, args.rules, args.resamples,
                        _Progress(sys.stderr, deals))
    out = _summary(args, ladder)
    print(json.dumps(out, indent=2) if args.json else _table(out))
    return 0


def _searches(name: str) -> bool:
    return name.partition(":")[0] == "expert"


def _summary(args: argparse.Namespace, ladder: Any) -> dict[str, Any]:
    from sim.players.arena import wilson

    results = []
    for m in ladder.matches:
        wins, games = m.score()
        low, high = wilson(wins, games)
        results.append({"a": m.a, "b": m.b, "deals": len(m.deals), "games": games,
                        "a_wins": wins, "a_win_rate": round(wins / games, 4) if games else None,
                        "ci95": [round(low, 4), round(high, 4)], "capped": m.capped})
    return {
        "rules": args.rules, "players": args.players, "seed": args.seed, "anchor": ladder.anchor,
        "model": "Bradley-Terry (Luce at more than two seats), Elo scale, bootstrap over deals",
        "resamples": args.resamples,
        "ratings": [{"bot": r.name, "level": LEVEL_OF.get(r.name), "elo": round(r.elo, 1),
                     "ci95": [round(r.low, 1), round(r.high, 1)], "games": r.games,
                     "wins": r.wins} for r in ladder.ratings],
        "matches": results,
    }


def _table(out: dict[str, Any]) -> str:
    anchor = out["anchor"] or "the geometric mean"
    lines = [f"Ladder, {out['players']} players, {out['rules']} rules, seed {out['seed']} "
             f"(Elo, {anchor} at 0; 95% bootstrap interval over deals):", ""]
    lines.append(f"{'':>3} {'bot':<14} {'level':<7} {'Elo':>7} {'95% interval':>18} "
                 f"{'games':>7} {'wins':>6}")
    for i, r in enumerate(out["ratings"], 1):
        low, high = r["ci95"]
        lines.append(f"{i:>3} {r['bot']:<14} {r['level'] or '':<7} {r['elo']:>7.0f} "
                     f"{f'{low:.0f} to {high:.0f}':>18} {r['games']:>7} {r['wins']:>6}")
    lines += ["", "Matches (the first bot's share of the games; 95% Wilson interval):"]
    for m in out["matches"]:
        rate = "-" if m["a_win_rate"] is None else f"{m['a_win_rate']:.1%}"
        lines.append(f"  {m['a']} v {m['b']}: {rate} of {m['games']} games on {m['deals']} "
                     f"deals ({m['ci95'][0]:.1%} to {m['ci95'][1]:.1%})"
                     + (f", {m['capped']} capped" if m["capped"] else ""))
    return "\n".join(lines)
