"""What every web face of uno-table shares, so that another one (a hub's standings page, say)
is built the same way as the table's: :func:`web_app`, the application factory, with the
security headers, JSON errors and the package's static files (``/static/table.css`` and
``/static/table.js``: the cards, colours and the live stream's client; ``/static/words.js``,
the pages' words in English and Japanese made from the table's phrases). Live data goes
through a :class:`table.web.feed.Feed` and :class:`table.web.stream.EventsEndpoint`;
:class:`table.web.server.WebServer` serves the application in a thread of its own.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Coroutine, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Final

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from table.referee import phrases
from table.web.guard import HostGuard
from table.web.proxy import ClientMiddleware, Proxies

Handler = Callable[[Request, Exception], Coroutine[Any, Any, Response]]

STATIC: Final = Path(__file__).parent / "static"
SECURITY_HEADERS: Final = [
    (b"referrer-policy", b"no-referrer"),
    (b"x-content-type-options", b"nosniff"),
    (b"content-security-policy",
     b"default-src 'self'; img-src 'self' data:; media-src 'self' blob:; style-src 'self'; "
     b"script-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'self'; "
     b"frame-ancestors 'self'"),
]
PRIVATE: Final = {"cache-control": "no-store"}


def json_error(status: int, message: str, headers: dict[str, str] | None = None
               ) -> JSONResponse:
    """A 4xx (or 503) with the body ``{"error": message}``."""
    return JSONResponse({"error": message}, status, headers={**PRIVATE, **(headers or {})})


class SecurityHeaders:
    """Adds :data:`SECURITY_HEADERS` to every response (a raw ASGI middleware, so that an
    event stream stays a stream). ``Referrer-Policy: no-referrer`` keeps a page's address (a
    seat's secret link) out of every request it makes."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                have = {name.lower() for name, _ in message.get("headers", [])}
                extra = [(k, v) for k, v in SECURITY_HEADERS if k not in have]
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        await self.app(scope, receive, send_with_headers)


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    messages = {404: f"no such page: {request.url.path}",
                405: f"{request.method} is not allowed on {request.url.path}"}
    return json_error(exc.status_code, messages.get(exc.status_code, str(exc.detail)),
                      dict(exc.headers or {}))


def words_script() -> str:
    """``/static/words.js``: the script that gives every page its words, ``WORDS`` by language
    then key (the [web] and [hub] sections of the table's phrases), before ``table.js``."""
    words = {lang: {**phrases.words("web", lang), **phrases.words("hub", lang)}
             for lang in phrases.LANGUAGES}
    return ("// uno-table: the pages' words, made from the table's phrases.\n"
            f"const WORDS = {json.dumps(words, ensure_ascii=False, indent=1)};\n")


_WORDS_JS: Final = words_script().encode("utf-8")


async def _words(request: Request) -> Response:
    """The pages' words (:func:`words_script`)."""
    return Response(_WORDS_JS, media_type="text/javascript; charset=utf-8",
                    headers={"cache-control": "no-cache"})


async def _favicon(request: Request) -> Response:
    """The pages' icon (a card), also where browsers look for it by themselves."""
    return FileResponse(STATIC / "favicon.ico", media_type="image/x-icon",
                        headers={"cache-control": "max-age=86400"})


def web_app(routes: Sequence[BaseRoute], static: Sequence[tuple[str, Path]] = (),
            hosts: Iterable[str] = (), handlers: Mapping[type[Exception], Handler] | None = None,
            proxies: Proxies | None = None) -> Starlette:
    """An application of ``routes``, with the package's static files at ``/static`` and each
    ``(path, folder)`` of ``static`` at its path (a face's own pages and scripts); every
    response with :data:`SECURITY_HEADERS`, every 404 and 405 a JSON error (and each
    exception of ``handlers`` answered by its handler); only requests for this machine or one
    of ``hosts``, and no change from another site's page (:class:`table.web.guard.HostGuard`);
    each request's client as ``proxies`` tell it (:class:`table.web.proxy.ClientMiddleware`)."""
    mounts = [Mount(path, StaticFiles(directory=folder)) for path, folder in static]
    mounts.append(Mount("/static", StaticFiles(directory=STATIC), name="static"))
    icon = Route("/favicon.ico", _favicon)  # every browser asks for it, whatever the page says
    words = Route("/static/words.js", _words)  # before the folder's files: made, not a file
    app = Starlette(routes=[*routes, icon, words, *mounts],
                    exception_handlers={HTTPException: _http_error, **(handlers or {})})
    app.add_middleware(HostGuard, hosts=tuple(hosts))
    app.add_middleware(ClientMiddleware, proxies=proxies)
    app.add_middleware(SecurityHeaders)  # outermost: a refused host gets the headers too
    return app
