"""``GET /api/events``: the event stream as Server-Sent Events.

SSE rather than a WebSocket: the stream only flows one way (presses are plain POSTs, which
retry and rate-limit like any request), every browser's ``EventSource`` reconnects by itself
and sends the ``Last-Event-ID`` it had, and it is plain HTTP that any proxy, ``curl`` or OBS
browser source takes.

A ``HEAD`` gets the stream's headers and its end at once: no page follows a HEAD. The
connection of a stream is watched to its end: a client that closes it, shuts its side of it or
sends anything more (a browser's ``EventSource`` never does, and a stream that never ends
cannot answer another request) frees its slot at once
(:meth:`table.web.limits.GuardedConnection.stream_started`). At most :data:`MAX_PAGES`
streams are open at once, and at most :data:`PER_DEVICE` from one device (its address as
:func:`table.web.guard.client_key` tells it: behind a trusted proxy, the client's own).

A page starts with a ``snapshot`` frame (the replay JSON's ``state``, ``scores``, ``rounds`` and
``match_over``, and the latest captions) unless it resumes: then it gets exactly the events
after the id it had, none missed, none twice. A page whose writes stall for
:data:`WRITE_TIMEOUT` seconds, or that falls behind what the ring keeps, is dropped.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
import socket
from collections.abc import Callable
from typing import Any, Final

from starlette.types import Message, Receive, Scope, Send

from table.web.feed import RETRY_MS, Feed, Page
from table.web.guard import client_key
from table.web.relay import connection

log = logging.getLogger(__name__)

WRITE_TIMEOUT: Final = 10.0  # seconds a page may take to accept what is written to it
KEEPALIVE: Final = 15.0  # seconds of quiet before a comment line keeps the connection open
MAX_PAGES: Final = 500  # streams at once; more get 503
PER_DEVICE: Final = 32  # streams at once from one device (address, or IPv6 /64); more get 429
EVENT_ID: Final = re.compile(r"[A-Za-z0-9_-]{1,64}")  # ASCII only: "²" is no digit here


HEADERS: Final = [
    (b"content-type", b"text/event-stream; charset=utf-8"),
    (b"cache-control", b"no-store"),
    (b"x-accel-buffering", b"no"),
]


class EventsEndpoint:
    """A raw ASGI app: the stream needs its own control of writes and of the end."""

    def __init__(self, feed: Feed, snapshot: Callable[[], dict[str, Any]]) -> None:
        self.feed = feed
        self.snapshot = snapshot

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["method"] not in ("GET", "HEAD"):
            await _json(send, 405, "use GET for the event stream")
            return
        if scope["method"] == "HEAD":  # the headers a GET would get, and nothing to hold open
            await send({"type": "http.response.start", "status": 200, "headers": HEADERS})
            await send({"type": "http.response.body", "body": b"", "more_body": False})
            return
        device = client_key(scope)
        if self.feed.pages >= MAX_PAGES or self.feed.closed:
            await _json(send, 503, "too many pages are following the table: try again later")
            return
        if self.feed.pages_of(device) >= PER_DEVICE:
            await _json(send, 429, f"this device follows the table on {PER_DEVICE} pages "
                                   "already: close one of them")
            return
        last_id = last_event_id(scope)
        sub, resumed = self.feed.join(last_id, device)
        try:
            await self._serve(sub, resumed, scope, receive, send)
        finally:
            self.feed.let_go(sub)
            self.feed.leave(sub)

    async def _serve(self, sub: Page, resumed: bool, scope: Scope, receive: Receive,
                     send: Send) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": HEADERS})
        transport = connection(scope)
        started = getattr(transport.get_protocol(), "stream_started", None) if transport else None
        if started is not None:
            started()  # from now on, anything the client sends ends the stream
        first = f"retry: {RETRY_MS}\n\n".encode()
        if not resumed:
            first += self._snapshot_frame()
        watcher = asyncio.ensure_future(_until_disconnect(receive, sub))
        try:
            if not await _write(send, first, sub):
                return
            if not await self._hand_over(sub, scope, watcher):
                await self._follow(sub, send)
        finally:
            watcher.cancel()

    async def _hand_over(self, sub: Page, scope: Scope,
                         watcher: asyncio.Future[None]) -> bool:
        """Let the fan-out process write this page's events from now on, and wait for the
        page to end; False when this page is written from here (no fan-out, or a connection
        that cannot be handed over: HTTP/1.0, or its first frame still in the buffer)."""
        transport = connection(scope)
        if (transport is None or scope.get("http_version") != "1.1"
                or scope["method"] != "GET" or transport.get_write_buffer_size()):
            return False
        sock = transport.get_extra_info("socket")
        if sock is None or not self.feed.hand_over(sub, sock.fileno()):
            return False
        while not watcher.done() and not sub.dropped:
            sub.wake.clear()
            woken = asyncio.ensure_future(sub.wake.wait())
            await asyncio.wait((watcher, woken), return_when=asyncio.FIRST_COMPLETED)
            woken.cancel()
        if not watcher.done():
            # Dropped (by the fan-out, or the server): the connection is shut, the server
            # sees it end, the browser reconnects and resumes.
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(WRITE_TIMEOUT):
                    await asyncio.shield(watcher)
        return True

    def _snapshot_frame(self) -> bytes:
        event_id, captions = self.feed.snapshot_mark()
        data = {"type": "snapshot", **self.snapshot(), "captions": captions}
        text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
        return f"id: {event_id}\ndata: {text}\n\n".encode()

    async def _follow(self, sub: Page, send: Send) -> None:
        while not sub.dropped:
            frames = self.feed.take(sub)
            if frames is None:
                log.warning("a page fell too far behind the table's events: dropped")
                return
            if frames:
                if not await _write(send, b"".join(frames), sub):
                    return
                continue
            sub.wake.clear()
            if self.feed.pending(sub) or sub.dropped:
                continue
            try:
                async with asyncio.timeout(KEEPALIVE):
                    await sub.wake.wait()
            except TimeoutError:
                if not await _write(send, b": keep-alive\n\n", sub):
                    return
        await _write(send, b"", sub, more=False)  # the end of a stream the server closes


async def _write(send: Send, body: bytes, sub: Page, more: bool = True) -> bool:
    """Write to a page; ``False`` when it did not take it in time, or was dropped meanwhile
    (its write is then abandoned, and so is the page). A write the connection takes at once
    (the usual case) costs no task and no more than one timer."""
    message: Message = {"type": "http.response.body", "body": body, "more_body": more}
    if sub.dropped and more:
        return False
    try:
        async with asyncio.timeout(WRITE_TIMEOUT) as deadline:
            sub.deadline = deadline
            await send(message)
    except TimeoutError:
        if not sub.dropped:
            log.warning("a page did not take the table's events for %.0f s: dropped",
                        WRITE_TIMEOUT)
        return False
    finally:
        sub.deadline = None
    return not sub.dropped


async def _until_disconnect(receive: Receive, sub: Page) -> None:
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            sub.drop()  # a write waiting on the gone connection ends at once
            return


def last_event_id(scope: Scope) -> str | None:
    """The ``Last-Event-ID`` header a reconnecting browser sends, or the ``last_event_id``
    query parameter a page uses when it reopens the stream itself; ``None`` (a new page)
    when there is none or it is not an id this server makes (ASCII letters, digits, ``-``
    and ``_``, at most 64)."""
    given: str | None = None
    for name, value in scope.get("headers", []):
        if name == b"last-event-id":
            given = value.decode("latin-1").strip()
            break
    else:
        query: str = scope.get("query_string", b"").decode("latin-1")
        for pair in query.split("&"):
            key, _, text = pair.partition("=")
            if key == "last_event_id":
                given = text
                break
    return given if given is not None and EVENT_ID.fullmatch(given) else None


async def _json(send: Send, status: int, message: str) -> None:
    body = json.dumps({"error": message}).encode()
    await send({"type": "http.response.start", "status": status, "headers": [
        (b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})
