"""Seeded self-play under every preset and forty option mixes traces exactly as pinned in
``engine_pins.json``: the legal actions listed (in order), the verdicts and reasons of arbitrary
actions, and every event (see ``engine_pins.py``)."""

from __future__ import annotations

import json

import pytest
from engine_pins import PINS, tables, trace

PINNED: dict[str, str] = json.loads(PINS.read_text(encoding="utf-8"))
TABLES = list(tables())


@pytest.mark.parametrize(("name", "options", "players"), TABLES, ids=[t[0] for t in TABLES])
def test_engine_traces_as_pinned(name: str, options: dict[str, object], players: int) -> None:
    assert name in PINNED, f"{name} is not pinned: run python tests/engine_pins.py"
    assert trace(options, players, 1) == PINNED[name], (
        f"self-play on table {name} no longer traces as pinned; if the change is meant, run "
        "python tests/engine_pins.py"
    )


def test_every_pin_has_its_table() -> None:
    assert sorted(PINNED) == sorted(name for name, _, _ in TABLES)
