"""Legal actions of the player on turn, as the engine would accept them.

Only known cards are offered: a hidden hand's plays are checked when the card is read.
A Wild Draw Four is offered whenever it could be played, bluff included, where the rules let a
challenge expose a bluff. Out-of-turn actions (UNO calls after the play, catches) are listed by
:func:`out_of_turn_actions`.
"""

from __future__ import annotations

from table.cards import COLORS, EDITIONS, WILD_DRAW_FOUR, Card, Color
from table.rules import house
from table.rules.actions import Action, CallUno, Catch, Challenge, ChooseColor, Draw, Pass, Play
from table.rules.matching import matches, wd4_guilty
from table.rules.state import MAX_PLAYERS, Phase, State

# Actions are immutable values, so each is made once and shared: enumerating the legal
# actions then costs a dictionary look-up per card instead of building objects. The plays are
# kept per seat, so the look-up key is the card itself.
_PLAYS: dict[int, dict[Card, tuple[Play, ...]]] = {}
_DRAW = tuple(Draw(seat) for seat in range(MAX_PLAYERS))
_PASS = tuple(Pass(seat) for seat in range(MAX_PLAYERS))
_CALL_UNO = tuple(CallUno(seat) for seat in range(MAX_PLAYERS))
_CHALLENGE = tuple(Challenge(seat) for seat in range(MAX_PLAYERS))
_CATCH = tuple(tuple(Catch(c, t) for t in range(MAX_PLAYERS)) for c in range(MAX_PLAYERS))
# Every face of every edition, in a fixed order.
_FACES: tuple[Card, ...] = tuple(dict.fromkeys(c for counts in EDITIONS.values() for c in counts))
_WILD_DRAW_FOUR = Card(None, WILD_DRAW_FOUR)
# The plays of one seat onto one (colour in force, live rank), by card: only the cards that
# match are keys. ``free`` says whether a Wild Draw Four is always offered (it may be
# challenged, or it is unrestricted); when it is not, it is left out and checked on its own.
_MATCHING: dict[tuple[int, int, str | None, bool], dict[Card, tuple[Play, ...]]] = {}
_PLAY = Phase.PLAY  # a module global is read faster than an enum member


def _seat_plays(player: int) -> dict[Card, tuple[Play, ...]]:
    plays = _PLAYS.get(player)
    if plays is None:
        plays = _PLAYS[player] = {}
    return plays


def _plays_of(player: int, card: Card) -> tuple[Play, ...]:
    seat_plays = _seat_plays(player)
    plays = seat_plays.get(card)
    if plays is None:
        colors: tuple[Color | None, ...] = COLORS if card.is_wild else (None,)
        plays = seat_plays[card] = tuple(Play(player, (card,), c) for c in colors)
    return plays


def _matching_plays(
    player: int, color: Color | None, rank: str | None, free: bool
) -> dict[Card, tuple[Play, ...]]:
    """Make (once) the entry of ``_MATCHING`` for this seat, colour, rank and ``free``."""
    plays = _MATCHING[(player, id(color), rank, free)] = {
        card: _plays_of(player, card)
        for card in _FACES
        if (card.is_wild and (free or card.rank != WILD_DRAW_FOUR))
        or card.color is color
        or (rank is not None and card.rank == rank)
    }
    return plays


def _plays(s: State, player: int, card: Card, out: list[Action]) -> None:
    if card.is_wild:
        if card.rank == WILD_DRAW_FOUR and not s.options.challengeable:
            rest = s.hands[player].known.copy()
            rest.remove(card)
            if wd4_guilty(rest, s.color, s.live_rank, s.options.wild_draw_four):
                return
        out.extend(_plays_of(player, card))
    elif matches(s, card):
        out.extend(_plays_of(player, card))


def legal_actions(s: State) -> list[Action]:
    """The actions the player on turn may take, each once; empty when no one is on turn."""
    if s.extra.on:
        return house.legal(s)
    if s.phase is not _PLAY or s.awaiting_show is not None:
        return []
    if s.awaiting_color is not None:
        return [ChooseColor(s.awaiting_color, c) for c in COLORS]
    p = s.turn
    hand = s.hands[p]
    out: list[Action] = []
    if s.pending:
        out.append(_DRAW[p])
        if s.challenge is not None and s.challenge.target == p:
            out.append(_CHALLENGE[p])
        return out
    if s.has_drawn:
        if s.drawn is not None:
            _plays(s, p, s.drawn, out)
            if s.options.draw == "until-playable" and not matches(s, s.drawn):
                out.append(_DRAW[p])
            else:
                out.append(_PASS[p])
        else:
            out.append(_PASS[p])
            if s.options.draw == "until-playable":
                out.append(_DRAW[p])
        return out
    opts = s.options
    known = hand.known
    # (options.challengeable or unrestricted), without the property call.
    free = opts.challenge or opts.wild_draw_four == "unrestricted"
    if free or _WILD_DRAW_FOUR not in known:
        # Keyed by the colour's id(): an enum member hashes in Python, and lives for ever.
        matching = _MATCHING.get((p, id(s.color), s.live_rank, free))
        if matching is None:
            matching = _matching_plays(p, s.color, s.live_rank, free)
        # The matching cards picked out in C, then each distinct one, in hand order, gives its
        # plays.
        for card in dict.fromkeys(filter(matching.__contains__, known)):
            out += matching[card]
        if not out or opts.draw_by_choice:
            out.append(_DRAW[p])
    elif not _checked_plays(s, p, out) or opts.draw_by_choice:
        out.append(_DRAW[p])
    if len(known) + hand.unknown == 2 and not s.called[p]:
        out.append(_CALL_UNO[p])
    return out


def _checked_plays(s: State, p: int, out: list[Action]) -> bool:
    """The plays of a hand holding a Wild Draw Four whose restriction the engine enforces
    itself. Returns whether a known card matches (has_playable), even a refused Wild Draw Four.
    """
    color, rank = s.color, s.live_rank
    playable = False
    for card in dict.fromkeys(s.hands[p].known):
        if card.is_wild:
            playable = True
            _plays(s, p, card, out)
        elif card.color is color or card.rank == rank:
            playable = True
            out.extend(_plays_of(p, card))
    return playable


def out_of_turn_actions(s: State) -> list[Action]:
    """A late UNO call and every catch that would succeed now (and, under the local and
    Musician rules, every jump-in and Don)."""
    seat = s.uno_window
    if s.extra.on:
        out: list[Action] = house.out_of_turn(s)
    elif seat is None:
        return []  # the common case: no window is open
    else:
        out = []
    if seat is None or s.phase is not _PLAY or s.called[seat]:
        return out
    out.append(_CALL_UNO[seat])
    for c in s.active:
        if c != seat and (s.options.uno_catchers == "any" or c == s.uno_next):
            out.append(_CATCH[c][seat])
    return out
