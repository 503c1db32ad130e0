"""``uno-table service``: a systemd unit that runs the daemon at boot.

The unit runs as a dedicated user (in the groups the readers, GPIO and sound need), restarts
on failure but not on a configuration error (exit code 2: restarting cannot fix it), logs to
journald, and keeps its journal in ``/var/lib/uno-table`` (``StateDirectory``).
"""

from __future__ import annotations

import grp
import shutil
import sys
from pathlib import Path


def executable() -> str:
    """The ``uno-table`` command of this installation, as an absolute path: the script beside
    this interpreter (a virtual environment's ``bin``), else the one on PATH, else this
    interpreter running the module. Symbolic links are kept: a venv's python is one."""
    here = Path(sys.executable).absolute().parent / "uno-table"
    if here.exists():
        return str(here)
    found = shutil.which("uno-table")
    if found:
        return str(Path(found).absolute())
    return f"{Path(sys.executable).absolute()} -m table.commands.cli"


GROUPS = ("dialout", "spi", "gpio", "audio")  # serial readers, SPI readers, GPIO, sound


def existing_groups(names: tuple[str, ...] = GROUPS) -> tuple[list[str], list[str]]:
    """The groups of ``names`` this machine has, and those it lacks (systemd refuses to start
    a unit naming a group that does not exist)."""
    have, lack = [], []
    for name in names:
        try:
            grp.getgrnam(name)
            have.append(name)
        except KeyError:
            lack.append(name)
    return have, lack


def unit(config: str, user: str = "uno-table") -> str:
    config_path = Path(config).expanduser().resolve()
    have, lack = existing_groups()
    groups = f"SupplementaryGroups={' '.join(have)}" if have else ""
    if lack:
        groups += f"\n# Not on this machine, so left out: {' '.join(lack)}"
    return f"""[Unit]
Description=uno-table: automatic UNO referee
After=sound.target
Wants=sound.target

[Service]
Type=simple
User={user}
Group={user}
{groups}
ExecStart={executable()} run --config {config_path}
Restart=on-failure
RestartSec=3
# Exit code 2 is a configuration error: say so in the log and do not loop.
RestartPreventExitStatus=2
StateDirectory=uno-table
WorkingDirectory=/var/lib/uno-table
StandardOutput=journal
StandardError=journal
SyslogIdentifier=uno-table
Environment=PYTHONUNBUFFERED=1
TimeoutStopSec=15

[Install]
WantedBy=multi-user.target
"""
