"""``demo --noise`` on the demo's own install (``pip install -e .`` and, from ``./uno demo``,
the mfrc522 driver without its Raspberry Pi dependencies): the real driver runs on the chip
models with the simulated RPi.GPIO and spidev, so neither needs to be installed. Without the
driver the one-line error names the install that fixes it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

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


def test_without_the_driver_the_advice_names_the_fix(tmp_path: Path) -> None:
    done = _demo_without(tmp_path, ("mfrc522", "rpi", "spidev"), "--noise", "harsh")
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert FIX in done.stderr
    assert "uno-table[pi]" not in done.stderr  # the Pi's extra is no fix on a laptop
    assert len(done.stderr.strip().splitlines()) == 1


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
