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
  ms. The spectators run in a process of their own (as the phones and TVs that follow a table
  are other devices), so that the clock that times each verdict never waits for them, at a
  nice value of 10 (on the machine's own cores, they give the processor to the table first).
  While the taps run they only keep what they receive, and count each page's events after the
  taps: reading every frame as it came took half of one core, which a phone or a TV spends on
  its own processor.
- memory: the daemon's resident memory with the web off, with it on, with the spectators
  connected and after the taps. Target: the spectators add at most 25 MB.
- under attack (``--attack``, with ``--journal-inputs``, default 50,000): a daemon whose
  journal already holds that many inputs, at the Pi's 1,024 file descriptors, with ``--pages``
  spectators, taps every 100 ms (``--taps``, at most 600, each phase), first with nothing else
  asked (for comparison, under the same load), then (1) ``/stats`` polled once a second (as a
  page left open with a reload loop would), then (2) 1,000 connections that each send half a
  request and nothing more, re-opened as soon as the server closes one (slowloris). Reported: tap to
  verdict p50 and p99 (target p99 <= 20 ms), ``/stats``' time to first byte the first time,
  when built and when kept (target <= 1 s), and the time a new page takes to get the table
  view, its state and its stream's snapshot while the slow connections are held (target
  <= 1 s).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import selectors
import socket
import statistics
import subprocess
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
# The spectators stand for phones and TVs, other machines: on the bench's two cores they give
# the processor to the table first, as the daemon's own fan-out does.
SPECTATORS_NICE = 10
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


def start(folder: Path, web: bool, players: tuple[str, ...],
          files: int | None = None) -> tuple[Run, PtyReader, int]:
    """A daemon on a new play pad in ``folder`` (its journal kept there); ``files``: its soft
    limit of file descriptors (the Pi's is 1,024)."""
    folder.mkdir(parents=True, exist_ok=True)
    pad = PtyReader(folder / "pad")
    port = free_port()
    extra = f'[web]\nenabled = true\nlisten = "127.0.0.1:{port}"\n' if web else ""
    config = sim_config(players, "target = 0", 'sync = "normal"', extra)
    (folder / "table.toml").write_text(config, encoding="utf-8")
    mine = resource.getrlimit(resource.RLIMIT_NOFILE)
    if files:
        resource.setrlimit(resource.RLIMIT_NOFILE, (files, mine[1]))  # inherited by the daemon
    try:
        run = Run(folder)
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, mine)
    run.wait("ready")
    return run, pad, port


def get(port: int, path: str) -> Any:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=30) as answer:
        return json.loads(answer.read())


def other_device(role: str, port: int, count: int) -> tuple[subprocess.Popen[str], Any, Any]:
    """This bench in a process of its own playing ``role`` (``--follow``, ``--slowloris``)
    against ``port`` with ``count`` connections; its stdout and stdin."""
    proc = subprocess.Popen([sys.executable, __file__, role, str(port), "--pages", str(count)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    STARTED.append(proc)
    assert proc.stdout is not None and proc.stdin is not None
    return proc, proc.stdout, proc.stdin


class Spectators:
    """``count`` pages following the table, each reading every event of its stream, in a
    process of their own (as the phones and TVs that follow a table are other devices): the
    bench's clock, which times each verdict, does not wait for them. Each page keeps the number
    of its first event (its snapshot's) and its latest, and how many it had."""

    def __init__(self, port: int, count: int) -> None:
        self.proc, self.out, self.into = other_device("--follow", port, count)
        if self.out.readline().strip() != "connected":
            raise RuntimeError("the spectators could not connect")

    def pages(self, newest: int) -> list[dict[str, int]]:
        """Each page's first and latest event and count, once it has ``newest`` (or after 30
        s without)."""
        self.into.write(f"{newest}\n")
        self.into.flush()
        pages: list[dict[str, int]] = json.loads(self.out.readline())
        self.proc.wait(timeout=30)
        return pages


def follow(port: int, count: int) -> None:
    """The spectators' process: ``count`` streams read on one thread; prints ``connected``,
    then, given the newest event's number on stdin, what each page had. While the taps run,
    what each page receives is only kept; it is read once the taps are over, so that these
    stand-ins for other devices take as little of the table's processor as they can."""
    os.nice(SPECTATORS_NICE)
    socks = []
    for _ in range(count):
        sock = socket.create_connection(("127.0.0.1", port), timeout=60)
        sock.sendall(b"GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        sock.setblocking(False)
        socks.append(sock)
    pages = [{"first": -1, "latest": -1, "events": 0} for _ in socks]
    kept = [bytearray() for _ in socks]

    def read(i: int) -> None:
        """Count the whole lines page ``i`` has received."""
        buf = kept[i]
        cut = buf.rfind(b"\n") + 1
        for line in bytes(buf[:cut]).split(b"\n"):
            if line.startswith(b"id: "):
                pages[i]["latest"] = int(line.split(b"-")[1])
                if pages[i]["first"] < 0:
                    pages[i]["first"] = pages[i]["latest"]
            elif line.startswith(b"data: "):
                pages[i]["events"] += 1
        del buf[:cut]

    selector = selectors.DefaultSelector()
    for i, sock in enumerate(socks):
        selector.register(sock, selectors.EVENT_READ, i)
    newest: list[int] = []
    threading.Thread(target=lambda: newest.append(int(sys.stdin.readline())),
                     daemon=True).start()
    connected = False
    counting = True  # until every page has its snapshot, then again after the taps
    deadline = float("inf")
    while True:
        if not connected and all(p["first"] >= 0 for p in pages):
            connected, counting = True, False
            print("connected", flush=True)
        if newest:
            if not counting:
                counting = True
                for i in range(count):
                    read(i)
            deadline = min(deadline, time.monotonic() + 30)
            if all(p["latest"] == newest[0] for p in pages) or time.monotonic() > deadline:
                break
        for key, _ in selector.select(timeout=0.05):
            i = key.data
            data = key.fileobj.recv(1 << 16)  # type: ignore[union-attr]
            if not data:
                selector.unregister(key.fileobj)
                continue
            kept[i] += data
            if counting:
                read(i)
    print(json.dumps(pages), flush=True)
    for sock in socks:
        sock.close()


def complete(page: dict[str, int], newest: int) -> bool:
    """Every event up to ``newest``, once each, after its snapshot."""
    return page["latest"] == newest and page["events"] == newest - page["first"] + 1


def fanout_memory(run: Run) -> float:
    """The resident memory of the daemon's fan-out process (its one child), in MB."""
    total = 0.0
    for task in Path(f"/proc/{run.proc.pid}/task").iterdir():
        for child in (task / "children").read_text().split():
            for line in Path(f"/proc/{child}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1]) / 1024
    return total


def newest_event(port: int) -> int:
    """The number of the table's latest event: the id of a new page's snapshot."""
    with socket.create_connection(("127.0.0.1", port), timeout=60) as sock:
        sock.sendall(b"GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        with sock.makefile("rb") as stream:
            for line in stream:
                if line.startswith(b"id: "):
                    return int(line.split(b"-")[1])
    raise RuntimeError("the event stream ended before its snapshot")


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
    watching = Spectators(port, pages)
    while get(port, "/api/admin/status")["pages"] < pages:
        time.sleep(0.05)
    out["rss_pages"] = run.memory()[0]
    on = taps(run, pad, count, gap)
    out["on_p50"], out["on_p99"] = statistics.median(on), percentile(on, 99)
    out["rss_after"], out["peak"] = run.memory()
    out["fanout"] = fanout_memory(run)
    newest = newest_event(port)
    had = watching.pages(newest)
    out["events"] = newest - max(p["first"] for p in had)
    out["pages_complete"] = sum(complete(p, newest) for p in had)
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


class StatsPoller:
    """``/stats`` asked once a second, as a page left open with a reload loop; each answer's
    status and time to first byte kept."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.answers: list[tuple[int, float]] = []
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._poll, daemon=True)
        self.thread.start()

    def _poll(self) -> None:
        while not self.done.wait(1.0):
            self.answers.append(first_byte(self.port, "/stats"))

    def stop(self) -> None:
        self.done.set()
        self.thread.join(60)


def first_byte(port: int, path: str) -> tuple[int, float]:
    """The status of ``GET path`` and the milliseconds to its first byte (then read whole)."""
    with socket.create_connection(("127.0.0.1", port), timeout=120) as sock:
        started = time.perf_counter()
        sock.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
                     .encode())
        head = sock.recv(1)
        took = (time.perf_counter() - started) * 1000
        data = head
        while chunk := sock.recv(1 << 16):
            data += chunk
    return int(data.split(b" ", 2)[1]), took


class Slowloris:
    """``count`` connections that each send half a request and nothing more, re-opened as
    soon as the server closes one, from a process of their own at the spectators' nice value
    (the attacker is another device; in this process it would hold up the clock that times
    each verdict)."""

    def __init__(self, port: int, count: int) -> None:
        self.proc, self.out, self.into = other_device("--slowloris", port, count)
        self.held = int(self.out.readline())

    def stop(self) -> tuple[int, int]:
        """Connections open at the end, and how many were re-opened."""
        self.into.write("\n")
        self.into.flush()
        held, reopened = map(int, self.out.readline().split())
        self.proc.wait(timeout=30)
        return held, reopened


def slowloris(port: int, count: int) -> None:
    """The attacker's process: prints how many it holds, then on a line from stdin how many
    it held at the end and re-opened."""
    os.nice(SPECTATORS_NICE)
    selector = selectors.DefaultSelector()
    reopened = 0

    def open_one() -> None:
        try:
            sock = socket.create_connection(("127.0.0.1", port), timeout=5)
            sock.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
        except OSError:
            return
        sock.setblocking(False)
        selector.register(sock, selectors.EVENT_READ)

    for _ in range(count):
        open_one()
    print(len(selector.get_map()), flush=True)
    done = threading.Event()
    threading.Thread(target=lambda: (sys.stdin.readline(), done.set()), daemon=True).start()
    while not done.is_set():
        for key, _ in selector.select(timeout=0.1):
            sock = key.fileobj
            try:
                data = sock.recv(4096)  # type: ignore[union-attr]
            except OSError:
                data = b""
            if not data:
                selector.unregister(sock)
                sock.close()  # type: ignore[union-attr]
                reopened += 1
                open_one()
    print(len(selector.get_map()), reopened, flush=True)


def new_page(port: int) -> float:
    """Milliseconds for a new page to get the table view, its state and its stream's
    snapshot."""
    started = time.perf_counter()
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=60) as answer:
        answer.read()
    get(port, "/api/state")
    newest_event(port)
    return (time.perf_counter() - started) * 1000


def grow_journal(folder: Path, script: list[tuple[str, str]]) -> float:
    """A daemon (web off) in ``folder`` taking every tap of ``script``; the seconds it took."""
    run, pad, _ = start(folder, False, PLAYERS[:4])
    started = time.perf_counter()
    for _, uid in script:
        pad.send_uid(uid)
        run.wait("verdict")
    took = time.perf_counter() - started
    run.stop()
    pad.close()
    return took


def timed_taps(run: Run, pad: PtyReader, script: list[tuple[str, str]], gap: float,
               during: Any = None) -> list[float]:
    """Tap to verdict of each tap of ``script``, a tap every ``gap`` s; ``during(n)`` after
    each (to look at something else meanwhile)."""
    latencies = []
    for n, (_, uid) in enumerate(script):
        time.sleep(gap)
        sent = time.perf_counter()
        pad.send_uid(uid)
        latencies.append((run.wait("verdict") - sent) * 1000)
        if during is not None:
            during(n)
    return latencies


def attack_bench(root: Path, inputs: int, count: int, pages: int) -> dict[str, Any]:
    """The daemon on a journal of ``inputs`` inputs at 1,024 descriptors: /stats, then
    slowloris (module doc)."""
    folder = root / "attack"
    script = scripted_taps(PLAYERS[:4], inputs + 3 * count, seed=1)
    out: dict[str, Any] = {"grow_s": grow_journal(folder, script[:inputs])}
    (folder / "pad").unlink(missing_ok=True)
    run, pad, port = start(folder, True, PLAYERS[:4], files=1024)
    watching = Spectators(port, pages)
    out["stats_first"] = first_byte(port, "/stats")
    built = time.perf_counter()
    while first_byte(port, "/stats")[0] != 200:
        time.sleep(1.0)  # as the page's own Refresh
    out["stats_built_s"] = time.perf_counter() - built
    out["stats_kept"] = first_byte(port, "/stats")
    out["quiet_taps"] = timed_taps(run, pad, script[inputs:inputs + count], 0.1)
    inputs += count
    poller = StatsPoller(port)
    rss = run.memory()[0]
    stats_taps = timed_taps(run, pad, script[inputs:inputs + count], 0.1)
    poller.stop()
    out["stats_rss"] = (rss, *run.memory())
    out["stats_taps"] = stats_taps
    out["stats_answers"] = poller.answers
    loris = Slowloris(port, 1000)
    out["held"] = loris.held
    views: list[float] = []
    loris_taps = timed_taps(run, pad, script[inputs + count:], 0.1,
                            lambda n: views.append(new_page(port)) if n % 20 == 0 else None)
    out["held_after"], out["reopened"] = loris.stop()
    out["loris_taps"], out["views"] = loris_taps, views
    newest = newest_event(port)
    had = watching.pages(newest)
    out["pages_complete"] = sum(complete(p, newest) for p in had)
    run.stop()
    pad.close()
    return out


def print_attack(r: dict[str, Any], inputs: int, pages: int) -> None:
    """What :func:`attack_bench` measured, in lines for docs/performance.md."""
    def p(values: list[float]) -> str:
        return f"p50 {statistics.median(values):.2f} ms  p99 {percentile(values, 99):.2f} ms  " \
               f"max {max(values):.1f} ms"

    statuses: dict[int, int] = {}
    for status, _ in r["stats_answers"]:
        statuses[status] = statuses.get(status, 0) + 1
    print(f"a journal of {inputs} inputs (taken in {r['grow_s']:.0f} s), the daemon at 1,024 "
          f"descriptors, {pages} spectators, a tap every 100 ms:")
    print(f"  /stats first byte: first request {r['stats_first'][1]:.0f} ms "
          f"(status {r['stats_first'][0]}); the report built after {r['stats_built_s']:.1f} s; "
          f"kept: {r['stats_kept'][1]:.0f} ms (target <= 1 s)")
    print(f"  tap to verdict, nothing else asked (the same load, for comparison): "
          f"{p(r['quiet_taps'])}")
    print(f"  tap to verdict, /stats polled once a second: {p(r['stats_taps'])} "
          f"(target p99 <= 20 ms); answers {statuses}; slowest first byte "
          f"{max(t for _, t in r['stats_answers']):.0f} ms")
    rss = r["stats_rss"]
    print(f"  resident memory: {rss[0]:.1f} MB before the polling, {rss[1]:.1f} MB after "
          f"(peak {rss[2]:.1f} MB)")
    print(f"  tap to verdict, 1,000 half-sent requests held ({r['held']} open at the start, "
          f"{r['held_after']} at the end, {r['reopened']} re-opened): {p(r['loris_taps'])} "
          f"(target p99 <= 20 ms)")
    print(f"  a new page (view, state, stream snapshot) meanwhile: {p(r['views'])} "
          "(target <= 1 s)")
    print(f"  {r['pages_complete']:.0f} of {pages} spectators had every event, once each")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--presses", type=int, default=200)
    parser.add_argument("--taps", type=int, default=1000)
    parser.add_argument("--pages", type=int, default=50)
    parser.add_argument("--gap", type=float, action="append", metavar="MS",
                        help="milliseconds between a verdict and the next tap (repeatable; "
                             "default: 0, then 100)")
    parser.add_argument("--attack", action="store_true",
                        help="only the bench under attack: /stats polled, then slowloris")
    parser.add_argument("--journal-inputs", type=int, default=50_000)
    parser.add_argument("--follow", type=int, metavar="PORT", help=argparse.SUPPRESS)
    parser.add_argument("--slowloris", type=int, metavar="PORT", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.slowloris:
        slowloris(args.slowloris, args.pages)
        return 0
    if args.follow:
        follow(args.follow, args.pages)
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        try:
            if args.attack:
                taps = min(args.taps, 600)
                result = attack_bench(Path(tmp), args.journal_inputs, taps, args.pages)
                print_attack(result, args.journal_inputs, args.pages)
                return 0
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
              f"add {r['rss_after'] - r['rss_on']:.1f} MB (target <= 25 MB); the fan-out "
              f"process {r['fanout']:.1f} MB")

if __name__ == "__main__":
    sys.exit(main())
