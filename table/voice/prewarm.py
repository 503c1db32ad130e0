"""The phrases worth rendering before the first tap: every player's turn call and the other
sentences said many times an evening, so that they are spoken without delay."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from table.cards import COLORS
from table.referee.announcements import Announcement, render

_PER_PLAYER = (
    ("turn", ()),
    ("uno", ()),
    ("skipped", ()),
    ("passed", ()),
    ("color-needed", ()),
    ("pending-draw", (("count", 2),)),
    ("pending-draw-challenge", (("count", 4),)),
    ("draws", (("count", 1),)),
    ("draws", (("count", 2),)),
    ("draws", (("count", 4),)),
    ("round-won", ()),
)
_FIXED = (
    "rejected",
    "rejected-not-your-turn",
    "rejected-wrong-color-or-number",
    "rejected-card-not-available",
    "rejected-card-not-in-hand",
    "rejected-draw-penalty-pending",
    "rejected-color-not-chosen",
    "unknown-tag",
    "undone",
    "reversed-clockwise",
    "reversed-counterclockwise",
)


def prewarm_texts(
    players: Sequence[str], lang: str, pronounce: Mapping[str, str] | None = None
) -> list[str]:
    """The sentences to render at start-up for this table, in ``lang``."""
    anns = [Announcement(key) for key in _FIXED]
    for key in ("wild", "color-chosen"):
        anns += [Announcement(key, (("color", c.value),)) for c in COLORS]
    for name in players:
        anns += [Announcement(key, (("player", name), *params)) for key, params in _PER_PLAYER]
    return list(dict.fromkeys(render(a, lang, pronounce) for a in anns))
