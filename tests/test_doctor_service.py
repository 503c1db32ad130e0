"""``uno-table doctor`` opens the readers for real and says what to fix; ``uno-table service``
prints a unit systemd can run."""

from __future__ import annotations

import dataclasses
import fcntl
import re
import shutil
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from daemon_harness import start, tap_all, write_config

from sim.hardware.ptys import PtyReader
from sim.players.scripted import scripted_taps
from table.commands.cli import main
from table.commands.service import address_families, existing_groups, sandbox, unit
from table.runtime.config import Config, load_config

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


def test_doctor_judges_the_journal_as_run_would(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    """A journal path naming a file that is no journal (here the configuration itself) is
    what `run` refuses: doctor says so, and touches nothing."""
    pad = PtyReader(tmp_path / "pad")
    config = write_config(tmp_path)
    config.write_text(config.read_text().replace('path = "journal.sqlite3"',
                                                 'path = "table.toml"'), encoding="utf-8")
    text = config.read_bytes()
    code = main(["doctor", "--config", str(config), "--timeout", "5"])
    out = capsys.readouterr().out
    pad.close()
    assert f"FIX  journal: {config}: not an uno-table journal" in out
    assert "repairs it" not in out
    assert code == 1 and config.read_bytes() == text


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
    config = write_config(tmp_path)  # its port "pad": nothing there, a reader not plugged in
    assert main(["doctor", "--config", str(config), "--timeout", "1"]) == 1
    out = capsys.readouterr().out
    assert "FIX  reader pad (serial-line, play): not live after 1 s" in out
    assert "-> check the cable and power of the reader" in out
    assert (f"FIX  reader pad (serial-line, play): no device at {tmp_path / 'pad'} (not plugged "
            "in?)\n       -> plug the reader in; ls -l /dev/serial/by-id /dev/serial/by-path "
            "lists the serial devices there are") in out
    assert out.rstrip().endswith("2 to fix")


def test_doctor_runs_before_the_deck_is_enrolled(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """No deck file yet: one FIX line for it, and every other check still made."""
    pad = PtyReader(tmp_path / "pad")
    config = write_config(tmp_path)
    config.write_text(config.read_text().replace('file = "virtual"', 'file = "deck.toml"'))
    code = main(["doctor", "--config", str(config), "--timeout", "5"])
    out = capsys.readouterr().out
    assert main(["service", "--config", str(config)]) == 0  # the installer writes it first
    assert "ExecStart=" in capsys.readouterr().out
    pad.close()
    assert f"FIX  {config}: deck.file: {tmp_path / 'deck.toml'} does not exist" in out
    assert "-> check the wiring first (uno-table check-table), then uno-table enroll" in out
    assert "ok   reader pad (serial-line, play): live" in out
    assert (code, out.rstrip().splitlines()[-1]) == (1, "1 to fix")


def test_doctor_on_a_bad_config_is_the_one_line_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["doctor", "--config", str(tmp_path / "none.toml")]) == 2
    assert "no such configuration file" in capsys.readouterr().err


def test_service_unit(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    PtyReader(tmp_path / "pad")
    config = write_config(tmp_path)
    assert main(["service", "--config", str(config), "--user", "referee"]) == 0
    unit = capsys.readouterr().out
    lines = unit.splitlines()
    assert "User=referee" in lines and "Restart=on-failure" in lines
    assert "RestartPreventExitStatus=2" in lines
    assert "StandardOutput=journal" in lines and "StateDirectory=uno-table" in lines
    assert "CacheDirectory=uno-table" in lines  # the voice's phrases survive a restart
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
    # The journal beside the configuration: the one folder written outside the state's.
    assert f"ReadWritePaths={tmp_path.resolve()}" in lines
    assert {"NoNewPrivileges=yes", "ProtectSystem=strict", "PrivateTmp=yes", "UMask=0077",
            "RestrictAddressFamilies=AF_UNIX", "DevicePolicy=closed",
            "DeviceAllow=char-ttyUSB rw", "DeviceAllow=char-spi rw",
            "DeviceAllow=char-gpiochip rw"} <= set(lines)


def systemd_analyze(*args: str) -> subprocess.CompletedProcess[str]:
    if shutil.which("systemd-analyze") is None:
        pytest.fail("systemd-analyze not found: install the systemd package (.ci/sysdeps.sh)")
    return subprocess.run(["systemd-analyze", *args], capture_output=True, text=True,
                          timeout=120)


# Folder names systemd would misread unquoted: a program's path may hold no quote or
# backslash at all; an argument may.
AWKWARD_PROGRAM = "venv a b %i $HOME"
AWKWARD = "table a b %i $HOME 'q' \\x \"d\""


def awkward_table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                  installation: str = AWKWARD_PROGRAM) -> Path:
    """An installation and a table (configuration, journal, pad) in folders whose names hold
    spaces, quotes, a backslash and systemd's % and $; the unit written beside them."""
    venv_bin = tmp_path / installation / "bin"
    venv_bin.mkdir(parents=True)
    (venv_bin / "uno-table").write_text("#!/bin/sh\n")
    (venv_bin / "uno-table").chmod(0o755)
    monkeypatch.setattr(sys, "executable", str(venv_bin / "python"))
    folder = tmp_path / AWKWARD
    PtyReader(folder / "pad")
    config = write_config(folder)
    unit_file = tmp_path / "uno-table.service"
    unit_file.write_text(unit(str(config)))
    return unit_file


def test_the_unit_names_awkward_paths_as_systemd_reads_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    unit_file = awkward_table(tmp_path, monkeypatch)
    done = systemd_analyze("verify", str(unit_file))
    # verify checks that ExecStart's program exists: a path split at a space, or with %i
    # expanded, does not
    assert done.returncode == 0 and "uno-table.service" not in done.stderr, done.stderr
    lines = unit_file.read_text().splitlines()
    folder = str((tmp_path / AWKWARD).resolve())
    escaped = folder.replace("\\", "\\\\").replace('"', '\\"').replace("%", "%%")
    assert f'ReadWritePaths="{escaped}"' in lines
    program = str(tmp_path / AWKWARD_PROGRAM / "bin/uno-table").replace("%", "%%")
    config = f'"{escaped.replace("$", "$$")}/table.toml"'
    assert f'ExecStart="{program}" run --config {config}' in lines


def test_an_installation_systemd_cannot_run_is_one_line_and_exit_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "executable", str(tmp_path / "it's here/bin/python"))
    (tmp_path / "it's here/bin").mkdir(parents=True)
    (tmp_path / "it's here/bin/uno-table").write_text("")
    PtyReader(tmp_path / "pad")
    assert main(["service", "--config", str(write_config(tmp_path))]) == 2
    err = capsys.readouterr().err
    assert err == (f"uno-table: {tmp_path}/it's here/bin/uno-table: systemd runs no program "
                   "whose path holds a quote, a backslash or a control character; install "
                   "uno-table elsewhere\n")


def test_the_unit_is_sandboxed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    unit_file = awkward_table(tmp_path, monkeypatch)
    done = systemd_analyze("security", "--offline=yes", str(unit_file))
    found = re.search(r"Overall exposure level for uno-table.service: ([0-9.]+) (\w+)",
                      done.stdout)
    assert found, done.stdout + done.stderr
    # 9.2 UNSAFE unsandboxed; 1.0 OK before ProtectKernelTunables, RemoveIPC and ~@privileged.
    assert float(found[1]) <= 0.7 and found[2] == "SAFE", done.stdout


def test_kernel_tunables_are_protected_and_a_buttons_sysfs_gpio_left_writable(
        tmp_path: Path) -> None:
    """ProtectKernelTunables makes /sys read-only; RPi.GPIO's edge detection (a seat's buttons
    on the rpigpio or native factory) exports its pins there, the lgpio factory does not."""
    from table.runtime.config import SeatControls

    PtyReader(tmp_path / "pad")
    config = load_config(write_config(tmp_path))
    lines = sandbox(config)
    assert {"ProtectKernelTunables=yes", "RemoveIPC=yes",
            "SystemCallFilter=~@privileged"} <= set(lines)
    gpio = "ReadWritePaths=-/sys/class/gpio -/sys/devices/platform"
    assert gpio not in lines
    buttons = dataclasses.replace(config, controls=(SeatControls(0, {"draw": 17}),))
    assert gpio in sandbox(buttons)
    assert gpio not in sandbox(dataclasses.replace(buttons, pin_factory="lgpio"))


def test_a_table_in_a_home_folder_stays_readable_and_its_journal_writable(
    tmp_path: Path,
) -> None:
    """Hiding the homes would hide a configuration or journal kept in one: the service could
    not start. They are then read-only but for the journal's folder."""
    PtyReader(tmp_path / "home/pi/uno/pad")
    config = write_config(tmp_path / "home/pi/uno")
    lines = unit(str(config), homes=(tmp_path / "home",)).splitlines()
    assert "ProtectHome=read-only" in lines
    assert f"ReadWritePaths={(tmp_path / 'home/pi/uno').resolve()}" in lines
    # The same table outside any home: the homes are hidden.
    assert "ProtectHome=yes" in unit(str(config), homes=(tmp_path / "elsewhere",)).splitlines()


def test_network_families_follow_the_configuration(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    PtyReader(tmp_path / "pad")
    config = load_config(write_config(tmp_path))
    assert address_families(config) == ["AF_UNIX"]
    assert {"PrivateNetwork=yes", "IPAddressDeny=any"} <= set(sandbox(config))
    # A section that opens sockets, once the configuration has one: on, then off.
    web: Any = SimpleNamespace(enabled=True)
    assert address_families(web_config(config, web)) == ["AF_UNIX", "AF_INET", "AF_INET6"]
    lines = sandbox(web_config(config, web))
    assert "RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6" in lines
    assert not {"PrivateNetwork=yes", "IPAddressDeny=any"} & set(lines)
    assert address_families(web_config(config, SimpleNamespace(enabled=False))) == ["AF_UNIX"]


def test_a_table_serving_the_web_view_may_open_network_sockets(tmp_path: Path) -> None:
    """``[web] enabled = true`` listens on a TCP port: the unit must let it, or the view the
    configuration asks for would fail at start under systemd."""
    PtyReader(tmp_path / "pad")
    on = load_config(write_config(tmp_path, extra='[web]\nenabled = true\n'))
    assert address_families(on) == ["AF_UNIX", "AF_INET", "AF_INET6"]
    assert not {"PrivateNetwork=yes", "IPAddressDeny=any"} & set(sandbox(on))
    off = load_config(write_config(tmp_path, extra='[web]\nenabled = false\n'))
    assert address_families(off) == ["AF_UNIX"]


def web_config(config: Config, web: object) -> Config:
    """``config`` with a ``web`` section, as a future Config would carry one."""
    copy = dataclasses.replace(config)
    object.__setattr__(copy, "web", web)
    return copy


def test_doctor_reads_the_chip_version_of_an_spi_reader() -> None:
    from sim.hardware.rpi_fakes import simulated_pi
    from table.commands.doctor import check_reader
    from table.readers.factory import ReaderSpec

    with simulated_pi() as board:
        board.add_chip(ce=0)
        found = check_reader(ReaderSpec("pad", "mfrc522", reset_pin=25), timeout=5)
    assert [f.line() for f in found] == ["ok   reader pad (mfrc522, play): live, chip version 0x92"]


def test_doctor_says_when_the_unit_was_written_for_another_configuration(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The web view turned on after the install: the installed unit still refuses the network
    (the daemon could not listen), so doctor says to write the unit again; written again, all
    is well."""
    from table.commands.doctor import check_unit

    PtyReader(tmp_path / "pad")
    path = write_config(tmp_path)
    unit_file = tmp_path / "uno-table.service"
    unit_file.write_text(unit(str(path)))
    monkeypatch.setattr("table.commands.service.INSTALLED_UNIT", unit_file)
    assert check_unit(load_config(path)) == []
    path = write_config(tmp_path, extra='[web]\nenabled = true\n')
    found = check_unit(load_config(path))
    assert [f.ok for f in found] == [False]
    assert found[0].what == (f"service: {unit_file} was written for another configuration than "
                             f"{path} (it lacks RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6)")
    assert found[0].fix.startswith("write it again for this configuration: sudo ./uno install")
    unit_file.write_text(unit(str(path)))
    assert check_unit(load_config(path)) == []
    # Only the network is judged: doctor run from a checkout in a home would want other
    # ProtectHome= and ReadWritePaths= lines than the installed service's.
    unit_file.write_text(unit(str(path)).replace("ProtectHome=yes", "ProtectHome=read-only"))
    assert check_unit(load_config(path)) == []
    # A unit that runs another configuration file is not this table's to judge.
    other = tmp_path / "other"
    other.mkdir()
    PtyReader(other / "pad")
    assert check_unit(load_config(write_config(other))) == []
