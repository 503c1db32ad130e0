"""Builds shared by the bridge tests: the firmware's codec for the host, the firmware, the board."""

from __future__ import annotations

import subprocess
from pathlib import Path

from sim.hardware.avr_board import FIRMWARE_DIR


def build_codec_cli(folder: Path) -> Path:
    """The firmware's C codec compiled for this machine, behind a line-based driver, into
    ``folder`` (the caller's own: test processes running side by side never share a binary)."""
    binary = folder / "codec_cli"
    sources = [FIRMWARE_DIR / "host" / "codec_cli.c", FIRMWARE_DIR / "codec.c"]
    subprocess.run(
        ["gcc", "-std=c99", "-O2", "-Wall", "-Wextra", "-Werror", "-o", str(binary),
         *map(str, sources)],
        check=True,
    )
    return binary


def run_codec_cli(binary: Path, lines: list[str]) -> list[str]:
    out = subprocess.run(
        [str(binary)], input="".join(line + "\n" for line in lines), capture_output=True,
        text=True, check=True, timeout=30,
    )
    return out.stdout.splitlines()
