"""The MFRC522 model driven by the real ``mfrc522`` package (0.0.7), unchanged, through the
fake ``spidev`` and the stub ``RPi.GPIO``: what a driver sees of a real chip and real cards."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from sim.hardware.mfrc522_model import Mfrc522Model, VirtualTag
from sim.hardware.rpi_fakes import BCM, BOARD, SimBoard, simulated_pi
from table.readers.iso14443 import bcc, crc_a


@pytest.fixture
def board() -> Iterator[SimBoard]:
    with simulated_pi() as board:
        yield board


def open_reader(board: SimBoard, device: int = 0) -> Any:
    import mfrc522

    return mfrc522.MFRC522(bus=0, device=device, pin_mode=BCM, pin_rst=25)


def request(reader: Any) -> int:
    status, _bits = reader.MFRC522_Request(reader.PICC_REQIDL)
    return int(status)


def test_init_finds_the_chip_and_switches_the_antenna_on(board: SimBoard) -> None:
    chip = board.add_chip(ce=0)
    reader = open_reader(board)
    assert reader.Read_MFRC522(0x37) == 0x92  # VersionReg of an MFRC522 v2
    assert reader.Read_MFRC522(0x14) & 0x03 == 0x03  # TxControlReg: antenna on
    assert chip.antenna_on
    reader.MFRC522_Reset()  # SoftReset: back to reset values, antenna off
    assert reader.Read_MFRC522(0x14) == 0x80


def test_an_empty_field_costs_0_0_7_about_2000_transfers(board: SimBoard) -> None:
    chip = board.add_chip(ce=0)
    reader = open_reader(board)
    before = chip.transfers
    assert request(reader) == reader.MI_ERR
    assert 2000 <= chip.transfers - before <= 2050  # its wait loop ignores TimerIRq


def test_a_four_byte_card_is_read_and_selected(board: SimBoard) -> None:
    chip = board.add_chip(ce=0)
    chip.place(VirtualTag.of("04A1B2C3"))
    reader = open_reader(board)
    status, bits = reader.MFRC522_Request(reader.PICC_REQIDL)
    assert (status, bits) == (reader.MI_OK, 16)  # ATQA, 16 bits
    status, uid = reader.MFRC522_Anticoll()
    assert status == reader.MI_OK and uid == [0x04, 0xA1, 0xB2, 0xC3, bcc(b"\x04\xa1\xb2\xc3")]
    assert reader.MFRC522_SelectTag(uid) == 0x08  # SAK of a MIFARE Classic


def test_level_one_of_a_seven_byte_uid_is_the_cascade_tag_and_three_bytes(
    board: SimBoard,
) -> None:
    chip = board.add_chip(ce=0)
    chip.place(VirtualTag.of("04112233445566"))
    reader = open_reader(board)
    assert request(reader) == reader.MI_OK
    status, uid = reader.MFRC522_Anticoll()
    assert status == reader.MI_OK and uid[:4] == [0x88, 0x04, 0x11, 0x22]
    assert reader.MFRC522_SelectTag(uid) == 0x04  # SAK: UID not complete, go to level 2
    reader.Write_MFRC522(0x0D, 0x00)
    status, part, _ = reader.MFRC522_ToCard(reader.PCD_TRANSCEIVE, [0x95, 0x20])
    assert status == reader.MI_OK and part == [0x33, 0x44, 0x55, 0x66, bcc(b"\x33\x44\x55\x66")]


def test_a_card_left_in_the_field_answers_every_other_request(board: SimBoard) -> None:
    chip = board.add_chip(ce=0)
    chip.place(VirtualTag.of("04A1B2C3"))
    reader = open_reader(board)
    statuses = []
    for _ in range(4):
        status = request(reader)
        if status == reader.MI_OK:
            reader.MFRC522_Anticoll()  # read, then left in READY
        statuses.append(status)
    assert statuses == [reader.MI_OK, reader.MI_ERR, reader.MI_OK, reader.MI_ERR]


def test_a_halted_card_ignores_reqa_and_wakes_on_wupa(board: SimBoard) -> None:
    chip = board.add_chip(ce=0)
    tag = chip.place(VirtualTag.of("04A1B2C3"))
    reader = open_reader(board)
    request(reader)
    _, uid = reader.MFRC522_Anticoll()
    reader.MFRC522_SelectTag(uid)
    assert tag.state == "ACTIVE"
    halt = [0x50, 0x00, *reader.CalulateCRC([0x50, 0x00])]
    assert halt == [0x50, 0x00, 0x57, 0xCD]  # HLTA with its CRC_A
    reader.Write_MFRC522(0x0D, 0x00)
    status, _, _ = reader.MFRC522_ToCard(reader.PCD_TRANSCEIVE, halt)
    assert status == reader.MI_ERR and tag.state == "HALT"  # never answered
    assert request(reader) == reader.MI_ERR
    status, bits = reader.MFRC522_Request(reader.PICC_REQALL)  # WUPA
    assert (status, bits) == (reader.MI_OK, 16) and tag.state == "READY"


def test_chip_crc_matches_crc_a() -> None:
    chip = Mfrc522Model()
    data = [0x93, 0x70, 0x04, 0xA1, 0xB2, 0xC3, 0xD4]
    for value in data:
        chip.write(0x09, value)
    chip.write(0x01, 0x03)  # CalcCRC
    assert chip.read(0x05) & 0x04  # DivIrqReg CRCIRq
    assert bytes((chip.read(0x22), chip.read(0x21))) == crc_a(data)
    assert crc_a([0x00, 0x00]) == b"\xa0\x1e" and crc_a([0x12, 0x34]) == b"\x26\xcf"


def test_two_cards_on_one_pad_collide(board: SimBoard) -> None:
    chip = board.add_chip(ce=0)
    chip.place(VirtualTag.of("04A1B2C3"))
    chip.place(VirtualTag.of("08112233"))
    reader = open_reader(board)
    assert request(reader) == reader.MI_OK  # the same ATQA from both
    status, _ = reader.MFRC522_Anticoll()
    assert status == reader.MI_ERR  # CollErr
    assert reader.Read_MFRC522(0x06) & 0x08


def test_a_chip_held_in_reset_answers_nothing(board: SimBoard) -> None:
    chip = board.add_chip(ce=0, reset_pin=24)  # wired to GPIO24, the driver drives GPIO25
    open_reader(board)
    assert chip.transfer([0x80 | (0x37 << 1), 0]) == [0, 0]
    assert not chip.powered


def test_transfers_reach_the_chip_on_their_chip_enable(board: SimBoard) -> None:
    first, second = board.add_chip(ce=0), board.add_chip(ce=1)
    second.place(VirtualTag.of("04A1B2C3"))
    on_ce0, on_ce1 = open_reader(board, 0), open_reader(board, 1)
    assert request(on_ce1) == on_ce1.MI_OK
    assert request(on_ce0) == on_ce0.MI_ERR
    assert first.sent[0x26] == 1 and second.sent[0x26] == 1


def test_gpio_stub_behaves_like_rpi_gpio(board: SimBoard) -> None:
    import RPi.GPIO as GPIO

    with pytest.raises(RuntimeError, match="setmode"):
        GPIO.setup(25, GPIO.OUT)
    GPIO.setmode(GPIO.BOARD)
    with pytest.raises(ValueError, match="different mode"):
        GPIO.setmode(GPIO.BCM)
    with pytest.raises(ValueError, match="invalid"):
        GPIO.setup(1, GPIO.OUT)  # physical pin 1 is 3.3 V
    GPIO.setup(22, GPIO.OUT, initial=GPIO.HIGH)  # physical 22 is GPIO25
    assert board.gpio.levels[25] == GPIO.HIGH and GPIO.getmode() == BOARD
    with pytest.raises(RuntimeError, match="OUTPUT"):
        GPIO.output(18, 1)
    GPIO.cleanup()
    assert board.gpio.cleanups == 1 and GPIO.getmode() is None


def test_opening_a_second_reader_does_not_reset_the_first_chip(board: SimBoard) -> None:
    """The driver sets up the shared reset line as an output, then drives it high: RPi.GPIO's
    setup without an initial level leaves a line that is already high as it is, so a chip
    already set up keeps its antenna on."""
    first_chip = board.add_chip(ce=0)
    board.add_chip(ce=1)
    first = open_reader(board, 0)
    assert first.Read_MFRC522(0x14) & 0x03 == 0x03  # antenna on
    open_reader(board, 1)
    assert first.Read_MFRC522(0x14) & 0x03 == 0x03 and first_chip.powered


def test_cleanup_powers_every_chip_down(board: SimBoard) -> None:
    """Why the backend never calls Close_MFRC522: it frees every pin of the process."""
    chips = [board.add_chip(ce=0), board.add_chip(ce=1)]
    first, _second = open_reader(board, 0), open_reader(board, 1)
    first.Close_MFRC522()
    assert not any(chip.powered for chip in chips)


def test_the_timer_raises_timer_irq_when_no_tag_answers() -> None:
    now = [0.0]
    chip = Mfrc522Model(clock=lambda: now[0])
    for reg, value in ((0x2A, 0x8D), (0x2B, 0x3E), (0x2D, 30), (0x14, 0x83)):
        chip.write(reg, value)  # TAuto, prescaler and reload as the package sets them; antenna
    chip.write(0x0D, 0x07)  # 7-bit frame
    chip.write(0x09, 0x26)  # REQA into the FIFO
    chip.write(0x01, 0x0C)  # Transceive
    chip.write(0x0D, 0x87)  # StartSend
    now[0] = 0.015  # the timer runs 31 ticks of 0.5 ms: 15.5 ms
    assert not chip.read(0x04) & 0x01
    now[0] = 0.016
    assert chip.read(0x04) & 0x21 == 0x01  # TimerIRq, no RxIRq
    chip.place(VirtualTag.of("04A1B2C3"))
    chip.write(0x04, 0x7F)  # clear the flags
    chip.write(0x09, 0x26)
    chip.write(0x0D, 0x87)
    now[0] = 1.0
    assert chip.read(0x04) & 0x21 == 0x20  # answered: RxIRq, the timer stopped
    assert [chip.read(0x09) for _ in range(chip.read(0x0A))] == [0x04, 0x00]  # ATQA
