"""The hub's standings page, live and TV-sized: ``uno-table hub --web PORT``.

A small Starlette app served by uvicorn in a thread of its own: ``GET /`` the page (large type,
the ranking, the round and its timer, tables online, flagged results), ``GET /api/standings``
the same as JSON, ``GET /api/events`` a Server-Sent Events stream with the standings again at
each change (the page listens to it; nothing polls).
"""

from __future__ import annotations

import asyncio
import json
import socket
import threading
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

from table.hub.service import Hub


@dataclass
class Served:
    port: int
    server: Any
    thread: threading.Thread
    hub: Hub
    listener: Any

    def close(self) -> None:
        self.server.should_exit = True
        self.listener(None)  # every open stream ends
        self.thread.join(10)
        if self.listener in self.hub.listeners:
            self.hub.listeners.remove(self.listener)


def app_for(hub: Hub) -> tuple[Any, Any]:
    """The Starlette app and the hub listener that feeds its event streams."""
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import HTMLResponse, JSONResponse, Response, StreamingResponse
    from starlette.routing import Route

    streams: set[asyncio.Queue[dict[str, Any] | None]] = set()
    loop_box: list[asyncio.AbstractEventLoop] = []

    def changed(view: dict[str, Any] | None) -> None:  # the hub's thread
        if not loop_box:
            return
        for queue in list(streams):
            loop_box[0].call_soon_threadsafe(queue.put_nowait, view)

    async def page(request: Request) -> Response:
        return HTMLResponse(PAGE)

    async def standings(request: Request) -> Response:
        return JSONResponse(hub.standings())

    async def events(request: Request) -> Response:
        if not loop_box:
            loop_box.append(asyncio.get_running_loop())
        queue: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()
        streams.add(queue)

        async def stream() -> AsyncIterator[str]:
            n = 0
            view: dict[str, Any] | None = hub.standings()
            try:
                while view is not None:
                    n += 1
                    yield f"id: {n}\ndata: {json.dumps(view, ensure_ascii=False)}\n\n"
                    view = await queue.get()
            finally:
                streams.discard(queue)

        return StreamingResponse(stream(), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-store"})

    app = Starlette(routes=[Route("/", page), Route("/api/standings", standings),
                            Route("/api/events", events)])
    return app, changed


def serve(hub: Hub, port: int, host: str = "0.0.0.0") -> Served:
    """Serve the page; the socket listens before this returns, so a browser (or a test) can
    connect at once."""
    import uvicorn

    app, changed = app_for(hub)
    hub.listeners.append(changed)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        from table.errors import TableError

        raise TableError(f"--web {port}: cannot listen there: {exc.strerror}") from None
    sock.listen(64)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning",
                                           timeout_graceful_shutdown=2))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, name="hub-web",
                              daemon=True)
    thread.start()
    return Served(int(sock.getsockname()[1]), server, thread, hub, changed)


PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>uno-table: standings</title>
<style>
 body { background:#111; color:#eee; font-family: system-ui, sans-serif; margin: 2vw; }
 h1 { font-size: 4vw; margin: 0 0 1vw 0; }
 #round { font-size: 3vw; color: #fc0; }
 table { border-collapse: collapse; width: 100%; font-size: 2.6vw; }
 th, td { padding: 0.4vw 1vw; text-align: left; border-bottom: 1px solid #333; }
 td.n { text-align: right; font-variant-numeric: tabular-nums; }
 #flags { color: #f66; font-size: 2vw; }
 #online { color: #8c8; font-size: 1.6vw; }
</style></head>
<body>
<h1>Standings <span id="round"></span> <span id="timer"></span></h1>
<table><thead><tr><th>#</th><th>Player</th><th>Matches</th><th>Points</th><th>Rounds</th>
<th>Wins</th></tr></thead><tbody id="rows"></tbody></table>
<p id="online"></p><p id="flags"></p>
<script>
let endsAt = null;
function cell(text, n) { const td = document.createElement("td"); td.textContent = text;
  if (n) td.className = "n"; return td; }
function show(v) {
  document.getElementById("round").textContent = v.round ? "round " + v.round : "";
  endsAt = v.ends_at;
  const body = document.getElementById("rows"); body.replaceChildren();
  for (const r of v.ranking) { const tr = document.createElement("tr");
    tr.append(cell(r.rank, true), cell(r.player), cell(r.match_wins, true), cell(r.points, true),
              cell(r.rounds, true), cell(r.wins, true)); body.append(tr); }
  document.getElementById("online").textContent = Object.entries(v.online)
    .map(([t, s]) => "table " + t + ": " + s).join("  ");
  document.getElementById("flags").textContent = v.flags
    .map(f => "table " + f.table + " " + f.id + ": " + f.problem).join("\\n");
}
function tick() { const el = document.getElementById("timer");
  if (!endsAt) { el.textContent = ""; return; }
  const left = Math.max(0, Math.round(endsAt - Date.now() / 1000));
  el.textContent = Math.floor(left / 60) + ":" + String(left % 60).padStart(2, "0"); }
setInterval(tick, 1000);
new EventSource("api/events").onmessage = e => show(JSON.parse(e.data));
</script></body></html>
"""
