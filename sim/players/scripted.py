"""A scripted match for the physical table: the taps a table with only a play pad (hand
tracking ``counts``) would see over several rounds, made by a seeded player that mostly plays a
matching card, sometimes draws, and now and then taps a card that does not match.

The taps are checked on an in-process referee as they are made, so the script is what a real
evening looks like: mostly accepted, some rejected, rounds scored by showing hands.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from table.cards import COLORS, CardCopy, edition_copies
from table.inputs import ReaderRole, TagRead
from table.referee.referee import Referee
from table.referee.registry import Deck, Token, virtual_deck
from table.rules import Options, Phase, make_options
from table.rules.matching import matches

PAD = "pad"


class ScriptedTable:
    """Makes taps one at a time on a referee of its own (a play pad named ``pad``)."""

    def __init__(
        self, players: Sequence[str], options: Options | None = None, seed: int = 0
    ) -> None:
        self.options = options or make_options(target=0)
        self.deck: Deck = virtual_deck(self.options.deck)
        self.referee, _ = Referee.create(
            self.options, players, self.deck, [ReaderRole(PAD, "play")], 0
        )
        self.rng = random.Random(seed)
        self.copies = list(edition_copies(self.options.deck))
        self.last = ""

    def _uid(self, tag: CardCopy | Token) -> str:
        uid = self.deck.uid_of(tag)
        assert uid is not None
        return uid

    def _free(self) -> list[CardCopy]:
        placed = self.referee.places
        return [c for c in self.copies if c not in placed]

    def _choose(self) -> str:
        ref, rng = self.referee, self.rng
        s = ref.state
        free = self._free()
        if s.phase is Phase.ROUND_OVER or s.phase is Phase.MATCH_OVER:
            if ref.shower() is not None and free:
                return self._uid(rng.choice(free))
            return self._uid(Token("next-round"))
        if s.phase is Phase.START:
            numbers = [c for c in free if c.card.number is not None]
            return self._uid(rng.choice(numbers))
        if s.awaiting_color is not None:
            return self._uid(Token(f"color:{rng.choice(COLORS).value}"))
        if s.pending:
            return self._uid(Token("draw"))
        hand = s.hands[s.turn]
        if len(hand) == 2 and not s.called[s.turn] and rng.random() < 0.7:
            return self._uid(Token("uno"))
        if s.has_drawn:
            return self._uid(Token("pass"))
        playable = [c for c in free if matches(s, c.card) and not c.card.is_wild]
        wilds = [c for c in free if c.card.is_wild and c.card.rank in ("W", "W+4")]
        roll = rng.random()
        if roll < 0.08:
            wrong = [c for c in free if not matches(s, c.card)]
            if wrong:
                return self._uid(rng.choice(wrong))
        if roll < 0.18 or not (playable or wilds):
            return self._uid(Token("draw"))
        if roll < 0.25 and wilds:
            return self._uid(rng.choice(wilds))
        return self._uid(rng.choice(playable or wilds))

    def tap(self) -> tuple[str, str]:
        """The next tap, as (reader, UID), already refereed on this table's own referee."""
        uid = self._choose()
        if uid == self.last:  # a tag left on the pad reads once: lift it by tapping a seat token
            uid = self._uid(Token(f"seat:{self.referee.state.turn + 1}"))
        self.last = uid
        self.referee.handle(TagRead(PAD, uid))
        return PAD, uid


def scripted_taps(players: Sequence[str], count: int, seed: int = 0,
                  options: Options | None = None) -> list[tuple[str, str]]:
    """The taps a scripted seat makes, in order."""
    table = ScriptedTable(players, options, seed)
    return [table.tap() for _ in range(count)]
