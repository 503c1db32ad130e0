"""The daemon's speed and memory, measured on real processes, ptys and SQLite files.

    python bench/daemon.py [--taps 1000] [--resume-events 10000]
    python bench/daemon.py --long 100000


- tap-to-verdict: from a UID line written to the play pad's pty to the verdict event read from
  ``uno-table run --events -``, p50 and p99 over ``--taps`` taps of a scripted match (the
  journal committed with ``sync = "full"`` and with ``"normal"``). Target: p99 <= 5 ms.
- cold start: from starting the process to its ``ready`` event (readers live, match resumed).
- resident memory of the daemon after the taps (VmRSS, and the peak VmHWM). Target <= 60 MB.
- resume: opening a journal of ``--resume-events`` inputs and rebuilding the match, as the
  daemon does at start. Target <= 0.5 s.

``--long N`` measures a long evening instead: N taps of one match that never ends
(``sync = "normal"``), with the daemon's resident memory, the consumer's pace (taps a second,
each tap waiting for its verdict while every event is read and parsed) and the size of the
latest ``state`` event, at ten points along the way.
"""

from __future__ import annotations

import argparse
import json
import queue
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from sim.hardware.ptys import PtyReader, sim_config
from sim.players.scripted import scripted_taps
from table.inputs import ReaderRole, TagRead
from table.journal.records import MatchSetup, feed_referee, freeze, resume
from table.journal.store import Journal
from table.referee.registry import virtual_deck
from table.rules import make_options

PLAYERS = ("Aki", "Ken", "Mio", "Yui")



STARTED: list[subprocess.Popen[str]] = []


class Run:
    def __init__(self, folder: Path) -> None:
        self.started = time.perf_counter()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "table.commands.cli", "run",
             "--config", str(folder / "table.toml"), "--events", "-", "--log-level", "warning"],
            stdout=subprocess.PIPE, text=True,
        )
        STARTED.append(self.proc)
        self.events: queue.Queue[tuple[float, dict[str, Any]]] = queue.Queue()
        self.state_bytes = 0  # the size of the latest state event
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            event = json.loads(line)
            if event["type"] == "state":
                self.state_bytes = len(line.encode())
            self.events.put((time.perf_counter(), event))

    def wait(self, kind: str) -> float:
        while True:
            at, event = self.events.get(timeout=30)
            if event["type"] == kind:
                return at

    def memory(self) -> tuple[float, float]:
        fields = dict(
            line.split(":", 1) for line in Path(f"/proc/{self.proc.pid}/status").read_text()
            .splitlines() if ":" in line
        )
        return (int(fields["VmRSS"].split()[0]) / 1024, int(fields["VmHWM"].split()[0]) / 1024)

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(30)


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def table(folder: Path, sync: str) -> PtyReader:
    folder.mkdir(parents=True, exist_ok=True)
    pad = PtyReader(folder / "pad")
    config = sim_config(PLAYERS, "target = 0", f'sync = "{sync}"')
    (folder / "table.toml").write_text(config, encoding="utf-8")
    return pad


def taps_bench(root: Path, taps: int, sync: str) -> dict[str, float]:
    folder = root / f"taps-{sync}"
    pad = table(folder, sync)
    run = Run(folder)
    ready = run.wait("ready") - run.started
    latencies = []
    for _, uid in scripted_taps(PLAYERS, taps, seed=1):
        sent = time.perf_counter()
        pad.send_uid(uid)
        latencies.append((run.wait("verdict") - sent) * 1000)
    rss, peak = run.memory()
    run.stop()
    pad.close()
    return {"p50": statistics.median(latencies), "p99": percentile(latencies, 99),
            "max": max(latencies), "ready": ready, "rss": rss, "peak": peak}


def long_bench(root: Path, taps: int, points: int = 10) -> list[dict[str, float]]:
    """Memory and pace over ``taps`` taps, at ``points`` points along the way."""
    folder = root / "long"
    pad = table(folder, "normal")
    run = Run(folder)
    run.wait("ready")
    rows = []
    every = max(1, taps // points)
    script = scripted_taps(PLAYERS, taps, seed=1)
    since = time.perf_counter()
    for n, (_, uid) in enumerate(script, start=1):
        pad.send_uid(uid)
        run.wait("verdict")
        if n % every == 0 or n == taps:
            now = time.perf_counter()
            rss, peak = run.memory()
            rows.append({"taps": n, "rss": rss, "peak": peak, "pace": every / (now - since),
                         "state_bytes": run.state_bytes})
            since = now
    run.stop()
    pad.close()
    return rows


def cold_starts(root: Path, times: int) -> list[float]:
    out = []
    for i in range(times):
        folder = root / f"cold-{i}"
        pad = table(folder, "full")
        run = Run(folder)
        out.append(run.wait("ready") - run.started)
        run.stop()
        pad.close()
    return out


def resume_bench(root: Path, events: int) -> dict[str, float]:
    """A journal of ``events`` inputs with a snapshot every 500 inputs, as the daemon writes
    it; timed: the daemon's resume (from the snapshot) and a full replay (no usable one)."""
    setup = MatchSetup(PLAYERS, make_options(target=0), 0, (ReaderRole("pad", "play"),),
                       virtual_deck())
    path = root / "resume" / "journal.sqlite3"
    path.parent.mkdir(parents=True)
    ref = setup.referee()
    journal = Journal(path, sync="normal")
    journal.begin(setup)
    for n, (reader, uid) in enumerate(scripted_taps(PLAYERS, events, seed=2), start=1):
        item = TagRead(reader, uid)
        journal.append(item, feed_referee(ref, item).journal_word)
        if n % 500 == 0:
            journal.save_snapshot(*freeze(ref))
    journal.close()
    out: dict[str, float] = {"rounds": len(ref.state.results)}
    for how in ("snapshot", "replay"):
        walls, cpus = [], []
        for _ in range(5):
            wall, cpu = time.perf_counter(), time.process_time()
            journal = Journal(path)
            record = journal.last_match()
            assert record is not None
            snap = journal.snapshot(record) if how == "snapshot" else None
            resumed = resume(record.setup, record.inputs, snap)
            journal.close()
            walls.append(time.perf_counter() - wall)
            cpus.append(time.process_time() - cpu)
        assert resumed.state == ref.state and resumed.places == ref.places
        out[f"{how}_wall"] = statistics.median(walls)
        out[f"{how}_cpu"] = statistics.median(cpus)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--taps", type=int, default=1000)
    parser.add_argument("--resume-events", type=int, default=10000)
    parser.add_argument("--long", type=int, default=0, metavar="N",
                        help="measure memory and pace over N taps instead")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        try:
            if args.long:
                run_long(Path(tmp), args.long)
            else:
                run_all(Path(tmp), args.taps, args.resume_events)
        finally:
            for proc in STARTED:  # nothing left running, even after an error
                if proc.poll() is None:
                    proc.kill()
    return 0


def run_long(root: Path, taps: int) -> None:
    print(f"a long evening: {taps} taps of one match, sync=normal")
    print("    taps   RSS MB  peak MB  taps/s  state event bytes")
    for r in long_bench(root, taps):
        print(f"  {r['taps']:>6.0f}  {r['rss']:>7.1f}  {r['peak']:>7.1f}  {r['pace']:>6.0f}  "
              f"{r['state_bytes']:>17.0f}")


def run_all(root: Path, taps: int, resume_events: int) -> None:
    print(f"tap-to-verdict over {taps} taps (UID line on a pty -> verdict event)")
    for sync in ("full", "normal"):
        r = taps_bench(root, taps, sync)
        print(f"  sync={sync:<6} p50 {r['p50']:.2f} ms  p99 {r['p99']:.2f} ms  "
              f"max {r['max']:.1f} ms  (target p99 <= 5 ms)")
        print(f"  sync={sync:<6} resident memory after the taps: {r['rss']:.1f} MB, "
              f"peak {r['peak']:.1f} MB (target <= 60 MB)")
    starts = cold_starts(root, 5)
    print(f"cold start to ready: median {statistics.median(starts) * 1000:.0f} ms, "
          f"max {max(starts) * 1000:.0f} ms over {len(starts)} starts")
    r = resume_bench(root, resume_events)
    print(f"resume a journal of {resume_events} inputs ({r['rounds']:.0f} rounds), "
          "median of 5 (target <= 500 ms):")
    for how in ("snapshot", "replay"):
        print(f"  from {how:<8}: {r[how + '_wall'] * 1000:.0f} ms "
              f"(CPU {r[how + '_cpu'] * 1000:.0f} ms)")


if __name__ == "__main__":
    sys.exit(main())
