"""The referee's thread: one queue of inputs (tag reads, presses, ticks), one consumer.

Readers and controls run in threads of their own and only ever call :meth:`TableLoop.put`; the
table's step (:class:`table.runtime.step.TableStep`, through the table's ``take``) runs in this one
thread, so the referee needs no locks. When no input comes for ``tick_every`` seconds the loop
takes a :class:`Tick`, which is how reminders happen.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable

from table.inputs import Input, Tick

log = logging.getLogger(__name__)

Take = Callable[[Input], object]  # the table's whole step for one input


class _Call:
    """Something to run in the referee's thread between two inputs (see :meth:`TableLoop.call`)."""

    def __init__(self, fn: Callable[[], None]) -> None:
        self.fn = fn


class TableLoop:
    """The referee's thread: each input queued is taken by ``take``, one at a time, in order."""

    def __init__(
        self,
        take: Take,
        tick_every: float = 1.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.taker = take
        self.tick_every = tick_every
        self.clock = clock
        self._queue: queue.Queue[Input | _Call | None] = queue.Queue()
        self._thread = threading.Thread(target=self._run, name="referee", daemon=True)

    def start(self) -> None:
        """Start the referee's thread."""
        self._thread.start()

    def put(self, item: Input) -> None:
        """Hand an input to the referee (from any thread)."""
        self._queue.put(item)

    def call(self, fn: Callable[[], None]) -> None:
        """Run ``fn`` in the referee's thread, in turn with the inputs (from any thread): how a
        remote control changes what only that thread may touch."""
        self._queue.put(_Call(fn))

    def stop(self, timeout: float = 5.0) -> None:
        """Finish the inputs already queued, then stop."""
        self._queue.put(None)
        self._thread.join(timeout)

    def take(self, item: Input) -> None:
        """One input taken, as the referee's thread takes it: a bug in one never stops it."""
        try:
            self.taker(item)
        except Exception:  # the referee must outlive any bug in one input
            log.exception("input %r could not be refereed; the game goes on", item)

    def _run(self) -> None:
        while True:
            try:
                item = self._queue.get(timeout=self.tick_every)
            except queue.Empty:
                item = Tick(self.clock())
            if item is None:
                return
            if isinstance(item, _Call):
                try:
                    item.fn()
                except Exception:
                    log.exception("a call in the referee's thread failed; the game goes on")
                continue
            self.take(item)
