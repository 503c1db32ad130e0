"""The event stream of ``uno-table run --events``: docs/design.md §3's JSON lines."""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable
from enum import StrEnum, unique
from typing import Any, TextIO

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
    VERDICT = "verdict"
    STATE = "state"
    ANNOUNCEMENT = "announcement"
    JOURNAL = "journal"
    ASSIGNMENT = "assignment"
    STOPPED = "stopped"


class EventStream:
    """docs/design.md §3's JSON-lines stream: one object a line, flushed at once. A reader of the
    stream that goes away never stops the referee."""

    def __init__(self, out: TextIO | None,
                 tap: Callable[[dict[str, Any]], None] | None = None) -> None:
        self.out = out
        self.tap = tap  # also handed every event (the MQTT feed); it must not wait
        self._lock = threading.Lock()
        # Told of every event in the thread that emits it (the web view's feed): each must
        # return at once.
        self.listeners: list[Callable[[dict[str, Any]], None]] = []

    def emit(self, kind: StreamType, **fields: Any) -> None:
        if self.out is None and self.tap is None and not self.listeners:
            return
        event = {"t": round(time.time(), 6), "type": kind, **fields}
        if self.out is not None:
            self._write(json.dumps(event, ensure_ascii=False, separators=(",", ":")))
        if self.tap is not None:
            self.tap(event)
        for listener in self.listeners:
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
