"""``uno-table run``: the referee at a real table, all evening.

It wires the checked configuration to the parts: the readers and seat controls feed the
referee's one thread (:class:`table.runtime.loop.TableLoop`); every tag read and press it takes is
written to the journal *before* anything about it is said or published; announcements go to the
announcer (speech runs in its own thread) and, with ``--events``, every read, press, verdict,
announcement and state change is one JSON line on the event stream, flushed at once.

On start the newest match in the journal is resumed when it was played with the same set-up
and is not over; this is said aloud. SIGTERM and SIGINT stop the daemon cleanly.
"""

from __future__ import annotations

import logging
import os
import signal
import threading
import time
import warnings
from collections.abc import Callable
from dataclasses import replace
from typing import Any, TextIO

from table import __version__
from table.errors import TableError
from table.inputs import Input, Press, ReaderStatus, Report, Tick
from table.journal.records import MatchSetup, resume
from table.journal.store import Journal
from table.readers.factory import Reader, ReaderSpec, make_reader
from table.referee.announcements import Announcement
from table.referee.referee import Referee
from table.referee.views import standing_json, state_event_json
from table.rules import Phase
from table.runtime.config import Config
from table.runtime.event_stream import Event, EventStream, StreamType, Subscribe
from table.runtime.loop import TableLoop
from table.runtime.step import StepResult
from table.runtime.table import Table
from table.voice.announcer import Announcer, Backend
from table.voice.prewarm import prewarm_texts

log = logging.getLogger(__name__)

EXIT_UNSAVED = 1  # the exit code of a stop that could not write every input into the journal
READY_DEADLINE = 10.0  # seconds to wait for every reader before saying ready anyway


def setup_of(config: Config) -> MatchSetup:
    """The set-up of the match ``config`` plays (what the journal keeps of it)."""
    return MatchSetup(
        players=config.players,
        options=config.options,
        dealer=config.dealer,
        readers=tuple(config.roles()),
        deck=config.deck,
        color_reminder=config.color_reminder,
    )


def backend_factory(config: Config, prewarm: bool = True) -> Callable[[], Backend]:
    """Makes the configured speech backend in the speaker thread, has the table's common
    phrases rendered in the background (or, for a backend that renders only in its own thread,
    there and then), and falls back to captions when the backend cannot work here."""
    from table.errors import TableError
    from table.voice.backends import (
        CaptionsBackend,
        DiskCache,
        default_cache_folder,
        japanese_voice,
        make_backend,
    )

    def make() -> Backend:
        disk = None
        if config.voice_cache:
            disk = DiskCache(config.voice_cache_folder or default_cache_folder())
            disk.trim()
        try:
            backend: Any = make_backend(config.voice_backend, config.voice_folder, disk)
        except TableError as exc:
            log.warning("voice backend %s cannot work here (%s): captions only",
                        config.voice_backend, exc)
            return CaptionsBackend()
        if config.language == "ja" and not isinstance(backend, CaptionsBackend):
            japanese_voice()  # Open JTalk's dictionary: the engine's start, not its first phrase
        cache = getattr(backend, "cache", None)
        if cache is not None:
            cache.enabled = config.voice_cache
            if prewarm and config.voice_cache and config.voice_prewarm:
                texts = prewarm_texts(config.players, config.language, said_as(config),
                                      stacking=config.options.stacking != "off",
                                      musician=config.options.scoring == "musician")
                if cache.prewarm_in_background(texts, config.language):
                    log.info("phrase cache: %d phrases to render in the background", len(texts))
                else:
                    started = time.perf_counter()
                    new = cache.prewarm(texts, config.language)
                    log.info("phrase cache: %d phrases rendered in %.2f s", new,
                             time.perf_counter() - started)
        result: Backend = backend
        return result

    return make


def check_names_said(config: Config) -> None:
    """For a Japanese table: fail, in one line, for a player's name the voice cannot say
    (:func:`table.voice.names.check_names`); nothing for English."""
    if config.language == "ja":
        from table.voice.names import check_names

        check_names(config.players, config.readings, config.pronunciations,
                    where=f"{config.path}: table.readings")


def log_name_readings(config: Config) -> None:
    """Each name's reading in the log as the table starts; a warning, with the fix, for a
    likely wrong one (:func:`table.voice.names.name_readings`)."""
    if config.language != "ja":
        return
    from table.voice.names import name_readings

    for r in name_readings(config.players, config.readings, config.pronunciations):
        log.info("name %s: said %s", r.name, r.reading)
        if r.warning:
            log.warning("%s", r.lines()[1].strip().removeprefix("warning: "))


def said_as(config: Config) -> dict[str, str]:
    """How the voice says each player's name: in Japanese with the readings (and names in
    romaji as kana), else as ``[table] pronunciations`` says."""
    if config.language != "ja":
        return dict(config.pronunciations)
    from table.voice.names import spoken_names

    return spoken_names(config.players, config.readings, config.pronunciations)


class Daemon:
    """``uno-table run``'s table: its readers, controls, journal, voice, web and MQTT around the
    table's one step, taken in the referee's thread."""

    def __init__(
        self,
        config: Config,
        events: TextIO | None = None,
        *,
        new_match: bool = False,
        journal: Journal | None = None,
        backend: Callable[[], Backend] | None = None,
        pin_factory: Any = None,
    ) -> None:
        self.config = config
        self.stream = EventStream(events)
        self.stream.emit(StreamType.START, version=__version__, config=str(config.path),
                         journal=str(config.journal_path))
        self.new_match = new_match
        self.pin_factory = pin_factory
        # The hardware first: a table that cannot run touches no journal.
        self.controls: Any = self._make_controls()
        self.readers: list[Reader] = [self._make_reader(spec) for spec in config.readers]
        self.journal = journal or Journal(config.journal_path, config.journal_sync,
                                          auto_checkpoint=False)
        self.backend = backend or backend_factory(config)
        self._setup = setup_of(config)
        self._live: set[str] = set()
        self._ready = False
        self._started = time.monotonic()
        self.table = Table(self._setup, self.stream, self.journal, lang=config.language,
                           pronounce=config.pronunciations, snapshot_every=config.snapshot_every,
                           unkept_id=lambda: f"t{int(self._started * 1000)}")
        self._finished: tuple[int, Any] | None = None  # a resumed match found over
        said = self._resume_or_begin()
        self.announcer = Announcer(self.backend, config.language, config.pronunciations,
                                   spoken_names=said_as(config), detail=config.voice_detail)
        # The parts that listen, each told of every event the one way there is.
        self.stream.subscribe(self._voice)
        if self.controls is not None:
            self.stream.subscribe(self._lights)
        self.broadcast: Any = self._make_broadcast()
        self.loop = TableLoop(self.take, tick_every=1.0)
        self._opening = said

    @property
    def inputs(self) -> int:
        """The inputs of this match so far (journaled or waiting)."""
        return self.table.inputs

    @property
    def referee(self) -> Referee:
        """The table's referee (a new one at each new match)."""
        return self.table.referee

    # --- start and stop -----------------------------------------------------------------------

    def _resume_or_begin(self) -> list[Announcement]:
        setup = self._setup
        said: list[Announcement] = []
        if self.journal.restored:
            self.stream.emit(StreamType.JOURNAL, state="restored", inputs=self.journal.restored)
        repair = self.journal.repair
        if repair is not None:
            message = repair.message(self.journal.path)
            log.warning("%s", message)
            self.stream.emit(StreamType.JOURNAL, state="repaired", message=message)
            said.append(Announcement("journal-repaired", (), 2))
        record = None if self.new_match else self.journal.last_match()
        if record is not None and record.setup.digest() == setup.digest():
            ref = resume(setup, record.inputs, self.journal.snapshot(record))
            self._finished = (record.id, ref.state)  # its results go out (again) if unsent
            if ref.state.phase is not Phase.MATCH_OVER:
                self.journal.carry_on(record)
                self.table.resumed(ref, len(record.inputs))
                log.info("resuming match %d after %d inputs", record.id, self.inputs)
                self.stream.emit(StreamType.RESUMED, inputs=self.inputs, **standing_json(ref.state))
                said.append(Announcement("match-resumed", (("round", ref.state.round),), 2))
                said.extend(_where_we_are(ref))
                return said
        elif record is not None:
            log.info("the configuration changed since match %d: a new match begins", record.id)
        return said + self.table.new_match()

    def begin_new_match(self) -> None:
        """Leave the match in progress where it is in the journal and begin a new one (a
        remote control's "new match"; from the referee's thread, :meth:`TableLoop.call`)."""
        for ann in self.table.new_match():
            self._say(ann)
        self.stream.settle()

    def announce(self, ann: Announcement) -> None:
        """Say ``ann`` (from the referee's thread)."""
        self._say(ann)

    def _make_broadcast(self) -> Any:
        """With ``[mqtt]``: what the table publishes, its results kept in the journal's outbox.
        The results of the match found in the journal are kept again (once per id), so one
        the daemon was killed before keeping is sent now."""
        settings = self.config.mqtt
        if settings is None:
            return None
        from table.journal.outbox import Outbox
        from table.mqtt.broadcast import TableBroadcast

        broadcast = TableBroadcast(settings, self.config.players,
                                   [r.name for r in self.config.readers],
                                   Outbox(self.config.journal_path), self._match_id(),
                                   on_assign=self._assigned, scoring=self.config.options.scoring)
        if self._finished is not None:
            broadcast.new_match(*self._finished)
        broadcast.new_match(self._match_id(), self.referee.state)
        self.stream.subscribe(broadcast.on_event)
        # The retained state from the start, before the first tap (a resumed match's too).
        broadcast.on_event(Event({"t": round(time.time(), 6), "type": "state", "n": self.inputs,
                               **state_event_json(self.referee.state)}))
        return broadcast

    def _match_id(self) -> int | str:
        return self.table.match_id()

    def _assigned(self, hub_round: int, players: list[str]) -> None:
        """The hub seated players at this table (paho's thread: the announcer is a queue)."""
        assert self.config.mqtt is not None
        self.stream.emit(StreamType.ASSIGNMENT, round=hub_round, players=players)
        self._say(Announcement("table-assignment", (("table", self.config.mqtt.table),
                                                    ("players", "\n".join(players))), 2))
        self.stream.settle()

    def start(self) -> None:
        """Start the MQTT broadcast, the referee's thread and the readers; say the opening words."""
        if self.broadcast is not None:
            self.broadcast.start()
        self.loop.start()
        for ann in self._opening:
            self._say(ann)
        self._show_turn()
        self.stream.settle()
        for reader in self.readers:
            reader.start()

    def _make_controls(self) -> Any:
        from table.runtime.controls import Controls, PinsHeld, PinTrouble, SeatPins, gpio_advice

        config = self.config
        if not config.controls and config.buzzer is None:
            return None
        if config.pin_factory:
            os.environ.setdefault("GPIOZERO_PIN_FACTORY", config.pin_factory)
        pins = [SeatPins({}) for _ in config.players]
        for seat in config.controls:
            pins[seat.seat] = SeatPins(seat.buttons, seat.led)
        try:
            with warnings.catch_warnings(record=True) as caught:  # gpiozero's fallback notes
                warnings.simplefilter("always")
                controls = Controls(pins, self._report, config.buzzer, self.pin_factory)
            for note in caught:
                log.debug("gpiozero: %s", note.message)
            return controls
        except PinTrouble as exc:  # the pin, what for, and what fixes it
            error = PinsHeld if exc.held else TableError  # held: worth a restart
            raise error(f"{config.path}: controls: {exc}") from None
        except Exception as exc:  # gpiozero's errors outside a pin: name what fixes them
            raise TableError(f"{config.path}: controls: the GPIO pins cannot be used "
                             f"({type(exc).__name__}: {exc}); {gpio_advice(exc)}") from None

    def _make_reader(self, spec: ReaderSpec) -> Reader:
        try:
            deck = self.config.deck  # the deck's UIDs: any other read is noise
            return make_reader(replace(spec, known=lambda uid: deck.lookup(uid) is not None),
                               self._report)
        except TableError as exc:  # the backend's own check of its keys: name the file
            raise TableError(f"{self.config.path}: {exc}") from None
        except Exception as exc:  # a backend's library missing or failing to load
            raise TableError(f"{self.config.path}: reader {spec.name} ({spec.kind}) cannot be "
                             f"made: {type(exc).__name__}: {exc}") from None

    def stop(self) -> int:
        """Stop everything; the exit code: 0, or EXIT_UNSAVED when inputs could not be written
        into the journal (they are kept beside it when at all possible)."""
        for reader in self.readers:
            reader.stop()
        self.loop.stop()
        self.announcer.close()
        if self.controls is not None:
            self.controls.close()
        code = 0 if self.journal.flush() else self._keep_unsaved()
        self.journal.close()
        self.stream.emit(StreamType.STOPPED, inputs=self.inputs)
        if self.broadcast is not None:
            self.broadcast.close()
        return code

    def _keep_unsaved(self) -> int:
        """The journal cannot be written at the stop: the waiting inputs go to a file beside
        it, written into the journal at the next start. Said loudly either way."""
        journal = self.journal
        waiting = len(journal.waiting)
        where: str | None = None
        kept = 0
        try:
            path, kept = journal.keep_unsaved()
            where = str(path) if kept else None
        except OSError as exc:
            log.error("the inputs cannot be kept beside the journal either: %s", exc)
        if kept:
            log.error("journal %s cannot be written (%s): %d inputs are kept in %s and go "
                      "into the journal at the next start", journal.path, journal.error, kept,
                      where)
        if waiting > kept:
            log.error("journal %s cannot be written (%s): %d inputs are LOST", journal.path,
                      journal.error, waiting - kept)
        self.stream.emit(StreamType.JOURNAL, state="unsaved", kept=kept, lost=waiting - kept,
                         file=where)
        return EXIT_UNSAVED

    # --- the referee thread -------------------------------------------------------------------

    def _report(self, report: Report | Press) -> None:
        """Readers' and buttons' reports (from their threads) into the referee's queue."""
        self.loop.put(report)

    def take(self, item: Input) -> None:
        """One input in the referee's thread: all the table does with it
        (:meth:`Table.take`), and the daemon's own: its readers ready, a pause's snapshot."""
        self.table.take(item, self._between)

    def _between(self, step: StepResult) -> None:
        item = step.item
        if isinstance(item, ReaderStatus) and item.state == "live":
            self._live.add(item.reader)
        if isinstance(item, ReaderStatus | Tick):
            self._check_ready()
        if isinstance(item, Tick):
            self.table.pause()

    def _say(self, ann: Announcement) -> None:
        self.table.say(ann)

    def _voice(self, event: Event) -> None:
        """The voice, told of every event: it says the announcements."""
        if event["type"] is StreamType.ANNOUNCEMENT:
            log.info("says: %s", event["text"])
            self.announcer.announce(event.extra["said"], event["text"])  # rendered once
        else:
            self.announcer.follow(event)  # [voice] detail: the plays, draws and counts

    def _lights(self, event: Event) -> None:
        """The LEDs and the buzzer, told of every event: the turn's LED after each verdict
        and new match, a buzz for a refusal (never for a read the referee ignored)."""
        kind = event["type"]
        if kind is StreamType.VERDICT:
            if event.extra.get("refused") and self.controls is not None:
                self.controls.rejected()
            self._show_turn()
        elif kind is StreamType.NEW_MATCH:
            self._show_turn()

    def _show_turn(self) -> None:
        if self.controls is not None:
            s = self.referee.state
            self.controls.show_turn(s.turn if s.phase is Phase.PLAY else None)

    def _check_ready(self) -> None:
        if self._ready:
            return
        names = {r.name for r in self.config.readers}
        waited = time.monotonic() - self._started
        if names <= self._live or waited > READY_DEADLINE:
            self._ready = True
            missing = sorted(names - self._live)
            if missing:
                log.warning("ready without the readers %s", ", ".join(missing))
            else:  # the log says when the table can referee (timed from boot by the appliance)
                log.info("ready: every reader live, %d inputs in the journal, %.1f s after start",
                         self.inputs, waited)
            self.stream.emit(StreamType.READY, inputs=self.inputs, missing=missing,
                             seconds=round(waited, 3))


def _where_we_are(ref: Referee) -> list[Announcement]:
    """After a resume: whose turn it is (or who must still name a colour)."""
    s = ref.state
    if s.phase is not Phase.PLAY:
        return []
    if s.awaiting_color is not None:
        return [Announcement("color-needed", (("player", s.players[s.awaiting_color]),), 2)]
    return [Announcement("turn", (("player", s.players[s.turn]),), 0)]


# What serves the table beside the daemon: given the daemon and how to subscribe to its
# events (those of its start included), it starts and returns how to stop it.
Attach = Callable[["Daemon", Subscribe], Callable[[], None]]


def run(config: Config, events: TextIO | None, new_match: bool = False,
        attach: Attach | None = None) -> int:
    """Run until SIGTERM or SIGINT. ``attach`` starts what else serves the table (the web
    view) once the daemon has started, told of the events from before then through the
    subscribe it is given; it returns how to stop it. Each name's reading goes to
    the log then, with Open JTalk's dictionary loaded for it only after the readers started."""
    stop = threading.Event()

    def on_signal(signum: int, frame: object) -> None:
        log.info("signal %d: stopping", signum)
        stop.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    daemon = Daemon(config, events, new_match=new_match)
    held = daemon.stream.hold()  # what the start says, for the web view served after it
    daemon.start()  # the readers first: on a slow board what follows would hold back ``ready``
    try:
        detach = attach(daemon, held.subscribe) if attach is not None else None
    except BaseException:
        daemon.stop()  # its journal closed, its threads ended: the error is the only word
        raise
    held.release()
    log_name_readings(config)
    while not stop.wait(0.5):
        pass
    if detach is not None:
        detach()
    return daemon.stop()
