"""Several cards at once: ``multi_play = "same-number"`` ([000] local rule 4) and
``two_card_play`` ([000] 4-2, a competition rule)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from table.cards import WILD, WILD_DRAW_FOUR, Card
from table.errors import IllegalPlay
from table.rules.state import State
from table.rules.variants.base import Variant

if TYPE_CHECKING:
    from table.rules.options import Options


_GROUPED_WILDS = (WILD, WILD_DRAW_FOUR)


class Groups(Variant):
    """Several cards played at once (``multi_play``, local rule 4)."""
    @classmethod
    def applies(cls, options: Options) -> bool:
        """Whether ``options`` turn this rule on."""
        return options.multi_play != "off" or options.two_card_play

    def check_group(self, s: State, cards: tuple[Card, ...]) -> None:
        """``multi_play = "same-number"``: cards of one number or one symbol
        (「記号か数字が一致している」), the first playable, the last the new top.
        ``two_card_play``: two identical number cards (「色と数字が一致する同一の数字カード」);
        action cards one at a time. Wilds and Wild Draw Fours go down together too under
        multi-play: 「「記号カード」もまとめて出す事ができ、出した分だけ効果は重複する」 (two Wild
        Draw Fours: the next player draws 8). Choice: a Wild Shuffle Hands or Wild Customizable
        (2018 cards the seed does not know) goes down alone."""
        opts = s.options
        lead = cards[0]
        if any(c.is_wild for c in cards) and not (
            opts.multi_play == "same-number" and lead.rank in _GROUPED_WILDS
        ):
            raise IllegalPlay("one-card-at-a-time", "wild cards are played one at a time")
        if opts.multi_play == "same-number" and all(c.rank == lead.rank for c in cards):
            return
        if opts.two_card_play and len(cards) == 2 and cards[1] is lead and lead.number is not None:
            return
        if opts.multi_play == "same-number" or (opts.two_card_play and lead.number is not None):
            raise IllegalPlay("not-same-card", "only cards of the same number go down together")
        raise IllegalPlay("one-card-at-a-time", "cards are played one at a time")

    def check_going_out(self, s: State, p: int, cards: tuple[Card, ...], left: int) -> None:
        """Raise unless ``p`` may go out (or down to one) with ``cards``, under this rule."""
        if left == 0 and len(cards) == 2 and s.options.multi_play == "off" and not s.called[p]:
            # [000] 4-2: 「「ウノ」を宣言していなかった場合 ... あがることができずカードは1枚のみ」
            raise IllegalPlay("uno-first", "call UNO before going out with two cards")
        super().check_going_out(s, p, cards, left)

    def several_at_once(self, s: State, size: int) -> bool:
        """Whether a hand of ``size`` cards may go down to one in one play."""
        return size > 2

    def groups(self, s: State, p: int) -> Sequence[tuple[Card, ...]]:
        """Under multi-play, every card of one rank held, each distinct card leading in turn,
        the others in the order of the hand (a table may put them down in any order, and fewer
        of them: the listing offers the whole group, and the check accepts its parts too);
        under two-card play, each number card held twice, as a pair."""
        known = s.hands[p].known
        out: list[tuple[Card, ...]] = []
        opts = s.options
        if opts.multi_play == "same-number":
            by_rank: dict[str, list[Card]] = {}
            for c in known:
                if not c.is_wild or c.rank in _GROUPED_WILDS:
                    by_rank.setdefault(c.rank, []).append(c)
            for cards in by_rank.values():
                if len(cards) > 1:
                    for lead in dict.fromkeys(cards):
                        rest = cards.copy()
                        rest.remove(lead)
                        out.append((lead, *rest))
        if opts.two_card_play:
            pairs = [c for c in dict.fromkeys(known) if c.number is not None and known.count(c) > 1]
            out += [(c, c) for c in pairs]
        return list(dict.fromkeys(out))  # a pair is one group under both rules
