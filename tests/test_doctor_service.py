"""``uno-table doctor`` opens the readers for real and says what to fix; ``uno-table service``
prints a unit systemd can run."""

from __future__ import annotations

import fcntl
import sys
from pathlib import Path

import pytest
from daemon_harness import start, tap_all, write_config

from sim.ptys import PtyReader
from sim.scripted import scripted_taps
from table.cli import main
from table.service import existing_groups

PLAYERS = ("Aki", "Ken", "Mio")


def test_doctor_finds_a_live_reader(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pad = PtyReader(tmp_path / "pad")
    config = write_config(tmp_path)
    code = main(["doctor", "--config", str(config), "--timeout", "5"])
    out = capsys.readouterr().out
    pad.close()
    assert "ok   reader pad (serial-line, play): live" in out
    assert "ok   journal:" in out and "ok   speech: espeak-ng speaks en" in out
    assert code == 0, out


def test_doctor_leaves_the_readers_of_a_refereeing_daemon_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Doctor run while the daemon referees: it says so instead of opening the daemon's
    readers, and every tap still gets its verdict."""
    pad = PtyReader(tmp_path / "pad")
    config = write_config(tmp_path, PLAYERS)
    daemon, _ = start(config, pad)
    try:
        code = main(["doctor", "--config", str(config), "--timeout", "2"])
        out = capsys.readouterr().out
        assert ("ok   readers: uno-table run is refereeing with "
                f"{tmp_path / 'journal.sqlite3'}, so its readers were left to it") in out
        assert "reader pad" not in out
        assert code == 0, out
        verdicts = tap_all(daemon, pad, scripted_taps(PLAYERS, 6, seed=2))
        assert len(verdicts) == 6
    finally:
        assert daemon.stop() == 0
        pad.close()
    assert "multiple access" not in "".join(daemon.stderr)


def test_doctor_names_a_port_another_program_holds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pad = PtyReader(tmp_path / "pad")
    config = write_config(tmp_path)
    with open(pad.link, "rb", buffering=0) as other:  # a terminal program, say, with its lock
        fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)
        code = main(["doctor", "--config", str(config), "--timeout", "1"])
    pad.close()
    out = capsys.readouterr().out
    assert f"FIX  reader pad (serial-line, play): {pad.link} is in use by another program" in out
    assert f"-> stop that program (fuser -v {pad.link} names it)" in out
    assert code == 1


def test_doctor_says_what_to_fix_for_a_dead_reader(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "pad").write_text("")  # a path that exists but is no serial device
    config = write_config(tmp_path)
    assert main(["doctor", "--config", str(config), "--timeout", "1"]) == 1
    out = capsys.readouterr().out
    assert "FIX  reader pad (serial-line, play): not live after 1 s" in out
    assert "-> check the cable and power of the reader" in out
    assert out.rstrip().endswith("1 to fix")


def test_doctor_on_a_bad_config_is_the_one_line_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["doctor", "--config", str(tmp_path / "none.toml")]) == 2
    assert "no such configuration file" in capsys.readouterr().err


def test_service_unit(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "table.toml"
    assert main(["service", "--config", str(config), "--user", "referee"]) == 0
    unit = capsys.readouterr().out
    lines = unit.splitlines()
    assert "User=referee" in lines and "Restart=on-failure" in lines
    assert "RestartPreventExitStatus=2" in lines
    assert "StandardOutput=journal" in lines and "StateDirectory=uno-table" in lines
    exec_start = next(line for line in lines if line.startswith("ExecStart="))
    assert exec_start.endswith(f" run --config {config.resolve()}")
    program = exec_start.split("=", 1)[1].split()[0]
    # The installation's own command (in a virtual environment: its bin, links not followed).
    assert program == str(Path(sys.executable).absolute().parent / "uno-table")
    assert lines[-2:] == ["[Install]", "WantedBy=multi-user.target"]
    have, lack = existing_groups()
    named = [line for line in lines if line.startswith("SupplementaryGroups=")]
    assert named == ([f"SupplementaryGroups={' '.join(have)}"] if have else [])
    assert all(g not in " ".join(named) for g in lack)


def test_doctor_reads_the_chip_version_of_an_spi_reader() -> None:
    from sim.rpi_fakes import simulated_pi
    from table.doctor import check_reader
    from table.readers.factory import ReaderSpec

    with simulated_pi() as board:
        board.add_chip(ce=0)
        found = check_reader(ReaderSpec("pad", "mfrc522", reset_pin=25), timeout=5)
    assert [f.line() for f in found] == ["ok   reader pad (mfrc522, play): live, chip version 0x92"]
