"""Commands held to file permissions, for tests that need a file their user cannot read or
write (``chmod 000``, ``chmod 444``).

An ordinary user is stopped by those modes as they are. Root is not: it passes them by its
capabilities CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH and CAP_FOWNER. As root (CI runs in a
container as root), the command runs through ``setpriv`` (util-linux) without those three, in
its bounding and inheritable sets, so that neither it nor anything it starts has them: still
uid 0 and the owner of the test's files, but held to their modes like any user. That is the
real condition a user of the daemon meets, not a stand-in for it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

CAPS = ("dac_override", "dac_read_search", "fowner")


def unprivileged(command: Sequence[str]) -> list[str]:
    """``command``, run without the power to pass file permissions."""
    if os.geteuid() != 0:
        return list(command)
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("setpriv (util-linux) is needed to hold root to file permissions")
    drop = ",".join(f"-{cap}" for cap in CAPS)
    return [setpriv, f"--inh-caps={drop}", f"--bounding-set={drop}", *command]


def check_held(folder: Path) -> None:
    """Skip unless such a command is really refused a file it may not write (a container
    without CAP_SETPCAP cannot drop capabilities)."""
    probe = folder / "read-only.probe"
    probe.write_text("", encoding="utf-8")
    probe.chmod(0o444)
    done = subprocess.run(unprivileged([sys.executable, "-c", f"open({str(probe)!r}, 'a')"]),
                          capture_output=True, text=True, timeout=60)
    probe.unlink()
    if "PermissionError" not in done.stderr:
        pytest.skip(f"cannot hold this user to file permissions here: {done.stderr.strip()}")
