"""The command line as a user meets it: replay, selfplay, and clear errors with exit code 2."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "table.commands.cli", *args],
        capture_output=True, text=True, cwd=ROOT,
    )


def test_sample_replays_with_announcements() -> None:
    out = run("replay", "examples/sample.scn")
    assert out.returncode == 0, out.stderr
    assert "Challenge upheld: guilty! Aki draws 4." in out.stdout
    assert "Sorry, that card does not match." in out.stdout


def test_replay_json_has_the_contract_keys() -> None:
    out = run("replay", "examples/sample.scn", "--json")
    data = json.loads(out.stdout)
    assert set(data) >= {"steps", "state", "rounds", "scores", "match_over"}
    step = data["steps"][0]
    assert set(step) == {"line", "input", "verdict", "reason", "announcements"}
    state = data["state"]
    for key in ("round", "turn", "direction", "top", "color", "pending_draw", "hands", "finished"):
        assert key in state
    assert state["top"] == "G2" and state["color"] == "green"


def test_malformed_line_is_file_line_message_exit_2(tmp_path: Path) -> None:
    scn = tmp_path / "bad.scn"
    scn.write_text("players Aki Ken\nstart R5\nAki flies R5\n")
    out = run("replay", str(scn))
    assert out.returncode == 2
    assert out.stderr.startswith(f"uno-table: {scn}:3: cannot read 'Aki flies R5'")
    assert "Traceback" not in out.stderr


def test_unknown_option_lists_what_is_allowed(tmp_path: Path) -> None:
    scn = tmp_path / "bad.scn"
    scn.write_text("players Aki Ken\nset uno_penalty=99\nstart R5\nAki plays R6\n")
    out = run("replay", str(scn))
    assert out.returncode == 2
    assert "2: option uno_penalty = '99' is not allowed: use a whole number from 0 to 10" in (
        out.stderr
    )


def test_bad_card_code_is_explained(tmp_path: Path) -> None:
    scn = tmp_path / "bad.scn"
    scn.write_text("players Aki Ken\nstart R5\nAki plays X9\n")
    out = run("replay", str(scn))
    assert out.returncode == 2
    assert ":3: unknown card code 'X9'" in out.stderr


def test_missing_file_is_one_line() -> None:
    out = run("replay", "no-such.scn")
    assert out.returncode == 2
    assert out.stderr == "uno-table: no-such.scn: no such scenario file\n"


def test_selfplay_same_seed_same_output() -> None:
    a = run("selfplay", "--games", "20", "--players", "3", "--seed", "7")
    b = run("selfplay", "--games", "20", "--players", "3", "--seed", "7")
    assert a.returncode == 0, a.stderr
    assert a.stdout == b.stdout
    summary = json.loads(a.stdout)
    assert summary["games"] == 20 and sum(summary["wins_per_seat"]) == 20
    assert summary["penalties"]["uno-not-called"] > 0
    c = run("selfplay", "--games", "20", "--players", "3", "--seed", "8")
    assert c.stdout != a.stdout
