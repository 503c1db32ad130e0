"""Options are validated data; presets are registered overrides."""

from __future__ import annotations

import pytest

from table.errors import OptionError
from table.rules import SPECS, make_options
from table.rules.options import register_preset


def test_defaults_are_the_official_game() -> None:
    o = make_options()
    assert (o.hand_size, o.uno_penalty, o.challenge_penalty, o.target) == (7, 2, 2, 500)
    assert o.draw == "one-may-play" and o.wild_draw_four == "no-matching-color"
    assert o.scoring == "international" and o.deck == "classic-108"


def test_japanese_preset() -> None:
    o = make_options("japanese")
    assert (o.scoring, o.rounds, o.target) == ("japanese", 5, 0)


def test_values_are_read_from_text() -> None:
    o = make_options("official", uno_penalty="4", challenge="false")
    assert o.uno_penalty == 4 and o.challenge is False


def test_unknown_option_lists_the_known_ones() -> None:
    with pytest.raises(OptionError, match=r"unknown rules option 'stackin'.*uno_penalty"):
        make_options("official", stackin="any")


def test_bad_value_lists_the_allowed_ones() -> None:
    with pytest.raises(OptionError, match='"one-may-play", "until-playable", "one-no-play"'):
        make_options("official", draw="twice")
    with pytest.raises(OptionError, match="from 0 to 10"):
        make_options("official", uno_penalty=11)
    with pytest.raises(OptionError, match="true or false"):
        make_options("official", doubling="maybe")


def test_unknown_preset() -> None:
    with pytest.raises(OptionError, match="official, japanese"):
        make_options("tournament")


def test_register_preset_checks_its_values() -> None:
    with pytest.raises(OptionError):
        register_preset("broken", {"draw": "never"})
    register_preset("quick", {"target": 100, "hand_size": 5})
    assert make_options("quick").target == 100


def test_every_option_has_a_doc_and_a_valid_default() -> None:
    for spec in SPECS.values():
        assert spec.doc
        assert spec.check(spec.default) == spec.default
