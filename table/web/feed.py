"""The table's public events for the web: numbered, kept in a ring, pushed to every page.

The referee's thread hands each event of the stream (DESIGN.md §3) to :meth:`Feed.publish`,
which only encodes it once, appends it to a bounded ring and, at most once per burst, asks the
web server's loop to wake the connected pages: the referee never waits for a page. Each page
keeps a cursor into the ring. A page that falls further behind than the ring reaches, or does
not take what is written to it in time, is dropped; its browser reconnects and resumes from its
last event id, or starts again from a snapshot.

Only the kinds of :data:`PUBLIC` cross: they carry what anyone at the table sees or hears.
Nothing here knows the table beyond that set: another face (a hub's standings) uses a feed of
its own kinds with :class:`table.web.stream.EventsEndpoint` the same way.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
import threading
from collections import Counter, deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from itertools import islice
from typing import Any, Final

from table.web.relay import Relay

log = logging.getLogger(__name__)

# The kinds of event a page may see. Left out: ``start`` and ``journal`` (file paths of the
# Pi), ``ready`` and ``stopped`` (for the daemon's supervisor), ``lift`` (noise).
PUBLIC: Final = frozenset(
    {"press", "admin", "tag", "verdict", "state", "announcement", "new-match", "resumed",
     "reader"}
)
RING: Final = 1024  # events kept for pages that resume
CAPTIONS: Final = 6  # latest announcements a new page starts with
RETRY_MS: Final = 1000  # how soon a browser reconnects after losing the stream
GATHER: Final = 0.002  # seconds the pages wait after an event for the rest of its input's


@dataclass(eq=False)
class Page:
    """One connected page: where it is in the ring, how to wake it, and the deadline of the
    write to it in flight (brought forward to now when the page is dropped)."""

    cursor: int
    wake: asyncio.Event = field(default_factory=asyncio.Event)
    dropped: bool = False
    deadline: asyncio.Timeout | None = None
    number: int | None = None  # its number at the fan-out, once handed over
    device: str = ""  # who follows it (:func:`table.web.guard.client_key`)

    def drop(self) -> None:
        """End this page's stream (in the server's loop)."""
        self.dropped = True
        if self.deadline is not None and not self.deadline.expired():
            self.deadline.reschedule(asyncio.get_running_loop().time())
        self.wake.set()


class Feed:
    """``kinds``: the event types that cross (the table's :data:`PUBLIC`; another face, such
    as a hub, names its own)."""

    def __init__(self, ring: int = RING, kinds: frozenset[str] = PUBLIC) -> None:
        self.kinds = kinds
        # Event ids are ``EPOCH-SEQ``: a page that resumes with an id of another run of the
        # server (whose numbers mean other events) starts again from a snapshot.
        self.epoch = secrets.token_hex(3)
        self._lock = threading.Lock()
        self._ring: deque[tuple[int, bytes]] = deque(maxlen=ring)
        self._seq = 0
        self._captions: deque[dict[str, Any]] = deque(maxlen=CAPTIONS)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._pages: set[Page] = set()
        self._devices: Counter[str] = Counter()  # pages open per device
        self._count_changed = threading.Condition()
        self._wake_pending = False
        self.relay: Relay | None = None
        self._relayed: dict[int, Page] = {}
        self.closed = False

    # --- the publishing side (any thread) -----------------------------------------------------

    def publish(self, event: Mapping[str, Any]) -> None:
        """One event of the stream; kinds that are not public are left out."""
        kind = event.get("type")
        if kind not in self.kinds:
            return
        text = json.dumps(event, ensure_ascii=False, separators=(",", ":"))
        with self._lock:
            self._seq += 1
            seq = self._seq
            self._ring.append((seq, f"id: {self.epoch}-{seq}\ndata: {text}\n\n".encode()))
            if kind == "announcement":
                self._captions.append({"id": self.event_id(seq), "key": event.get("key"),
                                       "text": event.get("text")})
            loop = self._loop
            wake = loop is not None and not self._wake_pending
            if wake:
                self._wake_pending = True
        if wake:
            assert loop is not None
            with contextlib.suppress(RuntimeError):  # the server's loop has ended: nobody to wake
                loop.call_soon_threadsafe(self._soon)

    def event_id(self, seq: int) -> str:
        """The event id of sequence number ``seq`` (``EPOCH-SEQ``)."""
        return f"{self.epoch}-{seq}"

    def announcement(self, event_id: str) -> str | None:
        """The text of the announcement ``event_id`` while it is among the latest captions."""
        with self._lock:
            return next((c["text"] for c in self._captions if c["id"] == event_id), None)

    # --- the pages' side (the server's loop) --------------------------------------------------

    def attach(self, loop: asyncio.AbstractEventLoop) -> None:
        """Wake the pages through ``loop`` (the web server's)."""
        with self._lock:
            self._loop = loop

    def _soon(self) -> None:
        # The events of one input come out together: wait for the rest of them, so that the
        # pages are written to once per input, and not while the referee is still at it.
        assert self._loop is not None
        self._loop.call_later(GATHER, self._wake)

    def _wake(self) -> None:
        relay = self.relay
        with self._lock:
            self._wake_pending = False
            newest, kept = self._seq, len(self._ring)
            news = (self._news(relay.forwarded) if relay is not None and relay.alive
                    else None)
        if relay is not None and news:
            relay.forward(newest - len(news) + 1, news)
        for sub in self._pages:
            if sub.number is not None:
                continue  # the fan-out writes to it
            if newest - sub.cursor > kept and not sub.dropped:
                # Still writing what it took long ago, and what followed has left the ring:
                # whatever it does next, it cannot have every event.
                log.warning("a page fell too far behind the table's events: dropped")
                sub.drop()
            else:
                sub.wake.set()

    def join(self, last_id: str | None, device: str = "") -> tuple[Page, bool]:
        """A new page of ``device``, resumed after ``last_id`` when the ring still holds every
        event since; the flag says whether it was (else the page needs a snapshot first)."""
        with self._lock:
            cursor = self._resumable(last_id)
            resumed = cursor is not None
            sub = Page(self._seq if cursor is None else cursor, device=device)
        self._pages.add(sub)
        self._devices[device] += 1
        self._counted()
        return sub, resumed

    def _resumable(self, last_id: str | None) -> int | None:
        if not last_id:
            return None
        epoch, _, number = last_id.partition("-")
        if epoch != self.epoch or not number.isdigit() or len(number) > 12:
            return None
        seq = int(number)
        oldest = self._ring[0][0] if self._ring else self._seq + 1
        return seq if oldest - 1 <= seq <= self._seq else None

    def leave(self, sub: Page) -> None:
        """Forget a page."""
        if sub in self._pages:
            self._pages.discard(sub)
            self._devices[sub.device] -= 1
            if not self._devices[sub.device]:
                del self._devices[sub.device]
            self._counted()

    def pages_of(self, device: str) -> int:
        """How many pages ``device`` has open."""
        return self._devices.get(device, 0)

    def _counted(self) -> None:
        with self._count_changed:
            self._count_changed.notify_all()

    def wait_pages(self, ready: Callable[[int], bool], timeout: float) -> bool:
        """Wait (any thread but the server's) until ``ready(pages open)`` holds, or
        ``timeout`` s; whether it does."""
        with self._count_changed:
            return self._count_changed.wait_for(lambda: ready(self.pages), timeout)

    @property
    def pages(self) -> int:
        """How many pages are connected."""
        return len(self._pages)

    @property
    def relayed(self) -> int:
        """Pages the fan-out process writes to."""
        return len(self._relayed)

    def snapshot_mark(self) -> tuple[str, list[dict[str, Any]]]:
        """The id of the latest event and the latest captions, for a page's first frame."""
        with self._lock:
            return self.event_id(self._seq), list(self._captions)

    def _news(self, after: int) -> list[bytes]:
        """The frames after event ``after`` that the ring still holds (under the lock)."""
        behind = min(self._seq - after, len(self._ring))
        if behind <= 0:
            return []
        frames = [frame for _, frame in islice(reversed(self._ring), behind)]
        frames.reverse()
        return frames

    # --- the fan-out (the server's loop) ------------------------------------------------------

    def start_fanout(self) -> None:
        """Have a process of its own write the events to the pages (:mod:`table.web.fanout`);
        the pages are written from here when it cannot start, or after it ends."""
        assert self._loop is not None
        with self._lock:  # what the ring holds already (a start's events) goes over first
            kept = self._news(0)
            first = self._seq - len(kept) + 1
        try:
            self.relay = Relay(self._loop, first - 1, self._fanout_dropped, self._fanout_gone)
        except OSError as exc:
            log.warning("the web's fan-out process cannot start (%s): the daemon writes to "
                        "the pages itself", exc)
            return
        if kept:
            self.relay.forward(first, kept)

    def hand_over(self, sub: Page, fd: int) -> bool:
        """Hand a page that has had its first frame to the fan-out; False when there is none."""
        relay = self.relay
        if relay is None or not relay.alive or sub.dropped:
            return False
        sub.number = relay.hand(fd, sub.cursor)
        self._relayed[sub.number] = sub
        return True

    def let_go(self, sub: Page) -> None:
        """The page ``sub`` has ended: the fan-out closes its end of it."""
        if (sub.number is not None and self._relayed.pop(sub.number, None) is not None
                and self.relay is not None):
            self.relay.let_go(sub.number)

    def stop_fanout(self) -> None:
        """Stop handing the pages to the fan-out."""
        if self.relay is not None:
            self.relay.stop()

    def _fanout_dropped(self, page: int) -> None:
        sub = self._relayed.get(page)
        if sub is not None:
            sub.drop()

    def _fanout_gone(self) -> None:
        self.relay = None
        for sub in list(self._relayed.values()):
            sub.drop()  # their browsers reconnect, and are written to from here

    def take(self, sub: Page) -> list[bytes] | None:
        """The frames ``sub`` has not had yet; ``None`` when some of them already left the
        ring (the page fell too far behind)."""
        with self._lock:
            behind = self._seq - sub.cursor
            if behind <= 0:
                return []
            if behind > len(self._ring):
                return None
            frames = [frame for _, frame in islice(reversed(self._ring), behind)]
            sub.cursor = self._seq
        frames.reverse()
        return frames

    def pending(self, sub: Page) -> bool:
        """Whether events wait for ``sub``."""
        with self._lock:
            return self._seq > sub.cursor

    def drop_all(self) -> None:
        """End every page's stream (from the server's loop); browsers reconnect and resume."""
        for sub in self._pages:
            sub.drop()

    def drop_pages(self) -> None:
        """End every page's stream from any thread (the pages reconnect and resume)."""
        with self._lock:
            loop = self._loop
        if loop is not None:
            with contextlib.suppress(RuntimeError):  # the server's loop has ended already
                loop.call_soon_threadsafe(self.drop_all)

    def close(self) -> None:
        """The server stops: every stream ends (from any thread)."""
        self.closed = True
        self.drop_pages()
