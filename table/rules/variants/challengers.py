"""Who may challenge a Wild Draw Four (docs/rules.md §2, ``challengers``): under ``"any"``,
every other player may point out a guilty one, as [001] tells it: 「出せるカードがある状態で出した
場合、他のプレイヤーから指摘されると罰則として出したプレイヤーが山札から6枚カードを引きます」
(played while holding a card that could be played, and pointed out by another player, it costs
its player six cards)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from table.rules.actions import Action, Challenge
from table.rules.state import MAX_PLAYERS, Phase, State
from table.rules.variants.base import Variant

if TYPE_CHECKING:
    from table.rules.options import Options

_CHALLENGE = tuple(Challenge(seat) for seat in range(MAX_PLAYERS))


class AnyChallenger(Variant):
    """``challengers = "any"``: any player but the one who played the Wild Draw Four may
    challenge it while the player who must draw has not yet drawn, stacked or challenged.
    Choices (no seed decides; docs/rules.md): the hand is shown to that challenger alone; a
    guilty verdict spares the player who must draw, as in the official game; an innocent one
    costs the challenger `challenge_penalty` cards and the player who must draw still draws and
    loses the turn (the 4 is theirs, the extra the mistaken challenger's)."""

    @classmethod
    def applies(cls, options: Options) -> bool:
        """Whether ``options`` turn this rule on."""
        return options.challengers == "any" and options.challengeable

    def may_challenge(self, s: State, p: int) -> bool:
        """Whether ``p``, who is not the player who must draw, may challenge now."""
        window = s.challenge
        return (
            window is not None
            and s.pending > 0
            and s.phase is Phase.PLAY
            and 0 <= p < s.n
            and not s.eliminated[p]
            and p != window.offender
            and s.awaiting_color is None
            and s.awaiting_show is None
        ) or super().may_challenge(s, p)

    def out_of_turn(self, s: State) -> list[Action]:
        """Every challenge by a player other than the one who must draw, while one is open."""
        out = super().out_of_turn(s)
        window = s.challenge
        if window is not None and s.pending:
            out += [
                _CHALLENGE[p]
                for p in s.active
                if p != window.target and self.may_challenge(s, p)
            ]
        return out
