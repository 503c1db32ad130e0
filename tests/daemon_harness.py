"""A real ``uno-table run`` process on a table of pty readers, and its event stream."""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from sim.hardware.ptys import PtyReader, sim_config

Event = dict[str, Any]


def write_config(folder: Path, players: Sequence[str] = ("Aki", "Ken", "Mio"),
                 rules: str = 'preset = "official"\ntarget = 0', extra: str = "",
                 journal: str = "") -> Path:
    """A simulated table: one play pad on a pty link ``pad`` in ``folder``, the virtual deck,
    captions only, the journal in ``folder``."""
    config = folder / "table.toml"
    config.write_text(sim_config(players, rules, journal, extra), encoding="utf-8")
    return config


RUNNING: list[subprocess.Popen[str]] = []


def reap() -> None:
    """Kill what a failed test left running: an orphan daemon would keep reopening its pad's
    link, which a later test's new pty may reuse."""
    while RUNNING:
        proc = RUNNING.pop()
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)


class Daemon:
    """``uno-table run --config FILE --events -`` in a process of its own."""

    def __init__(self, config: Path, *args: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "table.commands.cli", "run", "--config", str(config),
             "--events", "-", *args],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, encoding="utf-8",
        )
        RUNNING.append(self.proc)
        self.events: queue.Queue[Event | None] = queue.Queue()
        self.seen: list[Event] = []
        self.stderr: list[str] = []
        threading.Thread(target=self._pump, daemon=True).start()
        threading.Thread(target=self._drain, daemon=True).start()

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.events.put(json.loads(line))
        self.events.put(None)

    def _drain(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.stderr.append(line)

    def wait_for(self, match: Callable[[Event], bool], timeout: float = 20.0) -> Event:
        """The next event that ``match`` accepts (earlier ones are kept in ``seen``)."""
        while True:
            try:
                event = self.events.get(timeout=timeout)
            except queue.Empty:
                raise AssertionError(f"no such event within {timeout} s; stderr: "
                                     + "".join(self.stderr[-20:])) from None
            if event is None:
                raise AssertionError("the daemon ended; stderr: " + "".join(self.stderr[-20:]))
            self.seen.append(event)
            if match(event):
                return event

    def wait_type(self, kind: str, timeout: float = 20.0) -> Event:
        return self.wait_for(lambda e: e["type"] == kind, timeout)

    def kill9(self) -> None:
        self.proc.kill()
        self.proc.wait(10)

    def stop(self) -> int:
        """SIGTERM; then every event up to the end of the stream is in ``seen``."""
        self.proc.terminate()
        code = self.proc.wait(20)
        while (event := self.events.get(timeout=20)) is not None:
            self.seen.append(event)
        return code


def tap_all(daemon: Daemon, pad: PtyReader, taps: Sequence[tuple[str, str]], first: int = 0
            ) -> dict[int, str]:
    """Tap each UID after the previous one's verdict; the verdicts by input number, counted
    from ``first`` (the inputs the match had already taken)."""
    verdicts = {}
    for i, (_, uid) in enumerate(taps, start=first + 1):
        pad.send_uid(uid)
        event = daemon.wait_type("verdict")
        assert event["n"] == i
        verdicts[i] = event["verdict"]
    return verdicts


def start(config: Path, pad: PtyReader, *args: str) -> tuple[Daemon, Event]:
    """Start a daemon and wait until it is ready to referee; returns it and its ready event."""
    daemon = Daemon(config, *args)
    ready = daemon.wait_type("ready")
    return daemon, ready


def refused(config: Path, wrap: Callable[[list[str]], list[str]] = list
            ) -> subprocess.CompletedProcess[str]:
    """``uno-table run`` expected to refuse to start: its exit code, events and stderr. A
    daemon that says ready instead, or does neither within 30 s (blocked), fails the test."""
    command = wrap([sys.executable, "-m", "table.commands.cli", "run", "--config", str(config),
                    "--events", "-"])
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            encoding="utf-8")
    RUNNING.append(proc)
    lines: queue.Queue[str | None] = queue.Queue()

    def pump() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.put(line)
        lines.put(None)

    threading.Thread(target=pump, daemon=True).start()
    out = []
    try:
        while (line := lines.get(timeout=30)) is not None:
            out.append(line)
            if json.loads(line)["type"] == "ready":
                raise AssertionError("the daemon started: " + "".join(out))
    except queue.Empty:
        raise AssertionError("the daemon neither refused nor started: " + "".join(out)) from None
    _, err = proc.communicate(timeout=20)
    return subprocess.CompletedProcess(command, proc.returncode, "".join(out), err)


def refusal(code: int, stderr: str) -> str:
    """The one line of a command that refused its input with exit code 2."""
    lines = stderr.strip().splitlines()
    assert code == 2 and len(lines) == 1, (code, stderr)
    return lines[0]
