"""The daemon's configuration file (docs/design.md §3), read and checked in full before anything
starts.

Every problem is one line, ``FILE: key: what is wrong; allowed: ...``, raised as
:class:`ConfigError` (the command line prints it and exits with code 2). Reader kinds are taken
from the reader factory's registry, so a backend added there is accepted here too.
"""

from __future__ import annotations

import dataclasses
import math
import os
import re
import stat
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from table.circuit.pi_wiring import PiSetup
from table.errors import TableError
from table.files.text import read_toml
from table.inputs import ROLES, ReaderRole
from table.mqtt.settings import MqttConfigError, MqttSettings, parse_mqtt
from table.readers import factory
from table.readers.factory import ReaderSpec
from table.referee.referee import BUTTONS
from table.referee.registry import Deck, DeckError, load_deck, virtual_deck
from table.rules import PRESETS, SPECS, Options, make_options, same_names
from table.runtime.board import BoardSettings, parse_board, setup_of, wiring_of
from table.runtime.proxies import PROXIES_ALLOWED, trusted_proxies
from table.voice.backends import BACKENDS
from table.voice.detail import DETAILS


class ConfigError(TableError, ValueError):
    """A configuration that cannot run. ``str()`` is ``FILE: key: what; allowed: ...``."""


SECTIONS: Final = ("table", "rules", "deck", "voice", "journal", "readers", "controls", "mqtt",
                   "web", "board")
TABLE_KEYS: Final = ("players", "language", "dealer", "pronunciations", "readings",
                     "color_reminder")
VOICE_KEYS: Final = ("backend", "folder", "cache", "cache_folder", "prewarm", "detail")
JOURNAL_KEYS: Final = ("path", "sync", "snapshot_every")
SYNC_MODES: Final = ("full", "normal")
CONTROL_KEYS: Final = ("seats", "buzzer", "pin_factory")
WEB_KEYS: Final = ("enabled", "listen", "api_key", "language", "local_admin", "hosts",
                   "trusted_proxies")
HOST_NAME: Final = re.compile(r"[A-Za-z0-9]([A-Za-z0-9.-]{0,251}[A-Za-z0-9])?")
DEFAULT_LISTEN: Final = ("0.0.0.0", 8080)
API_KEY_MIN: Final = 12  # characters of an api_key: the admin page is on the table's network
PIN_FACTORIES: Final = ("lgpio", "rpigpio", "pigpio", "native", "mock")
SEAT_CONTROL_KEYS: Final = (*BUTTONS, "led")
LANGUAGES: Final = ("en", "ja")
DEFAULT_JOURNAL: Final = "/var/lib/uno-table/journal.sqlite3"
GPIO_PINS: Final = range(28)  # BCM 0..27 on the 40-pin header


@dataclass(frozen=True, slots=True)
class SeatControls:
    """One seat's buttons (button name to BCM pin) and turn LED."""

    seat: int
    buttons: Mapping[str, int]
    led: int | None = None


@dataclass(frozen=True)
class Config:
    """A checked configuration: everything ``uno-table run`` needs to start."""

    path: Path
    players: tuple[str, ...]
    options: Options
    deck: Deck
    readers: tuple[ReaderSpec, ...]
    language: str = "en"
    dealer: int = 0
    pronunciations: Mapping[str, str] = field(default_factory=dict)
    readings: Mapping[str, str] = field(default_factory=dict)  # name -> its kana reading
    color_reminder: float = 5.0
    voice_backend: str = "pyttsx3"
    voice_folder: Path | None = None
    voice_cache: bool = True
    voice_cache_folder: Path | None = None  # None: the user's (or the service's) cache folder
    voice_prewarm: bool = True
    voice_detail: str = "turns"  # how much the voice says: turns, plays, everything
    journal_path: Path = Path(DEFAULT_JOURNAL)
    journal_sync: str = "full"
    snapshot_every: int = 500
    controls: tuple[SeatControls, ...] = ()
    buzzer: int | None = None
    pin_factory: str | None = None
    mqtt: MqttSettings | None = None  # [mqtt]: publish to a broker (table/mqtt/)
    web_enabled: bool = False
    web_listen: tuple[str, int] = DEFAULT_LISTEN
    web_api_key: str | None = None
    web_language: str | None = None  # None: the table's language
    web_local_admin: bool = True  # the admin page from the Pi itself needs no key
    web_hosts: tuple[str, ...] = ()  # names the web view answers to besides the machine's own
    web_trusted_proxies: tuple[str, ...] = ()  # reverse proxies whose forwarding headers count
    # [board]: the Pi, its audio, UART and MISO
    board: BoardSettings = field(default_factory=BoardSettings)

    def roles(self) -> list[ReaderRole]:
        """The readers as the referee sees them (a seat reader names its seat by number)."""
        return [
            ReaderRole(r.name, r.role, self.players.index(r.seat) if r.seat else None)
            for r in self.readers
        ]

    def reader(self, name: str | None) -> ReaderSpec:
        """The reader called ``name``, or the play pad when ``name`` is None."""
        for spec in self.readers:
            if spec.name == name or (name is None and spec.role == "play"):
                return spec
        names = ", ".join(r.name for r in self.readers)
        raise ConfigError(f"{self.path}: readers: no reader named {name!r}; allowed: {names}")


class _Checker:
    """Reads one file's values, each failure one line naming the file and the key."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def fail(self, key: str, what: str, allowed: str) -> ConfigError:
        return ConfigError(f"{self.path}: {key}: {what}; allowed: {allowed}")

    def keys(self, where: str, table: Mapping[str, Any], allowed: tuple[str, ...]) -> None:
        for key in table:
            if key not in allowed:
                name = f"{where}.{key}" if where else key
                raise self.fail(name, "unknown key", ", ".join(allowed))

    def table(self, key: str, value: object) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise self.fail(key, f"{_show(value)} is not a table", f"a [{key}] table")
        return value

    def string(self, key: str, value: object, allowed: str = "a string") -> str:
        if not isinstance(value, str) or not value.strip():
            raise self.fail(key, f"{_show(value)} is not a non-empty string", allowed)
        return value

    def choice(self, key: str, value: object, choices: tuple[str, ...]) -> str:
        allowed = ", ".join(choices)
        if value not in choices:
            raise self.fail(key, f"{_show(value)} is not allowed", allowed)
        assert isinstance(value, str)
        return value

    def integer(self, key: str, value: object, low: int, high: int) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise self.fail(key, f"{_show(value)} is not allowed", f"a whole number {low}..{high}")
        return value

    def flag(self, key: str, value: object) -> bool:
        if not isinstance(value, bool):
            raise self.fail(key, f"{_show(value)} is not allowed", "true or false")
        return value

    def number(self, key: str, value: object) -> float:
        if (isinstance(value, bool) or not isinstance(value, int | float)
                or not math.isfinite(value) or value <= 0):
            raise self.fail(key, f"{_show(value)} is not allowed", "a number of seconds above 0")
        return float(value)

    def file(self, key: str, value: object) -> Path:
        """A path that must exist, relative to the configuration file's folder."""
        path = self.relative(self.string(key, value, "a path"))
        try:
            path.stat()
        except (FileNotFoundError, NotADirectoryError):
            raise self.fail(key, f"{path} does not exist", "an existing file or device") from None
        except OSError as exc:
            raise self.fail(key, f"cannot reach {path}: {exc.strerror}",
                            "an existing file or device") from None
        return path

    def device(self, key: str, value: object) -> Path:
        """A serial device's path, relative to the configuration file's folder: there now, or
        one that can appear (a USB bridge plugged in later: a reader that is down, not a
        mistake). Refused: what can never be a device (a file, a folder, a path through a
        file, a folder that does not exist outside /dev, where udev makes its folders)."""
        path = self.relative(self.string(key, value, "a path"))
        allowed = "a serial device, e.g. /dev/serial/by-id/... (it may be plugged in later)"
        try:
            mode = path.stat().st_mode
        except FileNotFoundError:
            if path.parts[:2] == ("/", "dev") or path.parent.is_dir():
                return path  # not there yet: the reader waits for it
            raise self.fail(key, f"{path} cannot appear: its folder {path.parent} does not "
                                 "exist", allowed) from None
        except NotADirectoryError:
            raise self.fail(key, f"{path} cannot be a device: a part of it is a file",
                            allowed) from None
        except OSError as exc:
            raise self.fail(key, f"cannot reach {path}: {exc.strerror}", allowed) from None
        if not stat.S_ISCHR(mode):
            what = "a folder" if stat.S_ISDIR(mode) else "a file"
            raise self.fail(key, f"{path} is {what}, not a device", allowed)
        return path

    def folder(self, key: str, value: object) -> Path:
        """A folder to write in: there already, or made inside the nearest folder that is."""
        path = self.relative(self.string(key, value, "a folder"))
        allowed = "a folder this user can write in (made if missing)"
        there = next((p for p in (path, *path.parents) if os.path.exists(p)), Path("/"))
        if not os.path.isdir(there):
            raise self.fail(key, f"{there} is a file, not a folder", allowed)
        if not os.access(there, os.W_OK | os.X_OK):
            raise self.fail(key, f"no permission to write in {there}", allowed)
        return path

    def relative(self, text: str) -> Path:
        path = Path(text).expanduser()
        return path if path.is_absolute() else self.path.parent / path


def _show(value: object) -> str:
    """A value as the file wrote it, short: a table or a list of tables is named, not shown
    (one nested a thousand deep by dotted keys would not print)."""
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, list):
        if all(isinstance(v, str | int | float) for v in value):
            return "[" + ", ".join(_show(v) for v in value) + "]"
        return "a list of tables or lists"
    if isinstance(value, bool):
        return "true" if value else "false"
    return repr(value) if isinstance(value, str) else str(value)


def load_config(path: str | Path, need_deck: bool = True, wiring: bool = True) -> Config:
    """Read and check a configuration file. Raises :class:`ConfigError` (one line).
    ``need_deck=False`` (for enrolment, which writes the deck) skips the ``[deck]`` check;
    ``wiring=False`` (for ``uno-table wiring``, which shows every finding) the electrical rules."""
    path = Path(path)
    data = read_toml(path, "configuration file", ConfigError)
    if not data:
        raise ConfigError(f"{path}: the configuration file is empty; allowed: [table] with "
                          "players = [...], [deck] with file = ..., and [[readers]]")
    return parse_config(data, path, need_deck, wiring)


def parse_config(data: Mapping[str, Any], path: Path, need_deck: bool = True,
                 wiring: bool = True) -> Config:
    """Check the configuration's TOML ``data`` read from ``path`` (see :func:`load_config`)."""
    c = _Checker(path)
    c.keys("", data, SECTIONS)
    for section in ("table", "rules", "deck", "voice", "journal", "controls", "mqtt", "web",
                    "board"):
        if section in data:
            c.table(section, data[section])
    table = data.get("table")
    if table is None:
        raise c.fail("table", "missing", "a [table] section with players = [...]")
    c.keys("table", table, TABLE_KEYS)
    players = _players(c, table.get("players"))
    values: dict[str, Any] = {"players": players}
    if "language" in table:
        values["language"] = c.choice("table.language", table["language"], LANGUAGES)
    if "dealer" in table:
        values["dealer"] = players.index(c.choice("table.dealer", table["dealer"], players))
    if "pronunciations" in table:
        said = c.table("table.pronunciations", table["pronunciations"])
        for name, spoken in said.items():
            c.choice("table.pronunciations", name, players)
            c.string(f"table.pronunciations.{name}", spoken, "how to say the name")
        values["pronunciations"] = dict(said)
    if "readings" in table:
        values["readings"] = _readings(c, table["readings"], players)
    if "color_reminder" in table:
        values["color_reminder"] = c.number("table.color_reminder", table["color_reminder"])

    rules = data.get("rules", {})
    options = _options(c, rules)
    if need_deck:
        deck = _deck(c, data.get("deck", {}), rules, options)
    else:
        deck = virtual_deck(options.deck)
    if deck.edition != options.deck:
        options = dataclasses.replace(options, deck=deck.edition)
    values.update(_voice(c, data.get("voice", {})))
    values.update(_journal(c, data.get("journal", {})))
    readers = _readers(c, data.get("readers"), players)
    values.update(_controls(c, data.get("controls", {}), players, _reader_pins(readers)))
    if "mqtt" in data:
        try:
            values["mqtt"] = parse_mqtt(data["mqtt"], path)
        except MqttConfigError as exc:
            raise ConfigError(str(exc)) from None
    values.update(_web(c, data.get("web", {})))
    values["board"] = parse_board(c, data.get("board", {}))
    config = Config(path=path, options=options, deck=deck, readers=readers, **values)
    findings = wiring_of(path.stem, pi_setup(config))[1] if wiring else []
    if findings:  # what the electrical rules refuse (uno-table wiring shows them all)
        raise ConfigError(f"{path}: {findings[0].line()}")
    return config


def _players(c: _Checker, value: object) -> tuple[str, ...]:
    allowed = "a list of 2 to 10 different names"
    if value is None:
        raise c.fail("table.players", "missing", allowed)
    if (
        not isinstance(value, list)
        or not 2 <= len(value) <= 10
        or not all(isinstance(p, str) and p.strip() and p == p.strip() for p in value)
    ):
        raise c.fail("table.players", f"{_show(value)} is not allowed", allowed)
    twins = same_names(value)
    if twins:
        raise c.fail("table.players", twins, allowed)
    return tuple(value)


def _readings(c: _Checker, value: object, players: tuple[str, ...]) -> dict[str, str]:
    """Each name's reading in kana (凛音 = "りおん"), for the Japanese voice."""
    from table.voice.names import is_reading

    readings = c.table("table.readings", value)
    for name, reading in readings.items():
        c.choice("table.readings", name, players)
        key = f"table.readings.{name}"
        if not isinstance(reading, str) or not is_reading(reading):
            raise c.fail(key, f"{_show(reading)} is not allowed",
                         "the name's reading in hiragana or katakana")
    return dict(readings)


def _options(c: _Checker, rules: Mapping[str, Any]) -> Options:
    c.keys("rules", rules, ("preset", *SPECS))
    preset = c.choice("rules.preset", rules.get("preset", "official"), tuple(PRESETS))
    overrides: dict[str, object] = {}
    for key, value in rules.items():
        if key == "preset":
            continue
        spec = SPECS[key]
        # TOML has types: a flag must be true/false, a number a number, a word a string.
        same_type = type(value) is type(spec.default)
        if not same_type or (isinstance(value, str) and value not in spec.choices):
            raise c.fail(f"rules.{key}", f"{_show(value)} is not allowed", spec.allowed())
        try:
            overrides[key] = spec.check(value)
        except TableError:
            raise c.fail(f"rules.{key}", f"{_show(value)} is not allowed", spec.allowed()) from None
    return make_options(preset, **overrides)


def _deck(c: _Checker, deck: Mapping[str, Any], rules: Mapping[str, Any], options: Options) -> Deck:
    c.keys("deck", deck, ("file",))
    if "file" not in deck:
        allowed = 'a deck file (uno-table enroll writes one) or "virtual"'
        raise c.fail("deck.file", "missing", allowed)
    if deck["file"] == "virtual":
        return virtual_deck(options.deck)
    path = c.file("deck.file", deck["file"])
    try:
        loaded = load_deck(path, options.deck)
    except DeckError as exc:
        allowed = "a deck file that uno-table deck check accepts"
        raise c.fail("deck.file", str(exc), allowed) from None
    if "deck" in rules and loaded.edition != options.deck:
        raise c.fail(
            "rules.deck",
            f"the deck file {path} is a {loaded.edition} deck, not {options.deck}",
            loaded.edition,
        )
    return loaded


def _voice(c: _Checker, voice: Mapping[str, Any]) -> dict[str, Any]:
    c.keys("voice", voice, VOICE_KEYS)
    out: dict[str, Any] = {}
    if "backend" in voice:
        out["voice_backend"] = c.choice("voice.backend", voice["backend"], BACKENDS)
    if "folder" in voice:
        out["voice_folder"] = c.folder("voice.folder", voice["folder"])
    if "cache" in voice:
        out["voice_cache"] = c.flag("voice.cache", voice["cache"])
    if "cache_folder" in voice:
        out["voice_cache_folder"] = c.folder("voice.cache_folder", voice["cache_folder"])
    if "prewarm" in voice:
        out["voice_prewarm"] = c.flag("voice.prewarm", voice["prewarm"])
    if "detail" in voice:
        out["voice_detail"] = c.choice("voice.detail", voice["detail"], DETAILS)
    return out


def _journal(c: _Checker, journal: Mapping[str, Any]) -> dict[str, Any]:
    c.keys("journal", journal, JOURNAL_KEYS)
    out: dict[str, Any] = {}
    if "path" in journal:
        path = c.relative(c.string("journal.path", journal["path"], "a file path"))
        if not path.parent.is_dir():
            what = f"the folder {path.parent} does not exist"
            raise c.fail("journal.path", what, "a path in an existing folder")
        out["journal_path"] = path
    if "sync" in journal:
        out["journal_sync"] = c.choice("journal.sync", journal["sync"], SYNC_MODES)
    if "snapshot_every" in journal:
        every = journal["snapshot_every"]
        out["snapshot_every"] = c.integer("journal.snapshot_every", every, 10, 1_000_000)
    return out


_READER_KEYS: Final = tuple(f.name for f in dataclasses.fields(ReaderSpec) if f.name != "extra")
# Kinds that take no keys of their own. Any other kind gets its other keys as ``extra`` and
# checks them itself when the reader is made (before the daemon touches anything).
PLAIN_KINDS: Final = ("serial-line", "rdm6300", "sim")


def _readers(c: _Checker, value: object, players: tuple[str, ...]) -> tuple[ReaderSpec, ...]:
    if not isinstance(value, list) or not value:
        allowed = 'one [[readers]] table per reader, one with role = "play"'
        raise c.fail("readers", "missing", allowed)
    specs: list[ReaderSpec] = []
    for i, raw in enumerate(value):
        where = f"readers[{i}]"
        entry = c.table(where, raw)
        if entry.get("kind") in PLAIN_KINDS:
            c.keys(where, entry, _READER_KEYS)
        name = c.string(f"{where}.name", entry.get("name"), "a name for the reader")
        where = f"readers[{i}] ({name})"
        if name in (s.name for s in specs):
            raise c.fail(f"{where}.name", f"{name!r} is used twice", "a different name per reader")
        kinds = tuple(sorted(factory.KINDS))
        kind = c.choice(f"{where}.kind", entry.get("kind"), kinds)
        role = c.choice(f"{where}.role", entry.get("role", "play"), ROLES)
        fields: dict[str, Any] = {"name": name, "kind": kind, "role": role}
        if role == "seat":
            fields["seat"] = c.choice(f"{where}.seat", entry.get("seat"), players)
        elif "seat" in entry:
            allowed = 'seat only with role = "seat"'
            raise c.fail(f"{where}.seat", f"a {role} reader has no seat", allowed)
        if "port" in entry:
            fields["port"] = str(c.device(f"{where}.port", entry["port"]))
        elif kind in ("serial-line", "rdm6300", "bridge"):
            allowed = "the reader's serial port, e.g. /dev/serial/by-id/..."
            raise c.fail(f"{where}.port", "missing", allowed)
        if "channel" in entry:
            fields["channel"] = c.integer(f"{where}.channel", entry["channel"], 0, 15)
        for key in ("bus", "device"):
            if key in entry:
                fields[key] = c.integer(f"{where}.{key}", entry[key], 0, 9)
        if "reset_pin" in entry:
            fields["reset_pin"] = c.integer(f"{where}.reset_pin", entry["reset_pin"], 0, 27)
        fields["extra"] = {k: _extra(c, f"{where}.{k}", v)
                           for k, v in entry.items() if k not in _READER_KEYS}
        specs.append(ReaderSpec(**fields))
    plays = [s.name for s in specs if s.role == "play"]
    if len(plays) != 1:
        what = f'{len(plays)} readers with role = "play"'
        raise c.fail("readers", what, "exactly one play pad")
    return tuple(specs)


def _plain(value: object) -> bool:
    return isinstance(value, str | int) or (isinstance(value, float) and math.isfinite(value))


def _extra(c: _Checker, key: str, value: object) -> object:
    """A key a reader backend checks itself: a plain value or a list of them, any number in
    it finite."""
    if not (_plain(value) or (isinstance(value, list) and all(map(_plain, value)))):
        allowed = "a finite number, a string, true or false, or a list of those"
        raise c.fail(key, f"{_show(value)} is not allowed", allowed)
    return value


SPI0_PINS: Final = (7, 8, 9, 10, 11)  # CE1, CE0, MISO, MOSI, SCLK


def _reader_pins(readers: tuple[ReaderSpec, ...]) -> dict[int, str]:
    """GPIO pins the SPI readers take: the bus, chip selects and reset lines."""
    used: dict[int, str] = {}
    for r in readers:
        if r.kind != "mfrc522":
            continue
        if r.bus == 0:
            used.update({pin: "SPI0 (an mfrc522 reader)" for pin in SPI0_PINS})
        for key in ("reset_pin", "cs_pin"):
            pin: Any
            if key == "reset_pin":
                pin = r.reset_pin if r.reset_pin is not None else 25  # the backend's default
            else:
                pin = r.extra.get(key)
            if isinstance(pin, int):
                used[pin] = f"readers ({r.name}).{key}"
    return used


def _controls(c: _Checker, controls: Mapping[str, Any], players: tuple[str, ...],
              taken: Mapping[int, str]) -> dict[str, Any]:
    c.keys("controls", controls, CONTROL_KEYS)
    out: dict[str, Any] = {}
    used: dict[int, str] = dict(taken)

    def pin(key: str, value: object) -> int:
        number = c.integer(key, value, GPIO_PINS.start, GPIO_PINS.stop - 1)
        if number in used:
            raise c.fail(key, f"pin {number} is already {used[number]}", "a pin used once")
        used[number] = key
        return number

    if "pin_factory" in controls:
        factory_name = controls["pin_factory"]
        out["pin_factory"] = c.choice("controls.pin_factory", factory_name, PIN_FACTORIES)
    if "buzzer" in controls:
        out["buzzer"] = pin("controls.buzzer", controls["buzzer"])
    seats = c.table("controls.seats", controls.get("seats", {}))
    found: list[SeatControls] = []
    for name, raw in seats.items():
        c.choice("controls.seats", name, players)
        where = f"controls.seats.{name}"
        entry = c.table(where, raw)
        c.keys(where, entry, SEAT_CONTROL_KEYS)
        buttons = {b: pin(f"{where}.{b}", entry[b]) for b in BUTTONS if b in entry}
        led = pin(f"{where}.led", entry["led"]) if "led" in entry else None
        found.append(SeatControls(players.index(name), buttons, led))
    out["controls"] = tuple(sorted(found, key=lambda s: s.seat))
    return out


def _web(c: _Checker, web: Mapping[str, Any]) -> dict[str, Any]:
    c.keys("web", web, WEB_KEYS)
    out: dict[str, Any] = {}
    if "enabled" in web:
        out["web_enabled"] = c.flag("web.enabled", web["enabled"])
    if "listen" in web:
        allowed = ('HOST:PORT, e.g. "0.0.0.0:8080" (every address) or "127.0.0.1:8080" (port 0: '
                   "any free one)")
        text = c.string("web.listen", web["listen"], allowed)
        host, sep, port = text.rpartition(":")
        host = host.strip("[]")
        if (not sep or not host or not (port.isascii() and port.isdigit())
                or not 0 <= int(port) <= 65535):
            raise c.fail("web.listen", f"{_show(text)} is not an address", allowed)
        out["web_listen"] = (host, int(port))
    if "api_key" in web:
        key = c.string("web.api_key", web["api_key"], "a secret of 12 characters or more")
        if len(key) < API_KEY_MIN or key != key.strip():
            raise c.fail("web.api_key", f"a key of {len(key)} characters (or with spaces at an "
                         "end) is too easy to guess", "a secret of 12 characters or more")
        out["web_api_key"] = key
    if "language" in web:
        out["web_language"] = c.choice("web.language", web["language"], LANGUAGES)
    if "local_admin" in web:
        out["web_local_admin"] = c.flag("web.local_admin", web["local_admin"])
    if "hosts" in web:
        allowed = 'a list of host names, e.g. ["uno.lan", "table.example.org"]'
        names = web["hosts"]
        if not isinstance(names, list) or len(names) > 32:
            raise c.fail("web.hosts", f"{_show(names)} is not a list of up to 32 names", allowed)
        for name in names:
            if not isinstance(name, str) or not HOST_NAME.fullmatch(name):
                raise c.fail("web.hosts", f"{_show(name)} is not a host name", allowed)
        out["web_hosts"] = tuple(name.lower() for name in names)
    if "trusted_proxies" in web:
        try:
            out["web_trusted_proxies"] = trusted_proxies(web["trusted_proxies"])
        except ValueError as e:
            raise c.fail("web.trusted_proxies", str(e), PROXIES_ALLOWED) from None
    return out


def pi_setup(config: Config) -> PiSetup:
    """What ``config`` puts on the Pi's header (table/circuit/ checks and draws it)."""
    return setup_of(config.readers, config.controls, config.buzzer, config.players,
                    config.board)


def load_for_wiring(path: Path) -> Config:
    """The configuration at ``path`` checked as ``uno-table wiring`` needs it: its pins and
    parts, not its devices, journal or deck (the wiring is drawn before any is there), and
    without the electrical rules (the command shows every finding, not the first)."""
    data = dict(read_toml(path, "configuration file", ConfigError))
    data.pop("journal", None)
    data["deck"] = {"file": "virtual"}
    readers = data.get("readers")
    if isinstance(readers, list):
        data["readers"] = [{**r, "port": os.devnull} if isinstance(r, dict) and "port" in r
                           else r for r in readers]
    return parse_config(data, path, need_deck=False, wiring=False)
