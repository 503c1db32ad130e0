"""The one table every face composes: the referee, the step (:class:`TableStep`), the journal and
the event stream, and :meth:`Table.take`, all that one input does at a table.

``uno-table run`` (:class:`table.runtime.daemon.Daemon`) and the simulated table
(:class:`sim.tabletop.virtual.SimTable`) each hold one :class:`Table` and feed it from the
referee's thread (:class:`table.runtime.loop.TableLoop`); what happens is told on the stream
and nowhere else, so the voice, the LEDs, the web view, the MQTT broadcast and the simulator's
transcript are all subscribers of it (docs/adding-a-face.md). An input is written into the
journal before a word of it is said; a full disk and a disk with room again are said aloud;
the next-round token after the match is over begins a new match; the referee is saved every
``snapshot_every`` inputs, so a resume replays only the inputs after that point.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping

from table.inputs import Input, JournaledInput, TagRead
from table.journal.records import MatchSetup, freeze
from table.journal.store import Journal
from table.referee.announcements import Announcement
from table.referee.referee import Referee
from table.runtime.event_stream import EventStream, StreamType
from table.runtime.step import StepEvent, StepResult, TableStep

log = logging.getLogger(__name__)

CHECKPOINT_EVERY = 500  # commits between checkpoints when the table never pauses


class Table:
    """One table: its referee, step, journal (``None``: the match is not kept) and stream.

    ``referee`` is set by :meth:`new_match` (or by whoever resumes a match from the journal:
    :meth:`resumed`). Call :meth:`take` from the referee's thread only."""

    def __init__(self, setup: MatchSetup, stream: EventStream, journal: Journal | None = None,
                 *, lang: str = "en", pronounce: Mapping[str, str] | None = None,
                 snapshot_every: int = 500,
                 unkept_id: Callable[[], int | str] = lambda: "unkept") -> None:
        self.setup = setup
        self.stream = stream
        self.journal = journal
        self.step = TableStep(setup.players, lang, pronounce)
        self.snapshot_every = snapshot_every
        self.unkept_id = unkept_id  # the match's id while the journal has given it none
        self.unsnapped = 0  # inputs since the last snapshot
        self.referee: Referee

    @property
    def inputs(self) -> int:
        """The inputs of this match so far (journaled or waiting)."""
        return self.step.inputs

    def match_id(self) -> int | str:
        """The match's id in the journal (or :attr:`unkept_id`'s)."""
        if self.journal is not None and self.journal.match_id is not None:
            return self.journal.match_id
        return self.unkept_id()

    def new_match(self) -> list[Announcement]:
        """Begin a new match of the set-up (in the journal too); what is said first."""
        ref, opening = self.setup.create()
        if self.journal is not None:
            self.journal.begin(self.setup)
        self.referee = ref  # before the new match is told of: the LEDs show its turn
        self.step.inputs = 0
        self.unsnapped = 0
        self.stream.emit(StreamType.NEW_MATCH, {"match": self.match_id()},
                         players=list(self.setup.players), preset=self.setup.options.preset)
        return opening

    def resumed(self, referee: Referee, inputs: int) -> None:
        """Go on with a match found in the journal: ``referee`` after its ``inputs``."""
        self.referee = referee
        self.step.inputs = inputs

    def take(self, item: Input, between: Callable[[StepResult], None] | None = None
             ) -> tuple[StepResult, tuple[StepEvent, ...]]:
        """All one input does: the step, the input into the journal before a word of it is
        said, its events, a new match after the last round's token, then ``between`` (the
        daemon's own work: readiness, a pause's snapshot), what is said about it, a snapshot
        when one is due, and the stream settled. Returns the step and the words told."""
        step = self.step(self.referee, item)
        said = list(step.said)
        if step.journal_word is not None and isinstance(item, JournaledInput):
            said[:0] = self._journal(item, step.journal_word)
            if isinstance(item, TagRead):
                log.debug("tag %s on %s: %s", item.uid, item.reader, step.journal_word)
        for told in step.events:
            self.stream.emit(told.kind, told.extra, **told.fields)
        if step.next_match:
            said = self.new_match()  # the loop's thread: a safe swap
        if between is not None:
            between(step)
        words = tuple(self.say(ann) for ann in said)
        if self.journal is not None:
            if self.unsnapped >= self.snapshot_every:
                self.snapshot()
            if self.journal.unchecked >= CHECKPOINT_EVERY:
                self.journal.checkpoint()  # after the verdict is out, not inside a tap's commit
        self.stream.settle()  # publishing starts once the tap is done with
        return step, words

    def say(self, ann: Announcement) -> StepEvent:
        """``ann`` on the stream, rendered once in the table's language (the voice, a caption
        and a transcript all take this text)."""
        told = self.step.announcement(ann)
        self.stream.emit(told.kind, told.extra, **told.fields)
        return told

    def pause(self) -> None:
        """A pause at the table (the loop's tick), the cheapest moment: a snapshot of what is
        not yet saved, and a checkpoint of the journal."""
        if self.journal is None:
            return
        if self.unsnapped:
            self.snapshot()
        if self.journal.unchecked:
            self.journal.checkpoint()

    def snapshot(self) -> None:
        """Save the referee so that a resume replays only the inputs after this point."""
        journal = self.journal
        if journal is None or not journal.healthy or journal.waiting:
            return  # it must match the inputs on disk; it waits for them
        if journal.save_snapshot(*freeze(self.referee)):
            self.unsnapped = 0

    def _journal(self, item: JournaledInput, word: str) -> list[Announcement]:
        """``item`` on disk (before a word of it is said); what to say if the disk filled up
        or has room again."""
        journal = self.journal
        if journal is None:
            return []
        healthy = journal.healthy
        journal.append(item, word)
        self.unsnapped += 1
        if healthy and not journal.healthy:
            self.stream.emit(StreamType.JOURNAL, state="full", waiting=len(journal.waiting))
            return [Announcement("journal-full", (), 2)]
        if not healthy and journal.healthy:
            self.stream.emit(StreamType.JOURNAL, state="saved")
            return [Announcement("journal-back", (), 2)]
        return []
