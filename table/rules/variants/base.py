"""What every variant shares: the state it keeps over a round (:class:`Extra`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from table.rules.hooks import Rules
from table.rules.variant_state import Extra

if TYPE_CHECKING:
    from table.rules.options import Options


class Variant(Rules):
    """A rule of docs/rules.md §4-§6: on when :meth:`applies` says so for the options."""

    @classmethod
    def applies(cls, options: Options) -> bool:
        """Whether ``options`` turn this rule on."""
        raise NotImplementedError(f"{cls.__name__} says which options turn it on")

    def new_extra(self, previous: Extra, n: int) -> Extra:
        """Round state cleared, match state (the streak of Dons suffered) kept."""
        streak = previous.don_streak or (0,) * n
        return Extra(seen=(0,) * n, don_streak=streak)
