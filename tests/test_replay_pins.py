"""Every scenario replays to exactly the JSON pinned for it (see ``replay_pins.py``).

The golden scenarios check what their ``#?``/``#=``/``#~`` lines name; this pins everything
else a replay says too (every verdict, reason and announcement, the final state and scores), so
a change to the engine that is meant to change nothing changes nothing.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from replay_pins import EXPECTED, ROOT, rendered, scenarios

PAIRS = scenarios()


@pytest.mark.parametrize(
    ("scn", "pin"), PAIRS, ids=[str(scn.relative_to(ROOT)) for scn, _ in PAIRS]
)
def test_replay_is_pinned(scn: Path, pin: Path) -> None:
    assert pin.exists(), f"{pin.relative_to(ROOT)} is missing: run python tests/replay_pins.py"
    got = rendered(scn)
    if got != pin.read_bytes():
        pytest.fail(
            f"{scn.relative_to(ROOT)} no longer replays as pinned in {pin.relative_to(ROOT)}; "
            "if the change is meant, run python tests/replay_pins.py and review git diff"
        )


def test_no_pin_without_its_scenario() -> None:
    wanted = {pin for _, pin in PAIRS}
    stale = sorted(str(p.relative_to(ROOT)) for p in EXPECTED.rglob("*.json") if p not in wanted)
    assert not stale, f"pins of scenarios that are gone: {stale}"


def test_the_examples_are_pinned_too() -> None:
    assert any(scn.parent.name == "examples" for scn, _ in PAIRS)
    assert len(PAIRS) > 100
