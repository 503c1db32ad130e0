"""What the referee says about each kind of engine event: :data:`SAID` (the phrases a kind may
be said with, and the function that picks one), :data:`SILENT` (the kinds never said, each with
the reason) and :func:`from_events`, one step's events made into its announcements. The phrases
themselves, in both languages, and their rendering are in :mod:`table.referee.announcements`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from table.errors import TableError
from table.referee.announcements import (
    CATALOGUE,
    INFO,
    ROUTINE,
    URGENT,
    Announcement,
    rejection_key,
)
from table.rules.events import EventKind
from table.rules.options import Options
from table.rules.state import Event


def _ann(key: str, priority: int = INFO, **params: str | int) -> Announcement:
    return Announcement(key, tuple(params.items()), priority)


class UnannouncedEvent(TableError, LookupError):
    """An event whose kind :data:`SAID` does not say and :data:`SILENT` does not excuse."""


@dataclass(frozen=True, slots=True)
class Telling:
    """What saying one event needs besides the event: the step's events, the names, the rules."""

    events: Sequence[Event]
    at: int  # the event's place in ``events``
    players: Sequence[str]
    options: Options | None

    def name(self, seat: int | None) -> str:
        """The name of the player at ``seat`` (empty for none)."""
        return self.players[seat] if seat is not None else ""

    def before(self, kind: EventKind) -> list[Event]:
        """The events of ``kind`` earlier in the same step."""
        return [e for e in self.events[: self.at] if e.kind is kind]


@dataclass(frozen=True, slots=True)
class Said:
    """How one kind of event is said: every phrase it may be said with, and the function that
    picks one (``None``: nothing to say for this event, e.g. a play that is not a wild)."""

    phrases: tuple[str, ...]
    say: Callable[[Event, Telling], Announcement | None]


def _player(key: str, priority: int) -> Said:
    """An event said by one phrase that names its player."""
    return Said((key,), lambda e, t: _ann(key, priority, player=t.name(e.player)))


def _plain(key: str, priority: int) -> Said:
    """An event said by one phrase without parameters."""
    return Said((key,), lambda e, t: _ann(key, priority))


def _pays(key: str) -> Said:
    """A Musician scoring event: its player pays ``count`` points."""
    return Said((key,), lambda e, t: _ann(key, URGENT, player=t.name(e.player), points=e.count))


def _counted(key: str) -> Said:
    """A Musician run: its player has ``count`` in a row."""
    return Said((key,), lambda e, t: _ann(key, URGENT, player=t.name(e.player), count=e.count))


def _card(key: str) -> Said:
    """A card face up for all, said by name."""
    return Said((key,), lambda e, t: None if e.card is None else _ann(key, INFO, card=e.card.code))


def _reversed(e: Event, t: Telling) -> Announcement:
    way = "clockwise" if e.count > 0 else "counterclockwise"
    return _ann(f"reversed-{way}", INFO)


def _played(e: Event, t: Telling) -> Announcement | None:
    if e.card is not None and e.card.is_wild and e.color is not None:
        return _ann("wild", INFO, color=e.color.value)
    return None  # the card is on the pile for all to see


def _color_chosen(e: Event, t: Telling) -> Announcement | None:
    return None if e.color is None else _ann("color-chosen", INFO, color=e.color.value)


def _pending_draw(e: Event, t: Telling) -> Announcement:
    o = t.options
    wd4 = any(p.card is not None and p.card.rank == "W+4" for p in t.before(EventKind.PLAYED))
    key = "pending-draw-challenge" if o is not None and o.challengeable and wd4 else "pending-draw"
    if key == "pending-draw" and o is not None and o.stacking != "off":
        key = "pending-draw-stack"
    return _ann(key, URGENT, player=t.name(e.player), count=e.count)


def _penalty(e: Event, t: Telling) -> Announcement:
    """A penalty draw, said with what earned it (a catch, a challenge, a false Don...)."""
    p, reason = t.name(e.player), e.reason
    if reason in ("uno-not-called", "uno-lose-turn"):
        lost = "-loses-turn" if reason == "uno-lose-turn" else ""
        catches = [c for c in t.before(EventKind.CAUGHT) if c.target is not None]
        if catches:
            return _ann("caught" + lost, URGENT, catcher=t.name(catches[-1].player), player=p,
                        count=e.count)
        return _ann("uno-missed" + lost, URGENT, player=p, count=e.count)
    if reason == "illegal-wild-draw-four":
        success = "offender-draws" if t.options is None else t.options.challenge_success
        key = {"take-back": "guilty-take-back", "discard": "guilty-discard"}.get(success, "guilty")
        return _ann(key, URGENT, offender=p, count=e.count)
    if reason == "challenge-failed":
        return _ann("innocent", URGENT, player=p, count=e.count)
    if reason in ("false-don", "false-catch"):
        return _ann(reason, URGENT, player=p, count=e.count)
    return _ann("draws", URGENT, player=p, count=e.count)


def _challenge(e: Event, t: Telling) -> Announcement | None:
    if e.target is None:
        return None
    return _ann("challenge", URGENT, player=t.name(e.player), offender=t.name(e.target))


def _round_won(e: Event, t: Telling) -> Announcement | None:
    if e.reason == "don":
        return None  # said by the Don itself
    musician = t.options is not None and t.options.scoring == "musician"
    return _ann("chin" if musician else "round-won", URGENT, player=t.name(e.player))


def _rejected(e: Event, t: Telling) -> Announcement:
    return _ann(rejection_key(e.reason), URGENT)


def _don(e: Event, t: Telling) -> Announcement:
    if e.target is None:
        return _ann("don-called", URGENT, player=t.name(e.player))
    return _ann("don", URGENT, player=t.name(e.player), target=t.name(e.target))


# What the referee says for each kind of event. With SILENT, every kind: a kind in neither
# table is an error when it is announced, and tests/test_referee_announcements.py checks both
# tables against EventKind and the catalogue.
SAID: Final[Mapping[EventKind, Said]] = {
    EventKind.ROUND_START: Said(("round-start",), lambda e, t: _ann(
        "round-start", INFO, round=e.count, player=t.name(e.player))),
    EventKind.TURNED_UP: _card("turned-up"),
    EventKind.BURIED: _card("buried"),
    EventKind.TURN: _player("turn", ROUTINE),
    EventKind.SKIPPED: _player("skipped", INFO),
    EventKind.REVERSED: Said(("reversed-clockwise", "reversed-counterclockwise"), _reversed),
    EventKind.PLAYED: Said(("wild",), _played),
    EventKind.PASSED: _player("passed", ROUTINE),
    EventKind.COLOR_CHOSEN: Said(("color-chosen",), _color_chosen),
    EventKind.COLOR_NEEDED: _player("color-needed", URGENT),
    EventKind.PENDING_DRAW: Said(("pending-draw", "pending-draw-challenge", "pending-draw-stack"),
                         _pending_draw),
    EventKind.RESHUFFLED: _plain("reshuffled", INFO),
    EventKind.PILES_EXHAUSTED: _plain("piles-exhausted", INFO),
    EventKind.SHUFFLE_HANDS: _plain("shuffle-hands", INFO),
    EventKind.UNO: _player("uno", URGENT),
    EventKind.PENALTY: Said(("caught", "uno-missed", "guilty", "guilty-take-back", "innocent",
                     "false-don", "false-catch", "draws", "caught-loses-turn",
                     "uno-missed-loses-turn", "guilty-discard"), _penalty),
    EventKind.CHALLENGE: Said(("challenge",), _challenge),
    EventKind.SHOW_NEEDED: _player("show-needed", URGENT),
    EventKind.REJECTED: Said(tuple(k for k in CATALOGUE if k.startswith("rejected")), _rejected),
    EventKind.ROUND_WON: Said(("round-won", "chin"), _round_won),
    EventKind.ROUND_SCORED: Said(("round-scored",), lambda e, t: _ann(
        "round-scored", URGENT, player=t.name(e.player), points=e.count)),
    EventKind.ELIMINATED: _player("eliminated", URGENT),
    EventKind.MATCH_OVER: _player("match-over", URGENT),
    EventKind.JUMP_IN: _player("jump-in", URGENT),
    EventKind.SWAP_NEEDED: _player("swap-needed", URGENT),
    EventKind.SWAPPED: Said(("swapped",), lambda e, t: _ann(
        "swapped", URGENT, player=t.name(e.player), target=t.name(e.target))),
    EventKind.HANDS_PASSED: _plain("hands-passed", URGENT),
    EventKind.DON: Said(("don", "don-called"), _don),
    EventKind.MULTI_DON: Said(("multi-don-2", "multi-don-3"), lambda e, t: _ann(
        f"multi-don-{min(e.count, 3)}", URGENT, player=t.name(e.player))),
    EventKind.TENHOU: _plain("tenhou", URGENT),
    EventKind.RENCHAN: _counted("renchan"),
    EventKind.RENDON: _counted("rendon"),
    EventKind.PANPAKAPAN: _pays("panpakapan"),
    EventKind.COLOR_CALL: _pays("color-call"),
    EventKind.REVERSE_BACK: _pays("reverse-back"),
    EventKind.SKIP_BACK: _pays("skip-back"),
    EventKind.SAME_COLOR_DON: _pays("same-color-don"),
    EventKind.ZERO_DON: _pays("zero-don"),
}

# The kinds the referee never says, each with the reason.
SILENT: Final[Mapping[EventKind, str]] = {
    EventKind.DREW: "the table sees a player draw; the next turn is called",
    EventKind.CAUGHT: "said by the penalty that follows, which names the catcher",
    EventKind.FALSE_CATCH: "said by the penalty that follows, when the rules give one",
    EventKind.GUILTY: "said by the penalty that follows",
    EventKind.INNOCENT: "said by the penalty that follows",
    EventKind.SHOWN: "the cards of a shown hand are hidden information; the verdict is said",
    EventKind.IDENTIFIED: "a card read from a hand is hidden information",
    EventKind.UNVERIFIED: "taken without remark; the state counts what could not be checked",
}


def from_events(
    events: Sequence[Event], players: Sequence[str], options: Options | None = None
) -> list[Announcement]:
    """The announcements for one step's events, in order. Raises :class:`UnannouncedEvent` for
    a kind that is neither said nor silent on purpose."""
    out: list[Announcement] = []
    for at, e in enumerate(events):
        said = SAID.get(e.kind)
        if said is None:
            if e.kind in SILENT:
                continue
            raise UnannouncedEvent(
                f"event kind {str(e.kind)!r} has no announcement: give it a phrase in "
                f"{__name__}.SAID or a reason in SILENT"
            )
        ann = said.say(e, Telling(events, at, players, options))
        if ann is not None:
            out.append(ann)
    return out
