"""The table as text: what anyone standing at the table can see. Hands appear as counts only;
the interactive seat's own hand is shown by :func:`hand_lines`, to that player alone."""

from __future__ import annotations

from collections.abc import Sequence

from table.cards import Card, sort_key
from table.rules import Action, CallUno, Challenge, ChooseColor, Draw, Pass, Phase, Play, State

_ARROW = {1: "clockwise", -1: "counterclockwise"}


def table_lines(s: State, width: int = 78) -> list[str]:
    """Top card and colour, direction, whose turn, hand counts and scores."""
    top = s.top.code if s.top else "-"
    color = s.color.value if s.color else "-"
    if s.phase is Phase.PLAY:
        who = s.players[s.current_player] if s.current_player is not None else "-"
        turn = f"{who} to play" if s.awaiting_color is None else f"{who} names a colour"
    elif s.phase is Phase.START:
        turn = "dealing"
    elif s.phase is Phase.ROUND_OVER:
        turn = "round over"
    else:
        turn = "match over"
    head = f"round {s.round} | top {top} ({color}) | {_ARROW[s.direction]} | {turn}"
    if s.pending:
        head += f" | {s.pending} to draw"
    seats = []
    for i, name in enumerate(s.players):
        mark = "*" if s.phase is Phase.PLAY and s.current_player == i else " "
        called = " UNO" if s.called[i] and len(s.hands[i]) == 1 else ""
        seats.append(f"{mark}{name} {len(s.hands[i])}{called} [{s.scores[i]}]")
    body = "   ".join(seats)
    return ["-" * width, head[:width], body[:width] + "    (cards [score])", "-" * width]


def hand_lines(hand: Sequence[Card], legal: Sequence[Action]) -> list[str]:
    """A player's own hand and the moves open to them, numbered for the prompt."""
    cards = " ".join(c.code for c in sorted(hand, key=sort_key)) or "(no cards)"
    lines = [f"your hand: {cards}"]
    for n, a in enumerate(legal, start=1):
        lines.append(f"  {n:2d}. {describe(a)}")
    return lines


def describe(a: Action) -> str:
    if isinstance(a, Play):
        card = a.cards[0].code
        return f"play {card} naming {a.color.value}" if a.color else f"play {card}"
    if isinstance(a, ChooseColor):
        return f"name {a.color.value}"
    if isinstance(a, Draw):
        return "draw"
    if isinstance(a, Pass):
        return "pass (keep the drawn card)"
    if isinstance(a, CallUno):
        return "call UNO"
    if isinstance(a, Challenge):
        return "challenge the Wild Draw Four"
    return type(a).__name__.lower()
