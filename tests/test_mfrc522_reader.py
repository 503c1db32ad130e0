"""The ``mfrc522`` reader backend: the real package on simulated chips and tags, readers in
their own threads on CE0, CE1 and a GPIO chip select."""

from __future__ import annotations

import platform
import queue
import sys
import time
from collections.abc import Iterator
from typing import Any

import pytest

from sim.hardware.mfrc522_model import VirtualTag
from sim.hardware.rpi_fakes import BOARD, SimBoard, simulated_pi
from table.inputs import ReaderStatus, Report, TagLifted, TagRead
from table.readers.factory import Reader, ReaderError, ReaderSpec, make_reader
from table.readers.iso14443 import REQA


@pytest.fixture
def board() -> Iterator[SimBoard]:
    with simulated_pi() as board:
        yield board


def next_report(q: queue.Queue[Report], kind: type, timeout: float = 10) -> Any:
    while True:
        item = q.get(timeout=timeout)
        if isinstance(item, kind):
            return item


def started(spec: ReaderSpec, q: queue.Queue[Report]) -> Reader:
    reader = make_reader(spec, q.put)
    reader.start()
    return reader


@pytest.fixture
def slow_cpu() -> Iterator[None]:
    """Threads take turns every 10 us rather than every 5 ms: a reader thread is interrupted
    in its first set-up and poll by the next reader being made, as on a slow CPU (an emulated
    arm64 Pi), where on a fast one it finishes them first."""
    before = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)
    yield
    sys.setswitchinterval(before)


@pytest.mark.usefixtures("slow_cpu")
def test_two_readers_read_4_and_7_byte_tags_at_once(board: SimBoard) -> None:
    pad = board.add_chip(ce=0)
    shoe = board.add_chip(ce=1)
    seat = board.add_chip(cs_pin=5)  # a third reader on a GPIO chip select, borrowing CE0's node
    pad.place(VirtualTag.of("04A1B2C3"))
    shoe.place(VirtualTag.of("04112233445566"))  # an NTAG sticker
    seat.place(VirtualTag.of("04AABBCCDDEEF0"))
    q: queue.Queue[Report] = queue.Queue()
    readers = [
        started(ReaderSpec("pad", "mfrc522", device=0, reset_pin=25), q),
        started(ReaderSpec("shoe", "mfrc522", device=1, reset_pin=25), q),
        started(ReaderSpec("Aki", "mfrc522", device=0, extra={"cs_pin": 5}), q),
    ]
    try:
        reads = {}
        while len(reads) < 3:
            read = next_report(q, TagRead)
            reads[read.reader] = read.uid
    finally:
        for reader in readers:
            reader.stop()
    assert reads == {"pad": "04A1B2C3", "shoe": "04112233445566", "Aki": "04AABBCCDDEEF0"}
    assert board.gpio.cleanups == 0  # Close_MFRC522 never called
    assert 15 not in board.gpio.directions  # 0.0.7's default reset pin (the UART's RXD) untouched


def test_a_resting_card_is_one_read_and_a_card_put_back_later_is_a_new_one(
    board: SimBoard,
) -> None:
    from table.readers.mfrc522_reader import Mfrc522Reader

    later = [0.0]  # the reader's clock runs ahead of the chip's when the test says so
    chip = board.add_chip(ce=0)
    q: queue.Queue[Report] = queue.Queue()
    reader = Mfrc522Reader(
        "pad", q.put, role="seat", poll=0.005, clock=lambda: time.monotonic() + later[0]
    )
    reader.start()
    try:
        assert next_report(q, ReaderStatus).state == "connecting"
        assert next_report(q, ReaderStatus).state == "live"
        tag = chip.place(VirtualTag.of("04112233445566"))
        assert next_report(q, TagRead).uid == "04112233445566"
        chip.wait_frames(10, REQA)  # ten more polls with the card resting on the pad
        assert q.empty()
        chip.remove(tag)
        chip.place(tag)  # put back at once: the same placement as far as anyone can tell
        chip.wait_frames(10, REQA)
        assert q.empty()
        chip.remove(tag)
        later[0] = reader.guard.rule.forget + 1  # put back after a while: a new placement
        chip.place(tag)
        again = [q.get(timeout=10), q.get(timeout=10)]
        assert again == [TagLifted("pad", "04112233445566", again[0].t),
                         TagRead("pad", "04112233445566", again[1].t)]
    finally:
        reader.stop()


def test_a_read_card_stays_silent_until_it_comes_back(board: SimBoard) -> None:
    """0.0.7's request leaves a card in READY and reads alternate; a halted card stays silent
    while it rests, and answers again once it has left the field."""
    from table.readers.mfrc522_reader import Mfrc522Reader, read_uid

    chip = board.add_chip(ce=0)
    tag = chip.place(VirtualTag.of("04A1B2C3"))
    reader = Mfrc522Reader("pad", lambda r: None)
    polls = [read_uid(reader.chip) for _ in range(4)]
    assert polls == [bytes.fromhex("04A1B2C3"), None, None, None]
    chip.remove(tag)
    chip.place(tag)
    assert read_uid(reader.chip) == bytes.fromhex("04A1B2C3")
    reader.stop()


def test_the_pile_on_the_play_pad_does_not_hide_the_next_card(board: SimBoard) -> None:
    """Played cards pile up on the play pad: each new card is read, the pile stays silent."""
    from table.readers.mfrc522_reader import Mfrc522Reader, read_uid

    chip = board.add_chip(ce=0)
    reader = Mfrc522Reader("pad", lambda r: None)
    pile = ["04A1B2C3", "04112233445566", "0411223344AA66", "08CAFE01"]
    for uid in pile:
        chip.place(VirtualTag.of(uid))
        assert read_uid(reader.chip) == bytes.fromhex(uid)
        assert read_uid(reader.chip) is None
    assert len(chip.tags) == 4
    reader.stop()


def test_two_new_cards_at_once_are_both_read_and_never_as_a_third(board: SimBoard) -> None:
    from table.readers.mfrc522_reader import Mfrc522Reader, read_uid

    chip = board.add_chip(ce=0)
    reader = Mfrc522Reader("pad", lambda r: None)
    chip.place(VirtualTag.of("04A1B2C3"))  # their UIDs first differ at bit 2 (the one with a 1
    chip.place(VirtualTag.of("0811B2C3"))  # there is taken first); ORed they would be 0CB1B2C3
    polls = [read_uid(reader.chip) for _ in range(3)]
    assert polls == [bytes.fromhex("04A1B2C3"), bytes.fromhex("0811B2C3"), None]
    reader.stop()


def test_an_empty_pad_costs_a_few_transfers(board: SimBoard) -> None:
    from table.readers.mfrc522_reader import Mfrc522Reader, read_uid

    board.add_chip(ce=0)
    reader = Mfrc522Reader("pad", lambda r: None)
    before = reader.port.transfers
    assert read_uid(reader.chip) is None
    assert reader.port.transfers - before < 40  # 0.0.7's own request: about 2,000
    reader.stop()


def test_a_reader_unplugged_and_plugged_back_is_announced_and_reads_again(
    board: SimBoard,
) -> None:
    from table.readers.mfrc522_reader import Mfrc522Reader

    chip = board.add_chip(ce=0)
    q: queue.Queue[Report] = queue.Queue()
    reader = Mfrc522Reader("pad", q.put, poll=0.005, backoff=(0.01,))
    reader.start()
    try:
        assert next_report(q, ReaderStatus).state == "connecting"
        assert next_report(q, ReaderStatus).state == "live"
        chip.unplug()
        assert next_report(q, ReaderStatus).state == "lost"
        chip.plug()  # powers up with its antenna off: the reader sets it up again
        assert next_report(q, ReaderStatus).state == "live"
        chip.place(VirtualTag.of("04A1B2C3"))
        assert next_report(q, TagRead).uid == "04A1B2C3"
    finally:
        reader.stop()


def test_a_chip_reset_under_a_running_reader_is_set_up_again(board: SimBoard) -> None:
    """A pulse on the readers' reset line between two polls (another program's GPIO.cleanup(),
    a dip in the supply) resets the chip: it still answers, but with its antenna off. The
    reader sets it up again instead of staying live and deaf."""
    chip = board.add_chip(ce=0)
    q: queue.Queue[Report] = queue.Queue()
    reader = started(ReaderSpec("pad", "mfrc522", extra={"poll": 0.005}), q)
    try:
        assert next_report(q, ReaderStatus).state == "connecting"
        assert next_report(q, ReaderStatus).state == "live"
        chip.wait_frames(2, REQA)
        with board.lock:  # between two transfers
            board.gpio.output(25, 0)
            board.gpio.output(25, 1)
        assert not chip.antenna_on
        chip.place(VirtualTag.of("04A1B2C3"))
        assert next_report(q, TagRead).uid == "04A1B2C3"
        assert q.empty()  # no lost and live: the chip never stopped answering
    finally:
        reader.stop()


def test_pins_are_converted_when_the_process_uses_board_numbering(board: SimBoard) -> None:
    import RPi.GPIO as GPIO

    GPIO.setmode(GPIO.BOARD)  # set by some other part of the program
    chip = board.add_chip(cs_pin=6, reset_pin=24)
    chip.place(VirtualTag.of("04A1B2C3"))
    q: queue.Queue[Report] = queue.Queue()
    reader = started(ReaderSpec("pad", "mfrc522", reset_pin=24, extra={"cs_pin": 6}), q)
    try:
        assert next_report(q, TagRead).uid == "04A1B2C3"
    finally:
        reader.stop()
    assert board.gpio.mode == BOARD


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        (ReaderSpec("pad", "mfrc522", device=2), r"no SPI device /dev/spidev0\.2: enable SPI"),
        (ReaderSpec("pad", "mfrc522", bus=9), r"bus = 9 is not an SPI bus \(0-6\)"),
        (ReaderSpec("pad", "mfrc522", reset_pin=40), r"reset_pin = 40 is not a BCM GPIO"),
        (ReaderSpec("pad", "mfrc522", extra={"cs_pin": 10}), r"cs_pin = 10 is a pin of SPI"),
        (
            ReaderSpec("pad", "mfrc522", reset_pin=5, extra={"cs_pin": 5}),
            "cs_pin and reset_pin are both GPIO5",
        ),
        (ReaderSpec("pad", "mfrc522", extra={"speed": 1}), "unknown key 'speed'.*allowed: bus"),
        (ReaderSpec("pad", "mfrc522", extra={"confirm": 0}), r"confirm = 0 is not a count"),
        (ReaderSpec("pad", "mfrc522", extra={"poll": "fast"}), r"poll = 'fast' is not a time"),
    ],
)
def test_a_config_error_is_one_line(board: SimBoard, spec: ReaderSpec, message: str) -> None:
    with pytest.raises(ReaderError, match=message) as info:
        make_reader(spec, lambda r: None)
    assert "\n" not in str(info.value) and str(info.value).startswith("reader pad: ")
    assert isinstance(info.value, ValueError)


@pytest.mark.skipif(
    platform.machine() not in ("x86_64", "AMD64"), reason="RPi.GPIO imports on a Pi"
)
def test_off_a_pi_the_real_rpi_gpio_refusal_is_one_line() -> None:
    """Without the simulated Pi, the real RPi.GPIO refuses to import on this machine."""
    with pytest.raises(ReaderError, match=r"^reader pad: RPi\.GPIO cannot run here: ") as info:
        make_reader(ReaderSpec("pad", "mfrc522"), lambda r: None)
    assert "\n" not in str(info.value)



def test_cards_on_an_spi_pad_are_refereed_once_each(board: SimBoard) -> None:
    """The pad's reader feeds the referee: a card left resting on the pad while the turn
    passes is not played again, and the next card played there is refereed."""
    from pad_table import pad_referee, refereed, uid

    from table.inputs import Input
    from table.referee.referee import Outcome
    from table.runtime.loop import TableLoop

    ref = pad_referee("R1 R2 W", "R3 R4 B1")
    verdicts: queue.Queue[tuple[str, str | None]] = queue.Queue()

    def listener(item: Input, out: Outcome) -> None:
        if isinstance(item, TagRead):
            verdicts.put((out.verdict, out.reason))

    loop = TableLoop(refereed(ref, listener), tick_every=60)
    loop.start()
    chip = board.add_chip(ce=0)
    reader = make_reader(ReaderSpec("pad", "mfrc522", extra={"poll": 0.005}), loop.put)
    reader.start()
    try:
        aki = chip.place(VirtualTag.of(uid(ref, "R1#1")))  # an NTAG sticker: 7-byte UID
        assert verdicts.get(timeout=10) == ("accepted", None)
        chip.wait_frames(10, REQA)  # Aki's card stays on the pad for ten polls
        chip.remove(aki)
        chip.place(VirtualTag.of(uid(ref, "R3#1")))  # Ken plays on it
        assert verdicts.get(timeout=10) == ("accepted", None)
        chip.wait_frames(3, REQA)
    finally:
        reader.stop()
        loop.stop()
    assert verdicts.empty()  # no second verdict for a resting card
    assert ref.state.top is not None and ref.state.top.code == "R3"
    assert [len(h) for h in ref.state.hands] == [2, 2]
