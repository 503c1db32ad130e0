"""The kinds of engine event: every thing that can happen at the table, named once.

An :class:`~table.rules.state.Event` carries one of these. They are ``str`` values, so an event
kind reads, prints and serialises as the word it always was (``"round-start"``), while mypy
refuses a kind written in code that is not one of these. What the referee says for each kind,
or why it says nothing, is :mod:`table.referee.announcements`'s table; docs/design.md lists
them all.
"""

from __future__ import annotations

from enum import StrEnum, unique
from typing import Final

# The penalties a player can earn by a slip (not the draw cards every game deals out), by the
# engine's reason code (their names: the [report] section of the table's phrases).
PENALTY_KINDS: Final = ("uno-not-called", "false-catch", "challenge-failed",
                        "illegal-wild-draw-four", "false-don")


@unique
class EventKind(StrEnum):
    # The deal and the flow of play.
    """The kinds of engine event, each the word the event stream and the journal use."""
    ROUND_START = "round-start"  # player: the dealer; count: the round
    TURNED_UP = "turned-up"  # card: the card turned up to start the discard pile
    BURIED = "buried"  # card: a turned-up Wild Draw Four, put back in the pile
    TURN = "turn"  # player: whose turn it is now
    SKIPPED = "skipped"  # player: the seat skipped
    REVERSED = "reversed"  # count: the new direction, 1 clockwise, -1 counterclockwise
    PLAYED = "played"  # player, card; color: the colour named with a wild
    DREW = "drew"  # player drew count cards of their own accord
    PASSED = "passed"  # player passed after drawing
    COLOR_CHOSEN = "color-chosen"  # player named color after the wild was played
    COLOR_NEEDED = "color-needed"  # player must name a colour before play goes on
    PENDING_DRAW = "pending-draw"  # player must draw count unless they stack or challenge
    RESHUFFLED = "reshuffled"  # count cards of the discard pile became the draw pile
    PILES_EXHAUSTED = "piles-exhausted"  # player could not draw count cards: none left
    SHUFFLE_HANDS = "shuffle-hands"  # player's Wild Shuffle Hands dealt count cards again
    # UNO calls, catches and penalties.
    UNO = "uno"  # player called UNO
    CAUGHT = "caught"  # player caught target, who forgot to call UNO
    FALSE_CATCH = "false-catch"  # player wrongly tried to catch target
    PENALTY = "penalty"  # player draws count for reason
    # The Wild Draw Four challenge, and hands shown.
    CHALLENGE = "challenge"  # player challenges target's Wild Draw Four
    GUILTY = "guilty"  # player (the offender) held a card of the colour; target challenged
    INNOCENT = "innocent"  # player (the offender) was innocent; target challenged
    SHOW_NEEDED = "show-needed"  # player must show their hand, for reason
    SHOWN = "shown"  # player showed count cards
    IDENTIFIED = "identified"  # a card of player's hand, unknown until now, was read
    UNVERIFIED = "unverified"  # player's action was taken unchecked: their hand is unknown
    REJECTED = "rejected"  # player's action was refused for reason
    # The end of a round and of the match.
    ROUND_WON = "round-won"  # player went out; reason: how (for example "don")
    ROUND_SCORED = "round-scored"  # player scored count points for the round
    ELIMINATED = "eliminated"  # player is out of the match
    MATCH_OVER = "match-over"  # player won the match
    # Competition and local rules.
    JUMP_IN = "jump-in"  # player jumped in on target's turn
    SWAP_NEEDED = "swap-needed"  # player of a seven must choose whose hand to take
    SWAPPED = "swapped"  # player swapped hands with target
    HANDS_PASSED = "hands-passed"  # a zero: every hand passed on in direction count
    # Musician rules.
    DON = "don"  # player called Don (target: whose card it won on, if it did)
    MULTI_DON = "multi-don"  # count players won on one card; player deals next
    TENHOU = "tenhou"  # player won with a Don on the first card
    RENCHAN = "renchan"  # player has won count rounds in a row
    RENDON = "rendon"  # player has been Don'd count times in a row
    PANPAKAPAN = "panpakapan"  # every loser lost the same: player pays count
    COLOR_CALL = "color-call"  # player pays count more (a bonus of the Musician scoring)
    REVERSE_BACK = "reverse-back"  # player pays count more
    SKIP_BACK = "skip-back"  # player pays count more
    SAME_COLOR_DON = "same-color-don"  # player pays count more
    ZERO_DON = "zero-don"  # player pays count more
