"""A serial-line reader on a real pty, unplugged and replugged mid-game."""

from __future__ import annotations

import os
import queue
from pathlib import Path

from table.readers.base import Read, ReaderStatus, Report
from table.readers.serial_reader import SerialReader


class Pty:
    """A pseudo-terminal standing in for a USB reader, reachable by a stable link."""

    def __init__(self, link: Path) -> None:
        self.master, self.slave = os.openpty()
        if link.is_symlink():
            link.unlink()
        link.symlink_to(os.ttyname(self.slave))

    def send(self, data: bytes) -> None:
        os.write(self.master, data)

    def unplug(self) -> None:
        os.close(self.master)
        os.close(self.slave)


def next_report(q: queue.Queue[Report], kind: type) -> Report:
    while True:
        item = q.get(timeout=10)
        if isinstance(item, kind):
            return item


def test_reads_survive_unplug_and_replug(tmp_path: Path) -> None:
    link = tmp_path / "usb-reader"
    reports: queue.Queue[Report] = queue.Queue()
    pty = Pty(link)
    reader = SerialReader("pad", str(link), "serial-line", reports.put, backoff=(0.05,), hold=0)
    reader.start()
    try:
        status = next_report(reports, ReaderStatus)
        assert isinstance(status, ReaderStatus) and status.state == "connecting"
        status = next_report(reports, ReaderStatus)
        assert isinstance(status, ReaderStatus) and status.state == "live"
        pty.send(b"UID: 04:A1:B2:C3\r\n")
        read = next_report(reports, Read)
        assert isinstance(read, Read) and read.uid == "04A1B2C3"

        pty.unplug()
        status = next_report(reports, ReaderStatus)
        assert isinstance(status, ReaderStatus) and status.state == "lost"

        pty = Pty(link)  # plugged back in: a new device under the same stable name
        status = next_report(reports, ReaderStatus)
        assert isinstance(status, ReaderStatus) and status.state == "live"
        pty.send(b"04A1B2C4\n")
        read = next_report(reports, Read)
        assert isinstance(read, Read) and read.uid == "04A1B2C4"
    finally:
        reader.stop()
        pty.unplug()


def test_a_card_resting_on_a_pad_is_one_read() -> None:
    from table.readers.base import Debounce

    d = Debounce(hold=1.0, misses=3)
    assert d.seen("04A1B2C3", 0.0)
    assert not d.seen("04A1B2C3", 0.5)  # the module repeats while the card rests
    assert not d.seen("04A1B2C3", 1.2)
    assert d.seen("04A1B2C4", 1.3)  # another card
    assert not d.miss() and not d.miss() and d.miss()  # removed after three empty polls
    assert d.seen("04A1B2C4", 1.4)  # placed again: a new read
