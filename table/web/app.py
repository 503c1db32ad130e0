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
import secrets
import time
from collections import deque
from collections.abc import Callable
from typing import Any, Final

import segno
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from table import __version__
from table.cards import COLORS, Color, parse_card
from table.errors import TableError
from table.referee.announcements import corrections
from table.referee.views import standing_json
from table.web.base import PRIVATE, STATIC, json_error, web_app
from table.web.feed import Feed
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
LOGINS_PER_MINUTE: Final = 10


def _loopback(host: str | None) -> bool:
    try:
        return host is not None and ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class BadRequest(TableError, ValueError):
    """A request the API cannot take: answered with ``status`` and this message."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


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
    ) -> None:
        self.side = side
        self.feed = feed
        self.base_url = base_url
        self.api_key = api_key
        self.local_admin = local_admin
        self.language = language or side.language
        self.seats = Seats(side.players, rate, burst)
        self._sessions: deque[tuple[str, float]] = deque(maxlen=SESSIONS)
        self._logins: deque[float] = deque(maxlen=LOGINS_PER_MINUTE)
        self._speech: Any = None  # the phrase cache, made at the first request for speech
        self.stats = StatsPage(side.journal, self.language)
        self.name_readings: list[str] = []  # each name as a Japanese voice says it, for /admin
        feed.listeners.append(self._on_event)

    def _on_event(self, event: Any) -> None:
        if event.get("type") == "new-match":
            self.seats.renew()  # a new match: new links

    def seat_urls(self) -> list[tuple[str, str]]:
        base = self.base_url()
        return [(name, f"{base}/seat/{token}")
                for name, token in zip(self.side.players, self.seats.tokens, strict=True)]

    # --- admin access ---------------------------------------------------------------------------

    def is_admin(self, request: Request) -> bool:
        if self.local_admin and _loopback(request.client.host if request.client else None):
            return True
        given = request.headers.get("x-api-key")
        if self.api_key and given is not None and _same(given, self.api_key):
            return True
        cookie = request.cookies.get(COOKIE)
        now = time.monotonic()
        return cookie is not None and any(
            _same(cookie, token) and now < until for token, until in self._sessions
        )

    def _login(self, key: object) -> str:
        now = time.monotonic()
        if len(self._logins) == self._logins.maxlen and now - self._logins[0] < 60:
            raise BadRequest(429, "too many login attempts: wait a minute")
        self._logins.append(now)
        if not self.api_key:
            raise BadRequest(403, "this table has no api_key: its admin page works only on the "
                                  "computer that runs it")
        if not isinstance(key, str) or not _same(key, self.api_key):
            raise BadRequest(403, "that is not this table's api_key")
        token = secrets.token_urlsafe(24)
        self._sessions.append((token, now + SESSION_SECONDS))
        return token

    # --- reading requests -------------------------------------------------------------------------

    async def body(self, request: Request) -> dict[str, Any]:
        """The JSON object of a POST. Only ``application/json`` is taken, which no other site's
        page can send here without the browser asking first (no form can)."""
        kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
        if kind != "application/json":
            raise BadRequest(415, "send the body as application/json")
        length = request.headers.get("content-length")
        if length is not None and (not length.isdigit() or int(length) > MAX_BODY):
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

    def seat_press(self, data: dict[str, Any]) -> tuple[SeatPress, str]:
        """A press's fields checked: the seat of its token (403 for any other token or for
        another seat's name), the button, its colour or card, its id."""
        seat = self.seats.seat_of(data.get("token"))
        if seat is None:
            raise BadRequest(403, "that token is not a seat of this match")
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
        return standing_json(self.side.state())

    def seat_view(self, seat: int) -> dict[str, Any]:
        return seat_json(self.side.state(), self.side.seat_state(seat), seat,
                         self.side.plays_cards)

    def info(self) -> dict[str, Any]:
        return {
            "players": list(self.side.players),
            "language": self.language,
            "buttons": rule_buttons(self.side.state()),
            "plays_cards": self.side.plays_cards,
            "version": __version__,
            "phrases": corrections(),  # a refusal shown in the referee's words
        }

    def speech(self, text: str) -> bytes:
        from table.voice.backends import PhraseCache

        if self._speech is None:
            self._speech = PhraseCache()
        data: bytes = self._speech.audio(text, self.language)
        return data


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


def make_app(web: WebTable) -> Starlette:
    """The Starlette application of ``web``."""

    def page(name: str, status: int = 200) -> Response:
        return FileResponse(STATIC / name, status_code=status, headers=PRIVATE)

    def refused_page(title: str, text: str, status: int) -> HTMLResponse:
        html = (STATIC / "refused.html").read_text(encoding="utf-8")
        html = html.replace("{title}", title).replace("{text}", text)
        return HTMLResponse(html, status, headers=PRIVATE)

    async def table_view(request: Request) -> Response:
        return page("index.html")

    async def overlay(request: Request) -> Response:
        return page("overlay.html")

    async def seat_page(request: Request) -> Response:
        if web.seats.seat_of(request.path_params["token"]) is None:
            return refused_page(
                "Not a seat of this match / この試合の席ではありません",
                "This seat link is not valid: it may be from an earlier match. Scan the new "
                "code on the admin page. / このリンクは使えません。前の試合のものかもしれません。"
                "管理ページの新しいコードを読み取ってください。", 403)
        return page("seat.html")

    async def admin_page(request: Request) -> Response:
        if not web.is_admin(request):
            return page("login.html", 401)
        return page("admin.html")

    async def stats(request: Request) -> Response:
        if web.stats.journal is None:
            return refused_page(
                "No journal, no report / 記録がありません",
                "This table keeps no journal, so there is no evening to report on: start the "
                "demo with --journal FILE (a table run by uno-table run always keeps one). / "
                "記録を取っていないので、成績はありません。", 404)
        report = await run_in_threadpool(web.stats.report, request.query_params.get("lang"))
        return HTMLResponse(report.html, report.status,
                            headers={**PRIVATE, "content-security-policy": CSP})

    async def info(request: Request) -> Response:
        return JSONResponse(web.info())

    async def state(request: Request) -> Response:
        return JSONResponse(web.standing(), headers=PRIVATE)

    async def seat_state(request: Request) -> Response:
        seat = web.seats.seat_of(request.path_params["token"])
        if seat is None:
            return json_error(403, "that token is not a seat of this match")
        return JSONResponse(web.seat_view(seat), headers=PRIVATE)

    async def press(request: Request) -> Response:
        try:
            data = await web.body(request)
            seat_press, press_id = web.seat_press(data)
        except BadRequest as exc:
            return json_error(exc.status, str(exc))
        admission = web.seats.admit(seat_press.seat, press_id)
        if admission == "repeat":
            return JSONResponse({"ok": True, "id": press_id, "repeat": True}, 202, PRIVATE)
        if admission == "too-fast":
            return json_error(429, "too many presses from this seat: wait a moment",
                          {"retry-after": "1"})
        try:
            web.side.press(seat_press)
        except TableError as exc:  # what the table cannot do (Refused, or the table's own)
            web.seats.forget(seat_press.seat, press_id)
            return json_error(409, str(exc))
        return JSONResponse({"ok": True, "id": press_id}, 202, PRIVATE)

    async def speech(request: Request) -> Response:
        text = web.feed.announcement(request.path_params["event_id"])
        if text is None:
            return json_error(404, "no such announcement among the latest ones")
        try:
            wav = await run_in_threadpool(web.speech, text)
        except TableError as exc:  # no espeak-ng here: the page uses the browser's voice
            return json_error(503, f"the table cannot render speech: {exc}")
        return Response(wav, media_type="audio/wav", headers={"cache-control": "max-age=3600"})

    async def login(request: Request) -> Response:
        try:
            data = await web.body(request)
            token = web._login(data.get("key"))
        except BadRequest as exc:
            return json_error(exc.status, str(exc))
        response = JSONResponse({"ok": True}, headers=PRIVATE)
        response.set_cookie(COOKIE, token, max_age=SESSION_SECONDS, httponly=True,
                            samesite="strict", path="/")
        return response

    def admin_only(request: Request) -> Response | None:
        if web.is_admin(request):
            return None
        return json_error(401 if not request.headers.get("x-api-key") else 403,
                      "the admin needs the table's api_key: X-Api-Key, or log in at /admin")

    async def admin_status(request: Request) -> Response:
        if (denied := admin_only(request)) is not None:
            return denied
        seats = [{"name": name, "url": url} for name, url in web.seat_urls()]
        return JSONResponse({
            **web.info(),
            "seats": seats,
            "readers": dict(web.side.readers()),
            "pages": web.feed.subscribers,
            "name_readings": web.name_readings,
            "fanout": web.feed.relayed,
            "standing": web.standing(),
        }, headers=PRIVATE)

    async def admin_qr(request: Request) -> Response:
        if (denied := admin_only(request)) is not None:
            return denied
        seat = request.path_params["seat"]
        urls = web.seat_urls()
        if not 0 <= seat < len(urls):
            return json_error(404, f"no seat {seat}: seats are 0 to {len(urls) - 1}")
        svg = io.BytesIO()
        segno.make(urls[seat][1], error="m").save(svg, kind="svg", scale=6, border=2,
                                                   xmldecl=False)
        return Response(svg.getvalue(), media_type="image/svg+xml", headers=PRIVATE)

    async def admin_action(request: Request) -> Response:
        if (denied := admin_only(request)) is not None:
            return denied
        action = request.path_params["action"]
        if action not in ADMIN_ACTIONS:
            return json_error(404, f"no admin action {_short(action)}: {', '.join(ADMIN_ACTIONS)}")
        try:
            await web.body(request)
            web.side.admin(action)
        except BadRequest as exc:
            return json_error(exc.status, str(exc))
        except TableError as exc:  # what the table cannot do (Refused, or the table's own)
            return json_error(409, str(exc))
        return JSONResponse({"ok": True, "action": action}, 202, PRIVATE)

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
        Route("/api/admin/status", admin_status),
        Route("/api/admin/qr/{seat:int}", admin_qr),
        Route("/api/admin/{action}", admin_action, methods=["POST"]),
    ]
    return web_app(routes)
