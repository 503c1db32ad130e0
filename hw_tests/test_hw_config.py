"""The table configuration the real-table tests read."""

from __future__ import annotations

from pathlib import Path

from rig import load_rig

from table.readers.factory import ReaderSpec
from table.runtime.controls import SeatPins


def test_example_configuration_is_read_as_written() -> None:
    rig = load_rig(Path(__file__).with_name("example-table.toml"), capture=None)
    assert rig.readers == [
        ReaderSpec("pad", "mfrc522", role="play", bus=0, device=0, reset_pin=25),
        ReaderSpec("shoe", "mfrc522", role="draw", device=1, reset_pin=25),
        ReaderSpec(
            "Aki", "mfrc522", role="seat", seat="Aki", device=0, reset_pin=25,
            extra={"cs_pin": 5},
        ),
    ]  # fmt: skip
    assert rig.seats == [
        SeatPins({"uno": 17, "draw": 27}, led=12),
        SeatPins({"uno": 22, "draw": 23}, led=13),
        SeatPins({"uno": 24, "draw": 4}, led=6),
    ]
    assert rig.buzzer == 26 and rig.seat_names == ["Aki", "Ken", "Mio"]
