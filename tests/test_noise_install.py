"""``demo --noise`` on the demo's own install (``pip install -e .`` and, from ``./uno demo``,
the mfrc522 driver without its Raspberry Pi dependencies): the real driver runs on the chip
models with the simulated RPi.GPIO and spidev, so neither needs to be installed. Without the
driver (``pip install uno-table`` alone) the simulator's stand-in for its primitives drives the
same chips, plays the same game, and the summary names the install that brings the real one.
bench/fresh_install.py builds a wheel of the checkout into a new venv and runs it there."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from sim.hardware import rpi_fakes
from sim.tabletop.demo import DemoConfig, run_demo

ROOT = Path(__file__).resolve().parent.parent
FIX = "pip install --no-deps mfrc522==0.0.7"


def _demo_without(tmp: Path, missing: tuple[str, ...],
                  *args: str) -> subprocess.CompletedProcess[str]:
    """The demo in a Python whose installed packages are ours less ``missing`` (each entry of
    site-packages linked into a folder of its own, the missing ones left out)."""
    site = Path(next(p for p in sys.path if p.endswith("site-packages")))
    packages = tmp / "site-packages"
    packages.mkdir()
    for entry in site.iterdir():
        if not entry.name.lower().startswith(missing) and entry.suffix != ".pth":
            (packages / entry.name).symlink_to(entry)
    env = dict(os.environ, PYTHONPATH=f"{ROOT}{os.pathsep}{packages}")
    return subprocess.run(
        [sys.executable, "-S", "-m", "table.commands.cli", "demo", "--fast", "--voice",
         "captions", "--players", "3", "--rounds", "1", "--seed", "1", *args],
        capture_output=True, text=True, timeout=300, check=False, cwd=tmp, env=env,
    )


def test_the_noise_demo_needs_neither_rpi_gpio_nor_spidev(tmp_path: Path) -> None:
    done = _demo_without(tmp_path, ("rpi", "spidev"), "--noise", "harsh")
    assert done.returncode == 0, done.stderr
    assert "wins the round!" in done.stdout
    assert "noise: harsh" in done.stdout


def test_without_the_driver_its_stand_in_plays_and_names_the_fix(tmp_path: Path) -> None:
    done = _demo_without(tmp_path, ("mfrc522", "rpi", "spidev"), "--noise", "harsh")
    assert done.returncode == 0, done.stderr
    assert "wins the round!" in done.stdout and "noise: harsh" in done.stdout
    note = done.stdout.strip().splitlines()[-1]
    assert note.startswith("driver: the simulator's stand-in") and FIX in note
    assert "uno-table[pi]" not in done.stdout + done.stderr  # the Pi's extra: no fix here


def test_the_stand_in_plays_the_very_game_the_real_driver_plays(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The same seeded harsh evening on the real mfrc522 package and on the stand-in: the same
    bus traffic, so the same noise drawn, the same reads, the same transcript."""
    cfg = {"fast": True, "voice": "captions", "players": 3, "rounds": 1, "seed": 3,
           "preset": "house", "noise": "harsh"}
    real = run_demo(DemoConfig(**cfg))  # type: ignore[arg-type]
    assert rpi_fakes.driver_installed()
    monkeypatch.setattr(rpi_fakes, "driver_installed", lambda: False)
    stand_in = run_demo(DemoConfig(**cfg))  # type: ignore[arg-type]
    first, note = stand_in.noise.split("\n")
    assert note.startswith("driver: the simulator's stand-in")
    assert first == real.noise
    assert stand_in.transcript == real.transcript
    assert stand_in.scores == real.scores


def test_the_demo_install_brings_the_driver_without_its_pi_dependencies(tmp_path: Path) -> None:
    """``./uno demo`` installs the program, then the driver with ``--no-deps`` (a fake pip
    logs what it is asked; the Debian packages are taken as there)."""
    (tmp_path / ".ci").mkdir()
    (tmp_path / ".ci" / "sysdeps.sh").write_text("exit 0\n")
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "uno").write_text((ROOT / "uno").read_text())
    bin_dir = tmp_path / ".venv" / "bin"
    bin_dir.mkdir(parents=True)
    log = tmp_path / "log"
    fake_python = f"""#!/bin/sh
echo "python $*" >> {log}
case "$*" in *find_spec*) exit 1 ;; esac
exit 0
"""
    (bin_dir / "python").write_text(fake_python)
    (bin_dir / "uno-table").write_text(f"#!/bin/sh\necho \"uno-table $*\" >> {log}\n")
    for name in ("python", "uno-table"):
        (bin_dir / name).chmod(0o755)
    done = subprocess.run(["sh", "uno", "demo", "--noise", "harsh"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    lines = log.read_text().splitlines()
    installs = [line for line in lines if " pip install " in line]
    assert any(line.endswith("-e .") for line in installs), lines
    assert any("--no-deps mfrc522==0.0.7" in line for line in installs), lines
    assert lines[-1].startswith("uno-table demo") and lines[-1].endswith("--noise harsh")
