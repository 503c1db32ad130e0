"""The reader interface: what every backend reports, and the debounce they share.

A reader runs in its own thread and calls its ``sink`` with :class:`TagRead` (a tag placed on a
pad, once per placement), :class:`TagLifted` (that tag has left the pad, when the reader can
tell) and :class:`ReaderStatus` (``connecting``, ``live``, ``lost``), the inputs of
:mod:`table.inputs`. Times are monotonic seconds from the reader's clock.
"""

from __future__ import annotations

import os
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable

from table.inputs import ReaderStatus, Report, TagLifted, TagRead

Sink = Callable[[Report], None]


class Debounce:
    """One read per placement. A tag seen again before ``hold`` seconds without a sighting is
    the same placement; a reader that polls calls :meth:`miss` on an empty poll, and after
    ``misses`` of them in a row the tag counts as removed."""

    def __init__(self, hold: float = 1.0, misses: int = 3) -> None:
        self.hold = hold
        self.misses = misses
        self.present: str | None = None
        self.last_seen = float("-inf")
        self.unlifted: str | None = None  # the tag last reported read, not reported lifted
        self._missed = 0

    def seen(self, uid: str, t: float) -> bool:
        """Record a sighting; True when it is a new placement to report."""
        new = uid != self.present or t - self.last_seen > self.hold
        self.present, self.last_seen, self._missed = uid, t, 0
        return new

    def miss(self) -> bool:
        """Record an empty poll; True when the tag has just been removed."""
        if self.present is None:
            return False
        self._missed += 1
        if self._missed >= self.misses:
            self.present = None
            self._missed = 0
            return True
        return False

    def sighting(self, reader: str, uid: str, t: float) -> list[Report]:
        """What a sighting of ``uid`` reports: nothing while it rests on the pad; a read of a
        new placement, after a lift when it is the tag last read and no lift was reported
        since (a reader that cannot see a card leave learns it only when the card is back)."""
        if not self.seen(uid, t):
            return []
        read = TagRead(reader, uid, t)
        again, self.unlifted = self.unlifted == uid, uid
        return [TagLifted(reader, uid, t), read] if again else [read]

    def empty(self, reader: str, t: float) -> list[Report]:
        """What an empty poll reports, for a reader whose resting cards answer every poll: a
        lift once the tag has been missed ``misses`` times in a row."""
        uid = self.present
        if self.miss() and uid is not None and uid == self.unlifted:
            self.unlifted = None
            return [TagLifted(reader, uid, t)]
        return []


class ReaderThread(ABC):
    """What every reader running in its own thread shares: start and stop, and each change of
    state (``connecting``, ``waiting`` for a device not plugged in, ``live``, ``lost``)
    reported once. Subclasses write :meth:`_run`,
    which returns when ``self._stop`` is set."""

    def __init__(self, name: str, sink: Sink, clock: Callable[[], float]) -> None:
        self.name, self.sink, self.clock = name, sink, clock
        self.state = ""
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"reader-{name}", daemon=True)

    def start(self) -> None:
        """Start reading in the reader's own thread."""
        self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        """Stop reading; wait up to ``timeout`` seconds for the thread."""
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout)

    def _trying(self) -> str:
        """The state to report while trying to open the port: ``lost`` and ``waiting`` stay
        (said once), anything else is ``connecting``."""
        return self.state if self.state in ("lost", "waiting") else "connecting"

    def _not_opened(self, port: str) -> None:
        """The port could not be opened: nothing at its path is a reader not plugged in yet
        (``waiting``, once); a device there that still fails is ``connecting``."""
        if self.state == "lost":
            return  # unplugged while live: it stays lost until it is back
        if not os.path.exists(port):
            self._status("waiting", f"no device at {port}: waiting for it to be plugged in")
        elif self.state == "waiting":
            self._status("connecting")

    def _status(self, state: str, detail: str = "") -> None:
        if state != self.state:
            self.state = state
            self.sink(ReaderStatus(self.name, state, self.clock(), detail))

    @abstractmethod
    def _run(self) -> None:
        """Read until ``self._stop`` is set, reporting to ``self.sink``."""
