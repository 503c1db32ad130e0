"""Serial readers on pseudo-terminals, so a simulated table feeds the daemon through its real
serial path (pyserial, the line decoder, the debounce) with no hardware.

``python -m sim.hardware.ptys --config examples/sim.toml`` makes one pty per ``serial-line``
reader of the configuration, reachable at the reader's ``port`` path, then reads lines
``READER TAG`` from standard input (``pad R7#2``, ``pad token:draw``, ``pad 04A1B2C3``) and
writes the tag's UID to that reader, as a USB reader would. Start it before ``uno-table run``.
"""

from __future__ import annotations

import argparse
import fcntl
import os
import struct
import sys
import termios
import time
import tty
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from sim.hardware.serial_pty import SerialPty
from table.errors import TableError
from table.files.text import read_toml
from table.referee.registry import Deck, load_deck, normalise_uid, parse_tag, virtual_deck
from table.runtime.config import ConfigError


class PtyReader(SerialPty):
    """A USB UID reader on a pty (see :class:`sim.hardware.serial_pty.SerialPty`), in raw mode from
    the start (no echo before the daemon opens the port), fed whole UID lines."""

    def __init__(self, link: Path) -> None:
        link.parent.mkdir(parents=True, exist_ok=True)
        super().__init__(link)

    def plug(self) -> None:
        """Plug the reader in, its pty in raw mode."""
        super().plug()
        if self.plugged:
            tty.setraw(self.slave)

    def send_uid(self, uid: str) -> None:
        """Send one read, ``uid`` as a line."""
        self.send(f"{uid}\r\n".encode())

    def pending(self) -> int:
        """Bytes written but not yet read by whoever has the port open."""
        data = fcntl.ioctl(self.slave, termios.FIONREAD, b"\0\0\0\0")
        return int(struct.unpack("i", data)[0])

    def drain(self, timeout: float = 5.0) -> bool:
        """Wait until everything written has been read (or ``timeout`` passed)."""
        deadline = time.monotonic() + timeout
        while self.plugged and self.pending():
            if time.monotonic() > deadline:
                return False
            time.sleep(0.01)
        return True


def sim_config(players: Sequence[str], rules: str = 'preset = "official"',
               journal: str = "", extra: str = "") -> str:
    """The configuration of a simulated table: one play pad ``pad`` on a pty linked at
    ``pad`` beside the configuration, the virtual deck, captions only, the journal beside it.
    ``rules`` and ``journal`` are lines for those sections; ``extra`` is appended."""
    names = ", ".join(f'"{p}"' for p in players)
    return f"""[table]
players = [{names}]
language = "en"

[rules]
{rules}

[deck]
file = "virtual"

[voice]
backend = "captions"

[journal]
path = "journal.sqlite3"
{journal}

[[readers]]
name = "pad"
role = "play"
kind = "serial-line"
port = "pad"
{extra}"""


def read_config(config: Path) -> dict[str, Any]:
    """The configuration's TOML. Not :func:`table.runtime.config.load_config`: that wants the reader
    ports to exist, and they are what this command makes."""
    return read_toml(config, "configuration file", ConfigError)


def _string(config: Path, key: str, value: object, allowed: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(f"{config}: {key}: missing or not a string; allowed: {allowed}")
    return value


def serial_ports(config: Path, data: dict[str, Any]) -> dict[str, Path]:
    """Reader name to port path, for the ``serial-line`` readers of a configuration."""
    readers = data.get("readers", [])
    if not isinstance(readers, list) or not all(isinstance(e, dict) for e in readers):
        raise ConfigError(f"{config}: readers: not a list of tables; allowed: [[readers]] tables")
    ports = {}
    for i, entry in enumerate(readers):
        if entry.get("kind") == "serial-line" and "port" in entry:
            name = _string(config, f"readers[{i}].name", entry.get("name"), "a name")
            text = _string(config, f"readers[{i}].port", entry["port"], "a path")
            port = Path(text).expanduser()
            ports[name] = port if port.is_absolute() else config.parent / port
    if not ports:
        raise ConfigError(f'{config}: readers: no reader of kind "serial-line" with a port; '
                          'allowed: [[readers]] with kind = "serial-line" and port = "PATH"')
    return ports


def make_pads(config: Path, ports: dict[str, Path]) -> dict[str, PtyReader]:
    """A pty per port, or none at all and a :class:`ConfigError`."""
    pads: dict[str, PtyReader] = {}
    try:
        for name, port in ports.items():
            pads[name] = _pad(config, name, port)
    except ConfigError:
        for pad in pads.values():
            pad.close()
        raise
    return pads


def _pad(config: Path, name: str, port: Path) -> PtyReader:
    """A pty linked at ``port``. Anything there but a link to an old pty (a real device's
    link, a file) is refused, not replaced."""
    key = f"{config}: readers ({name}).port"
    old_pty = os.path.islink(port) and os.readlink(port).startswith("/dev/pts/")
    if os.path.lexists(port) and not old_pty:
        raise ConfigError(f"{key}: {port} is there already; allowed: a free path "
                          "(the pty's link is made there)")
    try:
        return PtyReader(port)
    except OSError as exc:
        raise ConfigError(f"{key}: cannot make {port}: {exc.strerror}; allowed: a path in "
                          "a folder this user can write in") from None


def uid_of(text: str, deck: Deck) -> str:
    """A UID, or a card copy / token of ``deck``."""
    if text.lower().startswith("token:") or "#" in text:
        uid = deck.uid_of(parse_tag(text if text.lower().startswith("token:") else text.upper()))
        if uid is None:
            raise ValueError(f"{text} is not in the deck")
        return uid
    return normalise_uid(text)


def _deck(config: Path, data: dict[str, Any]) -> Deck:
    deck, rules = data.get("deck", {}), data.get("rules", {})
    if not isinstance(deck, dict) or not isinstance(rules, dict):
        raise ConfigError(f"{config}: [deck] or [rules] is not a table; allowed: tables")
    file = _string(config, "deck.file", deck.get("file", "virtual"), 'a deck file or "virtual"')
    edition = _string(config, "rules.deck", rules.get("deck", "classic-108"), "a deck edition")
    if file == "virtual":
        return virtual_deck(edition)
    path = Path(file)
    return load_deck(path if path.is_absolute() else config.parent / path, edition)


def main(argv: list[str] | None = None) -> int:
    """Run simulated serial readers from the command line; the exit code."""
    parser = argparse.ArgumentParser(prog="python -m sim.hardware.ptys", description=__doc__)
    parser.add_argument("--config", required=True, type=Path)
    args = parser.parse_args(argv)
    try:
        data = read_config(args.config)
        deck = _deck(args.config, data)
        pads = make_pads(args.config, serial_ports(args.config, data))
    except TableError as exc:
        print(f"{parser.prog}: {exc}", file=sys.stderr)
        return 2
    for name, pad in pads.items():
        print(f"reader {name}: {pad.link} -> {os.ttyname(pad.slave)}", flush=True)
    print("type READER TAG lines (pad R7#2, pad token:draw); Ctrl-D ends", flush=True)
    try:
        for line in sys.stdin:
            words = line.split()
            if len(words) != 2 or words[0] not in pads:
                print(f"? expected READER TAG with READER one of {', '.join(pads)}", flush=True)
                continue
            try:
                pads[words[0]].send_uid(uid_of(words[1], deck))
            except ValueError as exc:
                print(f"? {exc}", flush=True)
    finally:
        for pad in pads.values():
            pad.drain()  # the daemon reads the last taps before the "reader" goes away
            pad.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
