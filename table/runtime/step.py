"""The one step every table takes for one input: the daemon, the demo, the simulator and its web
people mode all call :class:`TableStep`.

An input goes into the referee (:func:`table.journal.records.give`, which also keeps the undo
history bounded, as a replay of the journal does); what comes back is a :class:`StepResult`: what
happened, the word the journal keeps with the input (for the inputs it keeps) and the events
the table tells of it, in order, for its :class:`table.runtime.event_stream.EventStream`. The table
around the step only writes the journal, emits the events and says the announcements.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from table.inputs import Admin, Input, Press, ReaderStatus, TagLifted, TagRead
from table.journal.records import feed_referee
from table.referee.announcements import Announcement, render
from table.referee.referee import Outcome, Referee
from table.referee.views import state_event_json
from table.runtime.event_stream import StreamType


class StepEvent(NamedTuple):
    """One event of a step: its type, its fields and what only this process sees of it."""

    kind: StreamType
    fields: dict[str, Any]
    extra: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class StepResult:
    """What one input did at the table: the outcome, its journal word and its events."""

    item: Input
    outcome: Outcome
    n: int  # the match's inputs the journal keeps, this one included
    journal_word: str | None  # the verdict word the journal keeps with the input; None: not kept
    events: tuple[StepEvent, ...]  # the input's events (the announcements are :attr:`said`)

    @property
    def said(self) -> tuple[Announcement, ...]:
        """What the referee says about the input."""
        return self.outcome.announcements

    @property
    def next_match(self) -> bool:
        """The next-round token after the match is over: the table begins a new match."""
        return self.outcome.next_match

    @property
    def refused(self) -> bool:
        """A refusal the buzzer sounds for (see :func:`refusal`)."""
        return refusal(self.outcome)


def refusal(out: Outcome) -> bool:
    """Whether the buzzer sounds: for a refusal, not for a read the referee ignored (a card
    resting on a pad, one already in hand), nor for the token that starts the next match."""
    return out.verdict == "rejected" and not out.next_match


class TableStep:
    """One table's step: an input and the referee in, a :class:`StepResult` out. It counts the
    match's inputs (``n`` of the events); a new match starts it again from 0."""

    def __init__(self, players: Sequence[str], lang: str = "en",
                 pronounce: Mapping[str, str] | None = None, inputs: int = 0) -> None:
        self.players = tuple(players)
        self.lang = lang
        self.pronounce = dict(pronounce or {})
        self.inputs = inputs

    def __call__(self, referee: Referee, item: Input) -> StepResult:
        """``item`` refereed, and what the table makes of it."""
        out = feed_referee(referee, item)
        if isinstance(item, ReaderStatus):
            fields = {"reader": item.reader, "state": item.state, "detail": item.detail}
            status = StepEvent(StreamType.READER, fields, {})
            return StepResult(item, out, self.inputs, None, (status,))
        if not isinstance(item, TagRead | TagLifted | Press | Admin):
            return StepResult(item, out, self.inputs, None, ())  # a tick
        self.inputs += 1
        n, word = self.inputs, out.journal_word
        if isinstance(item, TagLifted):
            # Which card rests on which pad is part of the match: a card tapped again after
            # it left the pad is a new tap, in the replay of the journal as at the table.
            lift = StepEvent(StreamType.LIFT, {"n": n, "reader": item.reader}, {})
            return StepResult(item, out, n, word, (lift,))
        told: list[StepEvent] = []
        if isinstance(item, TagRead):
            told.append(StepEvent(StreamType.TAG, {"reader": item.reader}, {}))
            where: dict[str, Any] = {"input": "tag", "reader": item.reader}
        elif isinstance(item, Admin):
            told.append(StepEvent(StreamType.ADMIN, {"action": item.action}, {}))
            where = {"input": "admin", "action": item.action}
        else:
            seat = self.players[item.seat]
            told.append(StepEvent(StreamType.PRESS, {"seat": seat, "button": item.button}, {}))
            where = {"input": "press", "seat": seat}
        # The action in ``extra`` (this process's parts only: the voice names a card played;
        # a draw's card is never said nor published).
        told.append(StepEvent(StreamType.VERDICT, {"n": n, "verdict": word, "reason": out.reason,
                                              **where}, {"refused": refusal(out),
                                                         "action": out.action, "outcome": out}))
        if word != "rejected":
            told.append(StepEvent(StreamType.STATE, {"n": n, **state_event_json(referee.state)},
                             {"state": referee.state}))
        return StepResult(item, out, n, word, tuple(told))

    def announcement(self, ann: Announcement) -> StepEvent:
        """The event of one announcement: its key and its text in the table's language, the
        one rendering of it (the caption, the voice and a transcript take this text)."""
        return StepEvent(StreamType.ANNOUNCEMENT,
                    {"key": ann.key, "text": render(ann, self.lang, self.pronounce)},
                    {"said": ann})
