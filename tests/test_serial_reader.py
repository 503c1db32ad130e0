"""Serial readers on real ptys: unplugged and replugged mid-game, and fed line noise."""

from __future__ import annotations

import logging
import queue
import random
from pathlib import Path

import pytest

from sim.hardware.serial_pty import SerialPty, bad_rdm6300_frame, interleave, mixed, truncated_line
from table.inputs import ReaderStatus, Report, TagRead
from table.readers.formats import rdm6300_frame
from table.readers.serial_reader import SerialReader


def next_report(q: queue.Queue[Report], kind: type) -> Report:
    while True:
        item = q.get(timeout=10)
        if isinstance(item, kind):
            return item


def wait_state(q: queue.Queue[Report], state: str) -> None:
    while True:
        status = next_report(q, ReaderStatus)
        if isinstance(status, ReaderStatus) and status.state == state:
            return


def test_reads_survive_unplug_and_replug(tmp_path: Path) -> None:
    link = tmp_path / "usb-reader"
    reports: queue.Queue[Report] = queue.Queue()
    pty = SerialPty(link)
    reader = SerialReader("pad", str(link), "serial-line", reports.put, backoff=(0.05,), hold=0)
    reader.start()
    try:
        status = next_report(reports, ReaderStatus)
        assert isinstance(status, ReaderStatus) and status.state == "connecting"
        status = next_report(reports, ReaderStatus)
        assert isinstance(status, ReaderStatus) and status.state == "live"
        pty.send(b"UID: 04:A1:B2:C3\r\n")
        read = next_report(reports, TagRead)
        assert isinstance(read, TagRead) and read.uid == "04A1B2C3"

        pty.unplug()
        status = next_report(reports, ReaderStatus)
        assert isinstance(status, ReaderStatus) and status.state == "lost"

        pty.plug()  # plugged back in: a new device under the same stable name
        status = next_report(reports, ReaderStatus)
        assert isinstance(status, ReaderStatus) and status.state == "live"
        pty.send(b"04A1B2C4\n")
        read = next_report(reports, TagRead)
        assert isinstance(read, TagRead) and read.uid == "04A1B2C4"
    finally:
        reader.stop()
        pty.close()


def test_a_card_resting_on_a_pad_is_one_read() -> None:
    from table.readers.base import Debounce

    d = Debounce(hold=1.0, misses=3)
    assert d.seen("04A1B2C3", 0.0)
    assert not d.seen("04A1B2C3", 0.5)  # the module repeats while the card rests
    assert not d.seen("04A1B2C3", 1.2)
    assert d.seen("04A1B2C4", 1.3)  # another card
    assert not d.miss() and not d.miss() and d.miss()  # removed after three empty polls
    assert d.seen("04A1B2C4", 1.4)  # placed again: a new read


def test_unplugged_mid_game_the_referee_loses_nothing(tmp_path: Path) -> None:
    """The reader thread feeds the referee's loop: plays before and after an unplug are
    refereed, and the disconnect and the return are announced."""
    from pad_table import pad_referee, refereed, uid

    from table.inputs import Input
    from table.referee.announcements import render
    from table.referee.referee import Outcome
    from table.runtime.loop import TableLoop

    ref = pad_referee("R1 R2 W", "R3 R4 B1")
    said: queue.Queue[str] = queue.Queue()
    verdicts: queue.Queue[tuple[str, str | None]] = queue.Queue()

    def listener(item: Input, out: Outcome) -> None:
        for a in out.announcements:
            said.put(render(a))
        if isinstance(item, TagRead):
            verdicts.put((out.verdict, out.reason))

    loop = TableLoop(refereed(ref, listener), tick_every=60)
    loop.start()
    link = tmp_path / "usb-pad"
    pty = SerialPty(link)
    live: queue.Queue[Report] = queue.Queue()

    def sink(report: Report) -> None:
        loop.put(report)
        live.put(report)

    reader = SerialReader("pad", str(link), "serial-line", sink, backoff=(0.05,), hold=0)
    reader.start()
    try:
        assert next_report(live, ReaderStatus).state == "connecting"  # type: ignore[union-attr]
        assert next_report(live, ReaderStatus).state == "live"  # type: ignore[union-attr]
        pty.send(uid(ref, "R1#1").encode() + b"\n")  # Aki plays
        assert verdicts.get(timeout=10) == ("accepted", None)
        pty.unplug()
        assert next_report(live, ReaderStatus).state == "lost"  # type: ignore[union-attr]
        pty.plug()
        assert next_report(live, ReaderStatus).state == "live"  # type: ignore[union-attr]
        pty.send(uid(ref, "R3#1").encode() + b"\n")  # Ken plays after the replug
        assert verdicts.get(timeout=10) == ("accepted", None)
    finally:
        reader.stop()
        loop.stop()
        pty.close()
    spoken = []
    while not said.empty():
        spoken.append(said.get())
    assert "The pad reader is disconnected." in spoken and "The pad reader is back." in spoken
    assert ref.state.top is not None and ref.state.top.code == "R3"
    assert [len(h) for h in ref.state.hands] == [2, 2]


def noisy_records(kind: str, rng: random.Random) -> tuple[list[str], list[bytes]]:
    """200 valid reads of distinct tags, with 200 broken ones among them."""
    if kind == "serial-line":
        uids = [f"04{rng.getrandbits(48):012X}" for _ in range(200)]
        lines = [f"UID: {':'.join(u[i : i + 2] for i in range(0, 14, 2))}" for u in uids]
        good = [f"\n{line}\r\n".encode() for line in lines]
        bad = [truncated_line(rng.choice(lines), rng) for _ in range(200)]
    else:
        uids = [f"{rng.getrandbits(40):010X}" for _ in range(200)]
        good = [rdm6300_frame(u) for u in uids]
        bad = [bad_rdm6300_frame(f"{rng.getrandbits(40):010X}") for _ in range(200)]
    return uids, mixed(rng, good, bad)


@pytest.mark.parametrize("kind", ["serial-line", "rdm6300"])
def test_100k_noise_bytes_through_a_reader_on_a_pty(tmp_path: Path, kind: str) -> None:
    """Noise, lines split across writes, truncated lines and bad checksums: no exception, no
    phantom read, every valid read reported, in order."""
    rng = random.Random(5)
    uids, records = noisy_records(kind, rng)
    stream = interleave(rng, records, 100_000)
    last = "04FFFFFFFF" if kind == "rdm6300" else "04FFFFFF"  # sent last, after the noise
    end = rdm6300_frame(last) if kind == "rdm6300" else f"\n{last}\n".encode()
    link = tmp_path / "usb-reader"
    pty = SerialPty(link)
    reports: queue.Queue[Report] = queue.Queue()
    reader = SerialReader("pad", str(link), kind, reports.put, backoff=(0.05,))
    reader.start()
    try:
        assert next_report(reports, ReaderStatus).state == "connecting"  # type: ignore[union-attr]
        assert next_report(reports, ReaderStatus).state == "live"  # type: ignore[union-attr]
        assert pty.send_in_pieces(stream + end, rng) > 600
        reads: list[str] = []
        while not reads or reads[-1] != last:
            read = next_report(reports, TagRead)
            assert isinstance(read, TagRead)
            reads.append(read.uid)
        assert reader.state == "live"  # never lost: the reader thread raised nothing
    finally:
        reader.stop()
        pty.close()
    assert reads == [*uids, last]
    assert reports.empty()


class Logged(logging.Handler):
    """The records of a logger, as they come (from any thread)."""

    def __init__(self, name: str) -> None:
        super().__init__(logging.DEBUG)
        self.records: queue.Queue[logging.LogRecord] = queue.Queue()
        self.logger = logging.getLogger(name)

    def emit(self, record: logging.LogRecord) -> None:
        self.records.put(record)

    def __enter__(self) -> Logged:
        self.logger.addHandler(self)
        return self

    def __exit__(self, *exc: object) -> None:
        self.logger.removeHandler(self)

    def wait_for(self, text: str) -> str:
        while True:
            message = self.records.get(timeout=10).getMessage()
            if text in message:
                return message


def test_a_port_is_one_programs_and_a_second_reader_waits_for_it(tmp_path: Path) -> None:
    """A second program on a reader's port would take some of its bytes (taps without a
    verdict): it is refused until the first lets go, and the log says why it waits."""
    link = tmp_path / "usb-reader"
    pty = SerialPty(link)
    first_reports: queue.Queue[Report] = queue.Queue()
    second_reports: queue.Queue[Report] = queue.Queue()
    first = SerialReader("pad", str(link), "serial-line", first_reports.put, backoff=(0.05,),
                         hold=0)
    second = SerialReader("doctor", str(link), "serial-line", second_reports.put,
                          backoff=(0.05,), hold=0)
    try:
        with Logged("table.readers.serial_reader") as log:
            first.start()
            wait_state(first_reports, "live")
            second.start()
            said = log.wait_for("in use by another program")
        assert said == f"reader doctor: {link} is in use by another program; waiting for it"
        uids = [f"04A1B2{i:02X}" for i in range(20)]
        for uid in uids:
            pty.send(f"{uid}\r\n".encode())
        got = [next_report(first_reports, TagRead) for _ in uids]
        assert [r.uid for r in got if isinstance(r, TagRead)] == uids
        assert all(not isinstance(r, TagRead) for r in list(second_reports.queue))

        first.stop()  # the port is free: the second reader takes it
        wait_state(second_reports, "live")
        pty.send(b"04A1B2FF\r\n")
        read = next_report(second_reports, TagRead)
        assert isinstance(read, TagRead) and read.uid == "04A1B2FF"
    finally:
        first.stop()
        second.stop()
        pty.close()
