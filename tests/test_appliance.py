"""``./uno appliance`` on a machine that cannot start a guest: one line naming what is missing
and the command that installs it, exit 2, never a traceback. (The guest itself boots in
minutes, so the appliance runs on its own, not in this suite.)"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
APPLIANCE = ROOT / "bench" / "appliance.py"


@pytest.mark.parametrize(("tools", "missing"), [
    ((), "qemu-system-x86_64 not found (Debian package qemu-system-x86)"),
    (("qemu-system-x86_64",), "qemu-img not found (Debian package qemu-utils)"),
    (("qemu-system-x86_64", "qemu-img"), "debootstrap not found (Debian package debootstrap)"),
])
def test_a_machine_without_the_tools_is_told_what_to_install(
        tmp_path: Path, tools: tuple[str, ...], missing: str) -> None:
    for tool in tools:  # present, but never run before the check of the next
        (tmp_path / tool).write_text("#!/bin/sh\nexit 99\n")
        (tmp_path / tool).chmod(0o755)
    done = subprocess.run([sys.executable, str(APPLIANCE), "--cache", str(tmp_path / "cache")],
                          env={"PATH": str(tmp_path)}, capture_output=True, text=True,
                          timeout=60)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == f"appliance: {missing}: sudo sh .ci/sysdeps.sh appliance\n"
    assert not (tmp_path / "cache").exists()  # nothing built
