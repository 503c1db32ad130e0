"""Options are validated data; presets are registered overrides."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from table.errors import OptionError
from table.rules import PRESETS, SPECS, Options, make_options
from table.rules.options import register_preset, with_options


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


def test_register_preset_checks_its_values(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(OptionError):
        register_preset("broken", {"draw": "never"})
    monkeypatch.setitem(PRESETS, "quick", {})  # taken away again after the test
    register_preset("quick", {"target": 100, "hand_size": 5})
    assert make_options("quick").target == 100


def test_every_option_has_a_doc_and_a_valid_default() -> None:
    for spec in SPECS.values():
        assert spec.doc
        assert spec.check(spec.default) == spec.default


# --- one option table: Options declares each option once, SPECS is read from it -------------

ROOT = Path(__file__).resolve().parent.parent
TYPES = {"str": str, "int": int, "bool": bool}


def option_fields() -> list[dataclasses.Field[object]]:
    return [f for f in dataclasses.fields(Options) if f.name != "preset"]


def test_every_field_of_options_is_an_option_of_the_table_and_the_other_way_round() -> None:
    assert [f.name for f in option_fields()] == list(SPECS)


@pytest.mark.parametrize("f", option_fields(), ids=lambda f: f.name)
def test_each_option_is_declared_with_its_type_an_allowed_default_and_a_doc_line(
    f: dataclasses.Field[object],
) -> None:
    spec = SPECS[f.name]
    assert type(spec.default) is TYPES[str(f.type)], f"{f.name}: default is not a {f.type}"
    assert spec.default == f.default
    assert spec.check(spec.default) == spec.default, f"{f.name}: default not allowed"
    assert spec.doc and "\n" not in spec.doc, f"{f.name}: one documentation line"
    if isinstance(spec.default, str):
        assert len(set(spec.choices)) == len(spec.choices) > 1, f"{f.name}: its choices"
    elif not isinstance(spec.default, bool):
        assert spec.low <= spec.default <= spec.high < 10**6, f"{f.name}: its range"
    assert getattr(make_options(), f.name) == spec.default


def test_an_option_of_the_table_is_the_same_value_through_make_options_and_with_options() -> None:
    for name, spec in SPECS.items():
        if isinstance(spec.default, bool):
            other: object = not spec.default
        elif isinstance(spec.default, int):
            other = spec.high if spec.default != spec.high else spec.low
        else:
            other = next(c for c in spec.choices if c != spec.default)
        assert getattr(make_options(**{name: other}), name) == other
        assert getattr(with_options(make_options(), **{name: other}), name) == other


def rules_source() -> str:
    files = sorted((ROOT / "table" / "rules").rglob("*.py"))
    return "\n".join(p.read_text(encoding="utf-8") for p in files if p.name != "options.py")


@pytest.mark.parametrize("name", sorted(SPECS))
def test_each_option_is_read_by_the_rules(name: str) -> None:
    """An option no rule reads is a declaration that drifted from the code."""
    source = rules_source()
    read = re.search(rf"\.{name}\b", source) or (
        name.startswith("musician_") and 'getattr(o, f"musician_{name}")' in source
    )
    assert read, f"option {name} is declared but no module of table/rules reads it"
