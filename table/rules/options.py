"""Rules options and presets (RULES.md). Options are data: each has a type, a default and the
values it allows; a preset is a named set of overrides, registered like python-chess variants.

Option names and values are a public contract: config files and scenarios use them verbatim.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from table.cards import EDITIONS
from table.errors import OptionError


@dataclass(frozen=True, slots=True)
class OptionSpec:
    """What one option may hold. ``choices`` for words; ``low``/``high`` for whole numbers."""

    name: str
    default: str | int | bool
    doc: str
    choices: tuple[str, ...] = ()
    low: int = 0
    high: int = 0

    def allowed(self) -> str:
        if isinstance(self.default, bool):
            return "true or false"
        if isinstance(self.default, int):
            return f"a whole number from {self.low} to {self.high}"
        return ", ".join(f'"{c}"' for c in self.choices)

    def check(self, value: object) -> str | int | bool:
        """Return the value in its proper type, or raise :class:`OptionError`."""
        if isinstance(self.default, bool):
            if isinstance(value, bool):
                return value
            if isinstance(value, str) and value.lower() in ("true", "false"):
                return value.lower() == "true"
        elif isinstance(self.default, int):
            number: int | None = None
            if isinstance(value, int) and not isinstance(value, bool):
                number = value
            elif isinstance(value, str) and value.strip().lstrip("-").isdigit():
                number = int(value)
            if number is not None and self.low <= number <= self.high:
                return number
        elif isinstance(value, str) and value in self.choices:
            return value
        raise OptionError(f"option {self.name} = {value!r} is not allowed: use {self.allowed()}")


def _choice(name: str, choices: tuple[str, ...], doc: str) -> OptionSpec:
    return OptionSpec(name, choices[0], doc, choices=choices)


def _number(name: str, default: int, low: int, high: int, doc: str) -> OptionSpec:
    return OptionSpec(name, default, doc, low=low, high=high)


def _flag(name: str, default: bool, doc: str) -> OptionSpec:
    return OptionSpec(name, default, doc)


CUSTOMIZABLE_EFFECTS: Final = ("none", "skip", "reverse", "next-draws-two", "others-draw-one")
STACKING_MODES: Final = ("off", "draw-two", "draw-two-into-four", "any", "same-kind")
MUSICIAN_OPTIONS: Final = {
    "color_call": "色指定: the colour namer pays 10 more",
    "reverse_back": "リバース返し: the Reverse's player pays 10 more",
    "skip_back": "スキップ返し: the Skip's player pays 10 more",
    "panpakapan": "パンパカパーン: equal losses flip winning and losing",
    "same_color_don": "同色ドン: 5 more for a one-card Don of the same colour",
    "zero_don": "0ドン: 5 more for a Don of zeros on a 0",
    "tenhou": "テンホー: a Don on the first card turned up, every loser pays ten times",
    "renchan": "連チャン: a third win in a row doubles plus 10, then doubles",
    "eight_renchan": "8連チャン: an eighth win in a row, ten times",
    "rendon": "連ドン: a third Don in a row costs 10 instead of 5",
}

SPECS: Final[dict[str, OptionSpec]] = {
    s.name: s
    for s in (
        _choice("deck", tuple(EDITIONS), "deck edition"),
        _number("hand_size", 7, 1, 20, "cards dealt to each player"),
        _choice("dealer_draw_actions", ("zero", "redraw"), "action/wild cards in the dealer draw"),
        _choice("first_reverse", ("dealer-first", "right-of-dealer-first"), "first card Reverse"),
        _choice("first_wild", ("left-chooses", "redraw"), "first card Wild"),
        _choice("first_special", ("redraw", "left-chooses"), "first card WSH or WC"),
        _choice("draw", ("one-may-play", "until-playable", "one-no-play"), "drawing rule"),
        _flag("draw_by_choice", True, "a player who could play may draw instead"),
        _flag("two_player_reverse_is_skip", True, "Reverse acts as Skip with two players"),
        _choice(
            "wild_draw_four",
            ("no-matching-color", "no-playable-card", "unrestricted"),
            "when a Wild Draw Four is legal",
        ),
        _choice("shuffle_hands_last_card", ("redeal", "win"), "Wild Shuffle Hands as last card"),
        _choice("customizable_effect", CUSTOMIZABLE_EFFECTS, "effect of Wild Customizable"),
        _flag("challenge", True, "a Wild Draw Four may be challenged"),
        _choice("challenge_success", ("offender-draws", "take-back"), "a guilty Wild Draw Four"),
        _number("challenge_penalty", 2, 0, 10, "extra cards for a failed challenge"),
        _number("uno_penalty", 2, 0, 10, "cards for a missed UNO call"),
        _choice("uno_catchers", ("any", "next-player"), "who may catch a missed UNO"),
        _choice("uno_enforcement", ("catch", "automatic"), "how a missed UNO is penalised"),
        _number("false_catch_penalty", 0, 0, 10, "cards for a false catch"),
        _choice("next_dealer", ("winner", "rotate-left"), "who deals the next round"),
        _choice(
            "scoring", ("international", "japanese", "lowest", "musician"), "scoring system"
        ),
        _number("target", 500, 0, 100000, "points that end the match (0: none)"),
        _number("rounds", 0, 0, 1000, "rounds in the match (0: no limit)"),
        _flag("eliminate", False, "lowest scoring: players at the target drop out"),
        _flag("doubling", False, "a loser's round points times (UNO calls + 1)"),
        # Competition options (RULES.md §4).
        _flag("two_card_play", False, "two identical number cards may be played together"),
        _choice("stacking", STACKING_MODES, "draw cards stacked on draw cards"),
        # Local rules (RULES.md §5).
        _choice("multi_play", ("off", "same-number"), "several cards of one rank at once"),
        _flag("jump_in", False, "an identical card may be played out of turn"),
        _flag("action_finish", True, "a round may end on an action or wild card"),
        _choice("first_action", ("apply", "redraw"), "a first card that is not a number"),
        _flag("seven_o", False, "a 7 swaps hands, a 0 passes every hand on"),
        _flag("wild_keeps_symbol", False, "a Wild changes only the colour, not the rank"),
        # Musician rules (RULES.md §6).
        _choice("first_player", ("left-of-dealer", "dealer"), "who plays first"),
        _flag("chin", False, "no Wild finish; with 3 players or fewer no Wild down to one"),
        _flag("don", False, "a number-only hand wins out of turn on a card equal to its sum"),
        _number("false_don_penalty", 2, 0, 10, "cards for a false Don (chombo)"),
        *(_flag(f"musician_{name}", False, doc) for name, doc in MUSICIAN_OPTIONS.items()),
    )
}


@dataclass(frozen=True, slots=True)
class Options:
    """A complete, validated set of rules options. Build with :func:`make_options`."""

    preset: str = "official"
    deck: str = "classic-108"
    hand_size: int = 7
    dealer_draw_actions: str = "zero"
    first_reverse: str = "dealer-first"
    first_wild: str = "left-chooses"
    first_special: str = "redraw"
    draw: str = "one-may-play"
    draw_by_choice: bool = True
    two_player_reverse_is_skip: bool = True
    wild_draw_four: str = "no-matching-color"
    shuffle_hands_last_card: str = "redeal"
    customizable_effect: str = "none"
    challenge: bool = True
    challenge_success: str = "offender-draws"
    challenge_penalty: int = 2
    uno_penalty: int = 2
    uno_catchers: str = "any"
    uno_enforcement: str = "catch"
    false_catch_penalty: int = 0
    next_dealer: str = "winner"
    scoring: str = "international"
    target: int = 500
    rounds: int = 0
    eliminate: bool = False
    doubling: bool = False
    two_card_play: bool = False
    stacking: str = "off"
    multi_play: str = "off"
    jump_in: bool = False
    action_finish: bool = True
    first_action: str = "apply"
    seven_o: bool = False
    wild_keeps_symbol: bool = False
    first_player: str = "left-of-dealer"
    chin: bool = False
    don: bool = False
    false_don_penalty: int = 2
    musician_color_call: bool = False
    musician_reverse_back: bool = False
    musician_skip_back: bool = False
    musician_panpakapan: bool = False
    musician_same_color_don: bool = False
    musician_zero_don: bool = False
    musician_tenhou: bool = False
    musician_renchan: bool = False
    musician_eight_renchan: bool = False
    musician_rendon: bool = False

    def as_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @property
    def challengeable(self) -> bool:
        """Whether a Wild Draw Four may be challenged at all under these options."""
        return self.challenge and self.wild_draw_four != "unrestricted"


PRESETS: Final[dict[str, dict[str, str | int | bool]]] = {
    "official": {},
    "japanese": {"scoring": "japanese", "rounds": 5, "target": 0},
}
# ``house`` and ``musician`` are registered by table.rules.variants.


def register_preset(name: str, overrides: Mapping[str, str | int | bool]) -> None:
    """Add a preset (used by variant modules). Overrides are checked at once."""
    for key, value in overrides.items():
        _spec(key).check(value)
    PRESETS[name] = dict(overrides)


def _spec(name: str) -> OptionSpec:
    try:
        return SPECS[name]
    except KeyError:
        raise OptionError(
            f"unknown rules option {name!r}: known options are {', '.join(sorted(SPECS))}"
        ) from None


def make_options(preset: str = "official", **overrides: object) -> Options:
    """The options of ``preset`` with ``overrides`` applied, each checked.

    >>> make_options("official", uno_penalty=4).uno_penalty
    4
    """
    if preset not in PRESETS:
        raise OptionError(f"unknown rules preset {preset!r}: use one of {', '.join(PRESETS)}")
    values: dict[str, Any] = dict(PRESETS[preset])
    for key, value in overrides.items():
        values[key] = _spec(key).check(value)
    return Options(preset=preset, **values)


def with_options(options: Options, **overrides: object) -> Options:
    """``options`` with some values changed, each checked."""
    checked = {key: _spec(key).check(value) for key, value in overrides.items()}
    return dataclasses.replace(options, **checked)  # type: ignore[arg-type]
