"""Builds shared by the bridge tests: the firmware's codec for the host, the firmware, the board."""

from __future__ import annotations

import subprocess
from pathlib import Path

from sim.hardware.avr_board import FIRMWARE_DIR

CODEC_CLI = FIRMWARE_DIR / "build" / "codec_cli"


def build_codec_cli() -> Path:
    """The firmware's C codec compiled for this machine, behind a line-based driver."""
    CODEC_CLI.parent.mkdir(parents=True, exist_ok=True)
    sources = [FIRMWARE_DIR / "host" / "codec_cli.c", FIRMWARE_DIR / "codec.c"]
    subprocess.run(
        ["gcc", "-std=c99", "-O2", "-Wall", "-Wextra", "-Werror", "-o", str(CODEC_CLI),
         *map(str, sources)],
        check=True,
    )
    return CODEC_CLI


def run_codec_cli(binary: Path, lines: list[str]) -> list[str]:
    out = subprocess.run(
        [str(binary)], input="".join(line + "\n" for line in lines), capture_output=True,
        text=True, check=True, timeout=30,
    )
    return out.stdout.splitlines()
