"""The daemon's end of the fan-out (:mod:`table.web.fanout`): starts that process, forwards it
each burst of events, hands it each page's connection once the page has its first frame, and
hears which pages it dropped.

Everything here runs in the web server's loop, never in the referee's thread. When the
fan-out cannot start, or ends, the pages are written from the daemon as before (the pages it
held are shut, and their browsers reconnect and resume): a page never goes without its events.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import subprocess
from collections import deque
from collections.abc import Callable
from itertools import count
from typing import Any, Final

from table import CHILD_FOLDER, child_command
from table.web.fanout import (
    HEAD,
    NUMBERS,
    READ,
    WRITE_TIMEOUT,
    framed,
    frames_message,
    messages,
)

log = logging.getLogger(__name__)

# The open connections of the web server, by their two ends (as a request's scope names them),
# so that the event stream can hand its page's connection over. Filled by the server's
# protocol (:class:`table.web.server.WebServer`), in its loop.
CONNECTIONS: dict[tuple[Any, Any], asyncio.Transport] = {}
BATCH: Final = 1 << 16  # bytes of frames in one message at most
WHY: Final = {b"b": "a page fell too far behind the table's events: dropped",
              b"t": f"a page did not take the table's events for {WRITE_TIMEOUT:.0f} s: dropped"}

Dropped = Callable[[int], None]


def connection(scope: Any) -> asyncio.Transport | None:
    """The open connection of a request's ``scope`` (None once it is gone)."""
    return CONNECTIONS.get((scope.get("server"), scope.get("client")))


class Relay:
    """``on_dropped(page)``: the fan-out let go of a page; ``on_gone()``: it ended."""

    def __init__(self, loop: asyncio.AbstractEventLoop, newest: int,
                 on_dropped: Dropped, on_gone: Callable[[], None]) -> None:
        self.loop = loop
        self.on_dropped = on_dropped
        self.on_gone = on_gone
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            self.proc = subprocess.Popen(
                child_command("table.web.fanout", str(theirs.fileno())), cwd=CHILD_FOLDER,
                pass_fds=[theirs.fileno()], stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,  # the daemon's stdout may be its event stream
                process_group=0)  # Ctrl-C at the terminal is the daemon's to handle
        except OSError:
            ours.close()
            raise
        finally:
            theirs.close()
        ours.setblocking(False)
        self.sock = ours
        self.alive = True
        self.ids = count(1)
        self.forwarded = newest  # the newest event the fan-out has
        self.outbox: deque[tuple[bytearray, int | None]] = deque()
        self.writing = False
        self.inbox = bytearray()
        loop.add_reader(ours, self._read)
        self._send(frames_message(newest + 1, []))

    # --- to the fan-out -----------------------------------------------------------------------

    def forward(self, first: int, frames: list[bytes]) -> None:
        """Events ``first``, ``first + 1``... of the stream (following on from the last)."""
        batch: list[bytes] = []
        size = 0
        for frame in frames:
            if batch and size + len(frame) > BATCH:
                self._send(frames_message(first, batch))
                first += len(batch)
                batch, size = [], 0
            batch.append(frame)
            size += len(frame)
        if batch:
            self._send(frames_message(first, batch))
        self.forwarded = first + len(batch) - 1

    def hand(self, fd: int, cursor: int) -> int:
        """Give the fan-out a page's connection to follow after event ``cursor``; its id."""
        page = next(self.ids)
        self._send(framed(NUMBERS.pack(b"P", page, cursor)), fd)
        return page

    def let_go(self, page: int) -> None:
        """Tell the fan-out that ``page`` is no longer its to write."""
        if self.alive:
            self._send(framed(HEAD.pack(b"C", page)))

    def _send(self, message: bytes, fd: int | None = None) -> None:
        if not self.alive:
            return
        self.outbox.append((bytearray(message), fd))
        if not self.writing:
            self._flush()

    def _flush(self) -> None:
        while self.outbox:
            data, fd = self.outbox[0]
            try:
                if fd is not None:
                    sent = socket.send_fds(self.sock, [bytes(data)], [fd])
                    self.outbox[0] = (data, None)  # the socket went with the first byte
                else:
                    sent = self.sock.send(data)
            except BlockingIOError:
                sent = 0
            except OSError:
                self._gone()
                return
            del data[:sent]
            if data:
                if not self.writing:
                    self.writing = True
                    self.loop.add_writer(self.sock, self._flush)
                return
            self.outbox.popleft()
        if self.writing:
            self.writing = False
            self.loop.remove_writer(self.sock)

    # --- from the fan-out ---------------------------------------------------------------------

    def _read(self) -> None:
        try:
            data = self.sock.recv(READ)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if not data:
            self._gone()
            return
        self.inbox += data
        for message in messages(self.inbox):
            _, page = HEAD.unpack_from(message)
            why = message[HEAD.size:]
            if why in WHY:
                log.warning(WHY[why])
            self.on_dropped(page)

    def _gone(self) -> None:
        if not self.alive:
            return
        self.alive = False
        log.warning("the web's fan-out process ended: the daemon writes to the pages itself")
        self._close()
        self.on_gone()

    def _close(self) -> None:
        with contextlib.suppress(ValueError, OSError):
            self.loop.remove_reader(self.sock)
            if self.writing:
                self.loop.remove_writer(self.sock)
        self.sock.close()

    def stop(self, timeout: float = 2.0) -> None:
        """End the fan-out (its pages end with it)."""
        if self.alive:
            self.alive = False
            self._close()
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
