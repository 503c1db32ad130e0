"""The web view's speed and memory, on real ``uno-table run`` processes serving the web on a
loopback port, a pty play pad, and Debian's chromium.

    python bench/web.py [--presses 200] [--taps 1000] [--pages 50] [--gap MS ...]

- press to verdict in the browser: a click on a seat page's button to the verdict rendered on
  the spectator page (the table view's DOM updated, timed inside the browser with a clock both
  pages share), ``--presses`` presses from five seat pages, half of them accepted (the seat on
  turn draws and passes), half refused (others press out of turn). Target: p95 <= 50 ms.
- tap to verdict with spectators: from a UID line written to the play pad's pty to the verdict
  event on ``--events -``, over ``--taps`` taps of a scripted match, with ``--pages`` event
  streams following the table (each reading every event), beside the same taps with the web
  off; each tap as soon as the last one's verdict is out (``--gap 0``: the web's work for one
  tap overlaps the next), and a tap every 100 ms (faster than anyone plays). Target: p99 <= 5
  ms.
- memory: the daemon's resident memory with the web off, with it on, with the spectators
  connected and after the taps. Target: the spectators add at most 25 MB.
"""

from __future__ import annotations

import argparse
import json
import socket
import statistics
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

from daemon import STARTED, Run, percentile

from sim.hardware.ptys import PtyReader, sim_config
from sim.players.scripted import scripted_taps
from table.referee.registry import virtual_deck

CHROMIUM = "/usr/bin/chromium"
PLAYERS = ("Aki", "Ken", "Mio", "Yui", "Rin")
# A press every PACE seconds at most: under the rate limit of a seat (4 a second), and never
# the same button twice running from one page (its double-tap guard).
PACE = 0.07
PRESSED = """
window.__pressed = [];
document.addEventListener("click", () => {
  window.__pressed.push(performance.timeOrigin + performance.now());
}, true);
"""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start(folder: Path, web: bool, players: tuple[str, ...]) -> tuple[Run, PtyReader, int]:
    folder.mkdir(parents=True, exist_ok=True)
    pad = PtyReader(folder / "pad")
    port = free_port()
    extra = f'[web]\nenabled = true\nlisten = "127.0.0.1:{port}"\n' if web else ""
    config = sim_config(players, "target = 0", 'sync = "normal"', extra)
    (folder / "table.toml").write_text(config, encoding="utf-8")
    run = Run(folder)
    run.wait("ready")
    return run, pad, port


def get(port: int, path: str) -> Any:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=30) as answer:
        return json.loads(answer.read())


class Spectator:
    """One page following the table: reads every event of the stream, and keeps the number of
    the first (its snapshot's) and the latest, and how many it had."""

    def __init__(self, port: int) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=60)
        self.sock.sendall(b"GET /api/events HTTP/1.1\r\nHost: bench\r\n\r\n")
        self.first = self.latest = -1
        self.events = 0
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        with self.sock.makefile("rb") as stream:
            for line in stream:
                if line.startswith(b"id: "):
                    self.latest = int(line.split(b"-")[1])
                    if self.first < 0:
                        self.first = self.latest
                elif line.startswith(b"data: "):
                    self.events += 1

    def complete(self, newest: int) -> bool:
        """Every event up to ``newest``, once each, after its snapshot."""
        return self.latest == newest and self.events == newest - self.first + 1

    def close(self) -> None:
        self.sock.close()


def newest_event(port: int) -> int:
    """The number of the table's latest event: the id of a new page's snapshot."""
    probe = Spectator(port)
    while probe.first < 0:
        time.sleep(0.01)
    probe.close()
    return probe.first


def taps(run: Run, pad: PtyReader, count: int, gap: float) -> list[float]:
    latencies = []
    for _, uid in scripted_taps(PLAYERS[:4], count, seed=1):
        time.sleep(gap)  # the pace of the taps (0: each as soon as the last one's verdict is out)
        sent = time.perf_counter()
        pad.send_uid(uid)
        latencies.append((run.wait("verdict") - sent) * 1000)
    return latencies


def spectators_bench(root: Path, count: int, pages: int, gap: float) -> dict[str, float]:
    name = f"gap{gap}"
    out: dict[str, float] = {}
    run, pad, _ = start(root / f"off-{name}", False, PLAYERS[:4])
    out["rss_off"] = run.memory()[0]
    off = taps(run, pad, count, gap)
    out["off_p50"], out["off_p99"] = statistics.median(off), percentile(off, 99)
    run.stop()
    pad.close()

    run, pad, port = start(root / f"on-{name}", True, PLAYERS[:4])
    out["rss_on"] = run.memory()[0]
    watching = [Spectator(port) for _ in range(pages)]
    while get(port, "/api/admin/status")["pages"] < pages:
        time.sleep(0.05)
    out["rss_pages"] = run.memory()[0]
    on = taps(run, pad, count, gap)
    out["on_p50"], out["on_p99"] = statistics.median(on), percentile(on, 99)
    out["rss_after"], out["peak"] = run.memory()
    newest = newest_event(port)
    deadline = time.monotonic() + 30
    while not all(s.complete(newest) for s in watching) and time.monotonic() < deadline:
        time.sleep(0.05)
    out["events"] = newest - max(s.first for s in watching)
    out["pages_complete"] = sum(s.complete(newest) for s in watching)
    for s in watching:
        s.close()
    run.stop()
    pad.close()
    return out


def browser_bench(root: Path, presses: int) -> list[float]:
    from playwright.sync_api import sync_playwright

    run, pad, port = start(root / "browser", True, PLAYERS)
    seats = [s["url"] for s in get(port, "/api/admin/status")["seats"]]
    deck = virtual_deck()
    # R5 turned up: Ken's turn.
    pad.send_uid(next(u for u, t in deck.tags.items() if getattr(t, "code", None) == "R5#1"))
    run.wait("verdict")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True,
            args=["--no-sandbox", "--disable-gpu", "--disable-background-timer-throttling",
                  "--disable-renderer-backgrounding",
                  "--disable-backgrounding-occluded-windows"])
        # A context a page, as each phone is a browser of its own (and one browser keeps at
        # most six connections to a host, one of them taken by each page's stream).
        view = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
        view.goto(f"http://127.0.0.1:{port}/")
        pages = []
        for url in seats:
            page = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
            page.add_init_script(PRESSED)
            page.goto(url)
            pages.append(page)
        for page in (view, *pages):
            page.wait_for_function("() => window.unoTable && unoTable.stream.live")
        latencies = []
        turn = 1  # Ken's
        for i in range(presses):
            # A round of four: the seat on turn draws, then passes (accepted: the turn moves
            # on), and two others press out of turn (refused).
            step = i % 4
            seat = turn if step < 2 else (turn + step) % len(seats)
            page = pages[seat]
            button = ("draw", "pass", "pass", "draw")[step]
            shown = view.evaluate("unoTable.verdicts.length")
            started = time.perf_counter()
            page.click(f'button[data-button="{button}"]')
            view.wait_for_function("(n) => unoTable.verdicts.length > n", arg=shown,
                                   polling=5)
            pressed = page.evaluate("window.__pressed[window.__pressed.length - 1]")
            rendered = view.evaluate("unoTable.verdicts[unoTable.verdicts.length - 1].at")
            verdict = view.evaluate("unoTable.verdicts[unoTable.verdicts.length - 1].verdict")
            assert verdict == ("accepted" if step < 2 else "rejected"), (i, verdict)
            latencies.append(rendered - pressed)
            if step == 1:
                turn = (turn + 1) % len(seats)
            time.sleep(max(0.0, PACE - (time.perf_counter() - started)))
        browser.close()
    run.stop()
    pad.close()
    return latencies


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--presses", type=int, default=200)
    parser.add_argument("--taps", type=int, default=1000)
    parser.add_argument("--pages", type=int, default=50)
    parser.add_argument("--gap", type=float, action="append", metavar="MS",
                        help="milliseconds between a verdict and the next tap (repeatable; "
                             "default: 0, then 100)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        try:
            run_all(Path(tmp), args.presses, args.taps, args.pages, args.gap or [0.0, 100.0])
        finally:
            for proc in STARTED:  # nothing left running, even after an error
                if proc.poll() is None:
                    proc.kill()
    return 0


def run_all(root: Path, presses: int, count: int, pages: int, gaps: list[float]) -> None:
    if Path(CHROMIUM).exists():
        lat = browser_bench(root, presses)
        print(f"press on a seat page to the verdict on the spectator page, {len(lat)} presses:")
        print(f"  p50 {statistics.median(lat):.1f} ms  p95 {percentile(lat, 95):.1f} ms  "
              f"max {max(lat):.1f} ms  (target p95 <= 50 ms)")
    else:
        print(f"no browser at {CHROMIUM}: press-to-verdict skipped")
    for gap in gaps:
        r = spectators_bench(root, count, pages, gap / 1000)
        pace = "each tap at its verdict" if gap == 0 else f"a tap every {gap:.0f} ms or more"
        print(f"tap to verdict over {count} taps (sync=normal), {pace}:")
        print(f"  web off:                 p50 {r['off_p50']:.2f} ms  p99 {r['off_p99']:.2f} ms")
        print(f"  web on, {pages} spectators: p50 {r['on_p50']:.2f} ms  "
              f"p99 {r['on_p99']:.2f} ms  (target p99 <= 5 ms)")
        print(f"  {r['pages_complete']:.0f} of {pages} spectators had all {r['events']:.0f} "
              "events, once each")
        print(f"  resident memory: web off {r['rss_off']:.1f} MB; web on {r['rss_on']:.1f} MB; "
              f"{pages} spectators {r['rss_pages']:.1f} MB; after the taps "
              f"{r['rss_after']:.1f} MB (peak {r['peak']:.1f} MB): the spectators and taps "
              f"add {r['rss_after'] - r['rss_on']:.1f} MB (target <= 25 MB)")

if __name__ == "__main__":
    sys.exit(main())
