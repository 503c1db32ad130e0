"""The scenario language as a user writes it: what a file's last lines do, and lift lines."""

from __future__ import annotations

from table.scenario import replay_text

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
