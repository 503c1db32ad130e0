"""The fan-out: the process that writes the event stream to the pages following the table.

Fifty pages take fifty writes an event. Made in the daemon, those writes share its interpreter
with the referee, and a tap that comes while they are made waits for them; made here, in a
process of their own, they do not. The web server still answers each page's request, writes its
first frame (the snapshot) and then hands the page's connection over (:mod:`table.web.relay`):
from then on only this process writes to it, the events the daemon forwards as they come.

The daemon and this process talk over one stream socket pair, each message its length (4
bytes) and its bytes:

- ``F`` + first number (8 bytes) + frames, each a length (4 bytes) and its bytes: the next events
  of the stream (an SSE frame each, numbered on from the first);
- ``P`` + page (8) + cursor (8), with the page's socket attached: follow this page from the
  event after ``cursor``;
- ``C`` + page (8): the page is gone, or dropped by the daemon: let go of it;

and back:

- ``G`` + page (8) + why (``b`` fell behind what the ring keeps, ``t`` stopped taking writes,
  ``e`` the connection failed): this process dropped the page (its connection is shut, so the
  web server sees it end and the browser reconnects and resumes).

The process ends when the daemon's end of the pair closes (the daemon stopped, or was killed):
nothing is left running. Only the standard library: it starts in a few tens of milliseconds.
"""

from __future__ import annotations

import contextlib
import os
import selectors
import signal
import socket
import struct
import sys
import time
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Final

RING: Final = 1024  # events kept for pages that are behind (as the daemon's feed)
WRITE_TIMEOUT: Final = 10.0  # seconds a page may take to accept what is written to it
KEEPALIVE: Final = 15.0  # seconds of quiet before a comment line keeps the connection open
NICE: Final = 10  # how much less the fan-out is given the processor than the daemon
SPACING: Final = 0.010  # seconds at least between two rounds of writes to the pages
READ: Final = 1 << 16  # bytes read from the pair at once
HEAD: Final = struct.Struct("!cQ")
NUMBERS: Final = struct.Struct("!cQQ")
LENGTH: Final = struct.Struct("!I")


@dataclass(eq=False)
class Page:
    """One page handed over: its socket, where it is in the ring and what waits to go out."""

    number: int  # the daemon's number for it
    sock: socket.socket
    cursor: int  # the last event written to ``out`` (or to the page)
    out: bytearray = field(default_factory=bytearray)
    stuck_since: float | None = None  # when ``out`` last stopped going out
    wrote: float = field(default_factory=time.monotonic)


def chunk(body: bytes) -> bytes:
    """One chunk of a chunked HTTP/1.1 body (the framing the web server began the page's
    response with)."""
    return b"%x\r\n%b\r\n" % (len(body), body)


def framed(message: bytes) -> bytes:
    """A message as it goes over the pair."""
    return LENGTH.pack(len(message)) + message


def messages(inbox: bytearray) -> Iterator[bytes]:
    """The whole messages at the start of ``inbox``, each taken out of it as it is given."""
    while len(inbox) >= LENGTH.size:
        (size,) = LENGTH.unpack_from(inbox)
        if len(inbox) < LENGTH.size + size:
            return
        message = bytes(inbox[LENGTH.size:LENGTH.size + size])
        del inbox[:LENGTH.size + size]
        yield message


def frames_message(first: int, frames: list[bytes]) -> bytes:
    """The message carrying the event frames numbered from ``first``."""
    return framed(HEAD.pack(b"F", first) + b"".join(LENGTH.pack(len(f)) + f for f in frames))


def read_frames(message: bytes) -> tuple[int, list[bytes]]:
    """The first number and the frames of a :func:`frames_message`."""
    _, first = HEAD.unpack_from(message)
    frames, at = [], HEAD.size
    while at < len(message):
        (size,) = LENGTH.unpack_from(message, at)
        at += LENGTH.size
        frames.append(message[at:at + size])
        at += size
    return first, frames


class Fanout:
    """The pages and the ring; :meth:`run` serves them until the daemon goes."""

    def __init__(self, control: socket.socket) -> None:
        self.control = control
        self.ring: deque[tuple[int, bytes]] = deque(maxlen=RING)
        self.newest = 0
        self.pages: dict[int, Page] = {}
        self.inbox = bytearray()  # what came from the daemon and is not a whole message yet
        self.fds: deque[int] = deque()  # sockets that came with it, in order
        self.due: float | None = None  # when the pages are next written to
        self.round = float("-inf")  # when they last were
        self.rounded = 0  # the newest event then
        self.selector = selectors.DefaultSelector()
        self.selector.register(control, selectors.EVENT_READ, None)

    def run(self) -> None:
        """Serve the pages until the daemon's end of the pair closes."""
        while True:
            now = time.monotonic()
            wait = 1.0 if self.due is None else max(0.0, self.due - now)
            for key, mask in self.selector.select(timeout=wait):
                if key.data is None:
                    if not self.read_control():
                        return
                elif mask & selectors.EVENT_WRITE:
                    self.push(key.data)
            now = time.monotonic()
            if self.due is not None and now >= self.due:
                # One round of writes for whatever came since the last: under a burst of
                # inputs each page is written to at most once every SPACING seconds.
                self.write_round(now)
            self.tick(now)

    def write_round(self, now: float) -> None:
        """Give every page what came since the last round."""
        self.due, self.round, self.rounded = None, now, self.newest
        for page in list(self.pages.values()):
            self.fill(page)

    def read_control(self) -> bool:
        """What the daemon sent; False when it has gone."""
        try:
            data, fds, _, _ = socket.recv_fds(self.control, READ, 16)
        except BlockingIOError:
            return True
        except OSError:
            return False
        if not data:
            return False
        self.inbox += data
        self.fds.extend(fds)
        for message in messages(self.inbox):
            self.take(message)
        return True

    def take(self, message: bytes) -> None:
        """Act on one message from the daemon (frames, a page, a page let go)."""
        kind = message[:1]
        if kind == b"F":
            first, frames = read_frames(message)
            if first != self.newest + 1:
                self.ring.clear()  # a gap: the pages before it are behind what it keeps
            for offset, frame in enumerate(frames):
                self.ring.append((first + offset, frame))
            self.newest = first + len(frames) - 1
            if self.newest - self.rounded >= RING // 4:
                # A backlog read at once (this process was kept from the processor while the
                # table went on): the pages get it before the ring lets it go, so a page that
                # keeps up is never dropped for this process's own delay.
                self.write_round(time.monotonic())
            elif self.due is None:
                self.due = max(time.monotonic(), self.round + SPACING)
        elif kind == b"P":
            _, page_id, cursor = NUMBERS.unpack(message)
            sock = socket.socket(fileno=self.fds.popleft())
            sock.setblocking(False)
            page = Page(page_id, sock, cursor)
            self.pages[page_id] = page
            self.fill(page)
        elif kind == b"C":
            _, page_id = HEAD.unpack(message)
            self.forget(page_id)

    def fill(self, page: Page) -> None:
        """Queue for ``page`` what it has not had (once what it was given has gone out), and
        write it; a page further behind than the ring reaches is dropped."""
        behind = self.newest - page.cursor
        if behind > len(self.ring):
            self.drop(page, b"b")
            return
        if not page.out and behind > 0:
            body = b"".join(f for _, f in list(self.ring)[len(self.ring) - behind:])
            page.out += chunk(body)
            page.cursor = self.newest
        self.push(page)

    def push(self, page: Page) -> None:
        """Write what is due to ``page``; drop it when it stays stuck."""
        if not page.out:
            return
        try:
            sent = page.sock.send(page.out)
        except BlockingIOError:
            sent = 0
        except OSError:
            self.drop(page, b"e")
            return
        del page.out[:sent]
        now = time.monotonic()
        if sent:
            page.wrote = now
        if page.out:
            if page.stuck_since is None:
                page.stuck_since = now
                self.selector.register(page.sock, selectors.EVENT_WRITE, page)
        elif page.stuck_since is not None:
            page.stuck_since = None
            self.selector.unregister(page.sock)
            self.fill(page)  # what came while it was stuck

    def tick(self, now: float) -> None:
        """Drop the pages stuck for too long at ``now``; a comment to the quiet ones."""
        for page in list(self.pages.values()):
            if page.stuck_since is not None and now - page.stuck_since > WRITE_TIMEOUT:
                self.drop(page, b"t")
            elif not page.out and now - page.wrote > KEEPALIVE:
                page.out += chunk(b": keep-alive\n\n")
                self.push(page)

    def drop(self, page: Page, why: bytes) -> None:
        """End ``page`` and tell the daemon ``why``."""
        with contextlib.suppress(OSError):
            page.sock.shutdown(socket.SHUT_RDWR)  # the web server sees the page end
        self.forget(page.number)
        with contextlib.suppress(OSError):
            self.control.sendall(framed(HEAD.pack(b"G", page.number) + why))

    def forget(self, page_id: int) -> None:
        """Close and forget the page numbered ``page_id``."""
        page = self.pages.pop(page_id, None)
        if page is None:
            return
        if page.stuck_since is not None:
            self.selector.unregister(page.sock)
        page.sock.close()


def main(argv: list[str]) -> int:
    """The fan-out process: serves the pages over the socket pair it was given."""
    # Ctrl-C at the terminal and a service manager's SIGTERM reach the whole process group:
    # the daemon ends this process itself, when it has closed its pages.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    # The referee comes first: on a busy machine a tap is refereed before the pages hear of
    # the last one (a sandbox may refuse a nice value: then as the daemon).
    with contextlib.suppress(OSError):
        os.nice(NICE)
    control = socket.socket(fileno=int(argv[1]))
    Fanout(control).run()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
