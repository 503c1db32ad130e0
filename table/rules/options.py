"""Rules options and presets (docs/rules.md). Options are data: each has a type, a default and the
values it allows; a preset is a named set of overrides, registered like python-chess variants.

Option names and values are a public contract: config files and scenarios use them verbatim.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
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
        """Raise unless ``value`` is allowed for this option."""
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
            elif isinstance(value, str) and (digits := value.strip().lstrip("-")).isascii() \
                    and digits.isdigit() and len(digits) <= 18:  # "²" or 5,000 digits: no int
                number = int(value)
            if number is not None and self.low <= number <= self.high:
                return number
        elif isinstance(value, str) and value in self.choices:
            return value
        raise OptionError(f"option {self.name} = {value!r} is not allowed: use {self.allowed()}")


def _choice(choices: tuple[str, ...], doc: str) -> str:
    """An option that holds one of ``choices`` (the first is the default)."""
    return field(default=choices[0], metadata={"doc": doc, "choices": choices})


def _number(default: int, low: int, high: int, doc: str) -> int:
    """An option that holds a whole number from ``low`` to ``high``."""
    return field(default=default, metadata={"doc": doc, "low": low, "high": high})


def _flag(default: bool, doc: str) -> bool:
    """An option that is on or off."""
    return field(default=default, metadata={"doc": doc})


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


@dataclass(frozen=True, slots=True)
class Options:
    """A complete, validated set of rules options. Build with :func:`make_options`.

    This class is the table of the rules options: each field but ``preset`` is one option,
    declared once with its type, default, allowed values and documentation line (``_choice``,
    ``_number``, ``_flag``); :data:`SPECS` is read from it. docs/adding-a-rule-option.md says
    how to add one.
    """

    preset: str = "official"
    deck: str = _choice(tuple(EDITIONS), "deck edition")
    hand_size: int = _number(7, 1, 20, "cards dealt to each player")
    dealer_draw_actions: str = _choice(("zero", "redraw"), "action/wild cards in the dealer draw")
    first_reverse: str = _choice(("dealer-first", "right-of-dealer-first"), "first card Reverse")
    first_wild: str = _choice(("left-chooses", "redraw"), "first card Wild")
    first_special: str = _choice(("redraw", "left-chooses"), "first card WSH or WC")
    draw: str = _choice(("one-may-play", "until-playable", "one-no-play"), "drawing rule")
    draw_by_choice: bool = _flag(True, "a player who could play may draw instead")
    two_player_reverse_is_skip: bool = _flag(True, "Reverse acts as Skip with two players")
    wild_draw_four: str = _choice(
        ("no-matching-color", "no-playable-card", "unrestricted"), "when a Wild Draw Four is legal"
    )
    shuffle_hands_last_card: str = _choice(("redeal", "win"), "Wild Shuffle Hands as last card")
    customizable_effect: str = _choice(CUSTOMIZABLE_EFFECTS, "effect of Wild Customizable")
    challenge: bool = _flag(True, "a Wild Draw Four may be challenged")
    challenge_success: str = _choice(
        ("offender-draws", "take-back", "discard"), "a guilty Wild Draw Four"
    )
    challengers: str = _choice(("next-player", "any"), "who may challenge a Wild Draw Four")
    challenge_penalty: int = _number(2, 0, 10, "extra cards for a failed challenge")
    guilty_penalty: int = _number(0, 0, 10, "extra cards for a guilty Wild Draw Four")
    uno_penalty: int = _number(2, 0, 10, "cards for a missed UNO call")
    uno_penalty_kind: str = _choice(("draw", "lose-turn"), "what a missed UNO call costs")
    uno_catchers: str = _choice(("any", "next-player"), "who may catch a missed UNO")
    uno_enforcement: str = _choice(("catch", "automatic"), "how a missed UNO is penalised")
    false_catch_penalty: int = _number(0, 0, 10, "cards for a false catch")
    next_dealer: str = _choice(("winner", "rotate-left"), "who deals the next round")
    scoring: str = _choice(("international", "japanese", "lowest", "musician"), "scoring system")
    target: int = _number(500, 0, 100000, "points that end the match (0: none)")
    rounds: int = _number(0, 0, 1000, "rounds in the match (0: no limit)")
    eliminate: bool = _flag(False, "lowest scoring: players at the target drop out")
    doubling: bool = _flag(False, "a loser's round points times (UNO calls + 1)")
    doubling_winner: str = _choice(
        ("multiplied", "face"), "what the winner collects under doubling"
    )
    # Competition options (docs/rules.md §4).
    two_card_play: bool = _flag(False, "two identical number cards may be played together")
    stacking: str = _choice(STACKING_MODES, "draw cards stacked on draw cards")
    # Local rules (docs/rules.md §5).
    multi_play: str = _choice(("off", "same-number"), "several cards of one rank at once")
    jump_in: bool = _flag(False, "an identical card may be played out of turn")
    action_finish: bool = _flag(True, "a round may end on an action or wild card")
    draw_finish: bool = _flag(True, "a round may end on a Draw Two or Wild Draw Four")
    draw_finish_cards: str = _choice(
        ("draw-two-and-four", "draw-two"), "the draw cards draw_finish = false bans"
    )
    first_action: str = _choice(("apply", "redraw"), "a first card that is not a number")
    seven_o: bool = _flag(False, "a 7 swaps hands, a 0 passes every hand on")
    wild_keeps_symbol: bool = _flag(False, "a Wild changes only the colour, not the rank")
    # Musician rules (docs/rules.md §6).
    first_player: str = _choice(("left-of-dealer", "dealer"), "who plays first")
    chin: bool = _flag(False, "no Wild finish; with 3 players or fewer no Wild down to one")
    don: bool = _flag(False, "a number-only hand wins out of turn on a card equal to its sum")
    false_don_penalty: int = _number(2, 0, 10, "cards for a false Don (chombo)")
    musician_color_call: bool = _flag(False, MUSICIAN_OPTIONS["color_call"])
    musician_reverse_back: bool = _flag(False, MUSICIAN_OPTIONS["reverse_back"])
    musician_skip_back: bool = _flag(False, MUSICIAN_OPTIONS["skip_back"])
    musician_back_points: int = _number(10, 10, 20, "points a Reverse or Skip back costs")
    musician_panpakapan: bool = _flag(False, MUSICIAN_OPTIONS["panpakapan"])
    musician_same_color_don: bool = _flag(False, MUSICIAN_OPTIONS["same_color_don"])
    musician_zero_don: bool = _flag(False, MUSICIAN_OPTIONS["zero_don"])
    musician_tenhou: bool = _flag(False, MUSICIAN_OPTIONS["tenhou"])
    musician_renchan: bool = _flag(False, MUSICIAN_OPTIONS["renchan"])
    musician_eight_renchan: bool = _flag(False, MUSICIAN_OPTIONS["eight_renchan"])
    musician_rendon: bool = _flag(False, MUSICIAN_OPTIONS["rendon"])

    def as_dict(self) -> dict[str, Any]:
        """The options as a plain dict, by name."""
        return dataclasses.asdict(self)

    @property
    def challengeable(self) -> bool:
        """Whether a Wild Draw Four may be challenged at all under these options."""
        return self.challenge and self.wild_draw_four != "unrestricted"


def _specs() -> dict[str, OptionSpec]:
    """The option table, read from the fields of :class:`Options`."""
    out: dict[str, OptionSpec] = {}
    for f in dataclasses.fields(Options):
        if "doc" not in f.metadata:
            continue  # preset: the name of the overrides, not an option
        if not isinstance(f.default, str | int):  # pragma: no cover - a declaration's slip
            raise TypeError(f"option {f.name} is declared without a default")
        out[f.name] = OptionSpec(f.name, f.default, **f.metadata)
    return out


#: Every rules option by name, in the order of :class:`Options`.
SPECS: Final[dict[str, OptionSpec]] = _specs()


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
