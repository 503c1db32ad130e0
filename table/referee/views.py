"""The public views of a game: what replay prints, ``status`` reports and the daemon publishes.

Counts, never contents, of hands: nothing here tells a card in a hand.
"""

from __future__ import annotations

from typing import Any

from table.rules import Phase, RoundResult, State


def state_json(s: State) -> dict[str, Any]:
    """The public state: counts, never contents, of hands."""
    top = s.top
    return {
        "round": s.round,
        "turn": s.players[s.turn] if s.phase is Phase.PLAY else None,
        "direction": "clockwise" if s.direction > 0 else "counterclockwise",
        "top": top.code if top else None,
        "color": s.color.value if s.color else None,
        "pending_draw": s.pending,
        "hands": {p: len(h) for p, h in zip(s.players, s.hands, strict=True)},
        "finished": s.phase in (Phase.ROUND_OVER, Phase.MATCH_OVER),
        # Said aloud at the table, so public: who has called UNO and holds one card, and who
        # must still name the colour of a wild.
        "uno": [p for p, h, c in zip(s.players, s.hands, s.called, strict=True)
                if c and len(h) == 1],
        "awaiting_color": (s.players[s.awaiting_color]
                           if s.awaiting_color is not None and s.phase is Phase.PLAY else None),
    }


def _round_json(names: tuple[str, ...], r: RoundResult) -> dict[str, Any]:
    return {"winner": names[r.winner], "points": dict(zip(names, r.points, strict=True))}


def standing_json(s: State) -> dict[str, Any]:
    """``state``, ``rounds``, ``scores`` and ``match_over`` in the shape of replay's JSON."""
    names = s.players
    return {
        "state": state_json(s),
        "rounds": [_round_json(names, r) for r in s.results],
        "scores": dict(zip(names, s.scores, strict=True)),
        "match_over": s.phase is Phase.MATCH_OVER,
    }


def state_event_json(s: State) -> dict[str, Any]:
    """What a ``state`` event carries: replay's ``state``, ``scores`` and ``match_over``, and
    of the rounds only the latest finished one, ``last_round`` (its number, ``winner`` and
    ``points``; ``None`` before the first), so an event's size does not grow over an evening.
    The whole history is ``status``'s."""
    names = s.players
    last = None
    if s.results:
        last = {"round": len(s.results), **_round_json(names, s.results[-1])}
    return {
        "state": state_json(s),
        "last_round": last,
        "scores": dict(zip(names, s.scores, strict=True)),
        "match_over": s.phase is Phase.MATCH_OVER,
    }
