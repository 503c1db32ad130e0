"""The simulated table's time: one second per input, the same on every run, so that no clock
appears in a transcript."""

from __future__ import annotations

import threading


class VirtualClock:
    """Time for the readers and the referee: one second per input, the same on every run."""

    def __init__(self) -> None:
        self.now = 0.0
        self._lock = threading.Lock()

    def __call__(self) -> float:
        with self._lock:
            return self.now

    def advance(self) -> float:
        """One second on; the new time."""
        with self._lock:
            self.now += 1.0
            return self.now
