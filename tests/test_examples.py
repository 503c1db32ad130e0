"""The example configurations are valid: each is loaded with its devices and deck file standing
in (a port must exist to be accepted; the mfrc522 and bridge kinds may come from other
backends' registrations)."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from table.readers import factory
from table.runtime.config import parse_config

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


@pytest.mark.parametrize("name", ["sim.toml", "spi-pad.toml", "bridge-four-seats.toml"])
def test_example_config_is_valid(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                 ) -> None:
    for kind in ("mfrc522", "bridge"):
        if kind not in factory.KINDS:
            monkeypatch.setitem(factory.KINDS, kind, "table.readers.factory:_sim")
    data = tomllib.loads((EXAMPLES / name).read_text(encoding="utf-8"))
    device = tmp_path / "device"
    device.symlink_to("/dev/null")  # a character device
    for reader in data["readers"]:
        if "port" in reader and not reader["port"].startswith("/dev/"):
            reader["port"] = str(device)  # a /dev path loads as it is, plugged in or not
    data["journal"]["path"] = str(tmp_path / "journal.sqlite3")
    if data["deck"]["file"] != "virtual":
        data["deck"]["file"] = "virtual"
    config = parse_config(data, EXAMPLES / name)
    assert config.readers[0].role == "play"
    if name == "bridge-four-seats.toml":
        assert [c.seat for c in config.controls] == [0, 1, 2, 3]
        assert all(c.led is not None and len(c.buttons) == 3 for c in config.controls)
        assert {r.seat for r in config.readers if r.role == "seat"} == set(config.players)
