"""The table configuration the real-table tests read."""

from __future__ import annotations

from pathlib import Path

from rig import load_rig

from table.readers.factory import ReaderSpec
from table.runtime.controls import SeatPins


def test_example_configuration_is_read_as_written() -> None:
    rig = load_rig(Path(__file__).with_name("example-table.toml"), capture=None)
    assert rig.readers == [
        ReaderSpec("pad", "mfrc522", role="play", bus=0, device=0, reset_pin=25,
                   extra={"speed_hz": 4000000}),
        ReaderSpec("shoe", "mfrc522", role="draw", bus=0, device=1, reset_pin=24,
                   extra={"speed_hz": 4000000}),
        ReaderSpec(
            "Aki", "mfrc522", role="seat", seat="Aki", bus=0, device=0, reset_pin=23,
            extra={"cs_pin": 4, "speed_hz": 4000000},
        ),
    ]  # fmt: skip
    assert rig.seats == [
        SeatPins({"uno": 2, "draw": 3}, led=6),
        SeatPins({"uno": 14, "draw": 15}, led=12),
        SeatPins({"uno": 16, "draw": 17}, led=13),
    ]
    assert rig.buzzer == 5 and rig.seat_names == ["Aki", "Ken", "Mio"]
