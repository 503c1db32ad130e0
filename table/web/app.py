"""The web application: pages, the JSON API and the event stream of one table (docs/web.md).

Public: ``/`` (the table view), ``/overlay``, ``/stats`` (the evening's report), ``/api/info``,
``/api/state``, ``/api/events``, ``/api/speech/ID``. A seat's own: ``/seat/TOKEN``,
``/api/seat/TOKEN``, ``POST /api/press``.
The admin's: ``/admin`` and ``/api/admin/...``, with the ``api_key`` (``X-Api-Key``, or the
cookie of a login with it) or from the Pi itself.

Every error is a 4xx with a JSON body ``{"error": "..."}`` (a page's 403 is a short page a person
can read). Every response says ``Referrer-Policy: no-referrer``, so a seat's link never leaves
in a ``Referer``.
"""

from __future__ import annotations

import hmac
import io
import ipaddress
import json
import logging
import re
import secrets
import time
from collections import deque
from collections.abc import Callable, Iterable
from typing import Any, Final

import segno
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.types import ASGIApp, Receive, Scope, Send

from table import __version__
from table.cards import COLORS, Color, parse_card
from table.errors import TableError
from table.referee import phrases
from table.referee.announcements import corrections
from table.referee.views import standing_json
from table.web.base import PRIVATE, STATIC, json_error, web_app
from table.web.feed import Feed
from table.web.guard import Throttle, client_key
from table.web.proxy import Proxies, client_of
from table.web.seats import BURST, PRESS_ID_SHAPE, RATE, Seats
from table.web.seatview import rule_buttons, seat_json
from table.web.side import ADMIN_ACTIONS, SEAT_BUTTONS, SeatPress, TableSide
from table.web.stats import CSP, StatsPage
from table.web.stream import EventsEndpoint

log = logging.getLogger(__name__)

MAX_BODY: Final = 4096  # bytes of a request body: a press is a few dozen
COOKIE: Final = "uno_admin"
SESSION_SECONDS: Final = 12 * 3600
SESSIONS: Final = 16  # admin logins remembered at once
KEY_TRIES: Final = (10 / 60, 10.0)  # wrong keys, logins or cookies a client: 10, then 10 a minute
SEAT_TRIES: Final = (1.0, 30.0)  # wrong seat tokens a client: 30, then 1 a second
LENGTH: Final = re.compile(r"[0-9]{1,9}")  # a Content-Length (ASCII digits only: not "²")


def _loopback(host: str | None) -> bool:
    try:
        return host is not None and ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class BadRequest(TableError, ValueError):
    """A request the API cannot take: answered with ``status`` and this message."""

    def __init__(self, status: int, message: str, headers: dict[str, str] | None = None
                 ) -> None:
        super().__init__(message)
        self.status = status
        self.headers = headers or {}


def _too_many(wait: float, what: str) -> BadRequest:
    seconds = max(1, int(wait + 0.999))
    return BadRequest(429, f"too many {what} from this device: wait {seconds} s",
                      {"retry-after": str(seconds)})


class WebTable:
    """The web side of one table: the table itself, its public feed, the seats' secrets and
    who may use the admin page."""

    def __init__(
        self,
        side: TableSide,
        feed: Feed,
        *,
        base_url: Callable[[], str] = lambda: "http://localhost",
        api_key: str | None = None,
        local_admin: bool = True,
        language: str | None = None,
        rate: float = RATE,
        burst: float = BURST,
        hosts: Iterable[str] = (),
        proxies: Proxies | None = None,
    ) -> None:
        self.side = side
        self.feed = feed
        self.base_url = base_url
        self.api_key = api_key
        self.local_admin = local_admin
        self.language = language or side.language
        self.hosts = tuple(hosts)  # names besides the machine's own (``[web] hosts``)
        self.proxies = proxies or Proxies()  # ``[web] trusted_proxies``
        self.seats = Seats(side.players, rate, burst)
        self._sessions: deque[tuple[str, float]] = deque(maxlen=SESSIONS)
        self.key_tries = Throttle(*KEY_TRIES)  # per client: no wrong key locks out another
        self.seat_tries = Throttle(*SEAT_TRIES)
        self._speech: Any = None  # the phrase cache, made at the first request for speech
        self.stats = StatsPage(side.journal, self.language)
        self.name_readings: list[str] = []  # each name as a Japanese voice says it, for /admin

    def hear(self, subscribe: Callable[[Callable[[Any], None]], Callable[[], None]]
             ) -> Callable[[], None]:
        """Be told of the table's events through ``subscribe`` (its event stream's
        :meth:`table.runtime.event_stream.EventStream.subscribe`, the one way every part that
        listens is told): the feed for the pages, then this table for its new matches.
        Returns how to stop."""
        stops = (subscribe(self.feed.publish), subscribe(self._on_event))

        def stop() -> None:
            for each in stops:
                each()

        return stop

    def _on_event(self, event: Any) -> None:
        if event.get("type") == "new-match":
            self.seats.renew()  # a new match: new links

    def seat_urls(self) -> list[tuple[str, str]]:
        """``(name, link)`` of every seat of this match."""
        base = self.base_url()
        return [(name, f"{base}/seat/{token}")
                for name, token in zip(self.side.players, self.seats.tokens, strict=True)]

    # --- admin access ---------------------------------------------------------------------------

    def local(self, request: Request) -> bool:
        """Whether ``request`` is the local admin's: ``local_admin`` on, from the Pi itself,
        and not through a proxy (a proxy on the Pi connects from the Pi too)."""
        return (self.local_admin and not client_of(request.scope).proxied
                and _loopback(request.client.host if request.client else None))

    def is_admin(self, request: Request) -> bool:
        """Whether ``request`` comes from the Pi itself (with ``local_admin``, never through a
        proxy), or carries the ``api_key`` or the cookie of a login with it."""
        if self.local(request):
            return True
        given = request.headers.get("x-api-key")
        if self.api_key and given is not None and _same(given, self.api_key):
            return True
        cookie = request.cookies.get(COOKIE)
        now = time.monotonic()
        return cookie is not None and any(
            _same(cookie, token) and now < until for token, until in self._sessions
        )

    def check_admin(self, request: Request) -> None:
        """Raises :class:`BadRequest` unless ``request`` is the admin's: 401 without a
        credential, 403 with a wrong one (counted against its client), 429 for a client
        with too many wrong ones (its credential is then not even looked at)."""
        client = client_key(request.scope)
        wait = self.key_tries.wait(client)
        if wait and not self.local(request):
            raise _too_many(wait, "wrong keys")
        if self.is_admin(request):
            return
        given = request.headers.get("x-api-key")
        if given is not None or COOKIE in request.cookies:
            self.key_tries.charge(client)
        raise BadRequest(401 if not given else 403,
                         "the admin needs the table's api_key: X-Api-Key, or log in at /admin")

    def login(self, request: Request, key: object) -> str:
        """A new session's cookie for the right ``key``; wrong keys are throttled per
        client (:data:`KEY_TRIES`), never for everyone."""
        client = client_key(request.scope)
        if wait := self.key_tries.wait(client):
            raise _too_many(wait, "wrong logins")
        if not self.api_key:
            raise BadRequest(403, "this table has no api_key: its admin page works only on the "
                                  "computer that runs it")
        if not isinstance(key, str) or not _same(key, self.api_key):
            self.key_tries.charge(client)
            raise BadRequest(403, "that is not this table's api_key")
        token = secrets.token_urlsafe(24)
        self._sessions.append((token, time.monotonic() + SESSION_SECONDS))
        return token

    def seat_of(self, request: Request, token: object) -> int:
        """The seat of ``token``; raises :class:`BadRequest` 403 for any other token (counted
        against the client) and 429 for a client with too many wrong ones."""
        client = client_key(request.scope)
        if wait := self.seat_tries.wait(client):
            raise _too_many(wait, "wrong seat links")
        seat = self.seats.seat_of(token)
        if seat is None:
            self.seat_tries.charge(client)
            raise BadRequest(403, "that token is not a seat of this match")
        return seat

    # --- reading requests -------------------------------------------------------------------------

    async def body(self, request: Request) -> dict[str, Any]:
        """The JSON object of a POST. Only ``application/json`` is taken, which no other site's
        page can send here without the browser asking first (no form can)."""
        kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
        if kind != "application/json":
            raise BadRequest(415, "send the body as application/json")
        length = request.headers.get("content-length")
        if length is not None and (not LENGTH.fullmatch(length) or int(length) > MAX_BODY):
            raise BadRequest(413, f"the body is larger than {MAX_BODY} bytes")
        raw = b""
        async for chunk in request.stream():
            raw += chunk
            if len(raw) > MAX_BODY:
                raise BadRequest(413, f"the body is larger than {MAX_BODY} bytes")
        if not raw.strip():
            return {}
        try:
            data = json.loads(raw.decode("utf-8"))
        except UnicodeDecodeError:
            raise BadRequest(400, "the body is not UTF-8") from None
        except json.JSONDecodeError as exc:
            raise BadRequest(400, f"the body is not JSON: {exc.msg} at character {exc.pos}"
                             ) from None
        except RecursionError:
            raise BadRequest(400, "the body is nested too deeply") from None
        if not isinstance(data, dict):
            raise BadRequest(400, "the body must be a JSON object")
        return data

    def seat_press(self, request: Request, data: dict[str, Any]) -> tuple[SeatPress, str]:
        """A press's fields checked: the seat of its token (403 for any other token or for
        another seat's name), the button, its colour or card, its id."""
        seat = self.seat_of(request, data.get("token"))
        named = data.get("seat")
        if named is not None and named != self.side.players[seat]:
            raise BadRequest(403, "a seat's token presses for that seat only")
        press_id = data.get("id")
        if not isinstance(press_id, str) or not PRESS_ID_SHAPE.fullmatch(press_id):
            raise BadRequest(400, "id: 1 to 64 letters, digits or . _ : - made by the page, "
                                  "the same for a retry")
        button = data.get("button")
        if button not in SEAT_BUTTONS:
            raise BadRequest(400, f"button: {_short(button)} is not one of "
                                  f"{', '.join(SEAT_BUTTONS)}")
        color = _color(data.get("color")) if "color" in data else None
        card = None
        if button == "color" and color is None:
            raise BadRequest(400, "color: red, yellow, green or blue")
        if button == "play":
            code = data.get("card")
            try:
                card = parse_card(code) if isinstance(code, str) and len(code) <= 8 else None
            except TableError:
                card = None
            if card is None:
                raise BadRequest(400, f"card: {_short(code)} is not a card code such as R5")
            if card.is_wild and color is None:
                raise BadRequest(400, "a wild is played with its colour: color red, yellow, "
                                      "green or blue")
        return SeatPress(seat, str(button), color, card), press_id

    # --- views ------------------------------------------------------------------------------------

    def standing(self) -> dict[str, Any]:
        """The public state, as ``/api/state`` and the stream's snapshot give it."""
        return standing_json(self.side.state())

    def seat_view(self, seat: int) -> dict[str, Any]:
        """What ``seat``'s own page shows: the public state and that seat's hand."""
        return seat_json(self.side.state(), self.side.seat_state(seat), seat,
                         self.side.plays_cards)

    def info(self) -> dict[str, Any]:
        """The table's players, language, buttons and version."""
        return {
            "players": list(self.side.players),
            "language": self.language,
            "buttons": rule_buttons(self.side.state()),
            "plays_cards": self.side.plays_cards,
            "version": __version__,
            "phrases": corrections(),  # a refusal shown in the referee's words
        }

    def speech(self, text: str) -> bytes:
        """``text`` spoken by the table's voice, as WAV (blocking: call it in a worker)."""
        from table.voice.backends import PhraseCache

        if self._speech is None:
            self._speech = PhraseCache()
        data: bytes = self._speech.audio(text, self.language)
        return data


def over_tls(request: Request) -> bool:
    """Whether the browser reached us over TLS: the connection itself, or a trusted proxy's
    word, or any forwarding header saying https (a cookie marked ``Secure`` on a word nobody
    vouches for only keeps it off plain HTTP, which costs nothing)."""
    if client_of(request.scope).https:
        return True
    for name, value in request.scope.get("headers", []):
        if name in (b"x-forwarded-proto", b"forwarded") and b"https" in value.lower():
            return True
    return False


def _same(given: str, expected: str) -> bool:
    return hmac.compare_digest(given.encode("utf-8", "replace"), expected.encode())


def _short(value: object) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 24 else text[:21] + "..."


def _color(value: object) -> Color:
    for c in COLORS:
        if value == c.value:
            return c
    raise BadRequest(400, f"color: {_short(value)} is not red, yellow, green or blue")




# --- the endpoints ------------------------------------------------------------------------------


def _web(request: Request) -> WebTable:
    web: WebTable = request.app.state.web
    return web


def _page(name: str, status: int = 200) -> Response:
    return FileResponse(STATIC / name, status_code=status, headers=PRIVATE)


def refused_page(title: str, text: str, status: int,
                 headers: dict[str, str] | None = None) -> HTMLResponse:
    """The short page a person reads when a page is refused."""
    html = (STATIC / "refused.html").read_text(encoding="utf-8")
    html = html.replace("{title}", title).replace("{text}", text)
    return HTMLResponse(html, status, headers={**PRIVATE, **(headers or {})})


async def table_view(request: Request) -> Response:
    """``/``: the table view."""
    return _page("index.html")


async def overlay(request: Request) -> Response:
    """``/overlay``: the stream overlay."""
    return _page("overlay.html")


def _both(key: str) -> str:
    """A refused page's words (the [refused] section of the table's phrases) in every language
    at once, English first: who asks is not known."""
    return " / ".join(phrases.words("refused", lang)[key] for lang in phrases.LANGUAGES)


async def seat_page(request: Request) -> Response:
    """``/seat/TOKEN``: a seat's remote (a short page for any other token)."""
    try:
        _web(request).seat_of(request, request.path_params["token"])
    except BadRequest as exc:
        if exc.status == 429:
            return refused_page(_both("too-many"), str(exc), 429, exc.headers)
        return refused_page(_both("not-a-seat"), _both("not-a-seat-text"), 403)
    return _page("seat.html")


async def admin_page(request: Request) -> Response:
    """``/admin``: the admin page, or its login."""
    try:
        _web(request).check_admin(request)
    except BadRequest as exc:
        if exc.status == 429:
            return refused_page(_both("too-many"), str(exc), 429, exc.headers)
        return _page("login.html", 401)
    return _page("admin.html")


async def stats(request: Request) -> Response:
    """``/stats``: the evening's report (built off the referee's thread, kept, throttled)."""
    page = _web(request).stats
    if page.journal is None:
        return refused_page(_both("no-journal"), _both("no-journal-text"), 404)
    if wait := page.asked(client_key(request.scope)):
        raise _too_many(wait, "report requests") from None
    report = await page.current(request.query_params.get("lang"))
    headers = {**PRIVATE, "content-security-policy": CSP, **report.headers}
    return HTMLResponse(report.html, report.status, headers=headers)


async def info(request: Request) -> Response:
    """``/api/info``: :meth:`WebTable.info`."""
    return JSONResponse(_web(request).info())


async def state(request: Request) -> Response:
    """``/api/state``: :meth:`WebTable.standing`."""
    return JSONResponse(_web(request).standing(), headers=PRIVATE)


async def seat_state(request: Request) -> Response:
    """``/api/seat/TOKEN``: :meth:`WebTable.seat_view` of the token's seat."""
    web = _web(request)
    seat = web.seat_of(request, request.path_params["token"])
    return JSONResponse(web.seat_view(seat), headers=PRIVATE)


async def press(request: Request) -> Response:
    """``POST /api/press``: a seat's press, once per id, rate-limited per seat."""
    web = _web(request)
    seat_press, press_id = web.seat_press(request, await web.body(request))
    admission = web.seats.admit(seat_press.seat, press_id)
    if admission == "repeat":
        return JSONResponse({"ok": True, "id": press_id, "repeat": True}, 202, PRIVATE)
    if admission == "too-fast":
        raise BadRequest(429, "too many presses from this seat: wait a moment",
                         {"retry-after": str(web.seats.retry_after(seat_press.seat))})
    try:
        web.side.press(seat_press)
    except TableError:
        web.seats.forget(seat_press.seat, press_id)
        raise
    return JSONResponse({"ok": True, "id": press_id}, 202, PRIVATE)


async def speech(request: Request) -> Response:
    """``/api/speech/ID``: a recent announcement in the table's voice, as WAV."""
    web = _web(request)
    text = web.feed.announcement(request.path_params["event_id"])
    if text is None:
        raise BadRequest(404, "no such announcement among the latest ones")
    try:
        wav = await run_in_threadpool(web.speech, text)
    except TableError as exc:  # no espeak-ng here: the page uses the browser's voice
        raise BadRequest(503, f"the table cannot render speech: {exc}") from None
    return Response(wav, media_type="audio/wav", headers={"cache-control": "max-age=3600"})


async def login(request: Request) -> Response:
    """``POST /api/admin/login``: the admin's cookie for the right key."""
    web = _web(request)
    token = web.login(request, (await web.body(request)).get("key"))
    response = JSONResponse({"ok": True}, headers=PRIVATE)
    response.set_cookie(COOKIE, token, max_age=SESSION_SECONDS, httponly=True,
                        samesite="strict", path="/", secure=over_tls(request))
    return response


async def admin_status(request: Request) -> Response:
    """``/api/admin/status``: the seats' links, the readers and the pages following."""
    web = _web(request)
    seats = [{"name": name, "url": url} for name, url in web.seat_urls()]
    return JSONResponse({
        **web.info(),
        "seats": seats,
        "readers": dict(web.side.readers()),
        "pages": web.feed.pages,
        "name_readings": web.name_readings,
        "fanout": web.feed.relayed,
        "standing": web.standing(),
    }, headers=PRIVATE)


async def admin_qr(request: Request) -> Response:
    """``/api/admin/qr/SEAT``: a seat's link as a QR code (SVG)."""
    seat = request.path_params["seat"]
    urls = _web(request).seat_urls()
    if not 0 <= seat < len(urls):
        raise BadRequest(404, f"no seat {seat}: seats are 0 to {len(urls) - 1}")
    svg = io.BytesIO()
    segno.make(urls[seat][1], error="m").save(svg, kind="svg", scale=6, border=2,
                                               xmldecl=False)
    return Response(svg.getvalue(), media_type="image/svg+xml", headers=PRIVATE)


async def admin_action(request: Request) -> Response:
    """``POST /api/admin/ACTION``: undo, next round, new match..."""
    web = _web(request)
    action = request.path_params["action"]
    if action not in ADMIN_ACTIONS:
        raise BadRequest(404, f"no admin action {_short(action)}: {', '.join(ADMIN_ACTIONS)}")
    await web.body(request)
    web.side.admin(action)
    return JSONResponse({"ok": True, "action": action}, 202, PRIVATE)


class AdminOnly:
    """The admin check, once, for everything under ``/api/admin`` (a middleware on its
    :class:`~starlette.routing.Mount`)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Refuse anyone but the admin (:meth:`WebTable.check_admin`)."""
        request = Request(scope)
        _web(request).check_admin(request)
        await self.app(scope, receive, send)


async def _bad_request(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, BadRequest)
    return json_error(exc.status, str(exc), exc.headers)


async def _refused(request: Request, exc: Exception) -> Response:
    """What the table cannot do (``Refused``, or the table's own error): 409."""
    return json_error(409, str(exc))


def make_app(web: WebTable) -> Starlette:
    """The Starlette application of ``web``."""
    routes = [
        Route("/", table_view),
        Route("/overlay", overlay),
        Route("/seat/{token}", seat_page),
        Route("/admin", admin_page),
        Route("/stats", stats),
        Route("/api/info", info),
        Route("/api/state", state),
        Route("/api/events", EventsEndpoint(web.feed, web.standing)),
        Route("/api/seat/{token}", seat_state),
        Route("/api/press", press, methods=["POST"]),
        Route("/api/speech/{event_id}", speech),
        Route("/api/admin/login", login, methods=["POST"]),
        Mount("/api/admin", routes=[
            Route("/status", admin_status),
            Route("/qr/{seat:int}", admin_qr),
            Route("/{action}", admin_action, methods=["POST"]),
        ], middleware=[Middleware(AdminOnly)]),
    ]
    app = web_app(routes, hosts=web.hosts, proxies=web.proxies,
                  handlers={BadRequest: _bad_request, TableError: _refused})
    app.state.web = web
    return app
