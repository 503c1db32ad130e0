"""The fan-out: a process of its own writes the event stream to the pages, so that their
writes never share the daemon's interpreter with the referee. A page gets every event once
whichever process writes to it; a fan-out that dies hands its pages back to the daemon without
a gap; a killed daemon leaves no fan-out behind."""

from __future__ import annotations

import os
import re
import signal
import socket
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from daemon_harness import start, write_config
from web_harness import Client, Sse, WebDaemon, uid, web_daemon

from sim.hardware.ptys import PtyReader
from table.web.fanout import NUMBERS, RING, Fanout, framed, frames_message

BOUND = 60.0  # seconds a process may take to end on a busy machine


@pytest.fixture
def table(tmp_path: Path) -> Any:
    with web_daemon(tmp_path, "local_admin = false") as t:
        yield t


def numbers(frames: list[tuple[str | None, dict[str, Any]]]) -> list[int]:
    return [int(str(i).split("-")[1]) for i, _ in frames if i is not None]


def handed(t: WebDaemon, pages: int) -> None:
    """Wait until the fan-out writes to ``pages`` pages (a page is handed over once its first
    frame is out)."""
    deadline = time.monotonic() + BOUND
    while t.web.feed.relayed < pages:
        assert time.monotonic() < deadline, "the page was never handed to the fan-out"
        time.sleep(0.01)


def test_the_pages_are_written_by_a_process_of_their_own(table: WebDaemon) -> None:
    pages = [Sse(table.port) for _ in range(3)]
    firsts = []
    for page in pages:
        first_id, first = page.next()
        assert first["type"] == "snapshot"
        firsts.append(numbers([(first_id, first)])[0])
    handed(table, 3)
    relay = table.web.feed.relay
    assert relay is not None and relay.proc.pid != os.getpid()
    table.tap("R5#1")
    table.tap("R7#1")
    for page, first_no in zip(pages, firsts, strict=True):
        seen = page.until("verdict", input="tag", verdict="accepted")
        seen += page.until("verdict", input="tag", verdict="accepted")
        got = [first_no, *numbers(seen)]
        assert got == list(range(got[0], got[0] + len(got)))  # every event once, in order
    status = table.client.get("/api/admin/status", {"X-Api-Key": "correct-horse-battery"})[1]
    assert status["pages"] == 3 and status["fanout"] == 3


def test_a_fan_out_that_dies_hands_its_pages_back_without_a_gap(table: WebDaemon) -> None:
    page = Sse(table.port)
    snapshot_id, _ = page.next()
    handed(table, 1)
    table.tap("R5#1")
    seen = page.until("verdict", input="tag")
    relay = table.web.feed.relay
    assert relay is not None
    os.kill(relay.proc.pid, signal.SIGKILL)
    while page.frames.get(timeout=BOUND) is not None:  # the page's stream ends...
        pass
    table.tap("R7#1")  # ...while the table plays on
    again = Sse(table.port, last_event_id=seen[-1][0])  # the browser reconnects and resumes
    missed = again.until("verdict", input="tag")
    assert missed[0][1]["type"] != "snapshot"
    got = numbers([(snapshot_id, {}), *seen, *missed])
    assert got == list(range(got[0], got[0] + len(got)))  # nothing missed, nothing twice
    assert table.web.feed.relay is None and table.web.feed.relayed == 0  # written from here
    table.tap("R9#1")
    assert again.until("verdict", input="tag")[-1][1]["verdict"] == "accepted"


def handed_over(port: int) -> None:
    """Wait until the daemon at ``port`` has handed its page to the fan-out."""
    client = Client(port)
    deadline = time.monotonic() + BOUND
    while client.get("/api/admin/status")[1]["fanout"] < 1:  # (from the Pi itself: no key)
        assert time.monotonic() < deadline, "the page was never handed to the fan-out"
        time.sleep(0.01)


def children(pid: int) -> list[int]:
    found = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        found += [int(c) for c in (task / "children").read_text().split()]
    return found


def nice(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[16])


def ended(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return True
    return stat.rpartition(")")[2].split()[0] in ("Z", "X")


def test_a_killed_daemon_leaves_no_fan_out_running(tmp_path: Path) -> None:
    pad = PtyReader(tmp_path / "pad")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    config = write_config(tmp_path, extra=f'[web]\nenabled = true\nlisten = "127.0.0.1:{port}"\n')
    daemon, _ = start(config, pad)
    page = Sse(port)
    assert page.next()[1]["type"] == "snapshot"
    handed_over(port)
    pad.send_uid(uid("R5#1"))  # written by the fan-out: it is up
    page.until("verdict", input="tag")
    fanouts = children(daemon.proc.pid)
    assert len(fanouts) == 1
    # The referee comes first: the fan-out runs at a nice value 10 above the daemon's.
    assert nice(fanouts[0]) == min(19, nice(daemon.proc.pid) + 10)
    daemon.kill9()
    deadline = time.monotonic() + BOUND
    while not ended(fanouts[0]):
        assert time.monotonic() < deadline, "the fan-out outlived its daemon"
        time.sleep(0.05)
    pad.close()


def test_a_stop_signal_to_the_whole_group_stops_the_table_cleanly(tmp_path: Path) -> None:
    """A service manager's SIGTERM (or Ctrl-C at a terminal) reaches the fan-out too: it waits
    for the daemon to close its pages, and nobody is told that it ended early."""
    pad = PtyReader(tmp_path / "pad")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    config = write_config(tmp_path, extra=f'[web]\nenabled = true\nlisten = "127.0.0.1:{port}"\n')
    daemon, _ = start(config, pad, "--log-level", "warning")
    page = Sse(port)
    assert page.next()[1]["type"] == "snapshot"
    handed_over(port)
    pad.send_uid(uid("R5#1"))  # written by the fan-out: it is up
    page.until("verdict", input="tag")
    (fanout,) = children(daemon.proc.pid)
    os.kill(fanout, signal.SIGINT)
    os.kill(fanout, signal.SIGTERM)
    pad.send_uid(uid("R7#1"))  # the page still follows the table
    assert page.until("verdict", input="tag")[-1][1]["verdict"] == "accepted"
    assert daemon.stop() == 0
    assert "fan-out" not in "".join(daemon.stderr)
    deadline = time.monotonic() + BOUND
    while not ended(fanout):
        assert time.monotonic() < deadline, "the fan-out outlived its daemon"
        time.sleep(0.05)
    pad.close()


def test_a_page_that_keeps_up_survives_a_backlog_the_fan_out_reads_at_once() -> None:
    """The fan-out kept from the processor while the table went on (it runs at a lower
    priority than the referee) finds more events waiting than its ring keeps. A page whose
    connection takes all it is given still gets every one, in order, and is not let go."""
    daemon, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    browser, page_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    daemon.settimeout(BOUND)
    fan = Fanout(theirs)
    daemon.sendall(frames_message(1, []))
    socket.send_fds(daemon, [framed(NUMBERS.pack(b"P", 1, 0))], [page_end.fileno()])
    page_end.close()
    fan.read_control()
    assert fan.pages, "the page was not taken"
    total = RING * 3
    frames = [b"id: %d\n\n" % n for n in range(1, total + 1)]

    def bursts() -> None:  # the daemon's, all read before the fan-out's next round of writes
        for first in range(0, total, 100):
            daemon.sendall(frames_message(first + 1, frames[first:first + 100]))

    sender = threading.Thread(target=bursts, daemon=True)
    sender.start()
    theirs.settimeout(BOUND)  # a sender that stopped short fails the test, not hangs it
    while fan.newest < total:
        assert fan.read_control(), "the daemon's end went quiet"
    sender.join()
    fan.write_round(time.monotonic())

    daemon.setblocking(False)
    with pytest.raises(BlockingIOError):
        daemon.recv(64)  # the daemon was told of no page dropped
    assert 1 in fan.pages
    browser.settimeout(BOUND)
    got = b""
    while not got.endswith(b"id: %d\n\n\r\n" % total):
        got += browser.recv(1 << 16)
    assert re.findall(rb"id: (\d+)", got) == [b"%d" % n for n in range(1, total + 1)]
    for sock in (daemon, theirs, browser, *(p.sock for p in fan.pages.values())):
        sock.close()
