"""``pip install uno-table`` alone, then ``uno-table demo --noise harsh``, as on a laptop that is
not a Pi: a wheel of this checkout is built (pip, with the build backend from the registry, no
dependency), installed into a new venv with its dependencies and nothing else (no extra, no
mfrc522), and the noise demo is run from an empty folder. Prints one JSON object: each step's
wall time, the demo's exit code and its last lines (the stand-in's note names the install that
brings the real driver). Exit 0 when the demo played and said which driver ran.

    python bench/fresh_install.py [--keep FOLDER]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DEMO = ["demo", "--fast", "--voice", "captions", "--players", "3", "--rounds", "1", "--seed", "1",
        "--noise", "harsh"]


def _run(cmd: list[str], cwd: Path, timings: dict[str, float], step: str,
         ) -> subprocess.CompletedProcess[str]:
    """``cmd``, timed as ``step``; stops the bench with its output when it fails."""
    began = time.monotonic()
    done = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=1800,
                          check=False)
    timings[step] = round(time.monotonic() - began, 1)
    if done.returncode != 0 and step != "demo":
        sys.exit(f"{step} failed ({done.returncode}): {done.stderr.strip()[-2000:]}")
    return done


def measure(folder: Path) -> dict[str, Any]:
    """Build, install and run in ``folder``; what happened."""
    timings: dict[str, float] = {}
    wheels, venv, empty = folder / "wheels", folder / "venv", folder / "run"
    empty.mkdir()
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(wheels), str(ROOT)],
         folder, timings, "wheel")
    wheel = next(wheels.glob("uno_table-*.whl"))
    _run([sys.executable, "-m", "venv", str(venv)], folder, timings, "venv")
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "-q"]
    _run([*pip, str(wheel)], folder, timings, "install")
    listed = _run([str(venv / "bin" / "python"), "-m", "pip", "list", "--format", "json"],
                  folder, timings, "list")
    installed = sorted(p["name"].lower() for p in json.loads(listed.stdout))
    demo = _run([str(venv / "bin" / "uno-table"), *DEMO], empty, timings, "demo")
    last = demo.stdout.strip().splitlines()[-3:]
    return {
        "wheel": wheel.name, "seconds": timings, "mfrc522_installed": "mfrc522" in installed,
        "rpi_gpio_installed": "rpi.gpio" in installed, "spidev_installed": "spidev" in installed,
        "demo_exit": demo.returncode, "demo_last_lines": last,
        "demo_stderr": demo.stderr.strip()[-500:],
    }


def main() -> int:
    """Run the bench in a temporary folder (or ``--keep FOLDER``)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", type=Path, help="work in this new folder and leave it")
    args = parser.parse_args()
    if args.keep is not None:
        args.keep.mkdir(parents=True)
        result = measure(args.keep)
    else:
        with tempfile.TemporaryDirectory(prefix="uno-fresh-") as tmp:
            result = measure(Path(tmp))
    print(json.dumps(result, indent=1, ensure_ascii=False))
    played = result["demo_exit"] == 0 and any(
        line.startswith("noise: harsh") for line in result["demo_last_lines"])
    return 0 if played else 1


if __name__ == "__main__":
    sys.exit(main())
