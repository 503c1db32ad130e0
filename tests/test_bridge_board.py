"""End to end: the compiled firmware on a simulated board (simavr, four MFRC522 models), the
daemon's ``bridge`` backend on the board's pty."""

from __future__ import annotations

import queue
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from firmware_bridge.codec import Decoder, Frame, encode
from firmware_bridge.messages import ACK_STATUS, pack, unpack
from sim.hardware.avr_board import FIRMWARE_ELF, AvrBoard, build_board, build_firmware
from table.inputs import ReaderStatus, Report, TagLifted, TagRead
from table.readers.bridge import BridgePort, shared_port
from table.readers.factory import Reader, ReaderError, ReaderSpec, make_reader

# How long a wait may take before the test fails. The firmware runs in simavr, which a busy
# machine slows many times over: the waits are for events, and this bound only ends a test
# that will never see them.
BOUND = 60.0

UIDS = ["04A1B2C3", "04112233445566", "DEADBEEF", "04C0FFEE123456"]  # 4- and 7-byte UIDs
NAMES = ["pad", "Aki", "Ken", "shoe"]


@pytest.fixture(scope="session")
def built() -> None:
    build_firmware()
    build_board()


@pytest.fixture
def link(tmp_path: Path) -> Path:
    return tmp_path / "usb-bridge"


@pytest.fixture
def board(built: None, link: Path) -> Iterator[AvrBoard]:
    with AvrBoard(link) as b:
        yield b


class Table:
    """Four bridge readers on one board, as the daemon makes them from its config."""

    def __init__(self, link: Path, **extra: float) -> None:
        self.reports: queue.Queue[Report] = queue.Queue()
        self.readers: list[Reader] = [
            make_reader(
                ReaderSpec(name, "bridge", port=str(link), channel=ch, extra=extra),
                self.reports.put,
            )
            for ch, name in enumerate(NAMES)
        ]
        for reader in self.readers:
            reader.start()
        self.port: BridgePort = shared_port(str(link))

    def stop(self) -> None:
        for reader in self.readers:
            reader.stop()

    def wait_status(self, state: str, names: list[str] = NAMES, timeout: float = BOUND) -> None:
        waiting = set(names)
        deadline = time.monotonic() + timeout
        while waiting:
            item = self.reports.get(timeout=max(0.01, deadline - time.monotonic()))
            if isinstance(item, ReaderStatus) and item.state == state:
                waiting.discard(item.reader)
            assert not isinstance(item, TagRead), f"unexpected read {item}"

    def reads(self, count: int, timeout: float = BOUND) -> list[tuple[str, str]]:
        """The next ``count`` reads; statuses in between are skipped."""
        got: list[tuple[str, str]] = []
        deadline = time.monotonic() + timeout
        while len(got) < count:
            item = self.reports.get(timeout=max(0.01, deadline - time.monotonic()))
            if isinstance(item, TagRead):
                got.append((item.reader, item.uid))
        return got

    def board_time(self) -> int:
        return self.port.board.uptime_ms or 0

    def settle(self, ms: int = 800, timeout: float = BOUND) -> None:
        """Wait until the board's clock has moved ``ms`` on (three heartbeats, each repeating
        the tags present), then check that nothing but statuses came meanwhile."""
        start = self.board_time()
        self.until(lambda: self.board_time() >= start + ms, timeout)
        self.no_reads()

    def until(self, condition: Callable[[], bool], timeout: float = BOUND) -> None:
        deadline = time.monotonic() + timeout
        while not condition():
            assert time.monotonic() < deadline, "timed out"
            time.sleep(0.02)

    def no_reads(self) -> None:
        while not self.reports.empty():
            item = self.reports.get_nowait()
            assert not isinstance(item, TagRead), f"unexpected read {item}"


@pytest.fixture
def table(board: AvrBoard, link: Path) -> Iterator[Table]:
    t = Table(link)
    t.wait_status("live")
    yield t
    t.stop()


def test_firmware_fits_an_uno_with_room_to_spare(built: None) -> None:
    out = subprocess.run(["avr-size", str(FIRMWARE_ELF)], capture_output=True, text=True,
                         check=True).stdout.splitlines()[1].split()
    text, data, bss = (int(x) for x in out[:3])
    assert text + data < 16 * 1024  # half of 32 KB (less the Uno's 0.5 KB bootloader)
    assert data + bss < 1024  # half of the 2 KB RAM, the rest for the stack


def test_tags_on_four_readers_are_read_once_each(board: AvrBoard, table: Table) -> None:
    assert table.port.board.chips == (0x92, 0x92, 0x92, 0x92)
    for ch, uid in enumerate(UIDS):
        board.place(ch, uid)
    assert sorted(table.reads(4)) == sorted(zip(NAMES, UIDS, strict=True))
    table.settle()  # resting tags are repeated by the board, never read again
    for ch in range(4):
        board.remove(ch)
    table.until(lambda: table.port.board.present == [None] * 4)
    board.place(1, UIDS[0])  # a card moved to another pad is a new read
    board.place(2, UIDS[2])  # and so is a card put back where it was
    assert sorted(table.reads(2)) == [("Aki", UIDS[0]), ("Ken", UIDS[2])]
    table.settle()


def test_a_quick_tap_is_one_read(board: AvrBoard, table: Table) -> None:
    for _ in range(3):
        board.place(0, UIDS[1])
        assert table.reads(1) == [("pad", UIDS[1])]
        board.remove(0)
        table.until(lambda: table.port.board.present[0] is None)
    table.settle()


def test_a_board_reset_mid_game_loses_and_repeats_nothing(board: AvrBoard, table: Table) -> None:
    board.place(0, UIDS[0])
    board.place(1, UIDS[1])
    assert sorted(table.reads(2)) == [("Aki", UIDS[1]), ("pad", UIDS[0])]
    restarts = table.port.board.restarts
    board.reset()
    table.until(lambda: table.port.board.restarts == restarts + 1)
    table.settle(1000)  # the tags that stayed are found again but not reported again
    board.remove(0)
    board.place(0, UIDS[2])  # a new card on the play pad
    board.place(3, UIDS[3])
    assert sorted(table.reads(2)) == [("pad", UIDS[2]), ("shoe", UIDS[3])]
    board.remove(1)
    board.remove(3)
    board.reset()
    board.place(1, UIDS[0])  # another card placed while the board restarts
    assert table.reads(1) == [("Aki", UIDS[0])]
    table.settle(1000)
    board.place(3, UIDS[3])  # the card lifted during the restart, put back later
    assert table.reads(1) == [("shoe", UIDS[3])]
    table.settle()


def test_noise_on_the_line_loses_no_read_and_invents_none(board: AvrBoard, table: Table) -> None:
    expected: list[tuple[str, str]] = []
    for round_ in range(6):
        for ch in range(4):
            uid = UIDS[(ch + round_) % 4]
            board.place(ch, uid)
            board.noise(40)
            expected.append((NAMES[ch], uid))
        got = table.reads(4)
        for ch in range(4):
            board.remove(ch)
            board.noise(40)
        table.until(lambda: table.port.board.present == [None] * 4)
        assert sorted(got) == sorted(expected[-4:])
    table.settle()
    assert table.port.decoder.crc_errors + table.port.decoder.dropped > 0  # the noise was seen


def test_heartbeat_loss_is_a_disconnect_then_reads_resume(board: AvrBoard, link: Path) -> None:
    table = Table(link, heartbeat_timeout=0.6)
    try:
        table.wait_status("live")
        board.freeze()
        table.wait_status("lost")
        board.thaw()
        table.wait_status("live")
        board.place(3, UIDS[3])
        assert table.reads(1) == [("shoe", UIDS[3])]
    finally:
        table.stop()


def test_a_replaced_board_is_found_again_on_the_same_path(built: None, link: Path) -> None:
    first = AvrBoard(link)
    table = Table(link)
    try:
        table.wait_status("live")
        first.place(0, UIDS[0])
        assert table.reads(1) == [("pad", UIDS[0])]
        first.close()  # unplugged
        table.wait_status("lost")
        with AvrBoard(link) as second:  # plugged back in (a new pty behind the same path)
            second.place(0, UIDS[0])  # the card still on the play pad: played already
            table.wait_status("live")
            second.place(2, UIDS[2])
            assert table.reads(1) == [("Ken", UIDS[2])]
            second.place(0, UIDS[1])  # the next card played
            assert table.reads(1) == [("pad", UIDS[1])]
            table.settle()
    finally:
        table.stop()
        first.close()


def test_a_pause_mid_frame_loses_nothing_and_a_stray_sync_holds_nothing_for_long() -> None:
    """A frame may reach the host in pieces (USB packets, a busy machine): a pause of a few
    frame times in the middle keeps it; a stray sync byte on a line gone quiet is dropped, and
    the frame it held back comes out."""
    now = [0.0]
    port = BridgePort("unused", clock=lambda: now[0])
    reports: list[Report] = []
    port.attach(0, "pad", reports.append, transport=False)
    port.feed(encode(pack("info", seq=1, protocol=1, fw_major=1, fw_minor=0, reset_cause=0,
                          readers=4, uptime_ms=51, chips=bytes([0x92] * 4))))

    def tag(seq: int, placement: int, uid: str) -> bytes:
        return encode(pack("tag", seq=seq, reader=0, placement=placement, uid=bytes.fromhex(uid)))

    def reads() -> list[str]:
        return [r.uid for r in reports if isinstance(r, TagRead)]

    first = tag(2, 1, UIDS[0])
    port.feed(first[:1])
    now[0] += 0.06  # a reader's read timed out: the line has been quiet for 60 ms
    port.feed(b"")
    port.feed(first[1:])
    assert reads() == [UIDS[0]]
    port.feed(bytes([0xA5, 20]) + tag(3, 2, UIDS[2]))  # a sync and a length from noise
    port.feed(b"")
    assert reads() == [UIDS[0]]  # the frame waits behind the stray sync...
    now[0] += 0.3
    port.feed(b"")
    assert reads() == [UIDS[0], UIDS[2]]  # ...until the line has been quiet a while


def test_a_restart_whose_boot_frame_was_lost_is_set_up_again() -> None:
    """The board forgets the configured poll interval when it restarts; when its boot frame
    was lost the host asks who it is, and sets the interval again on the answer."""
    sent: list[str] = []

    class Line(BridgePort):
        def write(self, data: bytes) -> None:
            sent.extend(msg.name for msg in map(unpack, Decoder().feed(data)) if msg)

    port = Line("unused")
    port.poll_ms = 20
    port.attach(0, "pad", lambda report: None, transport=False)
    info = {"protocol": 1, "fw_major": 1, "fw_minor": 0, "reset_cause": 0, "readers": 4,
            "chips": bytes([0x92] * 4)}
    port.feed(encode(pack("info", seq=1, uptime_ms=51, **info)))
    port.feed(encode(pack("tag", seq=2, reader=0, placement=1, uid=bytes.fromhex(UIDS[0]))))
    assert sent == ["set_poll"]
    port.feed(encode(pack("tag", seq=1, reader=0, placement=1, uid=bytes.fromhex(UIDS[0]))))
    assert port.board.restarts == 1 and sent == ["set_poll", "get_info"]
    port.feed(encode(pack("info", seq=2, uptime_ms=60, **info)))
    assert sent == ["set_poll", "get_info", "set_poll"]


def test_the_board_keeps_real_time_through_a_reset(board: AvrBoard, link: Path) -> None:
    """The simulated board's clock never runs ahead of the wall clock, as a real board's cannot:
    its boot frame starts no sooner after a reset than the uptime it carries. (A boot simulated
    faster than real time was paid back by a pause in the middle of the boot frame, which the
    host then dropped.)"""
    import serial

    with serial.Serial(str(link), 115200, timeout=0.05) as line:
        for _ in range(3):
            line.reset_input_buffer()
            before = time.monotonic()
            board.reset()
            decoder, arrived = Decoder(), list[float]()
            deadline = before + BOUND
            while True:
                assert time.monotonic() < deadline, "no boot frame"
                byte = line.read(1)
                if not byte:
                    continue
                arrived.append(time.monotonic())
                frames = decoder.feed(byte)
                msg = unpack(frames[0]) if frames else None
                if msg is not None and msg.name == "boot":
                    break
            started = arrived[-len(encode(frames[0]))]  # when its first byte came
            assert started - before >= msg.num("uptime_ms") / 1000 - 0.002


def test_host_commands_ping_and_poll_interval(board: AvrBoard, table: Table) -> None:
    port = table.port
    assert port.request("ping", "pong", token=b"uno").raw("token") == b"uno"
    info = port.request("get_info", "info")
    assert info.num("readers") == 4 and info.num("protocol") == 1
    assert port.set_poll_interval(20)
    table.until(lambda: port.board.poll_ms == 20)  # the heartbeat reports the new interval
    assert not port.set_poll_interval(5)  # below 10 ms: refused, the interval stays
    port.write(bytes.fromhex("A50300A5FF13A5"))  # garbage on the board's input
    assert port.request("ping", "pong", token=b"again").raw("token") == b"again"
    table.until(lambda: port.board.poll_ms == 20)
    for frame, status in ((Frame(0, 0x41, b"\x05"), ACK_STATUS["bad_length"]),
                          (Frame(1, 0x55, b""), ACK_STATUS["unknown_command"])):
        port.write(encode(frame))
        ack = port.replies.get(timeout=BOUND)
        assert ack.name == "ack" and (ack.num("command"), ack.num("status")) == (
            frame.msg_id, status)


def test_the_configured_poll_interval_is_set_and_set_again_after_a_reset(
    board: AvrBoard, link: Path
) -> None:
    table = Table(link, poll_ms=20)
    try:
        table.wait_status("live")
        port = table.port
        table.until(lambda: port.board.poll_ms == 20)  # the board's default is 50
        table.until(lambda: (port.board.uptime_ms or 0) > 500)
        up = port.board.uptime_ms or 0
        board.reset()  # the board starts again with its default...
        table.until(lambda: (port.board.uptime_ms or up) < up)
        beats = port.board.heartbeats
        table.until(lambda: port.board.heartbeats >= beats + 2)
        assert port.board.poll_ms == 20  # ...and is told the configured interval again
    finally:
        table.stop()


RF_CFG = 0x26  # MFRC522 RFCfgReg: the receiver gain in bits 6-4


def test_the_configured_gain_reaches_every_chip_and_again_after_a_reset(
    board: AvrBoard, link: Path
) -> None:
    """``gain = 48`` in the config: the board is told (set_radio) and each chip's RFCfgReg
    holds RxGain 7, again once a reset has put the firmware's default (33 dB, 0x48) back."""
    table = Table(link, gain=48)
    try:
        table.wait_status("live")
        table.until(lambda: [board.register(r, RF_CFG) for r in range(4)] == [0x78] * 4)
        port = table.port
        table.until(lambda: (port.board.uptime_ms or 0) > 500)
        up = port.board.uptime_ms or 0
        board.reset()  # the firmware starts again with the build's gain...
        table.until(lambda: (port.board.uptime_ms or up) < up)
        beats = port.board.heartbeats
        table.until(lambda: port.board.heartbeats >= beats + 2)
        assert [board.register(r, RF_CFG) for r in range(4)] == [0x78] * 4  # ...told again
    finally:
        table.stop()


def test_the_configured_misses_hold_a_lift_back_on_the_boards_clock(
    board: AvrBoard, link: Path
) -> None:
    """``misses = 20`` at 50 ms polls: a card taken off is still there 600 ms of the board's
    time later (the build's 3 misses would have lifted it after 150 ms), then lifted."""
    table = Table(link, misses=20)
    try:
        table.wait_status("live")
        table.until(lambda: board.register(1, RF_CFG) == 0x48)  # told: gain stays 33 dB
        board.place(1, "04A1B2C3")
        assert table.reads(1) == [("Aki", "04A1B2C3")]
        board.remove(1)
        start = table.board_time()
        table.until(lambda: table.board_time() >= start + 600)
        assert not any(isinstance(r, TagLifted) for r in list(table.reports.queue))
        table.until(lambda: any(isinstance(r, TagLifted) for r in list(table.reports.queue)))
    finally:
        table.stop()


def test_a_bad_radio_setting_is_refused_by_the_board(board: AvrBoard, table: Table) -> None:
    port = table.port
    for fields in ({"reader": 0, "gain_db": 40, "misses": 3},
                   {"reader": 0, "gain_db": 33, "misses": 0},
                   {"reader": 4, "gain_db": 33, "misses": 3}):
        ack = port.request("set_radio", "ack", **fields)
        assert ack.num("status") == ACK_STATUS["bad_value"], fields
    assert [board.register(r, RF_CFG) for r in range(4)] == [0x48] * 4
    ack = port.request("set_radio", "ack", reader=3, gain_db=18, misses=3)
    assert ack.num("status") == ACK_STATUS["ok"] and board.register(3, RF_CFG) == 0x28


def test_a_board_too_old_for_set_radio_is_named_in_the_log(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Firmware 1.0 answers set_radio with unknown_command: the log says to reflash it."""
    port = BridgePort("unused")
    port.attach(0, "pad", lambda report: None, transport=False)
    port.feed(encode(pack("info", seq=1, protocol=1, fw_major=1, fw_minor=0, reset_cause=0,
                          readers=4, uptime_ms=51, chips=bytes([0x92] * 4))))
    with caplog.at_level("WARNING", logger="table.readers.bridge"):
        port.feed(encode(pack("ack", seq=2, command=0x43,
                              status=ACK_STATUS["unknown_command"])))
    assert [r.getMessage() for r in caplog.records] == [
        "bridge unused: the board refused gain and misses (firmware 1.0; 1.1 or later takes "
        "them): reflash it"]


def test_doctor_asks_the_board_for_its_firmware_and_chips(board: AvrBoard, link: Path) -> None:
    from table.commands.doctor import check_reader

    found = check_reader(ReaderSpec("Ken", "bridge", role="seat", seat="Ken", port=str(link),
                                    channel=2), timeout=BOUND)
    assert [f.line() for f in found] == [
        "ok   reader Ken (bridge, seat): live, board firmware 1.1, channel 2 chip version 0x92"
    ]


def test_a_reader_started_late_learns_the_board_is_live(board: AvrBoard, link: Path) -> None:
    reports: queue.Queue[Report] = queue.Queue()
    first = make_reader(ReaderSpec("pad", "bridge", port=str(link), channel=0), reports.put)
    first.start()
    late = make_reader(ReaderSpec("Ken", "bridge", port=str(link), channel=2), reports.put)
    try:
        while not (isinstance(r := reports.get(timeout=BOUND), ReaderStatus) and r.state == "live"):
            pass
        late.start()  # told at once, not at the port's next change
        status = reports.get_nowait()
        assert isinstance(status, ReaderStatus) and (status.reader, status.state) == ("Ken", "live")
    finally:
        late.stop()
        first.stop()


def test_a_channel_without_a_chip_is_reported_lost(built: None, link: Path) -> None:
    with AvrBoard(link, readers=3):
        table = Table(link)
        try:
            table.wait_status("live", NAMES[:3])
            assert table.port.board.chips == (0x92, 0x92, 0x92, 0)
        finally:
            table.stop()


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        (ReaderSpec("pad", "bridge", channel=0), "kind bridge needs a port"),
        (ReaderSpec("pad", "bridge", port="/dev/ttyUSB0"), "needs a channel from 0 to 3"),
        (ReaderSpec("pad", "bridge", port="/dev/ttyUSB0", channel=4), "got 4"),
        (ReaderSpec("pad", "bridge", port="/dev/ttyUSB0", channel=0,
                    extra={"heartbeat_timeout": "soon"}), "heartbeat_timeout must be"),
        (ReaderSpec("pad", "bridge", port="/dev/ttyUSB0", channel=0, extra={"poll": 20}),
         "unknown key 'poll' for kind bridge; allowed: heartbeat_timeout, poll_ms, gain, misses"),
        (ReaderSpec("pad", "bridge", port="/dev/ttyUSB0", channel=0, extra={"poll_ms": 5}),
         "poll_ms must be whole milliseconds from 10 to 1000; got 5"),
        (ReaderSpec("pad", "bridge", port="/dev/ttyUSB0", channel=0, extra={"gain": 40}),
         r"gain = 40 is not an MFRC522 receiver gain in dB \(18, 23, 33, 38, 43, 48\)"),
        (ReaderSpec("pad", "bridge", port="/dev/ttyUSB0", channel=0, extra={"gain": [48]}),
         r"gain = \[48\] is not an MFRC522 receiver gain"),
        (ReaderSpec("pad", "bridge", port="/dev/ttyUSB0", channel=0, extra={"misses": 21}),
         r"misses = 21 is not a count of empty polls \(1-20\)"),
        *(
            (ReaderSpec("pad", "bridge", port="/dev/ttyUSB0", channel=0, extra={key: 1}), told)
            for key, told in (
                ("fields", r"fields is built into the firmware: make TURN_FIELDS=0x0E"),
                ("speed_hz", r"speed_hz is fixed by the firmware at 8 MHz"),
                ("confirm", r"confirm is not a bridge setting"),
            )
        ),
    ],
)
def test_bad_bridge_config_is_refused_clearly(spec: ReaderSpec, message: str) -> None:
    with pytest.raises(ReaderError, match=message) as info:
        make_reader(spec, lambda report: None)
    assert "\n" not in str(info.value) and str(info.value).startswith("reader pad: ")


def test_two_readers_on_one_channel_are_refused(tmp_path: Path) -> None:
    port = str(tmp_path / "nothing-here")
    first = make_reader(ReaderSpec("pad", "bridge", port=port, channel=1), lambda r: None)
    second = make_reader(ReaderSpec("Aki", "bridge", port=port, channel=1), lambda r: None)
    first.start()
    try:
        with pytest.raises(ReaderError, match=r"channel 1 of .* is already reader pad"):
            second.start()
    finally:
        first.stop()


def test_the_referee_gets_each_play_once_through_a_reset_and_a_hang(
    board: AvrBoard, link: Path
) -> None:
    """The bridge feeds the referee's loop: a card resting on the play pad through a board
    reset is not played twice, a hung board is announced and its return too, and the next
    play is refereed."""
    from pad_table import RefereeLoop, pad_referee, uid

    ref = pad_referee("R1 R2 W", "R3 R4 B1")
    table = RefereeLoop(ref)
    table.loop.start()
    verdicts = table.verdicts
    statuses: queue.Queue[str] = queue.Queue()

    def sink(report: Report) -> None:
        table.loop.put(report)
        if isinstance(report, ReaderStatus):
            statuses.put(report.state)

    reader = make_reader(
        ReaderSpec("pad", "bridge", port=str(link), channel=0,
                   extra={"heartbeat_timeout": 0.6}),
        sink,
    )
    reader.start()
    port = shared_port(str(link))
    try:
        assert statuses.get(timeout=BOUND) == "connecting"
        assert statuses.get(timeout=BOUND) == "live"
        board.place(0, uid(ref, "R1#1"))  # Aki plays R1 and leaves it on the pad
        assert verdicts.get(timeout=BOUND) == ("accepted", None)
        restarts = port.board.restarts
        board.reset()
        deadline = time.monotonic() + BOUND
        while port.board.restarts == restarts or (port.board.uptime_ms or 0) < 1000:
            assert time.monotonic() < deadline, "the board did not come back"
            time.sleep(0.02)
        board.freeze()
        assert statuses.get(timeout=BOUND) == "lost"
        board.thaw()
        assert statuses.get(timeout=BOUND) == "live"
        board.remove(0)
        board.place(0, uid(ref, "R3#1"))  # Ken plays R3
        assert verdicts.get(timeout=BOUND) == ("accepted", None)
    finally:
        reader.stop()
        table.loop.stop()
    assert verdicts.empty()  # R1 was refereed once, not again after the reset
    spoken = table.spoken()
    assert "The pad reader is disconnected." in spoken and "The pad reader is back." in spoken
    assert ref.state.top is not None and ref.state.top.code == "R3"
    assert [len(h) for h in ref.state.hands] == [2, 2]


def test_the_board_command_refuses_a_bad_link_in_one_line(built: None, tmp_path: Path) -> None:
    import sys

    bad = tmp_path / "missing-dir" / "bridge"
    proc = subprocess.run([sys.executable, "-m", "sim.hardware.avr_board", "--link", str(bad)],
                          stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [
        f"avr_board: cannot make the link {bad}: No such file or directory"
    ]


def test_the_boards_port_is_held_by_one_program(table: Table, link: Path) -> None:
    """Another program opening the board's port (a second daemon, doctor) would take some of
    its frames: while the readers are live, the port is locked against it."""
    from table.readers.serial_reader import in_use

    assert in_use(str(link))
    table.stop()
    assert not in_use(str(link))
