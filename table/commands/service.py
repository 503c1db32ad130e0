"""``uno-table service``: a systemd unit that runs the daemon at boot.

The unit runs as a dedicated user (in the groups the readers, GPIO and sound need), restarts
on failure but not on a configuration error (exit code 2: restarting cannot fix it), logs to
journald, and keeps its journal in ``/var/lib/uno-table`` (``StateDirectory``).

It is sandboxed with what costs the daemon nothing: the file system read-only but for the
journal's folder (and a WAV backend's), the homes hidden (read-only when the installation, the
configuration or the journal lives in one), a private ``/tmp``, devices limited to serial, SPI,
GPIO and sound, no new privileges, no capabilities, and sockets of the families its
configuration needs (:func:`address_families`). Paths are written as systemd reads them back:
quoted, with ``%`` and ``$`` escaped.
"""

from __future__ import annotations

import grp
import shutil
import sys
from pathlib import Path
from typing import Final

from table.errors import TableError
from table.files.text import read_toml
from table.runtime.config import Config, load_config

STATE: Final = Path("/var/lib/uno-table")  # StateDirectory=uno-table
INSTALLED_UNIT: Final = Path("/etc/systemd/system/uno-table.service")  # sudo ./uno install's
HOMES: Final = (Path("/home"), Path("/root"), Path("/run/user"))  # what ProtectHome= covers
# Configuration sections that open network sockets when enabled (none exists yet).
NETWORK_SECTIONS: Final = ("web", "mqtt")
NETWORK_LINES: Final = ("RestrictAddressFamilies=", "PrivateNetwork=", "IPAddressDeny=")
# Device groups of /proc/devices: USB serial (CH340, FTDI...), USB CDC (an Arduino Uno), the
# Pi's own UARTs, spidev, GPIO character devices, /dev/gpiomem, ALSA sound.
DEVICE_GROUPS: Final = ("ttyUSB", "ttyACM", "ttyAMA", "ttyS", "spi", "gpiochip", "*gpiomem*",
                        "alsa")


def command() -> list[str]:
    """The ``uno-table`` command of this installation, as words: the script beside this
    interpreter (a virtual environment's ``bin``), else the one on PATH, else this interpreter
    running the module. Absolute, symbolic links kept: a venv's python is one."""
    here = Path(sys.executable).absolute().parent / "uno-table"
    if here.exists():
        return [str(here)]
    found = shutil.which("uno-table")
    if found:
        return [str(Path(found).absolute())]
    return [str(Path(sys.executable).absolute()), "-I", "-m", "table.commands.cli"]


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


class ServiceError(TableError, ValueError):
    """A unit systemd could not run as written."""


UNSAFE: Final = "\\\"'"  # never in a program's path, escaped or not (systemd refuses it)


def quote(word: str, variables: bool = False) -> str:
    """``word`` as one word of a unit file's setting: in double quotes when it needs them, with
    C escapes, ``%`` doubled (a specifier otherwise) and, where ``variables`` are expanded (a
    command's arguments, not its program), ``$`` doubled."""
    out = []
    for ch in word:
        if ch in '\\"':
            out.append("\\" + ch)
        elif ch == "%":
            out.append("%%")
        elif ch == "$" and variables:
            out.append("$$")
        elif not ch.isprintable():
            code = ord(ch)
            out.append(f"\\x{code:02x}" if code < 0x100 else
                       f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}")
        else:
            out.append(ch)
    text = "".join(out)
    plain = text == word != "" and not any(ch.isspace() or ch == "'" for ch in word)
    return text if plain else f'"{text}"'


def address_families(config: Config) -> list[str]:
    """The socket families the daemon needs: AF_UNIX (journald, a sound server) always;
    AF_INET and AF_INET6 when a section that opens network sockets is enabled: ``[web]``
    (``Config.web_enabled``), or a section held as an object of its own (falsy, or with
    ``enabled = False``, when off)."""
    families = ["AF_UNIX"]
    if any(_enabled(getattr(config, name, None)) or getattr(config, f"{name}_enabled", False)
           for name in NETWORK_SECTIONS):
        families += ["AF_INET", "AF_INET6"]
    return families


def _enabled(section: object) -> bool:
    return bool(section) and getattr(section, "enabled", True) is not False


def _deck_file(config: Config) -> Path | None:
    """The deck file the configuration names (read at start), if it is not the virtual one."""
    data = read_toml(config.path, "configuration")  # read and checked once already
    name = data.get("deck", {}).get("file", "virtual")
    if name == "virtual":
        return None
    path = Path(name).expanduser()
    return path if path.is_absolute() else config.path.parent / path


def _installation() -> list[Path]:
    """Where the program is read from: the virtual environment, and the source of an editable
    install (a checkout)."""
    paths = [Path(sys.prefix)] if sys.prefix != sys.base_prefix else []
    return [*paths, Path(__file__).resolve().parent.parent]


def written(config: Config) -> list[Path]:
    """The folders the daemon writes in besides its state and cache directories: the journal's
    (the journal, its lock and its write-ahead log), a WAV backend's, the voice's cache."""
    paths = [config.journal_path.parent.resolve()]
    if config.voice_backend == "wav":
        paths.append((config.voice_folder or STATE / "announcements").resolve())
    if config.voice_cache and config.voice_cache_folder is not None:
        paths.append(config.voice_cache_folder.resolve())
    return [p for p in dict.fromkeys(paths) if not p.is_relative_to(STATE)]


# Where RPi.GPIO (gpiozero's ``rpigpio`` and ``native`` factories) exports a button's pin and
# sets its edge: kept writable under ProtectKernelTunables, which makes the rest of /sys and
# /proc/sys read-only. The ``lgpio`` factory (and rpi-lgpio) uses the GPIO character device.
SYSFS_GPIO: Final = ("-/sys/class/gpio", "-/sys/devices/platform")
CHARACTER_DEVICE_FACTORIES: Final = ("lgpio", "mock", "pigpio")


def sysfs_gpio(config: Config) -> bool:
    """Whether the daemon may need the sysfs GPIO interface: a seat's buttons read through a
    factory that detects edges there (any but :data:`CHARACTER_DEVICE_FACTORIES`; gpiozero
    picks one itself when the configuration names none)."""
    buttons = any(seat.buttons for seat in getattr(config, "controls", ()))
    return buttons and getattr(config, "pin_factory", None) not in CHARACTER_DEVICE_FACTORIES


def _in_home(path: Path, homes: tuple[Path, ...]) -> bool:
    return any(path.is_relative_to(home) for home in homes)


def sandbox(config: Config, homes: tuple[Path, ...] = HOMES) -> list[str]:
    """The unit's sandboxing lines for this configuration."""
    writes = written(config)
    reads = [config.path, *filter(None, [_deck_file(config)]), *_installation()]
    in_home = any(_in_home(p.resolve(), homes) for p in [*reads, *writes])
    families = address_families(config)
    lines = [
        "NoNewPrivileges=yes",
        "CapabilityBoundingSet=",
        "UMask=0077",
        "ProtectSystem=strict",
        *(["ReadWritePaths=" + " ".join(quote(str(p)) for p in writes)] if writes else []),
        "ProtectKernelTunables=yes",
        *(["ReadWritePaths=" + " ".join(SYSFS_GPIO)] if sysfs_gpio(config) else []),
        # A home holding the installation, the configuration or the journal stays readable
        # (the journal's folder writable): hidden, the service could not start.
        f"ProtectHome={'read-only' if in_home else 'yes'}",
        "PrivateTmp=yes",
        "ProtectKernelModules=yes",
        "ProtectKernelLogs=yes",
        "ProtectControlGroups=yes",
        "ProtectClock=yes",
        "ProtectHostname=yes",
        "RemoveIPC=yes",
        "ProtectProc=invisible",
        "RestrictNamespaces=yes",
        "RestrictRealtime=yes",
        "RestrictSUIDSGID=yes",
        "LockPersonality=yes",
        "SystemCallArchitectures=native",
        "SystemCallFilter=@system-service",
        # ...less the privileged calls (chown, setuid, setgroups...): strace finds none
        # (SQLite's fchown is made only by root, and fails harmlessly then).
        "SystemCallFilter=~@privileged",
        "SystemCallErrorNumber=EPERM",
        f"RestrictAddressFamilies={' '.join(families)}",
        # No network at all while nothing needs one (a loopback of its own).
        *(["PrivateNetwork=yes", "IPAddressDeny=any"] if families == ["AF_UNIX"] else []),
        "PrivateMounts=yes",
        # Serial, SPI, GPIO and sound only (besides /dev/null and the like). A device group is
        # looked up in /proc/devices when the service starts: ttyUSB is there only once
        # usbserial is loaded, alsa once snd is, which `sudo ./uno install` does at every boot
        # (/etc/modules-load.d/uno-table.conf): a bridge plugged in later, a sound card that
        # comes up later, can be opened.
        "DevicePolicy=closed",
        *(f"DeviceAllow=char-{group} rw" for group in DEVICE_GROUPS),
    ]
    return lines


def unit(config_file: str, user: str = "uno-table", homes: tuple[Path, ...] = HOMES) -> str:
    """The systemd unit that runs the daemon on ``config_file`` as ``user``, sandboxed."""
    config = load_config(config_file, need_deck=False)  # a bad config: one line, exit 2
    config_path = config.path.expanduser().resolve()
    have, lack = existing_groups()
    groups = f"SupplementaryGroups={' '.join(have)}" if have else ""
    if lack:
        groups += f"\n# Not on this machine, so left out: {' '.join(lack)}"
    program, *args = command()
    if any(ch in UNSAFE or not ch.isprintable() for ch in program):
        raise ServiceError(f"{program}: systemd runs no program whose path holds a quote, a "
                           "backslash or a control character; install uno-table elsewhere")
    exec_start = " ".join([quote(program), *(quote(w, variables=True)
                                             for w in [*args, "run", "--config",
                                                       str(config_path)])])
    hardening = "\n".join(sandbox(config, homes))
    return f"""[Unit]
Description=uno-table: automatic UNO referee
After=sound.target
Wants=sound.target

[Service]
Type=simple
User={user}
Group={user}
{groups}
ExecStart={exec_start}
Restart=on-failure
RestartSec=3
# Exit code 2 is a configuration error: say so in the log and do not loop.
RestartPreventExitStatus=2
StateDirectory=uno-table
# The voice's rendered phrases ($CACHE_DIRECTORY/phrases): a restart need not render them again.
CacheDirectory=uno-table
WorkingDirectory={STATE}
StandardOutput=journal
StandardError=journal
SyslogIdentifier=uno-table
Environment=PYTHONUNBUFFERED=1
TimeoutStopSec=15
{hardening}

[Install]
WantedBy=multi-user.target
"""


def stale_unit(config: Config, unit_file: Path | None = None) -> str | None:
    """What is wrong with the installed unit for ``config``, when it runs this configuration
    but was written for another one (``[web]`` or ``[mqtt]`` turned on after the install:
    its sandbox would refuse the network), else None."""
    unit_file = INSTALLED_UNIT if unit_file is None else unit_file
    try:
        text = unit_file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None  # no unit: not a service of this machine
    runs = str(config.path.expanduser().resolve())
    if runs not in text and quote(runs) not in text:
        return None  # a unit for another configuration file
    # The network's lines only: the others also follow where this command runs from (a
    # checkout in a home), which need not be where the service's installation is.
    have = {line for line in text.splitlines() if line.startswith(NETWORK_LINES)}
    want = {line for line in sandbox(config) if line.startswith(NETWORK_LINES)}
    if have == want:
        return None
    said = sorted(want - have) or [f"not {line}" for line in sorted(have - want)]
    return (f"{unit_file} was written for another configuration than {config.path} (it lacks "
            f"{said[-1]})")
