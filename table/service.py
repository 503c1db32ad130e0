"""``uno-table service``: a systemd unit that runs the daemon at boot.

The unit runs as a dedicated user (in the groups the readers, GPIO and sound need), restarts
on failure but not on a configuration error (exit code 2: restarting cannot fix it), logs to
journald, and keeps its journal in ``/var/lib/uno-table`` (``StateDirectory``).
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path


def executable() -> str:
    """The ``uno-table`` command of this installation, as an absolute path."""
    found = shutil.which("uno-table")
    if found:
        return str(Path(found).resolve())
    return f"{Path(sys.executable).resolve()} -m table.cli"


def unit(config: str, user: str = "uno-table") -> str:
    config_path = Path(config).expanduser().resolve()
    return f"""[Unit]
Description=uno-table: automatic UNO referee
After=sound.target
Wants=sound.target

[Service]
Type=simple
User={user}
Group={user}
SupplementaryGroups=dialout spi gpio audio
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
