"""Commands refuse before they make anything: an empty path is not the current folder, a number
past what the command can use is not a traceback, and a digit that only looks like one ("²")
is not a port. Each is one line on stderr and exit code 2."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from table.commands.cli import main
from table.hub.store import HubStore

CLI = [sys.executable, "-m", "table.commands.cli"]


def refused(capsys: pytest.CaptureFixture[str], argv: list[str]) -> str:
    """The one line ``argv`` is refused with (exit code 2)."""
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("uno-table: "), err
    return err.strip()


@pytest.mark.parametrize(("argv", "says"), [
    (["status", "--journal", ""], "--journal '': an empty path"),  # was ".: a folder"
    (["history", "--journal", ""], "--journal '': an empty path"),
    (["deck", "virtual", "--out", ""], "--out '': an empty path"),
    (["enroll", "--out", "", "--config", "none.toml"], "--out '': an empty path"),
    (["hub", "standings", "--store", ""], "--store '': an empty path"),
    (["hub", "drop", "Aki", "--store", ""], "--store '': an empty path"),
    (["demo", "--fast", "--rounds", "1", "--transcript", ""],  # was no transcript, unsaid
     "--transcript '': an empty path"),
    (["demo", "--fast", "--rounds", "1", "--journal", " "], "--journal ' ': an empty path"),
])
def test_an_empty_path_is_refused_by_name(capsys: pytest.CaptureFixture[str], argv: list[str],
                                          says: str) -> None:
    assert says in refused(capsys, argv)


def test_say_with_an_empty_out_writes_nothing_and_plays_nothing(
        capsys: pytest.CaptureFixture[str]) -> None:
    """``say hello --out ""`` played the phrase aloud (or said there was no audio output)."""
    line = refused(capsys, ["say", "hello", "--out", ""])
    assert line == "uno-table: --out '': an empty path; allowed: the WAV file to write"


def test_voice_samples_are_never_written_into_the_current_folder(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """``voices --sample ""`` wrote ten WAV files into the folder it ran in."""
    monkeypatch.chdir(tmp_path)
    assert "--sample '': an empty path" in refused(capsys, ["voices", "--sample", ""])
    assert list(tmp_path.iterdir()) == []


def test_a_late_entry_needs_a_name(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = tmp_path / "hub.sqlite3"
    HubStore(store).close()
    line = refused(capsys, ["hub", "enter", "  ", "--store", str(store)])
    assert line == "uno-table: hub enter '  ': an empty name; allowed: a player's name"
    assert HubStore(store).players() == []


@pytest.mark.parametrize(("option", "value"), [("--store", ""), ("--config", "")])
def test_the_hub_refuses_an_empty_store_or_plan_before_it_starts(
        option: str, value: str, tmp_path: Path) -> None:
    """``--store ""`` kept the evening's results in a temporary database, lost at the stop;
    ``--config ""`` ran without the plan, unsaid. Both started a hub that ran on."""
    argv = ["hub", "--mqtt", "127.0.0.1:1", "--store", str(tmp_path / "hub.sqlite3"),
            option, value]
    done = subprocess.run([*CLI, *argv], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done.stderr
    assert done.stderr == f"uno-table: {option} '': an empty path; allowed: " + (
        "the hub's SQLite store file (made if missing)\n" if option == "--store"
        else "the hub's TOML file\n")


def test_doctor_refuses_a_timeout_past_the_clock(capsys: pytest.CaptureFixture[str]) -> None:
    """``doctor --timeout 1e12`` was an OverflowError traceback at the first reader."""
    line = refused(capsys, ["doctor", "--config", "none.toml", "--timeout", "1e12"])
    assert line == "uno-table: --timeout 1e+12: at most 600 seconds a reader"


@pytest.mark.parametrize("option", ["--timeout", "--settle"])
def test_check_table_refuses_a_wait_past_the_clock(capsys: pytest.CaptureFixture[str],
                                                   option: str) -> None:
    """``check-table`` takes its waits through the same check as doctor: 1e12 seconds is one
    line, not an OverflowError traceback at the first reader."""
    line = refused(capsys, ["check-table", "--config", "none.toml", option, "1e12"])
    assert line == f"uno-table: {option} 1e+12: at most 600 seconds a reader"


@pytest.mark.parametrize(("argv", "says"), [
    (["hub", "--mqtt", "host:1", "--web", "²", "--store", "none.sqlite3"],
     "--web: '²' is not a port"),
    (["demo", "--fast", "--rounds", "1", "--mqtt", "host:²", "--table", "t1"],
     "--mqtt 'host:²': write HOST:PORT"),
])
def test_a_digit_that_only_looks_like_one_is_refused(
        capsys: pytest.CaptureFixture[str], argv: list[str], says: str) -> None:
    """``str.isdigit`` takes "²", which ``int`` does not: each of these was a traceback."""
    assert says in refused(capsys, argv)


def test_arabic_digits_are_no_port(tmp_path: Path) -> None:
    """``--web ١٢٣`` served the standings on port 123, which no one wrote."""
    argv = ["hub", "--mqtt", "127.0.0.1:1", "--web", "١٢٣", "--store", str(tmp_path / "h")]
    done = subprocess.run([*CLI, *argv], capture_output=True, text=True, timeout=120)
    assert (done.returncode, done.stderr) == (2, "uno-table: --web: '١٢٣' is not a port; "
                                                 "allowed: PORT or HOST:PORT, the port 0 to "
                                                 "65535 (0: any free port)\n")


def test_say_takes_a_superscript_as_the_text_it_is(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``say draws count=²`` was a traceback: "²" passed for a number, then int() refused it."""
    wav = tmp_path / "draws.wav"
    assert main(["say", "draws", "player=Aki", "count=²", "--out", str(wav)]) == 0
    assert capsys.readouterr().out.splitlines()[0] == "Aki draws ²."
    assert wav.read_bytes().startswith(b"RIFF")


def test_a_scenario_hand_of_a_superscript_count_is_a_line_error(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    scn = tmp_path / "two.scn"
    scn.write_text("players Aki Ken\nhand Aki ²\nAki plays R5\n", encoding="utf-8")
    assert refused(capsys, ["replay", str(scn)]).startswith(f"uno-table: {scn}:2: ")
