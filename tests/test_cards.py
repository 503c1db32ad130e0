"""Card codes, copies, editions and points (docs/rules.md §1)."""

from __future__ import annotations

import pickle

import pytest

from table.cards import (
    Card,
    CardCodeError,
    Color,
    edition_cards,
    edition_copies,
    parse_card,
    parse_copy,
)
from table.errors import TableError


@pytest.mark.parametrize(
    ("text", "code", "points"),
    [("r5", "R5", 5), ("B0", "B0", 0), ("ys", "YS", 20), ("gr", "GR", 20), ("b+2", "B+2", 20),
     ("w", "W", 50), ("w+4", "W+4", 50), ("wsh", "WSH", 40), ("wc", "WC", 40)],
)
def test_codes_are_case_insensitive_and_printed_canonically(
    text: str, code: str, points: int
) -> None:
    card = parse_card(text)
    assert card.code == code and str(card) == code
    assert card.points == points
    assert card is parse_card(code)


@pytest.mark.parametrize("bad", ["X5", "R10", "RW", "", "W+2", "R 5"])
def test_bad_codes_say_what_is_allowed(bad: str) -> None:
    with pytest.raises(CardCodeError, match="unknown card code") as err:
        parse_card(bad)
    assert isinstance(err.value, TableError) and isinstance(err.value, ValueError)
    assert "W+4" in str(err.value)


def test_copies() -> None:
    copy = parse_copy("r5#2")
    assert copy.card is parse_card("R5") and copy.copy == 2 and copy.code == "R5#2"
    with pytest.raises(CardCodeError):
        parse_copy("R5")
    with pytest.raises(CardCodeError):
        parse_copy("R5#0")


def test_editions() -> None:
    classic = edition_cards("classic-108")
    assert len(classic) == 108
    assert classic.count(parse_card("R0")) == 1 and classic.count(parse_card("R7")) == 2
    assert classic.count(parse_card("W+4")) == 4 and parse_card("WSH") not in classic
    modern = edition_cards("2018-112")
    assert len(modern) == 112
    assert modern.count(parse_card("WSH")) == 1 and modern.count(parse_card("WC")) == 3
    copies = [c.code for c in edition_copies("classic-108")]
    assert len(set(copies)) == 108 and "W+4#4" in copies
    with pytest.raises(CardCodeError, match="classic-108, 2018-112"):
        edition_cards("pocket")


def test_cards_pickle_to_the_same_instance() -> None:
    card = parse_card("G+2")
    assert pickle.loads(pickle.dumps(card)) is card
    assert Card(Color.GREEN, "+2") is card
