"""The web server in its own thread: uvicorn serving :func:`table.web.app.make_app` on a socket
bound before anything else starts, so a port in use is one clear line, not a traceback.

The thread runs its own asyncio loop; the table's threads only reach it through
:class:`table.web.feed.Feed` (which never blocks them) and the table's own queues. Each
connection is a :class:`table.web.limits.GuardedConnection`: a deadline for its request's
headers and a cap on connections open at once; the loggers a flood could come from say each
complaint a few times a minute (:class:`table.web.limits.LogLimit`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import threading
from collections.abc import Sequence
from typing import Final, TextIO

import segno
import uvicorn
from starlette.types import ASGIApp

from table.web.app import WebTable, make_app
from table.web.feed import Feed
from table.web.limits import (
    ACCEPT_BURST,
    HEADER_TIMEOUT,
    LIMITED_LOGGERS,
    LOG_LIMIT,
    GuardedConnection,
    connection_cap,
)
from table.web.listen import WebError, listen, parse_listen

__all__ = ["WebError", "WebServer", "parse_listen"]

log = logging.getLogger(__name__)

STOP_TIMEOUT: Final = 5.0
# What uvicorn says when a stream ends without its last chunk: how a page too slow for the
# table is dropped (the stream module says so itself, once, as a warning).
_DROPPED = "ASGI callable returned without completing response."


def _lan_address() -> str:
    """This machine's address as phones on its network reach it (best effort, no traffic)."""
    with contextlib.suppress(OSError):
        for info in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET):
            address = str(info[4][0])
            if not address.startswith("127."):
                return address
    return socket.gethostname()


class _QuietDrops(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        """Whether ``record`` is said: not uvicorn's line for a page dropped on purpose."""
        return record.getMessage() != _DROPPED


_QUIET_DROPS: Final = _QuietDrops()


class WebServer:
    """Bound first (:meth:`bind`: a port in use is an error before the table starts), then
    serving a :class:`WebTable` (:meth:`serve`) until :meth:`stop`."""

    def __init__(self, host: str = "0.0.0.0", port: int = 8080, *,
                 max_connections: int | None = None,
                 header_timeout: float = HEADER_TIMEOUT) -> None:
        self.host = host
        self.port = port
        self.max_connections = max_connections or connection_cap()
        self.header_timeout = header_timeout
        self.connection = GuardedConnection.limited(self.max_connections, header_timeout)
        self._web: WebTable | None = None
        self._socket: socket.socket | None = None
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None
        self._feeds: list[Feed] = []

    @property
    def web(self) -> WebTable:
        """The table this server serves."""
        assert self._web is not None, "the server serves no table yet"
        return self._web

    def base_url(self) -> str:
        """The address phones on the table's network reach this server at."""
        host = self.host
        if host in ("0.0.0.0", "::", ""):
            host = _lan_address()
        if ":" in host:
            host = f"[{host}]"
        return f"http://{host}:{self.port}"

    def bind(self, sock: socket.socket | None = None) -> None:
        """Take the address (the port chosen when it is 0), or serve on ``sock``, one
        :func:`table.web.listen.listen` took before. Raises :class:`WebError`."""
        sock = sock or listen(self.host, self.port)
        self.port = sock.getsockname()[1]
        self._socket = sock

    def serve(self, web: WebTable) -> None:
        """Serve the table of ``web`` in a thread of its own (binding first if :meth:`bind`
        was not called)."""
        self._web = web
        web.base_url = self.base_url
        self.serve_app(make_app(web), [web.feed])
        log.info("web view on %s (admin: %s/admin)", self.base_url(), self.base_url())

    def serve_app(self, app: ASGIApp, feeds: Sequence[Feed] = ()) -> None:
        """Serve any application (one of :func:`table.web.base.web_app`) in a thread of its
        own; ``feeds`` are the live feeds its pages follow, woken in its loop and ended by
        :meth:`stop`."""
        if self._socket is None:
            self.bind()
        sock = self._socket
        assert sock is not None
        self._feeds = list(feeds)
        for name in ("uvicorn", "uvicorn.error", "uvicorn.access"):
            logging.getLogger(name).setLevel(logging.WARNING)
        logging.getLogger("uvicorn.error").addFilter(_QUIET_DROPS)  # (once: a set of filters)
        for name in LIMITED_LOGGERS:
            logging.getLogger(name).addFilter(LOG_LIMIT)
        config = uvicorn.Config(
            app, log_config=None, access_log=False, lifespan="off",
            loop="asyncio", http=self.connection, ws="none", proxy_headers=False,
            timeout_graceful_shutdown=2, timeout_keep_alive=30, backlog=ACCEPT_BURST,
        )
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._run, args=(sock,), name="web", daemon=True)
        self._thread.start()

    def _run(self, sock: socket.socket) -> None:
        assert self._server is not None
        server = self._server

        async def serve() -> None:
            loop = asyncio.get_running_loop()
            for feed in self._feeds:
                feed.attach(loop)
                feed.start_fanout()
            try:
                await server.serve(sockets=[sock])
            finally:
                for feed in self._feeds:
                    feed.stop_fanout()

        asyncio.run(serve())

    def stop(self) -> None:
        """End every page's stream and stop serving."""
        for feed in self._feeds:
            feed.close()
        if self._server is None and self._socket is not None:
            self._socket.close()
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(STOP_TIMEOUT)

    def seat_lines(self) -> list[str]:
        """``seat NAME: URL``, one per seat: the contract of ``demo --web`` and ``sim --web``."""
        return [f"seat {name}: {url}" for name, url in self.web.seat_urls()]

    def print_seats(self, out: TextIO, codes: bool | None = None) -> None:
        """The seat lines, then (on a terminal) each seat's link as a QR code to scan."""
        codes = out.isatty() if codes is None else codes
        for line in self.seat_lines():
            out.write(line + "\n")
        if codes:
            for name, url in self.web.seat_urls():
                out.write(f"\n{name}:\n")
                segno.make(url, error="m").terminal(out=out, compact=True)
        out.write(f"table view: {self.base_url()}/   overlay: {self.base_url()}/overlay   "
                  f"admin: {self.base_url()}/admin\n")
        out.flush()
