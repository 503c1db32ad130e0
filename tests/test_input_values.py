"""Values that parse but cannot mean anything: a number that is not finite (``nan``, ``inf``)
and two players whose names differ only by case. Each is refused where it is written, in one
line, exit code 2."""

from __future__ import annotations

import logging
import random
from dataclasses import replace
from pathlib import Path

import pytest

from sim.hardware.ptys import sim_config
from table.cards import edition_cards, parse_card
from table.commands.cli import main
from table.errors import SetupError
from table.rules import Deal, make_options, new_game
from table.runtime.config import ConfigError, load_config
from table.runtime.daemon import backend_factory
from table.voice.backends import CaptionsBackend, make_backend
from table.voice.espeak import SpeechError

NOT_FINITE = ("nan", "inf", "-inf", "+inf")


def config_file(folder: Path, old: str = "", new: str = "") -> Path:
    (folder / "pad").symlink_to("/dev/null")  # the reader's port: a character device
    text = sim_config(("Aki", "Ken", "Mio"))
    assert old in text
    path = folder / "table.toml"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    return path


def one_line(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    return err.strip()


def replay_error(scn: Path, text: str, capsys: pytest.CaptureFixture[str]) -> str:
    """The one line ``replay`` ends with (exit code 2) on a scenario of ``text``."""
    scn.write_text(text)
    assert main(["replay", str(scn)]) == 2
    return one_line(capsys)


# --- numbers that are not finite ----------------------------------------------------------

@pytest.mark.parametrize("value", NOT_FINITE)
def test_a_colour_reminder_must_be_a_finite_number(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], value: str
) -> None:
    """nan was a reminder every second, inf never one."""
    path = config_file(tmp_path, 'language = "en"', f'language = "en"\ncolor_reminder = {value}')
    with pytest.raises(ConfigError, match=r"table\.color_reminder: .* is not allowed; allowed: "
                                          r"a number of seconds above 0"):
        load_config(path)
    assert main(["service", "--config", str(path)]) == 2
    assert one_line(capsys).startswith(f"uno-table: {path}: table.color_reminder:")


@pytest.mark.parametrize("value", NOT_FINITE)
def test_a_reader_backend_never_sees_a_number_that_is_not_finite(
    tmp_path: Path, value: str
) -> None:
    """The bridge took heartbeat_timeout = nan or inf: a dead board never noticed."""
    bridge = f'kind = "bridge"\nchannel = 0\nheartbeat_timeout = {value}\nport = "pad"'
    path = config_file(tmp_path, 'kind = "serial-line"\nport = "pad"', bridge)
    with pytest.raises(ConfigError, match=r"readers\[0\] \(pad\).heartbeat_timeout: "
                                          ".* is not allowed; allowed: a finite number"):
        load_config(path)


def test_a_reader_backend_never_sees_a_table_a_thousand_deep(tmp_path: Path) -> None:
    deep = 'kind = "bridge"\nchannel = 0\nport = "pad"\npoll_ms' + ".x" * 1000 + " = 1"
    path = config_file(tmp_path, 'kind = "serial-line"\nport = "pad"', deep)
    with pytest.raises(ConfigError, match=r"\.poll_ms: a table is not allowed"):
        load_config(path)


@pytest.mark.parametrize("value", ["nan", "inf"])
def test_demo_pace_must_be_finite(capsys: pytest.CaptureFixture[str], value: str) -> None:
    """--pace nan was a traceback from time.sleep, --pace inf a demo that never moved."""
    assert main(["demo", "--fast", "--rounds", "1", "--pace", value]) == 2
    assert one_line(capsys) == f"uno-table: --pace {float(value)}: use seconds from 0 up"


@pytest.mark.parametrize("value", ["nan", "inf", "0"])
def test_doctor_timeout_must_be_finite(capsys: pytest.CaptureFixture[str], value: str) -> None:
    assert main(["doctor", "--config", "unused.toml", "--timeout", value]) == 2
    assert one_line(capsys) == (f"uno-table: --timeout {float(value)}: "
                                "use a number of seconds above 0")


@pytest.mark.parametrize("flag", ["--drop-reads", "--duplicate-reads", "--unplug"])
@pytest.mark.parametrize("value", ["nan", "inf"])
def test_demo_fault_probabilities_must_be_finite(
    capsys: pytest.CaptureFixture[str], flag: str, value: str
) -> None:
    assert main(["demo", "--fast", "--rounds", "1", flag, value]) == 2
    assert "use a probability from 0 to 0.9" in one_line(capsys)


@pytest.mark.parametrize("value", ["nan", "inf"])
def test_a_scenario_option_must_be_a_whole_number(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], value: str
) -> None:
    line = replay_error(tmp_path / "set.scn", f"players Aki Ken\nset hand_size={value}\n", capsys)
    assert line.startswith(f"uno-table: {tmp_path / 'set.scn'}:2: option hand_size = "
                           f"'{value}' is not allowed: use a whole number from 1 to 20")


# --- names that differ only by case ---------------------------------------------------------

@pytest.mark.parametrize("players", ["Aki aki", "Aki Ken AKI", "Mio Mio"])
def test_a_scenario_refuses_two_players_with_one_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], players: str
) -> None:
    """``players Aki aki`` was accepted, and every ``aki`` line then went to Aki's seat."""
    line = replay_error(tmp_path / "names.scn", f"players {players}\nstart R5\n", capsys)
    assert line.startswith(f"uno-table: {tmp_path / 'names.scn'}:1: ")
    assert line.endswith(": give each player a different name")


def test_a_config_refuses_two_players_with_one_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = config_file(tmp_path, '["Aki", "Ken", "Mio"]', '["Aki", "Ken", "aki"]')
    with pytest.raises(ConfigError, match=r"table\.players: 'Aki' and 'aki' are one name"):
        load_config(path)
    assert main(["service", "--config", str(path)]) == 2
    assert one_line(capsys) == (
        f"uno-table: {path}: table.players: 'Aki' and 'aki' are one name (names are read in "
        "any case); allowed: a list of 2 to 10 different names")


def test_the_engine_refuses_two_players_with_one_name() -> None:
    with pytest.raises(SetupError, match="'Ken' and 'KEN' are one name"):
        new_game(make_options("official"), ["Aki", "Ken", "KEN"])


def test_the_engine_takes_a_whole_shuffled_deck_and_refuses_a_card_too_many() -> None:
    options = make_options("official")
    deck = edition_cards(options.deck)
    random.Random(3).shuffle(deck)
    whole = Deal(hands=[(deck[:7], 0), (deck[7:14], 0)], pile=deck[15:], start=deck[14:15])
    s, _ = new_game(options, ["Aki", "Ken"], deal=whole)
    assert s.pile_unknown == 0 and s.pile_size == len(deck) - 15
    s.check_conservation()
    one_r0 = parse_card("R0")
    others = [card for card in deck if card is not one_r0]
    twice = [*others[:12], one_r0, one_r0]
    with pytest.raises(SetupError, match="the classic-108 deck has 1 of R0, the set-up uses 2"):
        new_game(options, ["Aki", "Ken"], deal=Deal(hands=[(twice[:7], 0), (twice[7:14], 0)]))
    one_more = replace(whole, hands=[(deck[:7], 1), (deck[7:14], 0)])
    with pytest.raises(SetupError, match="the set-up uses 109 cards; the classic-108 deck has 108"):
        new_game(options, ["Aki", "Ken"], deal=one_more)


# --- a voice folder that is a file ----------------------------------------------------------

def test_a_wav_voice_into_a_file_falls_back_to_captions_at_once(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Past the configuration's check (the file appeared later), the backend says so in one
    warning and the table goes on with captions: no traceback, no restart."""
    file = tmp_path / "announcements"
    file.write_text("")
    with pytest.raises(SpeechError, match=f"cannot make the folder {file}: File exists"):
        make_backend("wav", file)
    config = replace(load_config(config_file(tmp_path)), voice_backend="wav", voice_folder=file)
    with caplog.at_level(logging.WARNING):
        backend = backend_factory(config)()
    assert isinstance(backend, CaptionsBackend)
    assert [r.levelname for r in caplog.records] == ["WARNING"]
    assert caplog.records[0].exc_info is None
