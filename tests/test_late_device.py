"""A reader whose device is not there when the table starts (a Pi that boots before its USB
bridge enumerates, a reader plugged in after boot) is a reader that is down, not a mistake in
the configuration: the daemon starts, says once (voice and event) that it waits for it, and
referees as soon as it is plugged in; unplugged and plugged in again mid-round, nothing is
lost. A path that can never be a device is still the one-line error, exit 2."""

from __future__ import annotations

import queue
from collections.abc import Iterator
from pathlib import Path

import pytest
from daemon_harness import Daemon, reap, refusal, refused, start, tap_all, write_config

from sim.hardware.ptys import PtyReader
from sim.hardware.serial_pty import SerialPty
from sim.players.scripted import scripted_taps
from table.inputs import ReaderStatus, Report, TagRead
from table.readers.serial_reader import SerialReader

PLAYERS = ("Aki", "Ken", "Mio")


@pytest.fixture(autouse=True)
def _reap() -> Iterator[None]:
    yield
    reap()


def statuses(q: queue.Queue[Report], until: str) -> list[str]:
    """The states reported up to and with ``until``; reads in between are skipped."""
    seen: list[str] = []
    while not seen or seen[-1] != until:
        item = q.get(timeout=20)
        if isinstance(item, ReaderStatus):
            seen.append(item.state)
    return seen


def test_a_reader_plugged_in_late_is_waited_for_and_said_once(tmp_path: Path) -> None:
    link = tmp_path / "usb-reader"
    reports: queue.Queue[Report] = queue.Queue()
    reader = SerialReader("pad", str(link), "serial-line", reports.put, backoff=(0.02,), hold=0)
    reader.start()
    try:
        assert statuses(reports, "waiting") == ["connecting", "waiting"]
        pty = SerialPty(link)  # plugged in
        assert statuses(reports, "live") == ["live"]  # "waiting" was said once, whatever tries
        pty.send(b"04A1B2C3\n")
        read = reports.get(timeout=20)
        assert isinstance(read, TagRead) and read.uid == "04A1B2C3"
        pty.close()
    finally:
        reader.stop()


def said(daemon: Daemon, key: str) -> int:
    return sum(e["type"] == "announcement" and e.get("key") == key for e in daemon.seen)


def test_the_daemon_waits_for_its_pad_and_loses_nothing_on_a_replug(tmp_path: Path) -> None:
    config = write_config(tmp_path)  # its pad: tmp_path/pad, not plugged in yet
    daemon = Daemon(config)
    event = daemon.wait_for(lambda e: e["type"] == "reader" and e["state"] == "waiting")
    assert event["reader"] == "pad" and "no device at" in event["detail"]
    daemon.wait_for(lambda e: e["type"] == "announcement" and e["key"] == "reader-waiting")
    pad = PtyReader(tmp_path / "pad")  # plugged in after the daemon started
    try:
        daemon.wait_for(lambda e: e["type"] == "reader" and e["state"] == "live")
        taps = scripted_taps(PLAYERS, 30, seed=4)
        before = tap_all(daemon, pad, taps[:15])
        pad.unplug()  # pulled out mid-round
        daemon.wait_for(lambda e: e["type"] == "reader" and e["state"] == "lost")
        pad.plug()
        daemon.wait_for(lambda e: e["type"] == "reader" and e["state"] == "live")
        after = tap_all(daemon, pad, taps[15:], first=15)
        assert sorted({**before, **after}) == list(range(1, 31))  # every tap refereed, once
        assert daemon.stop() == 0
        assert (said(daemon, "reader-waiting"), said(daemon, "reader-lost")) == (1, 1)
        assert said(daemon, "reader-back") == 2  # after the wait, and after the replug
        again, ready = start(config, pad)  # the journal has every one of them
        assert ready["inputs"] == 30
        assert again.stop() == 0
        # The log (the service's journal) says when the table can referee: a boot is timed to it
        assert any("ready: every reader live, 30 inputs in the journal" in line
                   for line in again.stderr)
    finally:
        pad.close()


@pytest.mark.parametrize(("port", "why"), [
    ("table.toml", "is a file, not a device"),
    ("table.toml/pad", "cannot be a device: a part of it is a file"),
    ("/dve/ttyUSB0", "cannot appear: its folder /dve does not exist"),
])
def test_a_path_that_can_never_be_a_device_is_exit_2(tmp_path: Path, port: str, why: str
                                                       ) -> None:
    config = write_config(tmp_path)
    config.write_text(config.read_text().replace('port = "pad"', f'port = "{port}"'))
    done = refused(config)
    assert done.returncode == 2
    assert why in refusal(done.returncode, done.stderr)
