"""Many tables into one hub, through a real Mosquitto (Debian's), and the referee with MQTT on.

    python bench/hub.py [--tables 20] [--sim 200] [--flood 2000] [--taps 1000]

- tables: ``--tables`` simulated tables (``uno-table demo --fast --rules japanese``, five rounds
  each, every table its own process) publish at full speed into one hub
  (``uno-table hub``, its own process): results handled a second, and result to standings:
  from a result seen on the broker to the hub's standings that count it, seen on the broker,
  p50 and p95.
- sim: ``--sim`` simulated tables (one MQTT client each, four players, one match of five
  rounds) publish their results (QoS 1) into one hub (``uno-table hub --web``, its own
  process), first all at once (a burst: every table ends a round together), then paced (each
  table a round every ``--period`` s, the tables spread over it): results a second into the
  hub, and result to standings page: from a result's publish to the first event of the page's
  stream (``/api/events``, what a TV shows) whose rows count it, p50 and p95.
- flood: ``--flood`` results published as fast as one client can (QoS 1), what the hub keeps up
  with: results a second from the first sent to the standings counting the last.
- taps: tap-to-verdict of a daemon with ``[mqtt]`` on (bench/daemon.py's method: a UID line on
  the play pad's pty to the verdict on the event stream), p50 and p99 over ``--taps`` taps,
  twice, each after the same daemon with MQTT off (the machine's load at that moment).
  Target: p99 <= 5 ms. Also the daemon's own CPU time a tap (from /proc; not its children's,
  such as its MQTT sender's), less at the mercy of the machine's load. The events published
  are counted by an observer in processes of its own (Debian's ``mosquitto_sub``, piped into
  ``mawk``), as a real table's subscribers are other machines: a client in the bench's process
  would take the interpreter from the thread that timestamps each verdict.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from daemon import PLAYERS, Run, percentile  # bench/daemon.py
from mqtt_harness import Broker, Listener, free_port  # tests/mqtt_harness.py
from web_harness import Sse  # tests/web_harness.py

from sim.hardware.ptys import PtyReader, sim_config
from sim.players.scripted import scripted_taps

CLI = [sys.executable, "-m", "table.commands.cli"]
NAMES = ("Aki", "Ken", "Mio", "Rin")


class Watch:
    """Arrival times of results and of the standings that count them, on the broker."""

    def __init__(self, listener: Listener) -> None:
        self.listener = listener
        self.results: dict[str, float] = {}
        self.standings: list[tuple[float, int]] = []

    def until(self, count: int, timeout: float = 600.0) -> None:
        """Record arrivals until the standings count ``count`` results."""
        def seen(heard: Any) -> bool:
            now = time.perf_counter()
            if heard.topic.endswith("/result"):
                self.results.setdefault(heard.json()["id"], now)
            elif heard.topic.endswith("hub/standings"):
                n = heard.json()["results"]
                self.standings.append((now, n))
                return bool(n >= count)
            return False

        self.listener.wait_for(seen, timeout)

    def latencies(self) -> list[float]:
        """ms from the k-th result seen to the first standings counting k results."""
        out = []
        for k, at in enumerate(sorted(self.results.values()), start=1):
            counted = next(t for t, n in self.standings if n >= k and t >= at)
            out.append((counted - at) * 1000)
        return out


def hub(port: int, store: Path) -> subprocess.Popen[str]:
    """A ``uno-table hub`` process on the broker at ``port``."""
    return subprocess.Popen([*CLI, "hub", "--mqtt", f"127.0.0.1:{port}", "--store", str(store),
                             "--log-level", "warning"], stdout=subprocess.PIPE, text=True)


def tables_bench(root: Path, tables: int) -> dict[str, float]:
    """``tables`` demo processes into one hub: results a second and latency."""
    broker = Broker(root, "max_queued_messages 100000")
    broker.start()
    listener = Listener(broker.port, ("uno-table/+/result", "uno-table/hub/standings"))
    proc = hub(broker.port, root / "hub.sqlite3")
    try:
        listener.wait_for(lambda h: h.topic.endswith("hub/standings"))
        watch = Watch(listener)
        started = time.perf_counter()
        demos = [subprocess.Popen(
            [*CLI, "demo", "--fast", "--rules", "japanese", "--players", "4", "--seed", str(t),
             "--names", ",".join(f"{n}{t}" for n in NAMES), "--mqtt",
             f"127.0.0.1:{broker.port}", "--table", str(t)],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            for t in range(1, tables + 1)]
        watch.until(tables * 5)
        for demo in demos:
            demo.wait(600)
        last = max(t for t, _ in watch.standings)
        first = min(watch.results.values())
        lat = watch.latencies()
        return {"tables": tables, "results": len(watch.results),
                "seconds": last - started, "per_second": len(lat) / (last - first),
                "p50": statistics.median(lat), "p95": percentile(lat, 95)}
    finally:
        proc.terminate()
        proc.wait(30)
        listener.close()
        broker.stop()


class Page:
    """The standings page's event stream, read in a thread: when each table's rounds first
    show in the rows."""

    def __init__(self, port: int) -> None:
        self.stream = Sse(port)
        self.shown: dict[tuple[str, int], float] = {}  # (table, round) -> first shown
        self.done = threading.Event()
        self.want = 0
        self.events = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        while True:
            try:
                _, event = self.stream.next(timeout=600)
            except AssertionError:  # the stream ended
                return
            now = time.perf_counter()
            self.events += 1
            for row in event["rows"]:
                for rnd in range(1, row["rounds"] + 1):
                    self.shown.setdefault((row["table"], rnd), now)
            if self.want and len(self.shown) >= self.want:
                self.done.set()


def sim_result(table: str, rnd: int) -> dict[str, Any]:
    """Round ``rnd`` of table ``table``'s match, as a table publishes it (international
    scoring: the winner, a different seat each round, scores 20 a round)."""
    names = [f"{n}{table}" for n in NAMES]
    winner = names[rnd % len(names)]
    points = {n: 20 if n == winner else 0 for n in names}
    totals = {n: 20 * sum(1 for r in range(1, rnd + 1) if names[r % len(names)] == n)
              for n in names}
    return {"id": f"{table}/1/{rnd}", "table": table, "match": "1", "round": rnd,
            "players": names, "winner": winner, "points": points, "totals": totals,
            "scoring": "international", "match_over": rnd == 5,
            "match_winner": max(totals, key=lambda n: totals[n]) if rnd == 5 else None}


def sim_bench(root: Path, tables: int, period: float) -> dict[str, dict[str, float]]:
    """A burst, then paced rounds, of ``tables`` simulated tables into one hub and its page."""
    out: dict[str, dict[str, float]] = {}
    for mode in ("burst", "paced"):
        folder = root / f"sim-{mode}"
        folder.mkdir()
        broker = Broker(folder, "max_queued_messages 100000\nmax_connections -1")
        broker.start()
        web = free_port()
        proc = subprocess.Popen([*CLI, "hub", "--mqtt", f"127.0.0.1:{broker.port}", "--store",
                                 str(folder / "hub.sqlite3"), "--web", f"127.0.0.1:{web}",
                                 "--log-level", "warning"], stdout=subprocess.PIPE, text=True)
        assert proc.stdout is not None
        proc.stdout.readline()  # "hub: standings at ...": the page listens
        listener = Listener(broker.port, ("uno-table/hub/standings",))
        clients = []
        try:
            listener.wait_for(lambda h: True)  # the hub is subscribed
            page = Page(web)
            page.want = tables * 5
            # One client a table, subscribed as a table is (to the hub's availability).
            clients += [Listener(broker.port, ("uno-table/hub/availability",))
                        for _ in range(tables)]
            sent: dict[tuple[str, int], float] = {}
            started = time.perf_counter()
            for rnd in range(1, 6):
                for t, client in enumerate(clients, start=1):
                    if mode == "paced":
                        due = started + (rnd - 1) * period + (t - 1) * period / tables
                        time.sleep(max(0.0, due - time.perf_counter()))
                    sent[(str(t), rnd)] = time.perf_counter()
                    client.client.publish(f"uno-table/{t}/result",
                                          json.dumps(sim_result(str(t), rnd)), qos=1)
            assert page.done.wait(600), f"the page showed {len(page.shown)} of {page.want}"
            lat = [(page.shown[k] - at) * 1000 for k, at in sent.items()]
            first, last = min(sent.values()), max(page.shown.values())
            out[mode] = {"results": len(lat), "seconds": last - first,
                         "per_second": len(lat) / (last - first),
                         "p50": statistics.median(lat), "p95": percentile(lat, 95),
                         "updates": page.events - 1}  # the snapshot aside
            page.stream.close()
        finally:
            for client in clients:
                client.close()
            listener.close()
            proc.terminate()
            proc.wait(30)
            broker.stop()
    return out


def flood_bench(root: Path, count: int) -> dict[str, float]:
    """``count`` results from one client as fast as it can: what the hub keeps up with."""
    folder = root / "flood"
    folder.mkdir()
    broker = Broker(folder, "max_queued_messages 100000")
    broker.start()
    listener = Listener(broker.port, ("uno-table/hub/standings",))
    proc = hub(broker.port, folder / "hub.sqlite3")
    try:
        listener.wait_for(lambda h: True)
        started = time.perf_counter()
        for i in range(count):
            table = str(i % 20 + 1)
            points = {"A" + table: 10, "B" + table: 0}
            result = {"id": f"{table}/1/{i + 1}", "table": table, "match": "1", "round": i + 1,
                      "players": list(points), "winner": "A" + table, "points": points,
                      "totals": points, "scoring": "international"}
            listener.client.publish(f"uno-table/{table}/result", json.dumps(result), qos=1)
        listener.wait_for(lambda h: h.json()["results"] >= count, 600)
        seconds = time.perf_counter() - started
        return {"results": count, "seconds": seconds, "per_second": count / seconds}
    finally:
        proc.terminate()
        proc.wait(30)
        listener.close()
        broker.stop()


# Counts table 1's events; says "online" once the table's availability is heard (the
# subscription is live), and the count when the table says "offline" (its clean stop: every
# event it published came before).
COUNT = ('$1 == "uno-table/1/availability" && $2 == "online" && !up {print "online"; fflush(); '
         'up = 1} $1 == "uno-table/1/event" {n++} '
         '$1 == "uno-table/1/availability" && $2 == "offline" {print n + 0; exit}')


class Observer:
    """A subscriber to table 1's events in processes of their own: ``mosquitto_sub`` (Debian's
    mosquitto-clients) piped into ``mawk``, no Python and no interpreter shared with the bench."""

    def __init__(self, port: int) -> None:
        self.sub = subprocess.Popen(
            ["mosquitto_sub", "-h", "127.0.0.1", "-p", str(port), "-q", "1", "-F", "%t %p",
             "-t", "uno-table/1/event", "-t", "uno-table/1/availability"],
            stdout=subprocess.PIPE)
        # -W interactive: mawk (Debian's awk) reads a pipe line by line, not a block at a time
        self.count = subprocess.Popen(["mawk", "-W", "interactive", COUNT],
                                      stdin=self.sub.stdout,
                                      stdout=subprocess.PIPE, text=True)
        assert self.sub.stdout is not None
        self.sub.stdout.close()  # mawk's now

    def online(self) -> None:
        """Wait until the table's availability is heard."""
        assert self.count.stdout is not None
        line = self.count.stdout.readline()
        assert line.strip() == "online", f"the observer said {line!r}"

    def published(self) -> int:
        """The events heard up to the table's ``offline`` (after its clean stop)."""
        out, _ = self.count.communicate(timeout=60)
        return int(out.split()[-1])

    def close(self) -> None:
        """Stop both processes."""
        for proc in (self.count, self.sub):
            if proc.poll() is None:
                proc.terminate()
                proc.wait(10)


def cpu_seconds(pid: int) -> float:
    """The CPU time process ``pid`` has used (its own, not its children's)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def taps_bench(root: Path, taps: int, with_mqtt: bool, run_no: int,
               gap: float = 0.0) -> dict[str, float]:
    """Tap to verdict of a daemon, with MQTT on or off."""
    folder = root / f"taps-{'mqtt' if with_mqtt else 'plain'}-{run_no}-{gap}"
    folder.mkdir()
    broker = Broker(folder)
    broker.start()
    observer = Observer(broker.port) if with_mqtt else None
    pad = PtyReader(folder / "pad")
    mqtt = f'\n[mqtt]\nhost = "127.0.0.1"\nport = {broker.port}\ntable = "1"\n'
    (folder / "table.toml").write_text(
        sim_config(PLAYERS, "target = 0", "", mqtt if with_mqtt else ""), encoding="utf-8")
    run = Run(folder)
    try:
        run.wait("ready")
        if observer is not None:
            observer.online()
        latencies = []
        cpu = cpu_seconds(run.proc.pid)
        for _, uid in scripted_taps(PLAYERS, taps, seed=1):
            time.sleep(gap)  # the pace of the taps (0: each as soon as the last verdict is out)
            sent = time.perf_counter()
            pad.send_uid(uid)
            latencies.append((run.wait("verdict") - sent) * 1000)
        cpu = cpu_seconds(run.proc.pid) - cpu
        run.stop()  # a clean stop: the table says offline after its last event
        published = observer.published() if observer is not None else 0
        return {"p50": statistics.median(latencies), "p99": percentile(latencies, 99),
                "max": max(latencies), "events_published": published,
                "cpu_per_tap": cpu / taps * 1000}
    finally:
        run.stop()
        pad.close()
        if observer is not None:
            observer.close()
        broker.stop()


def main() -> int:
    """Run the parts asked for and print their numbers."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=20)
    parser.add_argument("--sim", type=int, default=200, metavar="TABLES")
    parser.add_argument("--period", type=float, default=5.0, metavar="S",
                        help="paced: seconds between a simulated table's rounds (default 5)")
    parser.add_argument("--flood", type=int, default=2000)
    parser.add_argument("--taps", type=int, default=1000)
    parser.add_argument("--only", choices=("tables", "sim", "flood", "taps"), help="one part only")
    parser.add_argument("--gap", type=float, action="append", metavar="MS",
                        help="milliseconds between taps (repeatable; default 0 and 100)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        if args.only in (None, "tables"):
            t = tables_bench(root, args.tables)
            print(f"{t['tables']} tables, {t['results']} results in {t['seconds']:.1f} s: "
                  f"{t['per_second']:.1f} results/s handled; result to standings p50 "
                  f"{t['p50']:.1f} ms, p95 {t['p95']:.1f} ms")
        if args.only in (None, "sim"):
            for mode, m in sim_bench(root, args.sim, args.period).items():
                print(f"{args.sim} simulated tables, {mode}: {m['results']} results in "
                      f"{m['seconds']:.1f} s: {m['per_second']:.1f} results/s into the hub; "
                      f"result to standings page p50 {m['p50']:.0f} ms, p95 {m['p95']:.0f} ms "
                      f"({m['updates']:.0f} page updates)")
        if args.only in (None, "flood"):
            f = flood_bench(root, args.flood)
            print(f"flood: {f['results']} results in {f['seconds']:.2f} s: "
                  f"{f['per_second']:.0f} results/s")
        for gap in args.gap or [0.0, 100.0]:
            pace = "each tap at its verdict" if gap == 0 else f"a tap every {gap:.0f} ms or more"
            for run_no, with_mqtt in enumerate((False, True, False, True)):
                if args.only not in (None, "taps"):
                    break
                d = taps_bench(root, args.taps, with_mqtt, run_no, gap / 1000)
                print(f"tap to verdict ({pace}), MQTT {'on ' if with_mqtt else 'off'}: p50 "
                      f"{d['p50']:.2f} ms, p99 {d['p99']:.2f} ms, max {d['max']:.2f} ms; "
                      f"the daemon's CPU {d['cpu_per_tap']:.2f} ms a tap "
                      f"({d['events_published']} events published)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
