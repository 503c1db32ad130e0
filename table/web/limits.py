"""What one connection, or many, may take of the web server: a cap on open connections below
the process's file descriptors, a deadline for a request's headers, and a log that says a
repeated complaint a few times a minute, not thousands.

uvicorn has no deadline for a request's headers (``timeout_keep_alive`` only runs between two
requests) and its ``limit_concurrency`` answers 503 once a request is complete, so a client
that opens connections and sends half a request ("slowloris") holds them for ever. Here each
connection gets :data:`HEADER_TIMEOUT` seconds from its first byte (or from its opening) to
send a whole request head, and when :func:`connection_cap` connections are open a new one
closes the one that has waited longest without a request: a page that asks for something is
served, the connections that ask for nothing make room. The cap leaves :data:`SPARE_FILES`
descriptors to the table, so ``accept`` never fails with "Too many open files" (which asyncio
would log on every try), and :data:`ACCEPT_BURST` (uvicorn's ``backlog``) bounds how many
connections are taken before the cap is looked at.
"""

from __future__ import annotations

import asyncio
import logging
import resource
import time
from collections import OrderedDict
from typing import ClassVar, Final, cast

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from table.web.relay import CONNECTIONS

HEADER_TIMEOUT: Final = 10.0  # seconds to send a request's line and headers
SPARE_FILES: Final = 128  # descriptors left for the table (journal, readers, voice, fan-out)
MOST_CONNECTIONS: Final = 4000
# Connections taken from the listening socket at once, and its queue. asyncio accepts up to its
# backlog each turn of its loop and looks at them (the cap) two turns later, closing the ones
# over the cap a turn after that: up to IN_FLIGHT bursts stand beyond the cap. A queue too
# short for an attacker's re-opened connections drops a page's first packet (its phone sends
# it again a second later).
ACCEPT_BURST: Final = 64
IN_FLIGHT: Final = 4
LOG_BURST: Final = 5  # the same complaint a minute, said in full...
LOG_WINDOW: Final = 60.0  # ...within this many seconds; then counted and summed up


def connection_cap() -> int:
    """Connections open at once: the soft limit of file descriptors less :data:`SPARE_FILES`
    and :data:`IN_FLIGHT` bursts of :data:`ACCEPT_BURST` (640 at the Pi's 1,024), at least 16,
    at most :data:`MOST_CONNECTIONS`."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return MOST_CONNECTIONS
    return max(16, min(MOST_CONNECTIONS, soft - SPARE_FILES - IN_FLIGHT * ACCEPT_BURST))


class GuardedConnection(H11Protocol):
    """uvicorn's HTTP/1.1 connection with a header deadline and a cap on connections (module
    doc); known by its two ends while it is open, so that the event stream can hand a page's
    connection to the fan-out (:mod:`table.web.relay`). Each server uses its own subclass
    (:meth:`limited`), which holds its limits and its idle connections."""

    cap: ClassVar[int] = MOST_CONNECTIONS
    header_timeout: ClassVar[float] = HEADER_TIMEOUT
    idle: ClassVar[OrderedDict[GuardedConnection, None]] = OrderedDict()  # oldest first
    shed: ClassVar[int] = 0  # connections closed to make room, or for being too slow
    streaming = False  # its response is an event stream, which never ends

    @classmethod
    def limited(cls, cap: int, header_timeout: float) -> type[GuardedConnection]:
        """A subclass for one server: at most ``cap`` connections, ``header_timeout`` s."""
        attrs = {"cap": cap, "header_timeout": header_timeout, "idle": OrderedDict()}
        return cast(type[GuardedConnection], type("Connection", (cls,), attrs))

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        """Open: known by its ends, waiting for a request, room made if the cap is reached."""
        super().connection_made(transport)
        self._ends = (self.server, self.client)
        CONNECTIONS[self._ends] = transport
        self._deadline: asyncio.TimerHandle | None = None
        self._wait_for_request()
        if len(self.connections) > self.cap:
            self._make_room()

    def _make_room(self) -> None:
        oldest = next(iter(self.idle), self)  # none idle: this one goes
        type(self).shed += 1
        oldest._close()

    def _wait_for_request(self) -> None:
        self.idle[self] = None
        self.idle.move_to_end(self)
        if self._deadline is None:
            self._deadline = self.loop.call_later(self.header_timeout, self._too_slow)

    def _too_slow(self) -> None:
        self._deadline = None
        if self.conn.their_state is h11.IDLE:
            type(self).shed += 1
            self._close()

    def _close(self) -> None:
        self.idle.pop(self, None)
        if not self.transport.is_closing():
            self.transport.abort()  # no FIN-wait on a descriptor the server needs back

    def stream_started(self) -> None:
        """The response is an event stream: it never ends, so nothing more the client sends
        can be answered. uvicorn would stop reading at such bytes (a pipelined request waits
        for the response before it) and never see the client go; the connection is closed at
        them instead, and at once if they came already."""
        self.streaming = True
        if self.flow.read_paused or self.conn.trailing_data[0]:
            self._close()

    def data_received(self, data: bytes) -> None:
        """Bytes in: the header deadline is armed while a request head is incomplete; on an
        event stream, the end of it (:meth:`stream_started`)."""
        if self.streaming:
            self._close()
            return
        super().data_received(data)
        if self.conn.their_state is h11.IDLE:
            self._wait_for_request()
        else:
            self._got_request()

    def _got_request(self) -> None:
        self.idle.pop(self, None)
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def on_response_complete(self) -> None:
        """Between two requests: idle (uvicorn's keep-alive timeout closes it), first to go."""
        super().on_response_complete()
        if not self.transport.is_closing() and self.conn.their_state is h11.IDLE:
            self.idle[self] = None
            self.idle.move_to_end(self)

    def connection_lost(self, exc: Exception | None) -> None:
        """Closed: forgotten everywhere."""
        CONNECTIONS.pop(self._ends, None)
        self._got_request()
        super().connection_lost(exc)


class LogLimit(logging.Filter):
    """Lets the same message (logger and format) through :data:`LOG_BURST` times a
    :data:`LOG_WINDOW`; the first one after says how many were left out."""

    def __init__(self, burst: int = LOG_BURST, window: float = LOG_WINDOW) -> None:
        super().__init__()
        self.burst, self.window = burst, window
        self._seen: dict[tuple[str, str], tuple[float, int, int]] = {}  # start, said, left out

    def filter(self, record: logging.LogRecord) -> bool:
        """Whether ``record`` is said (a summary of the left-out ones added to it)."""
        key = (record.name, str(record.msg))
        now = time.monotonic()
        start, said, left = self._seen.get(key, (now, 0, 0))
        if now - start >= self.window:
            start, said = now, 0
        if said >= self.burst:
            self._seen[key] = (start, said, left + 1)
            return False
        if left:
            record.msg = f"{record.msg} (the same {left} more times, not shown)"
            left = 0
        if len(self._seen) > 256:
            self._seen.clear()
        self._seen[key] = (start, said + 1, left)
        return True


LOG_LIMIT: Final = LogLimit()
# Where a flood could come from: asyncio's accept loop ("Too many open files"), uvicorn's
# complaints about bad requests, and the event stream's dropped pages.
LIMITED_LOGGERS: Final = ("asyncio", "uvicorn.error", "table.web.stream", "table.web.stats")
