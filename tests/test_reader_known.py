"""A polling reader given the deck's UIDs (``ReaderSpec.known``, as the daemon gives them)
takes any other UID for noise: never a read, whatever how long it rests on the pad."""

from __future__ import annotations

import queue

from sim.hardware.mfrc522_model import VirtualTag
from sim.hardware.rpi_fakes import simulated_pi
from table.inputs import Report, TagRead
from table.readers.factory import ReaderSpec, make_reader
from table.readers.iso14443 import REQA

DECK = {"04A1B2C3", "04112233445566"}


def test_a_uid_outside_the_deck_is_never_read() -> None:
    reports: queue.Queue[Report] = queue.Queue()
    with simulated_pi() as board:
        chip = board.add_chip(ce=0)
        spec = ReaderSpec("pad", "mfrc522", extra={"poll": 0.005}, known=DECK.__contains__)
        reader = make_reader(spec, reports.put)
        reader.start()
        try:
            stranger = chip.place(VirtualTag.of("08BADC0D"))  # a transit card, not the deck's
            chip.wait_frames(12, REQA)
            chip.remove(stranger)
            chip.place(VirtualTag.of("04112233445566"))
            while not isinstance(read := reports.get(timeout=10), TagRead):
                pass
        finally:
            reader.stop()
    assert read.uid == "04112233445566"  # the first read is the deck's card
    assert reader.guard.counts["noise"] >= 1  # the stranger was seen, ignored and halted
