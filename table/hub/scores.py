"""Whether a table's round adds up under its scoring (docs/rules.md, ``scoring``).

``international``: the winner scores, every other player 0. ``japanese``: the round sums to
zero and the winner collects what the others pay. ``lowest``: the winner adds 0, the others
their hands (never below 0). ``musician`` has bonuses of its own and is not checked. Beside
the round itself, the totals a table sends must be the sum of its rounds so far.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any


def round_problem(result: Mapping[str, Any]) -> str | None:
    """What is wrong with one round's points, or None."""
    points: dict[str, int] = dict(result["points"])
    winner = result["winner"]
    scoring = result.get("scoring", "international")
    if winner not in points or set(points) != set(result["players"]):
        return "the points do not name the table's players and winner"
    won = points[winner]
    others = [v for name, v in points.items() if name != winner]
    if scoring == "international" and (won < 0 or any(others)):
        return f"international scoring: only the winner scores, got {points}"
    if scoring == "japanese" and (sum(points.values()) != 0 or any(v > 0 for v in others)):
        return f"japanese scoring: a round sums to zero, got {points}"
    if scoring == "lowest" and (won != 0 or any(v < 0 for v in others)):
        return f"lowest scoring: the winner adds 0 and nobody less, got {points}"
    return None


def totals_problem(result: Mapping[str, Any], earlier: Sequence[Mapping[str, Any]]) -> str | None:
    """The totals after ``result`` against the rounds of the same match heard before it (all
    of them: rounds 1 to n-1). None when they add up or some round is still missing."""
    if len(earlier) != int(result["round"]) - 1:
        return None
    want = {p: sum(int(r["points"].get(p, 0)) for r in [*earlier, result])
            for p in result["players"]}
    if want != dict(result["totals"]):
        return f"the totals {dict(result['totals'])} are not the sum of the rounds {want}"
    return None
