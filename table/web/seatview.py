"""What one seat's page shows: the seat's situation, the buttons the rules in force use (and
which of them do something now), and, where the table knows it, the seat's own hand with the
playable cards marked. Made for that seat alone, from its own view of the game.
"""

from __future__ import annotations

from typing import Any

from table.cards import sort_key
from table.rules import (
    CallUno,
    Catch,
    Challenge,
    ChooseColor,
    Don,
    Draw,
    Pass,
    Phase,
    Play,
    State,
    legal_actions,
)
from table.rules.actions import Action, actor
from table.rules.legal import out_of_turn_actions

_BUTTON_OF: dict[type, str] = {
    Draw: "draw", Pass: "pass", Challenge: "challenge", Don: "don", CallUno: "uno",
    Catch: "catch", ChooseColor: "color",
}


def rule_buttons(s: State) -> list[str]:
    """The buttons of a seat under the rules in force."""
    buttons = ["uno", "draw", "pass"]
    if s.options.challenge:
        buttons.append("challenge")
    if s.options.don:
        buttons.append("don")
    return buttons


def seat_actions(s: State, seat: int) -> list[Action]:
    """What ``seat`` may do now: its turn's actions, or out of turn a late UNO call, a catch,
    a jump-in or a Don."""
    on_turn = s.phase is Phase.PLAY and s.current_player == seat
    mine = list(legal_actions(s)) if on_turn else []
    return mine + [a for a in out_of_turn_actions(s) if actor(a) == seat and a not in mine]


def situation(s: State, seat: int, actions: list[Action]) -> dict[str, Any]:
    """The seat's situation as a phrase key of the page and its parameters."""
    names = s.players
    if s.phase is Phase.MATCH_OVER:
        return {"key": "match-over"}
    if s.phase is Phase.ROUND_OVER:
        return {"key": "round-over", "winner": names[s.winner] if s.winner is not None else None}
    if s.phase is Phase.START:
        return {"key": "dealing"}
    if s.awaiting_show == seat:
        return {"key": "show-hand"}
    if s.awaiting_show is not None:
        return {"key": "wait-show", "turn": names[s.awaiting_show]}
    if s.awaiting_color == seat:
        return {"key": "choose-color"}
    catch = next((a for a in actions if isinstance(a, Catch)), None)
    if catch is not None:
        return {"key": "catch", "target": names[catch.target]}
    if any(isinstance(a, CallUno) for a in actions) and s.current_player != seat:
        return {"key": "call-uno-late"}
    if s.current_player != seat:
        turn = s.current_player
        return {"key": "wait", "turn": names[turn] if turn is not None else None}
    if s.pending:
        if s.challenge is not None and s.challenge.target == seat:
            return {"key": "draw-or-challenge", "count": s.pending}
        if any(isinstance(a, Play) for a in actions):
            return {"key": "draw-or-stack", "count": s.pending}
        return {"key": "must-draw", "count": s.pending}
    if any(isinstance(a, CallUno) for a in actions):
        return {"key": "your-turn-uno"}
    return {"key": "your-turn"}


def seat_json(public: State, own: State | None, seat: int, plays_cards: bool) -> dict[str, Any]:
    """The page of ``seat``: ``own`` is the game as the seat knows it (``None`` when the table
    does not know its hand), ``public`` the referee's state."""
    s = own if own is not None else public
    actions = seat_actions(s, seat)
    ready = sorted({_BUTTON_OF[type(a)] for a in actions if type(a) in _BUTTON_OF})
    catch = next((a for a in actions if isinstance(a, Catch)), None)
    out: dict[str, Any] = {
        "seat": s.players[seat],
        "round": s.round,
        "mine": s.phase is Phase.PLAY and s.current_player == seat,
        "situation": situation(s, seat, actions),
        "buttons": rule_buttons(s),
        "ready": ready,
        "catch": s.players[catch.target] if catch is not None else None,
        "plays_cards": plays_cards,
        "hand": None,
        "unknown": len(s.hands[seat]),
    }
    if own is not None:
        hand = own.hands[seat]
        playable = {a.cards[0] for a in actions if isinstance(a, Play) and len(a.cards) == 1}
        out["hand"] = [{"code": c.code, "playable": c in playable}
                       for c in sorted(hand.known, key=sort_key)]
        out["unknown"] = hand.unknown
    return out
