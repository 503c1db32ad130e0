"""``uno-table doctor``: checks everything the daemon needs, and says what to fix.

The configuration (a bad one is the usual one-line error, exit 2), every reader (opened for
real: it must come live within the timeout; a backend with a ``probe()`` method, such as a chip
version read, is asked too; an MFRC522 that is a counterfeit, that holds the SPI bus, or that
sees tags during ``--quiet`` seconds with no card placed is named; not while ``uno-table run``
referees with the same journal: its readers are its own), the permissions the readers and GPIO
need, the journal's folder, the audio output and the speech backends. Exit code 0 when all is
well, 1 when something needs fixing.
"""

from __future__ import annotations

import grp
import os
import queue
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path

from table.commands.buttons import check_lines
from table.errors import TableError
from table.inputs import ReaderStatus, Report
from table.journal.entries import JournalError
from table.journal.identify import identify
from table.journal.store import in_use as journal_in_use
from table.readers import pi_board
from table.readers.factory import Reader, ReaderSpec, make_reader
from table.readers.radio_checks import bus_holders, chip_problems, quiet_problems
from table.readers.serial_reader import in_use
from table.runtime.config import Config, ConfigError, load_config

SERIAL_KINDS = ("serial-line", "rdm6300", "bridge")
VERSION_REG = 0x37  # MFRC522 VersionReg


@dataclass(frozen=True, slots=True)
class Finding:
    """One thing doctor checked: fine or not, what it is, and how to fix it."""

    ok: bool
    what: str
    fix: str = ""

    def line(self) -> str:
        """The finding as doctor prints it (with the fix on a line of its own)."""
        text = f"{'ok ' if self.ok else 'FIX'}  {self.what}"
        return text + (f"\n       -> {self.fix}" if self.fix else "")


def _groups() -> set[str]:
    names = set()
    for gid in os.getgroups():
        try:
            names.add(grp.getgrgid(gid).gr_name)
        except KeyError:
            continue
    return names


def _device_access(path: Path, what: str) -> Finding:
    if os.access(path, os.R_OK | os.W_OK):
        return Finding(True, f"{what}: {path} can be opened for reading and writing")
    try:
        group = grp.getgrgid(path.stat().st_gid).gr_name
    except (KeyError, OSError):
        group = "dialout"
    return Finding(False, f"{what}: no permission to use {path}",
                   f"add the user to the {group} group: sudo usermod -aG {group} "
                   f"{os.environ.get('USER', 'USER')} (then log in again)")


def _probe(reader: Reader) -> str:
    """What a live reader can tell about itself: a backend's own ``probe()``, or an MFRC522's
    version register (0x91 or 0x92 for a genuine chip)."""
    probe = getattr(reader, "probe", None)
    if callable(probe):
        return f", {probe()}"
    chip = getattr(reader, "chip", None)
    if chip is not None and hasattr(chip, "Read_MFRC522"):
        return f", chip version 0x{int(chip.Read_MFRC522(VERSION_REG)):02X}"
    return ""


def _why_not(spec: ReaderSpec, what: str) -> list[Finding]:
    """Likely causes of a reader that did not come live."""
    found = []
    if spec.port and not os.path.exists(spec.port):
        found.append(Finding(False, f"{what}: no device at {spec.port} (not plugged in?)",
                             "plug the reader in; ls -l /dev/serial/by-id /dev/serial/by-path "
                             "lists the serial devices there are"))
    elif spec.port:
        found.append(_device_access(Path(spec.port), what))
    if spec.kind == "mfrc522":
        dev = Path(f"/dev/spidev{spec.bus}.{spec.device}")
        if not dev.exists():
            found.append(Finding(False, f"{what}: {dev} does not exist",
                                 "enable SPI: sudo raspi-config nonint do_spi 0, then reboot"))
        else:
            found.append(_device_access(dev, what))
    return [f for f in found if not f.ok]


def check_reader(spec: ReaderSpec, timeout: float, quiet: float = 0.0,
                 live: set[str] | None = None) -> list[Finding]:
    """Open the reader for real and wait for it to come live; then what its radio tells
    (a counterfeit chip; tags seen during ``quiet`` seconds with no card placed). Its name
    goes into ``live`` when it came live."""
    what = f"reader {spec.name} ({spec.kind}, {spec.role})"
    reports: queue.Queue[Report] = queue.Queue()
    try:
        reader = make_reader(spec, reports.put)
        reader.start()
    except Exception as exc:  # a backend's library missing, a device that cannot be opened
        return [Finding(False, f"{what}: cannot start: {exc}",
                        "check the reader's kind, port and wiring"), *_why_not(spec, what)]
    state, detail = "no report", ""
    try:
        deadline = time.monotonic() + timeout
        while state != "live":
            try:
                report = reports.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                break
            if isinstance(report, ReaderStatus):
                state, detail = report.state, report.detail or detail
        if state == "live":
            if live is not None:
                live.add(spec.name)
            radio = chip_problems(reader) + quiet_problems(reader, quiet, time.sleep)
            return [Finding(True, f"{what}: live{_probe(reader)}"),
                    *(Finding(False, f"{what}: {said}", fix) for said, fix in radio)]
    finally:
        reader.stop(timeout=2.0)
    if spec.port and in_use(spec.port):
        return [Finding(False, f"{what}: {spec.port} is in use by another program",
                        f"stop that program (fuser -v {spec.port} names it), then run doctor "
                        "again")]
    where = f" on {spec.port}" if spec.port else ""
    said = f"{state}: {detail}" if detail else state
    return [Finding(False, f"{what}: not live after {timeout:g} s ({said})",
                    f"check the cable and power of the reader{where}; "
                    "ls -l /dev/serial/by-id/ lists the USB serial devices"),
            *_why_not(spec, what)]


def check_readers(config: Config, timeout: float, quiet: float = 0.0) -> list[Finding]:
    """Every reader, unless a running ``uno-table run`` holds the table (its journal's lock):
    its readers are left to it, since a read taken by doctor is a play the table never sees."""
    try:
        refereeing = journal_in_use(config.journal_path)
    except OSError as exc:
        return [Finding(False, f"readers: cannot tell whether uno-table run is refereeing "
                        f"with {config.journal_path} ({exc.strerror})",
                        "run doctor as the user the service runs as: sudo -u uno-table "
                        f"uno-table doctor --config {config.path}")]
    if refereeing:
        return [Finding(True, f"readers: uno-table run is refereeing with {config.journal_path},"
                        " so its readers were left to it",
                        "to check them, stop it (sudo systemctl stop uno-table) and run doctor "
                        "again")]
    live: set[str] = set()
    found = [f for spec in config.readers for f in check_reader(spec, timeout, quiet, live)]
    holders = bus_holders(config.readers, live, lambda spec: make_reader(spec, lambda r: None))
    return found + [Finding(False, said, fix) for said, fix in holders]


def needs_gpio(config: Config) -> bool:
    """Whether the table drives GPIO: an MFRC522's reset pin, buttons, LEDs, a buzzer."""
    return (any(r.kind == "mfrc522" for r in config.readers) or bool(config.controls)
            or config.buzzer is not None)


def check_gpio_library(model_file: Path | None = None,
                       path: list[str] | None = None) -> list[Finding]:
    """The ``RPi.GPIO`` installed, against the one the board needs (see
    :mod:`table.readers.pi_board`). Nothing to say off a Raspberry Pi."""
    model = pi_board.board_model(model_file)
    if model is None:
        return []
    want = pi_board.wanted(model)
    have, both = pi_board.imported(path), pi_board.installed(path)
    fix = (f"pip uninstall -y {' '.join(pi_board.PACKAGES)}; then, in the checkout, "
           f"pip install -e '.[{pi_board.extra(want)}]' && pip install --no-deps mfrc522==0.0.7"
           " (docs/hardware.md: Setting up the Pi)")
    if have is None:
        return [Finding(False, f"RPi.GPIO: not installed; a {model} needs {want}'s", fix)]
    if have != want:
        return [Finding(False, f"RPi.GPIO: {have}'s is installed; a {model} needs {want}'s",
                        fix)]
    if len(both) > 1:
        other = next(p for p in both if p != have)
        return [Finding(False, f"RPi.GPIO: {have}'s, but {other} is installed too and the "
                        "next install of either decides which one is imported", fix)]
    return [Finding(True, f"RPi.GPIO: {have}'s, as a {model} needs")]


def check_groups(config: Config) -> list[Finding]:
    """Whether the user may open the readers and pins (the groups it must be in)."""
    if os.geteuid() == 0:
        return [Finding(True, "permissions: running as root (the service runs as its own user)")]
    need: dict[str, str] = {}
    kinds = {r.kind for r in config.readers}
    if kinds & set(SERIAL_KINDS):
        need["dialout"] = "serial readers"
    if "mfrc522" in kinds:
        need["spi"] = "SPI readers"
        need["gpio"] = "the readers' reset pin"
    if config.controls or config.buzzer is not None:
        need["gpio"] = "buttons, LEDs and buzzer"
    have = _groups()
    user = os.environ.get("USER", "USER")
    return [
        Finding(True, f"group {g}: member ({why})") if g in have else
        Finding(False, f"group {g}: not a member, needed for {why}",
                f"sudo usermod -aG {g} {user} (then log in again)")
        for g, why in need.items()
    ]


def check_journal(config: Config) -> Finding:
    """Whether the journal of ``config`` can be opened and written as run would."""
    path = config.journal_path
    if not os.access(path.parent, os.W_OK):
        return Finding(False, f"journal: cannot write in {path.parent}",
                       f"sudo install -d -o {os.environ.get('USER', 'USER')} {path.parent}")
    try:
        found = identify(path)  # what `uno-table run` will make of it, read only
    except JournalError as exc:
        return Finding(False, f"journal: {exc}",
                       "point [journal] path at a new file (uno-table never rewrites another)")
    if found.kind in ("missing", "empty"):
        return Finding(True, f"journal: {path} will be created")
    if found.kind == "damaged":
        return Finding(False, f"journal: {path} is damaged",
                       "uno-table run repairs it at start, keeping the damaged file beside it")
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            ok = db.execute("PRAGMA quick_check").fetchone()[0] == "ok"
        finally:
            db.close()
    except sqlite3.Error:
        ok = False
    if ok:
        return Finding(True, f"journal: {path} is intact")
    return Finding(False, f"journal: {path} is damaged",
                   "uno-table run repairs it at start, keeping the damaged file beside it")


def check_voice(config: Config) -> list[Finding]:
    """Whether the configured voice speaks, and where its sound goes."""
    from table.voice.backends import audio_player, make_backend
    from table.voice.espeak import phonemes

    found = []
    try:
        phonemes("test", config.language)
        found.append(Finding(True, f"speech: espeak-ng speaks {config.language}"))
    except TableError as exc:
        found.append(Finding(False, f"speech: {exc}", "sudo apt-get install espeak-ng"))
    player = audio_player()
    if player is not None:
        found.append(Finding(True, f"audio output: {' '.join(player)}"))
    elif config.voice_backend in ("pyttsx3", "espeak-ng"):
        found.append(Finding(False, "audio output: no aplay, paplay or pw-play found",
                             "sudo apt-get install alsa-utils"))
    if config.language == "ja":
        found += check_japanese(config)
    if config.voice_backend not in ("captions", "wav"):
        try:
            make_backend(config.voice_backend)
            found.append(Finding(True, f"voice backend {config.voice_backend}: usable"))
        except TableError as exc:
            found.append(Finding(False, f"voice backend {config.voice_backend}: {exc}",
                                 'set [voice] backend = "espeak-ng" or "captions"'))
    return found


def check_japanese(config: Config) -> list[Finding]:
    """Open JTalk, and every player's name said by the voice that speaks Japanese here."""
    from table.runtime.daemon import check_names_said
    from table.voice.openjtalk import INSTALL_DICT, INSTALL_ENGINE, engine

    found = []
    try:
        jt = engine()
        found.append(Finding(True, f"Japanese voice: Open JTalk ({jt.found.voice.stem})"))
    except TableError as exc:
        found.append(Finding(False, f"Japanese voice: {exc}; espeak-ng speaks instead",
                             f"{INSTALL_ENGINE}; {INSTALL_DICT}"))
    try:
        check_names_said(config)
        found.append(Finding(True, "player names: the voice can say each of them"))
        found += _name_readings(config)
    except TableError as exc:
        found.append(Finding(False, str(exc), "add the name's reading under [table] readings"))
    return found


def _name_readings(config: Config) -> list[Finding]:
    """Each player's name as the Japanese voice will say it, the likely wrong ones with the
    ``[table] readings`` line that fixes them."""
    from table.voice.names import name_readings

    return [Finding(True, f"name {r.name}: said {r.reading}" + (
        f" -- check it: {r.warning.split(', but ', 1)[-1]}" if r.warning else ""),
        f"if that is wrong, add under [table] readings: {r.fix}" if r.warning else "")
        for r in name_readings(config.players, config.readings, config.pronunciations)]


def check_deck(config: Config) -> Finding:
    """Whether the deck file has a tag for every card and token."""
    missing = config.deck.missing()
    tags = len(config.deck.tags)
    if not missing:
        return Finding(True, f"deck: {tags} tags, every card and token of {config.deck.edition}")
    cards = [m for m in missing if not m.startswith("token:")]
    if not cards:
        return Finding(True, f"deck: {tags} tags; {len(missing)} tokens have no tag")
    return Finding(False, f"deck: {len(cards)} cards have no tag: {' '.join(cards[:8])}"
                   + (" ..." if len(cards) > 8 else ""),
                   "uno-table enroll --out DECK resumes the enrolment where it stopped")


def check_deck_file(config_path: str) -> Finding:
    """The configuration's deck file, read: missing or bad is a FIX line, not a stop (the
    wiring is checked before a deck is enrolled)."""
    try:
        config = load_config(config_path)
    except ConfigError as exc:
        return Finding(False, str(exc), "check the wiring first (uno-table check-table), then "
                       "uno-table enroll --out DECK writes the deck file")
    return check_deck(config)


def check_unit(config: Config) -> list[Finding]:
    """The installed service's unit, when it runs this configuration: written for it, or
    written again (a section that needs the network turned on after the install)."""
    from table.commands.service import stale_unit

    problem = stale_unit(config)
    if problem is None:
        return []
    return [Finding(False, f"service: {problem}",
                    "write it again for this configuration: sudo ./uno install in the checkout "
                    "(or sudo uno-table service --config ... > the unit file, then sudo "
                    "systemctl daemon-reload and restart uno-table)")]


def doctor(config_path: str, timeout: float = 3.0, quiet: float = 0.0) -> int:
    """``uno-table doctor``: every check printed with its fix; exit 0 when all are fine."""
    config = load_config(config_path, need_deck=False)  # a bad config: one line, exit 2
    findings = [Finding(True, f"config: {config.path} ({len(config.players)} players, "
                              f"{len(config.readers)} readers, {config.options.preset} rules)")]
    findings.append(check_deck_file(config_path))
    findings += check_groups(config)
    if needs_gpio(config):
        findings += check_gpio_library()
    findings += [Finding(*line) for line in check_lines(config)]
    findings += check_readers(config, timeout, quiet)
    findings.append(check_journal(config))
    findings += check_voice(config)
    findings += check_unit(config)
    for finding in findings:
        print(finding.line(), flush=True)
    problems = sum(not f.ok for f in findings)
    print(f"\n{problems} to fix" if problems else "\nall good: uno-table run can start")
    return 1 if problems else 0
