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
    ("draws", (("count", 6),)),
    ("round-won", ()),
    ("color-reminder", ()),
)
# Each player's phrases under some rules: stacked draws, and the Musician's Chin and Don.
_STACKING = (("pending-draw-stack", (("count", 2),)), ("pending-draw-stack", (("count", 4),)),
             ("pending-draw-stack", (("count", 6),)), ("draws", (("count", 8),)))
_MUSICIAN = (("chin", ()), ("don-called", ()))
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
    players: Sequence[str],
    lang: str,
    pronounce: Mapping[str, str] | None = None,
    stacking: bool = False,
    musician: bool = False,
) -> list[str]:
    """The sentences to render at start-up for this table, in ``lang``, the most frequent
    first (a turn call is needed sooner than a Don). ``stacking`` and ``musician`` add the
    phrases of stacked draws and of the Musician's Chin and Don."""
    anns = [Announcement(key) for key in _FIXED]
    for key in ("wild", "color-chosen"):
        anns += [Announcement(key, (("color", c.value),)) for c in COLORS]
    per_player = list(_PER_PLAYER)
    if stacking:
        per_player += _STACKING
    if musician:
        per_player += _MUSICIAN
    for key, params in per_player:
        anns += [Announcement(key, (("player", name), *params)) for name in players]
    if musician:
        anns += [Announcement("don", (("player", winner), ("target", loser)))
                 for winner in players for loser in players if winner != loser]
    return list(dict.fromkeys(render(a, lang, pronounce) for a in anns))
