"""Legal actions of the player on turn, as the engine would accept them.

Only known cards are offered: a hidden hand's plays are checked when the card is read.
A Wild Draw Four is offered whenever it could be played, bluff included, where the rules let a
challenge expose a bluff. The plays come from :func:`table.rules.play.list_plays`, the listing
of the one play path. Out-of-turn actions (UNO calls after the play, catches, and what the
variants allow out of turn) are listed by :func:`out_of_turn_actions`.
"""

from __future__ import annotations

from table.cards import COLORS
from table.rules.actions import Action, CallUno, Catch, Challenge, ChooseColor, Draw, Pass
from table.rules.flow import draws_again, uno_ahead
from table.rules.play import list_plays
from table.rules.state import MAX_PLAYERS, Phase, State

# Actions are immutable values, so each is made once and shared.
_DRAW = tuple(Draw(seat) for seat in range(MAX_PLAYERS))
_PASS = tuple(Pass(seat) for seat in range(MAX_PLAYERS))
_CALL_UNO = tuple(CallUno(seat) for seat in range(MAX_PLAYERS))
_CHALLENGE = tuple(Challenge(seat) for seat in range(MAX_PLAYERS))
_CATCH = tuple(tuple(Catch(c, t) for t in range(MAX_PLAYERS)) for c in range(MAX_PLAYERS))
_PLAY = Phase.PLAY  # a module global is read faster than an enum member


def legal_actions(s: State) -> list[Action]:
    """The actions the player on turn may take, each once; empty when no one is on turn. The
    plays come first (in the order of the hand), then the rest (a draw, a pass, a challenge,
    a UNO call): the ``play-first`` policy reads them in that order."""
    if s.phase is not _PLAY or s.awaiting_show is not None:
        return []
    if s.awaiting_color is not None:
        return [ChooseColor(s.awaiting_color, c) for c in COLORS]
    hooked = s.rules.hooked
    if "waiting_actions" in hooked:
        waiting = s.rules.waiting_actions(s)
        if waiting is not None:
            return waiting
    p = s.turn
    out: list[Action] = []
    list_plays(s, p, out)
    if s.pending:
        out.append(_DRAW[p])
        if s.challenge is not None and s.challenge.target == p:
            out.append(_CHALLENGE[p])
    elif s.has_drawn:
        again = draws_again(s)
        if s.drawn is None:  # drawn blind: passing is open too (the card is checked if played)
            out.append(_PASS[p])
            if again:
                out.append(_DRAW[p])
        else:
            out.append(_DRAW[p] if again else _PASS[p])
    else:
        if not out or s.options.draw_by_choice:
            out.append(_DRAW[p])
        # Offered at the start of a turn only (a call after a draw is accepted, not offered).
        # uno_ahead decides; most hands are far from one card, which costs no call here.
        hand = s.hands[p]
        if (len(hand.known) + hand.unknown == 2 or "several_at_once" in hooked) and (
            not s.called[p] and uno_ahead(s, p)
        ):
            out.append(_CALL_UNO[p])
    return out


def out_of_turn_actions(s: State) -> list[Action]:
    """A late UNO call and every catch that would succeed now (and, under the local and
    Musician rules, every jump-in and Don)."""
    rules = s.rules
    seat = s.uno_window
    if "out_of_turn" in rules.hooked:
        out = rules.out_of_turn(s)
    elif seat is None:
        return []  # the common case: no window open and nothing of a variant's
    else:
        out = []
    if seat is None or s.phase is not _PLAY or s.called[seat]:
        return out
    out.append(_CALL_UNO[seat])
    for c in s.active:
        if c != seat and (s.options.uno_catchers == "any" or c == s.uno_next):
            out.append(_CATCH[c][seat])
    return out
