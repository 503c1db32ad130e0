"""Readers are made by config kind; an unknown kind names the allowed ones."""

from __future__ import annotations

import pytest

from table.inputs import ReaderStatus, Report, TagRead
from table.readers.factory import ReaderError, ReaderSpec, SimReader, make_reader


def test_unknown_kind_lists_the_allowed_ones() -> None:
    with pytest.raises(ReaderError, match=r"unknown kind 'nfc'; allowed: .*serial-line"):
        make_reader(ReaderSpec("pad", "nfc"), lambda r: None)


def test_serial_kind_needs_a_port() -> None:
    with pytest.raises(ReaderError, match="needs a port"):
        make_reader(ReaderSpec("pad", "serial-line"), lambda r: None)


def test_sim_reader_reads_a_resting_card_once() -> None:
    got: list[Report] = []
    reader = make_reader(ReaderSpec("pad", "sim"), got.append)
    assert isinstance(reader, SimReader)
    reader.start()
    reader.place("04a1b2c3")
    reader.place("04A1B2C3")  # still resting there
    reader.remove()
    reader.tap("04A1B2C3")  # placed again: a new read
    reads = [r for r in got if isinstance(r, TagRead)]
    assert [r.uid for r in reads] == ["04A1B2C3", "04A1B2C3"]
    assert isinstance(got[0], ReaderStatus) and got[0].state == "live"
