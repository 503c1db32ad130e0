"""The hub's standings page, live and TV-sized: ``uno-table hub --web PORT``.

Built on the web room's parts, as the table's own pages are: :func:`table.web.base.web_app`
(the security headers, JSON errors, the shared style and script), a
:class:`table.web.feed.Feed` of one kind, ``standings``, and its
:class:`table.web.stream.EventsEndpoint` (a snapshot first, ids, resume by ``Last-Event-ID``,
slow pages dropped), served by :class:`table.web.server.WebServer` in a thread of its own.

``GET /`` the page (the ranking, the round and its timer, the seating, the tables online,
flagged results; English or Japanese), ``GET /api/standings`` the same as JSON,
``GET /api/events`` the stream: each event is the whole standings again, after each change.
Every view carries ``now``, the hub's clock, so that a TV whose own clock is off still counts
the round down right.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Route

from table.hub.service import Hub
from table.web.base import PRIVATE, web_app
from table.web.feed import Feed
from table.web.proxy import Proxies
from table.web.server import WebServer
from table.web.stream import EventsEndpoint

STATIC: Final = Path(__file__).parent / "static"
KINDS: Final = frozenset({"standings"})


def view(hub: Hub, clock: Callable[[], float] = time.time) -> dict[str, Any]:
    """The standings as the page shows them, with the hub's clock (``clock``, seconds since
    the epoch)."""
    return {**hub.standings(), "now": clock()}


def app_for(hub: Hub, feed: Feed, clock: Callable[[], float] = time.time,
            proxies: Proxies | None = None) -> Starlette:
    """The page, its JSON and its event stream (fed by ``feed``), stamped by ``clock``; the
    clients behind ``proxies`` told apart (each device's cap on streams)."""

    async def page(request: Request) -> Response:
        return FileResponse(STATIC / "standings.html", headers=PRIVATE)

    async def standings(request: Request) -> Response:
        return JSONResponse(view(hub, clock), headers=PRIVATE)

    return web_app([Route("/", page), Route("/api/standings", standings),
                    Route("/api/events", EventsEndpoint(feed, lambda: view(hub, clock)))],
                   static=[("/hub", STATIC)], proxies=proxies)


class StandingsPage:
    """The page on ``host:port`` (0: any free port): the address is taken at once (a port in
    use is one line, before the hub starts), then :meth:`serve` shows a hub until
    :meth:`close`. ``clock`` is the hub's clock the page's timer counts on (seconds since the
    epoch; a test fixes it). ``proxies``: the reverse proxies in front of it
    (``--trusted-proxy``)."""

    def __init__(self, host: str, port: int, clock: Callable[[], float] = time.time,
                 proxies: Proxies | None = None) -> None:
        self.clock = clock
        self.proxies = proxies
        self.feed = Feed(kinds=KINDS)
        self.server = WebServer(host, port)
        self.server.bind()
        self.hub: Hub | None = None

    @property
    def port(self) -> int:
        """The port the page listens on (the one taken when 0 was asked for)."""
        return self.server.port

    def serve(self, hub: Hub) -> None:
        """Show ``hub`` from now on, in the server's own thread; every change is an event."""
        self.hub = hub
        self.server.serve_app(app_for(hub, self.feed, self.clock, self.proxies), [self.feed])
        hub.listeners.append(self.changed)

    def changed(self, standings: dict[str, Any]) -> None:
        """The hub's listener (its thread, or paho's): one event to every page."""
        self.feed.publish({"type": "standings", **standings, "now": self.clock()})

    def close(self) -> None:
        """Stop listening to the hub and stop the server."""
        if self.hub is not None and self.changed in self.hub.listeners:
            self.hub.listeners.remove(self.changed)
        self.server.stop()


def serve(hub: Hub, port: int, host: str = "0.0.0.0",
          clock: Callable[[], float] = time.time, proxies: Proxies | None = None
          ) -> StandingsPage:
    """Serve the page; it listens before this returns, so a browser (or a test) can connect
    at once. Raises :class:`table.web.server.WebError` when the address cannot be had."""
    page = StandingsPage(host, port, clock, proxies)
    page.serve(hub)
    return page
