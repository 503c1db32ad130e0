"""The table as text: what anyone standing at the table can see. Hands appear as counts only;
the interactive seat's own hand is shown by :func:`hand_lines`, to that player alone."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from table.cards import Card, sort_key
from table.referee import phrases
from table.rules import Action, CallUno, Challenge, ChooseColor, Draw, Pass, Phase, Play, State

_ARROW = {1: "clockwise", -1: "counterclockwise"}

# What the players do, as the transcript says it, by key then language (the [moves] section of
# the table's phrases; the referee's words are its [said] section).
MOVES: Final[dict[str, dict[str, str]]] = phrases.by_key("moves")
_JA_COLORS: Final = phrases.words("colour", "ja")  # colours as the announcements write them


def move_text(key: str, lang: str, **params: str | int) -> str:
    """A line of the transcript about what a player did, in ``lang`` (en or ja)."""
    if lang == "ja" and "color" in params:
        params["color"] = _JA_COLORS.get(str(params["color"]), str(params["color"]))
    if key in ("takes", "takes-hand") and lang == "en":
        params["count"] = f"{params['count']} card" + ("" if params["count"] == 1 else "s")
    return MOVES[key]["ja" if lang == "ja" else "en"].format(**params)


# The view's words and the demo's own lines around the match (its header, how it ended and
# what was checked), by language; the presets' and hand tracking's names in Japanese.
VIEW: Final = {lang: phrases.words("view", lang) for lang in phrases.LANGUAGES}
DEMO: Final = {lang: phrases.words("demo", lang) for lang in phrases.LANGUAGES}
_JA_HANDS: Final = phrases.words("hands", "ja")
_JA_RULES: Final = phrases.words("rules", "ja")


def demo_line(key: str, lang: str, **params: str | int) -> str:
    """One of the demo's own lines (:data:`DEMO`) in ``lang``: rules by their Japanese names,
    an English plural where one is needed."""
    if lang == "ja":
        params["rules"] = _JA_RULES.get(str(params.get("rules", "")), str(params.get("rules", "")))
        params["hands"] = _JA_HANDS.get(str(params.get("hands", "")), str(params.get("hands", "")))
        return DEMO["ja"][key].format(**params)
    rounds = params.get("rounds")
    return DEMO["en"][key].format(s="" if rounds == 1 else "s", **params)


def table_lines(s: State, width: int = 78, lang: str = "en") -> list[str]:
    """Top card and colour, direction, whose turn, hand counts and scores, in ``lang``."""
    words = VIEW["ja" if lang == "ja" else "en"]
    top = s.top.code if s.top else "-"
    color = s.color.value if s.color else "-"
    if lang == "ja":
        color = _JA_COLORS.get(color, color)
    if s.phase is Phase.PLAY:
        who = s.players[s.current_player] if s.current_player is not None else "-"
        turn = words["to-play" if s.awaiting_color is None else "names"].format(who=who)
    elif s.phase is Phase.START:
        turn = words["dealing"]
    else:
        turn = words["round-over" if s.phase is Phase.ROUND_OVER else "match-over"]
    head = words["head"].format(round=s.round, top=top, color=color,
                                direction=words[_ARROW[s.direction]], turn=turn)
    if s.pending:
        head += words["to-draw"].format(n=s.pending)
    seats = []
    for i, name in enumerate(s.players):
        mark = "*" if s.phase is Phase.PLAY and s.current_player == i else " "
        called = " UNO" if s.called[i] and len(s.hands[i]) == 1 else ""
        seats.append(f"{mark}{name} {len(s.hands[i])}{called} [{s.scores[i]}]")
    body = "   ".join(seats)
    return ["-" * width, head[:width], f"{body[:width]}    {words['legend']}", "-" * width]


def hand_lines(hand: Sequence[Card], legal: Sequence[Action]) -> list[str]:
    """A player's own hand and the moves open to them, numbered for the prompt."""
    cards = " ".join(c.code for c in sorted(hand, key=sort_key)) or "(no cards)"
    lines = [f"your hand: {cards}"]
    for n, a in enumerate(legal, start=1):
        lines.append(f"  {n:2d}. {describe(a)}")
    return lines


def describe(a: Action) -> str:
    """An action as the prompt offers it (``play R7 naming red``)."""
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
