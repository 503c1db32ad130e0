"""The event stream of ``uno-table run --events``: docs/design.md §3's JSON lines."""

from __future__ import annotations

import json
import logging
import threading
import time
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
    STOPPED = "stopped"


class EventStream:
    """docs/design.md §3's JSON-lines stream: one object a line, flushed at once. A reader of the
    stream that goes away never stops the referee."""

    def __init__(self, out: TextIO | None) -> None:
        self.out = out
        self._lock = threading.Lock()

    def emit(self, kind: StreamType, **fields: Any) -> None:
        if self.out is None:
            return
        line = json.dumps({"t": round(time.time(), 6), "type": kind, **fields},
                          ensure_ascii=False, separators=(",", ":"))
        with self._lock:
            try:
                self.out.write(line + "\n")
                self.out.flush()
            except (BrokenPipeError, ValueError, OSError):
                log.warning("the event stream was closed; refereeing goes on without it")
                self.out = None
