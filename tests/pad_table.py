"""A two-player table with only a play pad and known hands, for referee tests."""

from __future__ import annotations

from collections.abc import Callable

from table.cards import parse_cards
from table.inputs import Input, ReaderRole
from table.journal.records import feed_referee
from table.referee.referee import Outcome, Referee
from table.referee.registry import parse_tag, virtual_deck
from table.rules import Deal, make_options


def pad_referee(aki: str, ken: str, start: str = "R5") -> Referee:
    """Aki and Ken (Ken deals, Aki plays first) holding the given cards, ``start`` turned up."""
    hands = [(parse_cards(aki.split()), 0), (parse_cards(ken.split()), 0)]
    ref, _ = Referee.create(make_options(), ["Aki", "Ken"], virtual_deck(),
                            [ReaderRole("pad", "play")], 1,
                            Deal(hands=hands, start=parse_cards([start])))
    return ref


def refereed(ref: Referee, listener: Callable[[Input, Outcome], None]
             ) -> Callable[[Input], None]:
    """A table loop's ``take`` for ``ref`` alone: each input refereed (as the table's step does
    it), then handed to ``listener`` with what it did."""

    def take(item: Input) -> None:
        listener(item, feed_referee(ref, item))

    return take


def uid(ref: Referee, code: str) -> str:
    """The virtual deck's UID of a card copy (``R5#1``) or token (``token:undo``)."""
    found = ref.deck.uid_of(parse_tag(code))
    assert found is not None
    return found


class RefereeLoop:
    """The referee's loop as the daemon runs it, fed by readers; keeps what it says and the
    verdict of each tag read."""

    def __init__(self, ref: Referee) -> None:
        import queue

        from table.runtime.loop import TableLoop

        self.said: queue.Queue[str] = queue.Queue()
        self.verdicts: queue.Queue[tuple[str, str | None]] = queue.Queue()
        self.loop = TableLoop(refereed(ref, self._listen), tick_every=60)

    def _listen(self, item: Input, out: Outcome) -> None:
        from table.inputs import TagRead
        from table.referee.announcements import render

        for a in out.announcements:
            self.said.put(render(a))
        if isinstance(item, TagRead):
            self.verdicts.put((out.verdict, out.reason))

    def spoken(self) -> list[str]:
        lines = []
        while not self.said.empty():
            lines.append(self.said.get())
        return lines
