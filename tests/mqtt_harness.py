"""A real Mosquitto (Debian's) on a free loopback port, and a listener that waits for messages.

Nothing here sleeps: the broker is up when it says so on its log, a message has come when the
listener has it.
"""

from __future__ import annotations

import json
import os
import pwd
import queue
import shutil
import socket
import subprocess
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Broker:
    """``mosquitto -c FILE``; ``extra`` lines go into its configuration (an ACL, a password
    file). Stop and start it again on the same port as often as a test likes: as the broker of
    an evening should, it keeps sessions and retained messages across a restart."""

    def __init__(self, folder: Path, extra: str = "") -> None:
        self.port = free_port()
        self.config = folder / "mosquitto.conf"
        anonymous = "false" if "password_file" in extra else "true"
        self.config.write_text(
            f"listener {self.port} 127.0.0.1\nallow_anonymous {anonymous}\npersistence true\n"
            f"persistence_location {folder}/\nuser {pwd.getpwuid(os.getuid()).pw_name}\n"
            f"log_dest stderr\nlog_type all\n{extra}\n", encoding="utf-8")
        self.proc: subprocess.Popen[str] | None = None
        self.log: list[str] = []
        self._logged = threading.Condition()

    def start(self) -> None:
        self.proc = subprocess.Popen(["mosquitto", "-c", str(self.config)],
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.log.append(line)
            if " running" in line:
                break
        else:
            raise AssertionError("mosquitto did not start: " + "".join(self.log[-10:]))
        threading.Thread(target=self._pump, args=(self.proc,), daemon=True).start()

    def _pump(self, proc: subprocess.Popen[str]) -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            with self._logged:
                self.log.append(line)
                self._logged.notify_all()

    def wait_for_log(self, text: str, timeout: float = 30.0) -> None:
        """Wait until the broker's log has a line holding ``text`` (what it has done, such as
        ``Client NAME disconnected.``: it may still be reading what came before it)."""
        with self._logged:
            if not self._logged.wait_for(lambda: any(text in line for line in self.log),
                                         timeout):
                raise AssertionError(f"the broker never logged {text!r}; last: "
                                     f"{self.log[-5:]}")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(10)
        self.proc = None


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[Broker]:
    if shutil.which("mosquitto") is None:
        pytest.fail("mosquitto is not installed: sh .ci/sysdeps.sh test")
    b = Broker(tmp_path)
    b.start()
    yield b
    b.stop()


@dataclass
class Heard:
    topic: str
    payload: bytes
    retain: bool

    def json(self) -> Any:
        return json.loads(self.payload)


@dataclass
class Listener:
    """A client subscribed to ``topics``; every message it gets, in order."""

    port: int
    topics: tuple[str, ...] = ("#",)
    username: str | None = None
    password: str | None = None
    seen: list[Heard] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._queue: queue.Queue[Heard] = queue.Queue()
        self._subscribed = threading.Event()
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
        if self.username:
            self.client.username_pw_set(self.username, self.password)
        self.client.on_connect = lambda c, *a: c.subscribe([(t, 1) for t in self.topics])
        self.client.on_subscribe = lambda *a: self._subscribed.set()
        self.client.on_message = lambda c, u, m: self._queue.put(
            Heard(m.topic, bytes(m.payload), bool(m.retain)))
        self.client.connect("127.0.0.1", self.port)
        self.client.loop_start()
        assert self._subscribed.wait(10), "the listener could not subscribe"

    def wait_for(self, match: Callable[[Heard], bool], timeout: float = 30.0) -> Heard:
        for heard in self.seen:
            if match(heard):
                return heard
        while True:
            try:
                heard = self._queue.get(timeout=timeout)
            except queue.Empty:
                raise AssertionError(f"no such message within {timeout} s; last: "
                                     f"{[h.topic for h in self.seen[-5:]]}") from None
            self.seen.append(heard)
            if match(heard):
                return heard

    def drain(self) -> list[Heard]:
        while True:
            try:
                self.seen.append(self._queue.get_nowait())
            except queue.Empty:
                return self.seen

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()
