"""The table as text: what anyone standing at the table can see. Hands appear as counts only;
the interactive seat's own hand is shown by :func:`hand_lines`, to that player alone."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from table.cards import Card, sort_key
from table.rules import Action, CallUno, Challenge, ChooseColor, Draw, Pass, Phase, Play, State

_ARROW = {1: "clockwise", -1: "counterclockwise"}

# What the players do, as the transcript says it (the referee's words are in
# table.referee.announcements).
MOVES: Final[dict[str, dict[str, str]]] = {
    "plays": {"en": "{player} plays {card}", "ja": "{player}: {card} を だす"},
    "names": {"en": "{player} names {color}", "ja": "{player}: いろは {color}"},
    "passes": {"en": "{player} passes (button)", "ja": "{player}: パス (ボタン)"},
    "uno": {"en": "{player} calls UNO (button)", "ja": "{player}: ウノ (ボタン)"},
    "catches": {"en": "{player} catches {target} (UNO button)",
                "ja": "{player}: {target}の ウノわすれ (ボタン)"},
    "challenges": {"en": "{player} challenges (button)", "ja": "{player}: チャレンジ (ボタン)"},
    "presses": {"en": "{player} presses {button}", "ja": "{player}: {button} (ボタン)"},
    "draws-button": {"en": "{player} draws (button)", "ja": "{player}: ひく (ボタン)"},
    "draws-shoe": {"en": "{player} draws a card (shoe)", "ja": "{player}: いちまい ひく (シュー)"},
    "takes": {"en": "{player} takes {count} onto the seat pad",
              "ja": "{player}: {count}まい じぶんの パッドへ"},
    "takes-hand": {"en": "{player} takes {count} into the hand",
                   "ja": "{player}: {count}まい てふだへ"},
    "shows": {"en": "{player} shows the hand on the play pad",
              "ja": "{player}: てふだを パッドで みせる"},
    "deals": {"en": "{player} shuffles and deals {count} cards each",
              "ja": "{player}: {count}まいずつ くばる"},
    "turns-up": {"en": "{player} turns up {card}", "ja": "{player}: {card} を めくる"},
    "next-round": {"en": "next round (token)", "ja": "つぎの ラウンド (トークン)"},
    "no-read": {"en": "  (no read: {player} taps again)",
                "ja": "  (よめず: {player}は もう いちど)"},
    "ignored": {"en": "  (read ignored: {reason})", "ja": "  (むし: {reason})"},
    "unplugged-tap": {"en": "  (a tap on the unplugged pad: no read)",
                      "ja": "  (はずれた パッドに タップ: よめず)"},
    "nothing-to-undo": {"en": "  (nothing of yours to undo in this round)",
                        "ja": "  (とりけす ものが ありません)"},
}
_JA_COLORS: Final = {"red": "あか", "yellow": "きいろ", "green": "みどり", "blue": "あお"}


def move_text(key: str, lang: str, **params: str | int) -> str:
    """A line of the transcript about what a player did, in ``lang`` (en or ja)."""
    if lang == "ja" and "color" in params:
        params["color"] = _JA_COLORS.get(str(params["color"]), str(params["color"]))
    if key in ("takes", "takes-hand") and lang == "en":
        params["count"] = f"{params['count']} card" + ("" if params["count"] == 1 else "s")
    return MOVES[key]["ja" if lang == "ja" else "en"].format(**params)


VIEW: Final[dict[str, dict[str, str]]] = {
    "en": {"head": "round {round} | top {top} ({color}) | {direction} | {turn}",
           "to-play": "{who} to play", "names": "{who} names a colour", "dealing": "dealing",
           "round-over": "round over", "match-over": "match over", "to-draw": " | {n} to draw",
           "legend": "(cards [score])", "clockwise": "clockwise",
           "counterclockwise": "counterclockwise"},
    "ja": {"head": "ラウンド {round} | うえ {top} ({color}) | {direction} | {turn}",
           "to-play": "{who}の ばん", "names": "{who}が いろを えらぶ", "dealing": "くばりちゅう",
           "round-over": "ラウンド おわり", "match-over": "マッチ おわり",
           "to-draw": " | {n}まい ひく", "legend": "(まいすう [てん])",
           "clockwise": "とけいまわり", "counterclockwise": "はんとけいまわり"},
}


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
