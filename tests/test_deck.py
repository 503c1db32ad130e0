"""Deck files: loading with clear errors, the virtual deck, and the deck commands."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from table.cards import parse_copy
from table.referee.registry import (
    DeckError,
    Token,
    build_deck,
    load_deck,
    normalise_uid,
    virtual_deck,
)

ROOT = Path(__file__).resolve().parent.parent


def test_uids_in_any_spelling() -> None:
    assert normalise_uid("04:a1:b2:c3") == "04A1B2C3"
    assert normalise_uid("04 A1 B2 C3 D4 E5 F6") == "04A1B2C3D4E5F6"
    with pytest.raises(DeckError, match="not a tag UID"):
        normalise_uid("04A1B")


def test_load_and_look_up(tmp_path: Path) -> None:
    f = tmp_path / "deck.toml"
    f.write_text('[uids]\n"04A1B2C3" = "R5#2"\n"04a1b2c4" = "token:color:red"\n')
    deck = load_deck(f)
    assert deck.lookup("04 a1 b2 c3") == parse_copy("R5#2")
    assert deck.lookup("04A1B2C4") == Token("color:red")
    assert deck.lookup("DEADBEEF") is None
    assert "R0#1" in deck.missing() and "R5#2" not in deck.missing()


@pytest.mark.parametrize(
    ("entries", "message"),
    [
        ({"04A1B2C3": "R5#1", "04:a1:b2:c3": "R6#1"}, "UID 04A1B2C3 is listed twice"),
        ({"04A1B2C3": "X5#1"}, "uids.04A1B2C3: unknown card code 'X5'"),
        ({"04A1B2C3": "R5#1", "04A1B2C4": "R5#1"}, "R5#1 is on two tags, 04A1B2C3 and 04A1B2C4"),
        ({"04A1B2C3": "R0#2"}, "the classic-108 deck has 1 of R0, so there is no R0#2"),
        ({"04A1B2C3": "WSH#1"}, "the classic-108 deck has 0 of WSH"),
        ({"04A1B2C3": "token:colour:red"}, "unknown token 'token:colour:red'"),
        ({"04A1B2C3": "R5"}, "write CODE#N"),
    ],
)
def test_bad_entries_are_named(entries: dict[str, str], message: str) -> None:
    with pytest.raises(DeckError) as err:
        build_deck(entries, "classic-108", "deck.toml")
    assert message in str(err.value)


def test_bad_files(tmp_path: Path) -> None:
    f = tmp_path / "deck.toml"
    f.write_text("[uids\n")
    with pytest.raises(DeckError, match="not valid TOML"):
        load_deck(f)
    f.write_text("[cards]\n")
    with pytest.raises(DeckError, match=r"no \[uids\] table"):
        load_deck(f)
    with pytest.raises(DeckError, match="no such deck file"):
        load_deck(tmp_path / "none.toml")


@pytest.mark.parametrize(("edition", "cards"), [("classic-108", 108), ("2018-112", 112)])
def test_virtual_deck_is_complete_and_stable(edition: str, cards: int) -> None:
    deck = virtual_deck(edition)
    assert len(deck.tags) == cards + 4 + 7 + 10
    assert deck.missing() == []
    assert virtual_deck(edition).tags == deck.tags
    assert all(len(uid) == 14 and uid.startswith("04") for uid in deck.tags)


def test_deck_commands_round_trip(tmp_path: Path) -> None:
    out = tmp_path / "virtual.toml"
    run = [sys.executable, "-m", "table.commands.cli", "deck"]
    made = subprocess.run([*run, "virtual", "--edition", "2018-112", "--out", str(out)],
                          capture_output=True, text=True, cwd=ROOT)
    assert made.returncode == 0, made.stderr
    assert "wrote 133 tags" in made.stdout
    assert load_deck(out).edition == "2018-112"
    check = subprocess.run([*run, "check", str(out)], capture_output=True, text=True, cwd=ROOT)
    assert check.returncode == 0 and "complete" in check.stdout
    text = out.read_text().splitlines()
    out.write_text("\n".join(line for line in text if '"WSH#1"' not in line) + "\n")
    check = subprocess.run([*run, "check", str(out)], capture_output=True, text=True, cwd=ROOT)
    assert check.returncode == 1 and "missing 1: WSH#1" in check.stdout
    bad = tmp_path / "bad.toml"
    bad.write_text('[uids]\n"04A1B2C3" = "R0#2"\n')
    check = subprocess.run([*run, "check", str(bad)], capture_output=True, text=True, cwd=ROOT)
    assert check.returncode == 2 and check.stderr.count("\n") == 1
