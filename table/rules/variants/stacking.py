"""Stacking draw cards on draw cards (docs/rules.md §4 ``stacking``, §6).

The pending count accumulates (2 + 2 + 4 = 8); the player who cannot or will not stack draws
the total and loses the turn.

- ``draw-two``: a Draw Two on a Draw Two.
- ``draw-two-into-four``: a Draw Two may be answered with a Draw Two or a Wild Draw Four; a
  Wild Draw Four only with a Wild Draw Four [000] (「ドロー2」か「ワイルド・ドロー4」を出せば).
- ``any``: any draw card on any draw card [000] local rule 6; a Draw Two on a Wild Draw Four
  must match the named colour (「色が一致していないと出すことができない」).
- ``same-kind``: a Draw Two on a Draw Two, a Wild Draw Four on a Wild Draw Four [002]
  (「ドロー2」があれば、だして ... 「ドロー4」の場合もおなじです).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from table.cards import DRAW_TWO, WILD_DRAW_FOUR, Card, Color
from table.rules.state import State
from table.rules.variants.base import Variant

if TYPE_CHECKING:
    from table.rules.options import Options

_ANSWERS: Final[dict[str, dict[str, tuple[str, ...]]]] = {
    "off": {},
    "draw-two": {DRAW_TWO: (DRAW_TWO,)},
    "draw-two-into-four": {DRAW_TWO: (DRAW_TWO, WILD_DRAW_FOUR), WILD_DRAW_FOUR: (WILD_DRAW_FOUR,)},
    "any": {DRAW_TWO: (DRAW_TWO, WILD_DRAW_FOUR), WILD_DRAW_FOUR: (DRAW_TWO, WILD_DRAW_FOUR)},
    "same-kind": {DRAW_TWO: (DRAW_TWO,), WILD_DRAW_FOUR: (WILD_DRAW_FOUR,)},
}


def answerable(mode: str, rank: str) -> bool:
    """Whether a draw card of ``rank`` may be answered by stacking (so its draw waits)."""
    return bool(_ANSWERS[mode].get(rank))


def can_stack(mode: str, top: Card | None, color: Color | None, card: Card) -> bool:
    """Whether ``card`` may be stacked on the draw card ``top`` whose draw is pending."""
    if top is None or card.rank not in _ANSWERS[mode].get(top.rank, ()):
        return False
    if card.rank == DRAW_TWO and top.rank == WILD_DRAW_FOUR:
        return card.color is color
    return True


class Stacking(Variant):
    """Draw cards stacked on draw cards (``stacking``)."""
    @classmethod
    def applies(cls, options: Options) -> bool:
        """Whether ``options`` turn this rule on."""
        return options.stacking != "off"

    def may_stack(self, s: State, card: Card) -> bool:
        """Whether ``card`` may be played on a pending draw, under this rule."""
        return can_stack(s.options.stacking, s.top, s.color, card) or super().may_stack(s, card)

    def draws_wait(self, s: State, rank: str) -> bool:
        """Whether the draw of a draw card of ``rank`` waits to be answered."""
        return answerable(s.options.stacking, rank) or super().draws_wait(s, rank)
