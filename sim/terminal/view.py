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
    "plays": {"en": "{player} plays {card}", "ja": "{player}: {card}を出す"},
    "names": {"en": "{player} names {color}", "ja": "{player}: 色は{color}"},
    "passes": {"en": "{player} passes (button)", "ja": "{player}: パス (ボタン)"},
    "uno": {"en": "{player} calls UNO (button)", "ja": "{player}: ウノ (ボタン)"},
    "catches": {"en": "{player} catches {target} (UNO button)",
                "ja": "{player}: {target}のウノ忘れを指摘 (ボタン)"},
    "challenges": {"en": "{player} challenges (button)", "ja": "{player}: チャレンジ (ボタン)"},
    "presses": {"en": "{player} presses {button}", "ja": "{player}: {button} (ボタン)"},
    "swaps": {"en": "{player} swaps hands with {target} (seat token)",
              "ja": "{player}: {target}と手札を交換 (席トークン)"},
    "draws-button": {"en": "{player} draws (button)", "ja": "{player}: 引く (ボタン)"},
    "draws-shoe": {"en": "{player} draws a card (shoe)", "ja": "{player}: 1枚引く (シュー)"},
    "takes": {"en": "{player} takes {count} onto the seat pad",
              "ja": "{player}: {count}枚を自分のパッドへ"},
    "takes-hand": {"en": "{player} takes {count} into the hand",
                   "ja": "{player}: {count}枚を手札へ"},
    "shows": {"en": "{player} shows the hand on the play pad",
              "ja": "{player}: 手札をパッドで見せる"},
    "deals": {"en": "{player} shuffles and deals {count} cards each",
              "ja": "{player}: {count}枚ずつ配る"},
    "turns-up": {"en": "{player} turns up {card}", "ja": "{player}: {card}をめくる"},
    "next-round": {"en": "next round (token)", "ja": "次のラウンド (トークン)"},
    "no-read": {"en": "  (no read: {player} taps again)",
                "ja": "  (読めず: {player}はもう一度)"},
    "ignored": {"en": "  (read ignored: {reason})", "ja": "  (無視: {reason})"},
    "unplugged-tap": {"en": "  (a tap on the unplugged pad: no read)",
                      "ja": "  (外れたパッドにタップ: 読めず)"},
    "nothing-to-undo": {"en": "  (nothing of yours to undo in this round)",
                        "ja": "  (取り消すものがありません)"},
}
# Colours as the announcements write them (table.referee.announcements).
_JA_COLORS: Final = {"red": "赤", "yellow": "黄色", "green": "緑", "blue": "青"}


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
    "ja": {"head": "第{round}ラウンド | 場 {top} ({color}) | {direction} | {turn}",
           "to-play": "{who}の番", "names": "{who}が色を選ぶ", "dealing": "配っています",
           "round-over": "ラウンド終了", "match-over": "試合終了",
           "to-draw": " | {n}枚引く", "legend": "(枚数 [得点])",
           "clockwise": "時計回り", "counterclockwise": "反時計回り"},
}

# The demo's own lines around the match: its header, how it ended and what was checked.
DEMO: Final[dict[str, dict[str, str]]] = {
    "en": {"header": "uno-table demo: {seats} | rules {rules} | hands {hands} | voice {voice}"
                     " | seed {seed}",
           "played": "{rounds} round{s} played; scores: {board}",
           "match-over": "match over: {leader} wins",
           "checked": "checked: every card in exactly one place after each round; the scores "
                      "equal a fault-free replay of the {actions} accepted actions"},
    "ja": {"header": "uno-table デモ: {seats} | {rules}ルール | 手札 {hands} | 音声 {voice}"
                     " | シード {seed}",
           "played": "{rounds}ラウンド終了。得点: {board}",
           "match-over": "試合終了: {leader}さんの優勝",
           "checked": "確認済み: 各ラウンドの後、どのカードもちょうど1か所にあり、得点は受け付けた"
                      "{actions}の操作を誤りなしでやり直した結果と同じです"},
}
_JA_HANDS: Final = {"full": "全部見える", "counts": "枚数だけ"}
_JA_RULES: Final = {"official": "公式", "japanese": "日本式", "house": "ハウス",
                    "musician": "ミュージシャン"}


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
