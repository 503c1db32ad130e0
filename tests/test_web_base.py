"""Another face on the web room's parts (as a hub's standings page would be): its own page and
event kinds, the package's static files, the security headers and JSON errors, served in a
thread of its own, with a live stream that starts from a snapshot."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from web_harness import Client, Sse

from table.web.base import web_app
from table.web.feed import Feed
from table.web.server import WebError, WebServer
from table.web.stream import EventsEndpoint


@pytest.fixture
def face(tmp_path: Path) -> Iterator[tuple[WebServer, Feed, Callable[[dict[str, Any]], None]]]:
    (tmp_path / "standings.html").write_text("<!doctype html><title>standings</title>",
                                             encoding="utf-8")
    rows = [{"table": "t1", "player": "Aki", "wins": 0}]
    feed = Feed(kinds=frozenset({"standing"}))

    def changed(event: dict[str, Any]) -> None:  # the face's own change, then its event
        rows[0] = event["row"]
        feed.publish(event)

    async def standings(request: Request) -> Response:
        return JSONResponse(rows)

    app = web_app([Route("/api/standings", standings),
                   Route("/api/events", EventsEndpoint(feed, lambda: {"rows": rows}))],
                  static=[("/hub", tmp_path)])
    server = WebServer("127.0.0.1", 0)
    server.serve_app(app, [feed])
    yield server, feed, changed
    server.stop()


def test_a_face_of_its_own_served_with_the_rooms_parts(
        face: tuple[WebServer, Feed, Callable[[dict[str, Any]], None]]) -> None:
    server, feed, changed = face
    client = Client(server.port)
    status, headers, body = client.request("GET", "/hub/standings.html")
    assert status == 200 and b"standings" in body
    assert headers["referrer-policy"] == "no-referrer"
    assert "default-src 'self'" in headers["content-security-policy"]
    assert client.request("GET", "/static/table.js")[0] == 200  # the shared cards and words
    assert client.get("/nowhere") == (404, {"error": "no such page: /nowhere"})
    stream = Sse(server.port)
    first = stream.next()[1]
    assert first["type"] == "snapshot" and first["rows"][0]["player"] == "Aki"
    feed.publish({"type": "verdict", "verdict": "accepted"})  # not a kind of this face
    changed({"type": "standing", "row": {"table": "t1", "player": "Aki", "wins": 1}})
    event_id, event = stream.next()
    assert event["type"] == "standing" and event_id == f"{feed.epoch}-1"
    assert client.get("/api/standings")[1][0]["wins"] == 1
    stream.close()


def test_a_port_in_use_is_one_line_before_anything_is_served() -> None:
    first = WebServer("127.0.0.1", 0)
    first.bind()
    try:
        with pytest.raises(WebError) as refused:
            WebServer("127.0.0.1", first.port).bind()
        assert str(refused.value) == (f"web: cannot listen on 127.0.0.1:{first.port}: "
                                      "Address already in use")
    finally:
        first.stop()



def test_a_socket_the_sandbox_refuses_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    """A unit that allows no network (the web view turned on after the install wrote it)
    refuses the socket itself: one line, not a traceback."""
    def refused(*_args: object) -> None:
        raise OSError(97, "Address family not supported by protocol")
    monkeypatch.setattr("table.web.listen.socket.socket", refused)
    with pytest.raises(WebError) as error:
        WebServer("127.0.0.1", 8080).bind()
    assert str(error.value) == ("web: cannot listen on 127.0.0.1:8080: "
                                "Address family not supported by protocol (the service's unit "
                                "allows no network: write it again for this configuration, "
                                "sudo ./uno install)")
