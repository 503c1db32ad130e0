"""Every golden scenario under tests/scenarios replays to its expected outcomes."""

from __future__ import annotations

from pathlib import Path

import pytest
from scenario_check import check

HERE = Path(__file__).resolve().parent
SCENARIOS = sorted((HERE / "scenarios").glob("*.scn"))


@pytest.mark.parametrize("path", SCENARIOS, ids=[p.stem for p in SCENARIOS])
def test_golden_scenario(path: Path) -> None:
    check(path)


def test_corpus_is_not_empty() -> None:
    assert len(SCENARIOS) >= 1
