"""How much the voice says: ``[voice] detail`` (and ``--voice-detail`` of ``demo`` and ``sim``).

- ``turns`` (the default): the referee's announcements, as always: whose turn it is, the
  wilds, skips, reverses, draws owed, penalties, UNO calls, the round's end.
- ``plays``: besides, each card played, named: "Mio plays yellow one" (a player who cannot
  see the pile follows the game by ear).
- ``everything``: besides, each draw ("Ken draws 2 cards") and the count a player holds after
  each play or draw ("Ken has 6 cards").

Only the voice says more: the referee's announcements, the event stream, the captions and the
journal are the same at every level. What is said here is public at the table: a card played
lies face up on the pile, a draw is said by its count, never its cards.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from table.cards import parse_card
from table.errors import TableError
from table.referee.announcements import INFO, Announcement, card_words, ja_addressed
from table.referee.phrases import by_key

DETAILS: Final = ("turns", "plays", "everything")

# The voice's own phrases, by key then language (the [detail] section of the table's phrases).
PHRASES: Final[dict[str, dict[str, str]]] = by_key("detail")

def check_detail(value: str, where: str = "--voice-detail") -> str:
    """``value`` if it is a level of detail; else a one-line error naming ``where``."""
    if value not in DETAILS:
        raise TableError(f"{where} {value!r}: use {', '.join(DETAILS)}")
    return value


def words(ann: Announcement, lang: str, names: Mapping[str, str] | None = None) -> str:
    """The text of one of the voice's phrases; a player's name as ``names`` says it (and in
    Japanese with さん unless the name already addresses someone)."""
    values: dict[str, str] = {}
    for key, value in ann.params:
        if key == "player":
            said = (names or {}).get(str(value), str(value))
            values[key] = said if lang != "ja" or ja_addressed(str(value)) or ja_addressed(
                said) else f"{said}さん"
        elif key == "card":
            values[key] = (" と " if lang == "ja" else " and ").join(
                card_words(parse_card(code), lang) for code in str(value).split())
        else:
            values[key] = str(value)
    return PHRASES[ann.key][lang].format(**values)


def _ann(key: str, **params: str | int) -> Announcement:
    # As a skip or a wild is said (INFO): after what came before it, before the next turn call.
    return Announcement(key, tuple(params.items()), INFO)


class Detail:
    """The voice's phrases for one table's events, at one level of detail. Told of every event
    of the table's stream (a verdict, then the state it left), it answers with the phrases to
    say, in order: nothing at ``turns``."""

    def __init__(self, level: str = "turns") -> None:
        self.level = check_detail(level)
        self._action: Any = None  # the accepted action whose state comes next
        self._counts: tuple[int, ...] | None = None  # each hand's count, as last seen

    def hear(self, event: Mapping[str, Any]) -> list[Announcement]:
        """The phrases ``event`` (one of the table's stream) brings at this level."""
        kind = str(event.get("type"))
        extra: Mapping[str, Any] = getattr(event, "extra", {})
        if kind == "verdict":
            accepted = event.get("verdict") in ("accepted", "penalty")
            self._action = extra.get("action") if accepted else None
            return []
        if kind in ("new-match", "resumed"):
            self._action, self._counts = None, None
            return []
        if kind != "state" or "state" not in extra:
            return []
        state = extra["state"]
        counts = tuple(len(hand) for hand in state.hands)
        before, self._counts = self._counts, counts
        action, self._action = self._action, None
        if self.level == "turns" or action is None:
            return []
        return self._said(action, state.players, before, counts)

    def _said(self, action: Any, players: Sequence[str], before: tuple[int, ...] | None,
              counts: tuple[int, ...]) -> list[Announcement]:
        seat = getattr(action, "player", None)
        if seat is None or not 0 <= seat < len(players):
            return []
        name = players[seat]
        verb = type(action).__name__
        out: list[Announcement] = []
        if verb == "Play":
            out.append(_ann("plays", player=name,
                            card=" ".join(card.code for card in action.cards)))
        elif verb == "Draw" and self.level == "everything" and before is not None:
            drawn = counts[seat] - before[seat]
            if drawn > 0:
                out.append(_ann("draws-one", player=name) if drawn == 1
                           else _ann("draws", player=name, count=drawn))
        if self.level == "everything" and verb in ("Play", "Draw") and counts[seat] > 0:
            n = counts[seat]
            out.append(_ann("holds-one", player=name) if n == 1
                       else _ann("holds", player=name, count=n))
        return out
