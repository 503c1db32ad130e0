"""Every configuration error is one line naming the file and the key, with what is allowed,
and exit code 2, before anything starts."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from sim.hardware.ptys import sim_config
from table.commands.cli import main
from table.readers import factory
from table.runtime.config import ConfigError, load_config

GOOD = sim_config(("Aki", "Ken", "Mio"), 'preset = "official"\nuno_penalty = 2')

# (what to change: old text -> new text, the key named, a fragment of the message)
BAD = [
    ('language = "en"', 'language = "fr"', "table.language", "allowed: en, ja"),
    ('language = "en"', 'colour = "red"', "table.colour", "unknown key"),
    ('players = ["Aki", "Ken", "Mio"]', 'players = "Aki"', "table.players",
     "allowed: a list of 2 to 10 different names"),
    ('players = ["Aki", "Ken", "Mio"]', 'players = ["Aki", "Aki"]', "table.players", "different"),
    ('language = "en"', 'dealer = "Yuki"', "table.dealer", "allowed: Aki, Ken, Mio"),
    ('language = "en"', 'pronunciations = { Yuki = "ゆき" }', "table.pronunciations",
     "allowed: Aki, Ken, Mio"),
    ('language = "en"', 'readings = { Yuki = "ゆき" }', "table.readings", "allowed: Aki, Ken, Mio"),
    ('language = "en"', 'readings = { Aki = "Aki" }', "table.readings.Aki",
     "allowed: the name's reading in hiragana or katakana"),
    ('language = "en"', 'readings = { Aki = 1 }', "table.readings.Aki", "hiragana or katakana"),
    ('backend = "captions"', 'backend = "captions"\ncache_folder = "pad/phrases"',
     "voice.cache_folder", "is a file, not a folder"),
    ('preset = "official"', 'preset = "chaos"', "rules.preset", "allowed: official"),
    ("uno_penalty = 2", "uno_penalty = 11", "rules.uno_penalty", "0 to 10"),
    ("uno_penalty = 2", 'uno_penalty = "two"', "rules.uno_penalty", "0 to 10"),
    ("uno_penalty = 2", "stacking_wildly = true", "rules.stacking_wildly", "unknown key"),
    ("uno_penalty = 2", 'draw = "forever"', "rules.draw", '"until-playable"'),
    ("uno_penalty = 2", "challenge = 1", "rules.challenge", "true or false"),
    ('file = "virtual"', 'file = "missing-deck.toml"', "deck.file", "does not exist"),
    ('backend = "captions"', 'backend = "morse"', "voice.backend", "allowed: pyttsx3"),
    ('path = "journal.sqlite3"', 'path = "no/such/folder/j.sqlite3"', "journal.path",
     "does not exist"),
    ('kind = "serial-line"', 'kind = "telepathy"', "readers[0] (pad).kind",
     "allowed: " + ", ".join(sorted(factory.KINDS))),
    ('role = "play"', 'role = "dealer"', "readers[0] (pad).role", "allowed: play, seat, draw"),
    ('port = "pad"', 'port = "pad/ttyUSB9"', "readers[0] (pad).port",
     "cannot be a device: a part of it is a file"),
    ('port = "pad"', 'port = "/dve/ttyUSB0"', "readers[0] (pad).port",
     "/dve/ttyUSB0 cannot appear: its folder /dve does not exist"),
    ('port = "pad"', 'port = "table.toml"', "readers[0] (pad).port", "is a file, not a device"),
    ('port = "pad"', 'port = "/"', "readers[0] (pad).port", "/ is a folder, not a device"),
    ('port = "pad"', "", "readers[0] (pad).port", "missing"),
    ('port = "pad"', 'port = "pad"\nspeed = 9600', "readers[0].speed", "unknown key"),
    ('role = "play"', 'role = "seat"\nseat = "Aki"', "readers", "exactly one play pad"),
    ('[voice]', '[controls.seats.Aki]\nuno = 5\nled = 5\n[voice]', "controls.seats.Aki.led",
     "pin 5 is already"),
    ('[voice]', '[controls.seats.Aki]\nshout = 5\n[voice]', "controls.seats.Aki.shout",
     "unknown key"),
    ('[voice]', '[controls]\nbuzzer = 40\n[voice]', "controls.buzzer", "0..27"),
    ('[table]', '[tabel]\nx = 1\n[table]', "tabel", "unknown key"),
    ('[voice]', '[web]\nlisten = "8080"\n[voice]', "web.listen", "is not an address"),
    ('[voice]', '[web]\nlisten = "0.0.0.0:80800"\n[voice]', "web.listen", "HOST:PORT"),
    ('[voice]', '[web]\napi_key = "secret"\n[voice]', "web.api_key",
     "a secret of 12 characters or more"),
    ('[voice]', '[web]\nenabled = "yes"\n[voice]', "web.enabled", "true or false"),
    ('[voice]', '[web]\nlanguage = "de"\n[voice]', "web.language", "allowed: en, ja"),
    ('[voice]', '[web]\nport = 8080\n[voice]', "web.port", "unknown key"),
    ('uno_penalty = 2', 'uno_penalty = ', "", "not valid TOML"),
    ('[voice]', '[voice]\ndetail = "loud"', "voice.detail", "turns, plays, everything"),
]


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "pad").symlink_to("/dev/null")  # stands for the port: a character device
    return tmp_path


def test_the_good_config_loads(folder: Path) -> None:
    (folder / "table.toml").write_text(GOOD, encoding="utf-8")
    config = load_config(folder / "table.toml")
    assert config.players == ("Aki", "Ken", "Mio")
    assert config.journal_path == folder / "journal.sqlite3"
    assert config.readers[0].port == str(folder / "pad")


@pytest.mark.parametrize(("old", "new", "key", "fragment"), BAD)
def test_a_bad_config_is_one_line_and_exit_2(
    folder: Path, capsys: pytest.CaptureFixture[str], old: str, new: str, key: str, fragment: str
) -> None:
    assert old in GOOD
    path = folder / "table.toml"
    path.write_text(GOOD.replace(old, new, 1), encoding="utf-8")
    assert main(["run", "--config", str(path)]) == 2
    out = capsys.readouterr()
    lines = out.err.strip().splitlines()
    assert len(lines) == 1, out.err
    assert lines[0].startswith(f"uno-table: {path}: {key}"), lines[0]
    assert fragment in lines[0]
    assert out.out == ""


def test_the_web_section_and_its_defaults(folder: Path) -> None:
    path = folder / "table.toml"
    path.write_text(GOOD, encoding="utf-8")
    off = load_config(path)
    assert not off.web_enabled and off.web_listen == ("0.0.0.0", 8080)
    path.write_text(GOOD + '\n[web]\nenabled = true\napi_key = "correct-horse-battery"\n'
                    'language = "ja"\n', encoding="utf-8")
    on = load_config(path)
    assert on.web_enabled and on.web_listen == ("0.0.0.0", 8080)
    assert (on.web_api_key, on.web_language, on.web_local_admin) == (
        "correct-horse-battery", "ja", True)
    path.write_text(GOOD + '\n[web]\nenabled = true\nlisten = "[::1]:0"\n', encoding="utf-8")
    assert load_config(path).web_listen == ("::1", 0)


def test_a_missing_config_file_from_a_real_process(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "table.commands.cli", "run",
         "--config", str(tmp_path / "none.toml")],
        capture_output=True, text=True, timeout=60,
    )
    assert done.returncode == 2
    assert done.stderr.strip() == f"uno-table: {tmp_path / 'none.toml'}: no such configuration file"
    assert "Traceback" not in done.stderr


def test_a_backend_checks_its_own_keys_before_anything_starts(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """mfrc522 takes keys of its own (poll, cs_pin...); a wrong one is refused by the backend
    when the reader is made: still one line naming the file, exit 2, no journal written."""
    path = folder / "table.toml"
    text = GOOD.replace('kind = "serial-line"\nport = "pad"', 'kind = "mfrc522"\nbogus = 1')
    path.write_text(text, encoding="utf-8")
    assert load_config(path).readers[0].extra == {"bogus": 1}
    assert main(["run", "--config", str(path)]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"uno-table: {path}: reader pad: unknown key")
    assert not (folder / "journal.sqlite3").exists()


def test_controls_keep_off_the_spi_readers_pins(folder: Path) -> None:
    path = folder / "table.toml"
    spi = GOOD.replace('kind = "serial-line"\nport = "pad"', 'kind = "mfrc522"')
    for pin, taken in ((25, "readers (pad).reset_pin"), (10, "SPI0")):
        path.write_text(spi.replace("[voice]", f"[controls]\nbuzzer = {pin}\n[voice]"),
                        encoding="utf-8")
        with pytest.raises(ConfigError, match=re.escape(f"buzzer: pin {pin} is already {taken}")):
            load_config(path)
