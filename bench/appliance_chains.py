"""The power cuts' cycles shared among chains (bench/appliance_cuts.py): each chain boots its own
disk with its own bridge, one guest at a time, and takes the next cycle of the seeded order as
it comes free. The first chain starts at once; the others once the machine's cores are the
cuts' own (``free``: the scenarios beside them done), so a core that would idle cuts too.

Which chain takes which cycle depends on how long each took; the order the cycles are taken in,
their modes and their number do not."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor

OPENING = "tap"  # a chain's evening starts with taps: its disk holds no journal before them
POLL_S = 1.0  # how often a waiting chain looks whether the cycles are all taken already

Taken = tuple[int, str]  # a cycle: its number in the seeded order, its mode
Evening = Callable[[int, Callable[[], Taken | None]], None]  # a chain's cycles: (index, take)


class Cycles:
    """The cycles left, in their seeded order, taken under a lock."""

    def __init__(self, modes: Sequence[str]) -> None:
        self._left: list[Taken] = list(enumerate(modes))
        self._lock = threading.Lock()

    def __len__(self) -> int:
        with self._lock:
            return len(self._left)

    def take(self, opening: bool) -> Taken | None:
        """The next cycle; a chain's opening one is the next tap cycle. None when none is left
        (for an opening, when no tap cycle is)."""
        with self._lock:
            at = next((i for i, (_, mode) in enumerate(self._left) if mode == OPENING),
                      None) if opening else (0 if self._left else None)
            return None if at is None else self._left.pop(at)


def in_chains(cycles: Cycles, count: int, evening: Evening, free: threading.Event) -> None:
    """``evening(index, take)`` in ``count`` threads at once, each taking its cycles with
    ``take()`` until it gives None: chain 0 at once, the others once ``free`` is set (or never,
    when the cycles are all taken first). An exception of any chain is raised here, once every
    chain has ended."""

    def chain(index: int) -> None:
        if index > 0:
            while not free.wait(POLL_S):
                if not cycles:
                    return
        opening = True

        def take() -> Taken | None:
            nonlocal opening
            taken = cycles.take(opening)
            opening = False
            return taken

        evening(index, take)

    with ThreadPoolExecutor(max_workers=count) as pool:
        started = [pool.submit(chain, index) for index in range(count)]
        for future in started:
            future.result()
