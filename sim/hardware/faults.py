"""Faults a real table suffers, injected on purpose: dropped reads, duplicate reads, a noisy
serial line, a reader unplugged and plugged back.

- :class:`FaultySink` sits between a reader and the referee's queue: it loses a read with
  probability ``drop`` and reports one twice with probability ``duplicate``. It counts what
  reached it and what it passed on, so the simulated player can notice that nothing happened
  (no verdict, no word from the referee) and tap again, as a person would.
- :class:`PtyPad` is a serial-line reader on a real pseudo-terminal: the simulator writes UID
  lines into it, with noise lines in between, and a real :class:`SerialReader` reads them. It
  can be unplugged (the pty closed) and plugged back (a new pty behind the same link).
"""

from __future__ import annotations

import os
import random
import threading
from dataclasses import dataclass
from pathlib import Path

from table.errors import TableError
from table.inputs import Report, TagRead
from table.readers.base import Sink


class FaultError(TableError, ValueError):
    """A fault setting out of range."""


@dataclass(frozen=True, slots=True)
class Faults:
    """The faults a simulated table injects into its reads: lost, doubled, a noisy serial pad,
    unplugs."""
    drop: float = 0.0  # probability that a tag read is lost
    duplicate: float = 0.0  # probability that a tag read is reported twice
    noisy_serial: bool = False  # the play pad is a serial reader on a pty, with line noise
    unplug: float = 0.0  # probability, before each play-pad tap, that the pad is unplugged

    def __post_init__(self) -> None:
        for name in ("drop", "duplicate", "unplug"):
            value = getattr(self, name)
            if not 0.0 <= value <= 0.9:
                flag = "--" + {"drop": "drop-reads", "duplicate": "duplicate-reads"}.get(
                    name, name
                )
                raise FaultError(f"{flag} {value}: use a probability from 0 to 0.9")

    @property
    def any(self) -> bool:
        """Whether any fault is asked for."""
        return bool(self.drop or self.duplicate or self.noisy_serial or self.unplug)

    def describe(self) -> str:
        """The faults in the demo's header's words."""
        parts = []
        if self.drop:
            parts.append(f"{self.drop:.0%} of reads dropped")
        if self.duplicate:
            parts.append(f"{self.duplicate:.0%} of reads doubled")
        if self.noisy_serial:
            parts.append("play pad on a noisy serial line")
        if self.unplug:
            parts.append(f"play pad unplugged before {self.unplug:.0%} of taps")
        return ", ".join(parts) or "none"


class FaultySink:
    """A reader's sink that drops and doubles tag reads (reader status always gets through)."""

    def __init__(self, sink: Sink, faults: Faults, rng: random.Random) -> None:
        self.sink = sink
        self.faults = faults
        self.rng = rng
        self.seen = 0  # tag reads that reached this sink
        self.delivered = 0  # tag reads passed on (a duplicate counts twice)
        self.dropped = 0
        self.doubled = 0
        self.blocked: set[str] = set()  # readers unplugged: their reads go nowhere
        self._cond = threading.Condition()

    def __call__(self, report: Report) -> None:
        if not isinstance(report, TagRead):
            self.sink(report)
            return
        with self._cond:
            copies = 1
            if report.reader in self.blocked:
                copies = 0
            elif self.faults.drop and self.rng.random() < self.faults.drop:
                copies = 0
                self.dropped += 1
            elif self.faults.duplicate and self.rng.random() < self.faults.duplicate:
                copies = 2
                self.doubled += 1
            self.delivered += copies
            for _ in range(copies):
                self.sink(report)
            self.seen += 1
            self._cond.notify_all()

    def counts(self) -> tuple[int, int]:
        """The reads seen so far and the reads delivered (doubles included)."""
        with self._cond:
            return self.seen, self.delivered

    def wait_seen(self, seen: int, timeout: float) -> bool:
        """Wait until more than ``seen`` reads reached the sink (a reader thread's read)."""
        with self._cond:
            return self._cond.wait_for(lambda: self.seen > seen, timeout)


_NOISE = b"GHJKLMNPQRSTUVWXYZ!?*~=<> \x00\x7f\x80\xfe\xff"


class PtyPad:
    """A USB serial-line reader stood in for by a pty, reachable through a stable link."""

    def __init__(self, link: Path, rng: random.Random) -> None:
        self.link = link
        self.rng = rng
        self.noise_lines = 0
        self.master = -1
        self.slave = -1
        self.plug()

    def plug(self) -> None:
        """Plug the pad in: a new pty, its link pointing at it."""
        self.master, self.slave = os.openpty()
        if self.link.is_symlink() or self.link.exists():
            self.link.unlink()
        self.link.symlink_to(os.ttyname(self.slave))

    def unplug(self) -> None:
        """Pull the pad's cable: both ends of the pty closed."""
        for fd in (self.master, self.slave):
            if fd >= 0:
                os.close(fd)
        self.master = self.slave = -1

    def send_uid(self, uid: str) -> None:
        """Write one UID line in one of the formats readers use, after some line noise."""
        rng = self.rng
        out = b""
        while rng.random() < 0.5:
            size = rng.randrange(1, 24)
            out += bytes(rng.choice(_NOISE) for _ in range(size)) + rng.choice((b"\n", b"\r\n"))
            self.noise_lines += 1
        pairs = [uid[i : i + 2] for i in range(0, len(uid), 2)]
        style = rng.randrange(3)
        text = uid if style == 0 else " ".join(pairs) if style == 1 else "UID: " + ":".join(pairs)
        out += text.encode() + b"\r\n"
        os.write(self.master, out)
