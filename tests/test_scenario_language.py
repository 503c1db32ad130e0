"""The scenario language as a user writes it: what a file's last lines do, and lift lines."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from table.errors import ScenarioError
from table.referee.scenario import replay_text

ROUND_ONE = """\
players Aki Ken Mio
dealer Aki
hand Aki Y1
hand Ken R6 R7
hand Mio R1
start R5
Ken plays R6
Ken uno
Mio plays R1
"""


def test_a_next_round_set_up_at_the_end_of_the_file_starts_the_round() -> None:
    text = ROUND_ONE + "next-round\nhand Aki B1 B2\nhand Ken B3 B4\nhand Mio B5 B6\nstart B9\n"
    result = replay_text(text).result()
    assert result["state"]["round"] == 2
    assert result["state"]["top"] == "B9"
    assert result["state"]["hands"] == {"Aki": 2, "Ken": 2, "Mio": 2}
    assert result["state"]["turn"] == "Aki"  # Mio won, Mio deals, Aki is on her left
    assert "Round 2. Mio deals." in result["steps"][-1]["announcements"]


def test_a_next_round_at_the_end_of_the_file_starts_the_round() -> None:
    result = replay_text(ROUND_ONE + "next-round\n").result()
    assert result["state"]["round"] == 2
    assert not result["state"]["finished"]


REFUSED_OUT_OF_TURN = """\
players Aki Ken Mio
dealer Mio
hand Aki B1 B2 B3
hand Ken R7 G2 G3
hand Mio 7
start R5
tap pad token:seat:2
tap pad R7#1
press Aki draw
press Aki pass
"""


def test_a_card_tapped_again_without_a_lift_is_still_on_the_pad() -> None:
    steps = replay_text(REFUSED_OUT_OF_TURN + "tap pad R7#1\n").result()["steps"]
    assert (steps[1]["verdict"], steps[1]["reason"]) == ("rejected", "not-your-turn")
    assert (steps[-1]["verdict"], steps[-1]["reason"]) == ("rejected", "still-on-pad")


def test_a_lifted_card_tapped_again_is_played() -> None:
    result = replay_text(REFUSED_OUT_OF_TURN + "lift pad R7#1\ntap pad R7#1\n").result()
    assert result["steps"][-1]["verdict"] == "accepted"
    assert result["state"]["top"] == "R7"
    assert result["state"]["turn"] == "Mio"
    # A lift is what a reader reports, not an action the referee judges: it takes no step.
    assert [s["input"] for s in result["steps"]][-2:] == ["press Aki pass", "tap pad R7#1"]


def test_a_lift_line_needs_a_reader_and_a_tag() -> None:
    with pytest.raises(ScenarioError, match=r"^<scenario>:11: 'lift' takes READER TAG$"):
        replay_text(REFUSED_OUT_OF_TURN + "lift pad\n")


def test_a_lift_from_a_reader_the_table_lacks_is_an_error() -> None:
    with pytest.raises(ScenarioError, match=r"^<scenario>:11: unknown reader 'mat': the "
                                            r"readers are pad, shoe, Aki, Ken, Mio$"):
        replay_text(REFUSED_OUT_OF_TURN + "lift mat R7#1\n")


def test_a_tap_on_a_reader_the_table_lacks_is_an_error_like_a_lift() -> None:
    with pytest.raises(ScenarioError, match=r"^<scenario>:11: unknown reader 'table': the "
                                            r"readers are pad, shoe, Aki, Ken, Mio$"):
        replay_text(REFUSED_OUT_OF_TURN + "tap table G5#1\n")


def test_a_tap_on_a_missing_reader_exits_2_from_the_command_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.scenario"
    path.write_text(REFUSED_OUT_OF_TURN + "tap table G5#1\n", encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "table.commands.cli", "replay", str(path)],
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 2, done.stdout + done.stderr
    assert f"{path}:11: unknown reader 'table'" in done.stderr


def test_a_card_named_twice_in_a_set_up_is_blamed_on_the_line_that_names_it() -> None:
    text = ("players Aki Ken\ndealer Aki\nhand Ken B3 B4\nhand Aki R0 R0 B1\nstart R5\n"
            "Ken plays B3\n")
    with pytest.raises(ScenarioError, match=r"^<scenario>:4: R0 is named 2 times in the set-up, "
                                            r"but the classic-108 deck has 1$"):
        replay_text(text)
