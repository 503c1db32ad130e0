"""``[mqtt]``: where a table (or the hub) finds its broker, checked in full before anything starts.

Every problem is one line, ``FILE: mqtt.key: what is wrong; allowed: ...``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from table.errors import TableError

KEYS: Final = ("host", "port", "username", "password_file", "tls", "ca_file", "prefix", "table",
               "keepalive")
DEFAULT_PREFIX: Final = "uno-table"
LEVEL: Final = re.compile(r"^[A-Za-z0-9_-]{1,64}$")  # one topic level: no / + # or spaces
PREFIX: Final = re.compile(r"^[A-Za-z0-9_-]{1,64}(/[A-Za-z0-9_-]{1,64}){0,3}$")


class MqttConfigError(TableError, ValueError):
    """An ``[mqtt]`` setting that cannot work. ``str()`` is ``FILE: mqtt.key: what; allowed``."""


@dataclass(frozen=True, slots=True)
class MqttSettings:
    """Where a table or the hub meets the broker: the address, its id, the topics' prefix, login."""
    host: str
    port: int = 1883
    table: str = ""  # empty for the hub
    prefix: str = DEFAULT_PREFIX
    username: str | None = None
    password: str | None = None  # read from password_file, never written in the configuration
    tls: bool = False
    ca_file: Path | None = None
    keepalive: int = 30

    def topic(self, leaf: str, table: str | None = None) -> str:
        """``PREFIX/TABLE/leaf`` (``PREFIX/hub/leaf`` for the hub's own topics)."""
        return f"{self.prefix}/{table if table is not None else self.table}/{leaf}"


def parse_address(text: str, where: str = "--mqtt") -> tuple[str, int]:
    """``HOST:PORT`` (or ``HOST``, port 1883) of a command-line option."""
    host, colon, port = text.rpartition(":")
    if not colon:
        host, port = text, "1883"
    if not host or not (port.isascii() and port.isdigit()) or not 1 <= int(port) <= 65535:
        raise MqttConfigError(f"{where} {text!r}: write HOST:PORT, e.g. localhost:1883")
    return host, int(port)


def check_table_id(text: str, where: str = "--table") -> str:
    """``text`` if it can be a table id (letters, digits, - or _), else :class:`MqttConfigError`."""
    if not LEVEL.match(text):
        raise MqttConfigError(f"{where} {text!r} is not allowed; allowed: 1 to 64 letters, "
                              "digits, - or _")
    return text


def parse_mqtt(section: Mapping[str, Any], path: Path, need_table: bool = True) -> MqttSettings:
    """The ``[mqtt]`` table of the file at ``path``."""

    def fail(key: str, what: str, allowed: str) -> MqttConfigError:
        return MqttConfigError(f"{path}: mqtt.{key}: {what}; allowed: {allowed}")

    for key in section:
        if key not in KEYS:
            raise fail(key, "unknown key", ", ".join(KEYS))

    def text(key: str, allowed: str) -> str:
        value = section[key]
        if not isinstance(value, str) or not value.strip():
            raise fail(key, f"{value!r} is not a non-empty string", allowed)
        return value

    if "host" not in section:
        raise fail("host", "missing", "the broker's host name or address")
    values: dict[str, Any] = {"host": text("host", "the broker's host name or address")}
    if "tls" in section:
        if not isinstance(section["tls"], bool):
            raise fail("tls", f"{section['tls']!r} is not allowed", "true or false")
        values["tls"] = section["tls"]
    values["port"] = 8883 if values.get("tls") else 1883
    for key, low, high in (("port", 1, 65535), ("keepalive", 5, 3600)):
        if key in section:
            value = section[key]
            if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
                raise fail(key, f"{value!r} is not allowed", f"a whole number {low}..{high}")
            values[key] = value
    if "prefix" in section:
        prefix = text("prefix", "topic levels of letters, digits, - or _, joined by /")
        if not PREFIX.match(prefix):
            raise fail("prefix", f"{prefix!r} is not allowed",
                       "topic levels of letters, digits, - or _, joined by /")
        values["prefix"] = prefix
    if "table" in section:
        table = text("table", "1 to 64 letters, digits, - or _")
        if not LEVEL.match(table) or table == "hub":
            raise fail("table", f"{table!r} is not allowed",
                       "1 to 64 letters, digits, - or _ (not hub)")
        values["table"] = table
    elif need_table:
        raise fail("table", "missing", "this table's id: 1 to 64 letters, digits, - or _")
    if "username" in section:
        values["username"] = text("username", "the broker user name")
    if "password_file" in section:
        values["password"] = _password(path, text("password_file", "a file"), fail)
    elif "username" in section:
        raise fail("password_file", "missing (username is set)",
                   "a file whose first line is the password")
    if "ca_file" in section:
        ca = _relative(path, text("ca_file", "a PEM file"))
        if not ca.is_file():
            raise fail("ca_file", f"{ca} does not exist", "a PEM file of certificate authorities")
        values["ca_file"] = ca
    return MqttSettings(**values)


def _relative(path: Path, text: str) -> Path:
    p = Path(text).expanduser()
    return p if p.is_absolute() else path.parent / p


def _password(path: Path, text: str, fail: Any) -> str:
    file = _relative(path, text)
    try:
        first = file.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        raise fail("password_file", f"{file} does not exist",
                   "a file whose first line is the password") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise fail("password_file", f"{file} cannot be read ({exc})",
                   "a readable UTF-8 file") from None
    if not first or not first[0].strip():
        raise fail("password_file", f"{file} is empty", "a file whose first line is the password")
    return first[0].strip()
