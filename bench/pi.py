"""The table on a Pi Zero 2 W's budget: the daemon with the web view (and its fan-out, one page
following), the MQTT sender (a Mosquitto on this machine) and a simulated table, run under a
budget that stands for the Pi beside the same run unrestricted.

    python bench/pi.py [--taps 200] [--runs 3] [--gap 0.1] [--callgrind]
    python bench/pi.py --runs 0 --callgrind        (the instructions per tap alone)

The budget: one core (CPU affinity), a quarter of it (the cgroup v1 cpu controller,
cfs_quota_us = cfs_period_us / 4, with a 10 ms period: with the default 100 ms, a process that
has spent its 25 ms waits up to 75 ms, a stall no slower core makes) and 400 MB of memory (the
memory controller). The daemon is
put into a new cgroup before it starts, so the fan-out it starts is in it too. Where the
controllers cannot be used (not root, no cgroup v1), the run says so in ``budget_by`` and keeps
only what worked (the affinity always does).

Per run: ``ready_s`` (start to the ``ready`` event), ``tap_p50_ms`` / ``tap_p99_ms`` (a UID line
on the play pad's pty to the verdict event, a tap every ``--gap`` seconds), ``rss_total_mb`` (the
resident memory of the daemon and its fan-out after the taps), ``cpu_ms_per_tap`` (their CPU
time over the taps, divided by the taps). One JSON object with the median of the runs for
``budget`` and ``unrestricted``, and every run. ``--callgrind`` adds the instructions the daemon
executes per tap (valgrind's callgrind, counters zeroed once the daemon is ready), a figure a
reader can scale to a real board by its instructions per second.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from daemon import PLAYERS, percentile  # bench/daemon.py
from mqtt_harness import Broker  # tests/mqtt_harness.py

from sim.hardware.ptys import PtyReader, sim_config
from sim.players.scripted import scripted_taps

CGROUP_CPU = Path("/sys/fs/cgroup/cpu")
CGROUP_MEMORY = Path("/sys/fs/cgroup/memory")
PERIOD_US = 10_000  # CFS period: a slower core is throttled finely, not in 75 ms stalls
MEMORY_LIMIT = 400 * 1024 * 1024


class Budget:
    """A cgroup pair (cpu, memory) for one run, and the core the run is held to."""

    def __init__(self, name: str) -> None:
        self.dirs: list[Path] = []
        self.by: list[str] = ["one core (CPU affinity)"]
        for root, files, what in (
            (CGROUP_CPU, {"cpu.cfs_period_us": PERIOD_US, "cpu.cfs_quota_us": PERIOD_US // 4},
             f"a quarter of it (cgroup v1 cpu: cfs_quota_us {PERIOD_US // 4} of {PERIOD_US})"),
            (CGROUP_MEMORY, {"memory.limit_in_bytes": MEMORY_LIMIT},
             "400 MB (cgroup v1 memory.limit_in_bytes)"),
        ):
            folder = root / name
            try:
                folder.mkdir(exist_ok=True)
                for file, value in files.items():
                    (folder / file).write_text(str(value))
            except OSError as exc:
                self.by.append(f"not {what}: {exc.strerror}")
                continue
            self.dirs.append(folder)
            self.by.append(what)

    def enter(self) -> None:
        """In the child, before exec: join the cgroups, take one core."""
        for folder in self.dirs:
            (folder / "cgroup.procs").write_text(str(os.getpid()))
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})

    def remove(self) -> None:
        """Remove the run's cgroups (once its processes are gone)."""
        for folder in self.dirs:
            with contextlib.suppress(OSError):  # a process of the run not gone yet
                folder.rmdir()


def tree(pid: int) -> list[int]:
    """``pid`` and its children (the fan-out)."""
    out = [pid]
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                out.append(int(entry.name))
    return out


def rss_mb(pids: list[int]) -> float:
    """The resident memory of ``pids`` together, in MB."""
    total = 0
    for pid in pids:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                total += int(line.split()[1])
    return total / 1024


def cpu_s(pids: list[int]) -> float:
    """The user and system time of ``pids`` together, in seconds."""
    total = 0
    for pid in pids:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")


def free_port() -> int:
    """A TCP port free on the loopback."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Daemon:
    """``uno-table run --events -`` on a simulated table, with [web] and [mqtt] on."""

    def __init__(self, folder: Path, broker: int, budget: Budget | None,
                 wrap: list[str] | None = None) -> None:
        self.web = free_port()
        extra = (f'[web]\nenabled = true\nlisten = "127.0.0.1:{self.web}"\n\n'
                 f'[mqtt]\nhost = "127.0.0.1"\nport = {broker}\ntable = "1"\n')
        (folder / "table.toml").write_text(
            sim_config(PLAYERS, "target = 0", 'sync = "normal"', extra), encoding="utf-8")
        self.started = time.perf_counter()
        self.proc = subprocess.Popen(
            [*(wrap or []), sys.executable, "-m", "table.commands.cli", "run", "--config",
             str(folder / "table.toml"), "--events", "-", "--log-level", "warning"],
            stdout=subprocess.PIPE, text=True, preexec_fn=budget.enter if budget else None,
        )
        self.events: list[tuple[float, str]] = []
        self.cond = threading.Condition()
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            kind = json.loads(line)["type"]
            with self.cond:
                self.events.append((time.perf_counter(), kind))
                self.cond.notify_all()

    def wait(self, kind: str, after: int, timeout: float = 600.0) -> tuple[float, int]:
        """The time of the first ``kind`` event at or after index ``after``, and the index
        after it."""
        with self.cond:
            while True:
                for i in range(after, len(self.events)):
                    if self.events[i][1] == kind:
                        return self.events[i][0], i + 1
                after = len(self.events)
                if not self.cond.wait(timeout):
                    raise TimeoutError(f"no {kind} event within {timeout} s")

    def follow(self) -> socket.socket:
        """A page following the table's events: the fan-out serves it."""
        sock = socket.create_connection(("127.0.0.1", self.web), timeout=60)
        sock.sendall(b"GET /api/events HTTP/1.1\r\nHost: bench\r\n\r\n")

        def drain() -> None:
            while sock.recv(65536):
                pass

        threading.Thread(target=lambda: _quietly(drain), daemon=True).start()
        return sock

    def stop(self) -> None:
        """Stop the daemon as a service manager does (SIGTERM)."""
        self.proc.terminate()
        try:
            self.proc.wait(60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def _quietly(work: Any) -> None:
    with contextlib.suppress(OSError):  # the page closed at the end of the run
        work()


def one_run(root: Path, taps: int, gap: float, budget: Budget | None) -> dict[str, float]:
    """One run: the daemon started (in ``budget``), ``taps`` taps, its figures."""
    folder = Path(tempfile.mkdtemp(dir=root))
    broker = Broker(folder)
    broker.start()
    pad = PtyReader(folder / "pad")
    daemon = Daemon(folder, broker.port, budget)
    try:
        ready, seen = daemon.wait("ready", 0, timeout=120)
        page = daemon.follow()
        pids = tree(daemon.proc.pid)
        cpu = cpu_s(pids)
        latencies = []
        for _, uid in scripted_taps(PLAYERS, taps, seed=1):
            time.sleep(gap)
            sent = time.perf_counter()
            pad.send_uid(uid)
            at, seen = daemon.wait("verdict", seen)
            latencies.append((at - sent) * 1000)
        pids = tree(daemon.proc.pid)
        result = {
            "ready_s": round(ready - daemon.started, 2),
            "tap_p50_ms": round(statistics.median(latencies), 2),
            "tap_p99_ms": round(percentile(latencies, 99), 2),
            "rss_total_mb": round(rss_mb(pids), 1),
            "processes": len(pids),
            "cpu_ms_per_tap": round((cpu_s(pids) - cpu) / taps * 1000, 2),
        }
        page.close()
        return result
    finally:
        daemon.stop()
        pad.close()
        broker.stop()


def instructions_per_tap(root: Path, taps: int, gap: float) -> float:
    """The daemon's instructions per tap under callgrind (counters zeroed once ready)."""
    folder = Path(tempfile.mkdtemp(dir=root))
    broker = Broker(folder)
    broker.start()
    pad = PtyReader(folder / "pad")
    out = folder / "callgrind.out"
    daemon = Daemon(folder, broker.port, None,
                    ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}"])
    try:
        _, seen = daemon.wait("ready", 0, timeout=1800)
        control = ["callgrind_control"]
        subprocess.run([*control, "--zero", str(daemon.proc.pid)], check=True,
                       capture_output=True)
        for _, uid in scripted_taps(PLAYERS, taps, seed=1):
            time.sleep(gap)
            pad.send_uid(uid)
            _, seen = daemon.wait("verdict", seen, timeout=600)
        subprocess.run([*control, "--dump", str(daemon.proc.pid)], check=True,
                       capture_output=True)
    finally:
        daemon.stop()
        pad.close()
        broker.stop()
    dumps = sorted(folder.glob("callgrind.out*"), key=lambda p: p.stat().st_mtime)
    for dump in dumps:  # the dump made on request holds the taps only
        text = dump.read_text(errors="replace")
        if "Trigger: Client Request" in text or "trigger" in text.lower():
            for line in text.splitlines():
                if line.startswith("summary:") or line.startswith("totals:"):
                    return int(line.split()[1]) / taps
    raise RuntimeError("callgrind wrote no dump of the taps")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--taps", type=int, default=200)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--gap", type=float, default=0.1, help="seconds between taps")
    parser.add_argument("--callgrind", action="store_true")
    args = parser.parse_args()
    report: dict[str, Any] = {"taps": args.taps, "runs": {"budget": [], "unrestricted": []}}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for n in range(args.runs):
            for mode in ("unrestricted", "budget"):
                budget = Budget(f"uno-table-pi-bench-{os.getpid()}-{n}") if mode == "budget" \
                    else None
                try:
                    row = one_run(root, args.taps, args.gap, budget)
                finally:
                    if budget is not None:
                        report["budget_by"] = budget.by
                        budget.remove()
                report["runs"][mode].append(row)
                print(f"{mode} run {n + 1}: {json.dumps(row)}", file=sys.stderr, flush=True)
        for mode, rows in report["runs"].items():
            if rows:
                report[mode] = {key: statistics.median(r[key] for r in rows) for key in rows[0]}
        if args.callgrind:
            report["instructions_per_tap"] = round(instructions_per_tap(root, 20, args.gap))
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
