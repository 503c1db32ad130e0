"""The event stream of ``uno-table run --events``: docs/design.md §3's JSON lines, and the one
way the parts that listen (the voice, the LEDs and buzzer, the web view, the MQTT broadcast) are
told of them: each subscribes to the stream (:meth:`EventStream.subscribe`), as Moonraker's
components register their event handlers with the server."""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable, Mapping
from enum import StrEnum, unique
from typing import Any, Final, TextIO

log = logging.getLogger(__name__)


@unique
class StreamType(StrEnum):
    """The ``type`` of an object on the stream (docs/design.md's table says what each carries).
    ``str`` values: the stream writes the words it always wrote."""

    START = "start"
    NEW_MATCH = "new-match"
    RESUMED = "resumed"
    READER = "reader"
    READY = "ready"
    TAG = "tag"
    LIFT = "lift"
    PRESS = "press"
    ADMIN = "admin"
    VERDICT = "verdict"
    STATE = "state"
    ANNOUNCEMENT = "announcement"
    JOURNAL = "journal"
    ASSIGNMENT = "assignment"
    STOPPED = "stopped"


# The ``type`` of the one event the subscribers are told of and the stream never writes: the
# events of one input are all out (a subscriber may now send what it gathered, as the MQTT
# broadcast wakes its publisher once per tap).
SETTLED: Final = "settled"


class Event(dict[str, Any]):
    """One event: its fields, as the stream writes them, and in :attr:`extra` what the parts in
    this process need beside them and nobody outside sees (the announcement to say, whether a
    verdict refused the input, the game state, the match id)."""

    __slots__ = ("extra",)

    def __init__(self, fields: Mapping[str, Any], extra: Mapping[str, Any] | None = None) -> None:
        super().__init__(fields)
        self.extra: Mapping[str, Any] = extra or {}


Listener = Callable[[Event], None]  # told of every event in the emitting thread; returns at once
Subscribe = Callable[[Listener], Callable[[], None]]  # a listener in; how to stop telling it out


class EventStream:
    """docs/design.md §3's JSON-lines stream: one object a line, flushed at once, and every event
    handed to each subscriber. A reader of the stream that goes away never stops the referee."""

    def __init__(self, out: TextIO | None) -> None:
        self.out = out
        self._lock = threading.Lock()
        self._listeners: tuple[Listener, ...] = ()

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Tell ``listener`` of every event from now on; returns how to stop telling it."""
        with self._lock:
            self._listeners = (*self._listeners, listener)

        def unsubscribe() -> None:
            with self._lock:
                self._listeners = tuple(x for x in self._listeners if x is not listener)

        return unsubscribe

    def emit(self, kind: StreamType, extra: Mapping[str, Any] | None = None,
             **fields: Any) -> None:
        """Write one event (``fields`` and its type and time) and tell every subscriber."""
        listeners = self._listeners
        if self.out is None and not listeners:
            return
        event = Event({"t": round(time.time(), 6), "type": kind, **fields}, extra)
        if self.out is not None:
            self._write(json.dumps(event, ensure_ascii=False, separators=(",", ":")))
        for listener in listeners:
            listener(event)

    def hold(self) -> Held:
        """Keep the events from now on for listeners that subscribe later (:class:`Held`)."""
        return Held(self.subscribe)

    def settle(self) -> None:
        """Tell the subscribers (and only them) that the events of one input are all out."""
        event = Event({"type": SETTLED})
        for listener in self._listeners:
            listener(event)

    def _write(self, line: str) -> None:
        with self._lock:
            if self.out is None:
                return
            try:
                self.out.write(line + "\n")
                self.out.flush()
            except (BrokenPipeError, ValueError, OSError):
                log.warning("the event stream was closed; refereeing goes on without it")
                self.out = None


HELD_MOST: Final = 1_000  # events kept for a late listener: far more than a start emits


class Held:
    """The events of a stream kept from now on for listeners that come later (the web view,
    served once the daemon's readers are started): each that subscribes here is told of what
    was kept, then of every event as it comes, in order. :meth:`release` stops keeping."""

    def __init__(self, subscribe: Subscribe) -> None:
        self._lock = threading.Lock()
        self._kept: list[Event] | None = []
        self._listeners: tuple[Listener, ...] = ()
        self.stop = subscribe(self._take)

    def _take(self, event: Event) -> None:
        with self._lock:  # a listener subscribing meanwhile gets it after what was kept
            if self._kept is not None and len(self._kept) < HELD_MOST:
                self._kept.append(event)
            for listener in self._listeners:
                listener(event)

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Tell ``listener`` of what was kept, then of every event from now on (as
        :meth:`EventStream.subscribe`)."""
        with self._lock:
            for event in self._kept or ():
                listener(event)
            self._listeners = (*self._listeners, listener)

        def unsubscribe() -> None:
            with self._lock:
                self._listeners = tuple(x for x in self._listeners if x is not listener)

        return unsubscribe

    def release(self) -> None:
        """Keep nothing more: the listeners that came are told of the events from now on (and
        when none came, this stops listening to the stream)."""
        with self._lock:
            self._kept = None
            idle = not self._listeners
        if idle:
            self.stop()
