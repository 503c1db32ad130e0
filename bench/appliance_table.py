"""The table's hardware outside the guest, and the guest's configuration of it.

- The bridge: the bridge's firmware run in simavr (sim/hardware/avr_board.py) on a pty, which
  qemu carries into the guest as a USB serial device (``qemu-xhci`` and ``usb-serial``, an
  FTDI chip to the guest's kernel) on USB port 1, so udev names it under /dev/serial/by-path
  as it would on a Pi. Plugged at boot, or later through QMP (``plug``/``unplug``).
- The verdicts, seen outside the guest: the daemon's web event stream (Server-Sent Events,
  ``GET /api/events``) through a port qemu forwards from the host.
- ``guest_config``: the installed example made the guest's, as docs/building.md tells a maker
  (the bridge's port its by-path name), and what a guest lacks: no SPI bus, so the play pad is
  the bridge's first reader and the seats the next three; no GPIO chip of a Pi, so the seat
  buttons on gpiozero's mock pins (the buttons scenario drives a real GPIO chip); the virtual
  deck, since no cards are enrolled; the web view on.
"""

from __future__ import annotations

import json
import tempfile
import threading
import time
import tomllib
import urllib.request
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import Any

from guest import ApplianceError, Guest, GuestError, free_port

from sim.hardware.avr_board import AvrBoard
from table.errors import TableError

DEVICE = "bridge-usb"  # the usb-serial device's QMP id
USB = ["-device", "qemu-xhci,id=xhci"]
WEB_PORT = 8080
# Where scripts/install-pi.sh puts the table in the guest: its venv, its state (the journal).
VENV = "/usr/local/lib/uno-table/venv"
STATE = "/var/lib/uno-table"


class EventFeed:
    """The daemon's web event stream, read on the host in a thread of its own."""

    def __init__(self, port: int) -> None:
        self.url = f"http://localhost:{port}/api/events"
        self.events: list[dict[str, Any]] = []
        self._new = threading.Condition()
        self._stop = False
        self.replayed = False
        threading.Thread(target=self._follow, daemon=True).start()

    def _follow(self) -> None:
        """Follow the stream; on the first connection, ask again from the stream's first event
        (``Last-Event-ID: EPOCH-0``), so what the daemon said before the host was connected
        (while the ring holds it) is seen too."""
        last = ""
        while not self._stop:
            request = urllib.request.Request(self.url)
            if last:
                request.add_header("Last-Event-ID", last)
            try:
                with urllib.request.urlopen(request, timeout=60) as stream:
                    kind = ""
                    for raw in stream:
                        line = raw.decode("utf-8", "replace").rstrip("\r\n")
                        if line.startswith("id:"):
                            last = line[3:].strip()
                            if not self.replayed and "-" in last:
                                last = last.rsplit("-", 1)[0] + "-0"
                                self.replayed = True
                                break
                        elif line.startswith("event:"):
                            kind = line[6:].strip()
                        elif line.startswith("data:"):
                            self._add(kind, line[5:].strip())
            except (OSError, ValueError):
                time.sleep(0.5)  # the guest's web not up yet, or restarting

    def _add(self, kind: str, data: str) -> None:
        try:
            event = json.loads(data)
        except ValueError:
            return
        if not isinstance(event, dict):
            return
        event.setdefault("type", kind)
        event["seen_at"] = time.monotonic()
        with self._new:
            self.events.append(event)
            self._new.notify_all()

    def wait(self, match: Callable[[dict[str, Any]], bool], timeout: float,
             start: int = 0) -> dict[str, Any] | None:
        """The first event from index ``start`` on that ``match``es, within ``timeout`` s."""
        deadline = time.monotonic() + timeout
        seen = start
        with self._new:
            while True:
                for event in self.events[seen:]:
                    if match(event):
                        return event
                seen = max(seen, len(self.events))
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                self._new.wait(left)

    def close(self) -> None:
        self._stop = True


class GuestTable:
    """The simulated bridge on the host and the forwarded web port, for one scenario."""

    def __init__(self, run: Any) -> None:
        self.run = run
        self.folder = Path(tempfile.mkdtemp(prefix="table-", dir=run.cache))
        self.port = free_port()
        self.board: AvrBoard | None = None
        self.feed: EventFeed | None = None

    def __enter__(self) -> GuestTable:
        try:
            self.board = AvrBoard(self.folder / "bridge")
        except TableError as exc:  # the firmware or the simulated board not built
            raise ApplianceError(f"the simulated bridge: {exc} (sudo sh .ci/sysdeps.sh "
                                 "appliance)") from None
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        if self.feed is not None:
            self.feed.close()
        if self.board is not None:
            self.board.close()

    def options(self, plugged: bool) -> dict[str, Any]:
        """Guest options: the USB controller, the bridge's character device (its device
        plugged in at boot when ``plugged``), the web port forwarded."""
        assert self.board is not None
        args = [*USB, "-chardev", f"serial,id=bridge,path={self.board.pty}"]
        if plugged:
            args += ["-device", self._device()]
        return {"qemu_args": args, "hostfwd": [f"tcp:127.0.0.1:{self.port}-:{WEB_PORT}"]}

    def plugged(self) -> dict[str, Any]:
        """``options`` with the bridge plugged in at boot."""
        return self.options(True)

    @staticmethod
    def _device() -> str:
        return f"usb-serial,chardev=bridge,id={DEVICE},bus=xhci.0,port=1"

    def plug(self, guest: Guest) -> None:
        """The bridge plugged in (QMP device_add)."""
        guest.qmp("device_add", driver="usb-serial", chardev="bridge", id=DEVICE,
                  bus="xhci.0", port="1")

    def unplug(self, guest: Guest, timeout: float = 30.0) -> None:
        """The bridge pulled out (QMP device_del), its removal awaited."""
        guest.qmp("device_del", id=DEVICE)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if any(e.get("event") == "DEVICE_DELETED" and
                   e.get("data", {}).get("device") == DEVICE for e in guest.events):
                guest.events.clear()
                return
            guest.qmp("query-status")  # reads the events that came meanwhile
            time.sleep(0.2)
        raise GuestError(f"the guest did not let go of {DEVICE} in {timeout:g} s")

    def follow(self) -> EventFeed:
        """The web event stream, followed from now on."""
        if self.feed is None:
            self.feed = EventFeed(self.port)
        return self.feed


def by_path(guest: Guest, timeout: float = 60.0) -> str:
    """The bridge's name under /dev/serial/by-path in the guest, once udev made it."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        code, out, _ = guest.run("ls /dev/serial/by-path/", 30)
        names = out.split()
        if code == 0 and names:
            return f"/dev/serial/by-path/{names[0]}"
        time.sleep(1.0)
    raise GuestError(f"no /dev/serial/by-path name for the bridge in {timeout:g} s")


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{k} = {_value(v)}" for k, v in value.items()) + " }"
    raise TypeError(f"no TOML for {value!r}")


def _table(name: str, body: dict[str, Any]) -> list[str]:
    lines = [f"[{name}]"]
    subtables = []
    for key, value in body.items():
        if isinstance(value, dict) and all(isinstance(v, dict) for v in value.values()) \
                and value:
            subtables += [(f"{name}.{key}.{k}", v) for k, v in value.items()]
        else:
            lines.append(f"{key} = {_value(value)}")
    for sub, inner in subtables:
        lines += ["", *_table(sub, inner)]
    return lines


def guest_config(installed: str, port: str) -> str:
    """The installed example's configuration, made the guest's (see the module's text)."""
    config = tomllib.loads(installed)
    seats = [r for r in config.pop("readers") if r.get("role") == "seat"]
    config["deck"] = {"file": "virtual"}
    config["rules"] = {"preset": "official", "target": 0}  # as the scripted taps play
    config["controls"]["pin_factory"] = "mock"
    config["web"] = {"enabled": True, "listen": f"0.0.0.0:{WEB_PORT}"}
    readers = [{"name": "pad", "role": "play", "kind": "bridge", "port": port, "channel": 0}]
    for channel, seat in enumerate(seats[:3], start=1):
        readers.append({**seat, "port": port, "channel": channel})
    lines = ["# The installed example made this guest's (bench/appliance_table.py)."]
    for name, body in config.items():
        lines += ["", *_table(name, body)]
    for reader in readers:
        lines += ["", "[[readers]]", *(f"{k} = {_value(v)}" for k, v in reader.items())]
    return "\n".join(lines) + "\n"
