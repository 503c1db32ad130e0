"""The competition, local and Musician rules (docs/rules.md §4, §5, §6), and their presets.

Each rule that changes the play is a subclass of :class:`~table.rules.hooks.Rules` that
overrides the hooks it needs and leaves the rest to ``super()``. :func:`rules_for` puts
together, for a set of options, the rules they turn on, in the order of :data:`FAMILIES` (where
two rules answer the same hook, the one listed first answers first), once per combination.

- :mod:`~table.rules.variants.groups`: several cards at once (``multi_play``,
  ``two_card_play``).
- :mod:`~table.rules.variants.stacking`: draw cards on draw cards (``stacking``).
- :mod:`~table.rules.variants.local`: jump-in, the first card that is not a number, no action
  finish, no draw finish, a Wild that keeps the rank, Seven-O, a missed UNO call that costs a
  turn.
- :mod:`~table.rules.variants.musician`: the dealer plays first, Chin, Musician scoring.
- :mod:`~table.rules.variants.don`: Don, the Musician rules' out-of-turn win.
- :mod:`~table.rules.variants.challengers`: a Wild Draw Four challenged by any player
  (``challengers``, [001]).

``house`` turns on the local rules most tables in [000] play: a first card that is not a
number goes back (「最初の1枚目が記号カードの時は山札の間に戻し」), cards of one number go down
together (local rule 4), and draw cards stack on draw cards (local rule 6). Jump-in is left off:
「このルールを採用する場合、数字/記号のみが一致するカードを複数枚出せるルールは採用しないことが
多い」.

``musician`` is the complete Japanese house variant of [002] (docs/rules.md §6), every scoring
option on: 「以上の「オプションルール」をすべて採用してもいい」. The match has no fixed end
(the seed's score sheet just keeps going): set ``rounds`` or ``target`` to end it.
"""

from __future__ import annotations

from typing import Final

from table.rules.hooks import Rules
from table.rules.options import MUSICIAN_OPTIONS, Options, register_preset
from table.rules.variants.base import Variant
from table.rules.variants.challengers import AnyChallenger
from table.rules.variants.don import DonRule
from table.rules.variants.groups import Groups
from table.rules.variants.local import (
    ActionFinish,
    DrawFinish,
    FirstActionRedraw,
    JumpIn,
    MissedUnoLosesTurn,
    SevenO,
    WildKeepsSymbol,
)
from table.rules.variants.musician import Chin, DealerFirst, MusicianScoring
from table.rules.variants.stacking import Stacking

#: Every variant, in the order they answer a hook they share.
FAMILIES: Final[tuple[type[Variant], ...]] = (
    DealerFirst,  # before FirstActionRedraw: a first Wild Draw Four is the dealer's to answer
    FirstActionRedraw,
    JumpIn,  # before DonRule: jump-ins are listed before Dons
    ActionFinish,  # ActionFinish, DrawFinish, Chin, Groups: the order of their refusals
    DrawFinish,
    Chin,
    Groups,
    Stacking,
    WildKeepsSymbol,
    DonRule,  # before MusicianScoring: a Double Don keeps the scores it may score again from
    MusicianScoring,  # before SevenO: marks are made before a 7 or 0 moves the hands
    SevenO,
    MissedUnoLosesTurn,
    AnyChallenger,
)
OFFICIAL: Final = Rules()
_BY_NAME: Final = {family.__name__: family for family in FAMILIES}
_COMBINED: dict[tuple[type[Variant], ...], Rules] = {(): OFFICIAL}
_HOOKS: Final = frozenset(
    name for name, value in vars(Rules).items() if callable(value) and not name.startswith("_")
)


def rules_for(options: Options) -> Rules:
    """The rules ``options`` turn on, put together (the official game when none)."""
    known = _FOR_OPTIONS.get(id(options))
    if known is not None and known[0] is options:
        return known[1]
    rules = combine(tuple(family for family in FAMILIES if family.applies(options)))
    if len(_FOR_OPTIONS) >= 64:
        _FOR_OPTIONS.clear()
    _FOR_OPTIONS[id(options)] = (options, rules)
    return rules


# The rules of the last options objects met, by id() (hashing every field of an Options costs
# more than the look-up saves); each entry keeps its options alive, so an id is not reused.
_FOR_OPTIONS: dict[int, tuple[Options, Rules]] = {}


def combine(families: tuple[type[Variant], ...]) -> Rules:
    """One :class:`Rules` with every hook of ``families`` (in the order of ``FAMILIES``)."""
    rules = _COMBINED.get(families)
    if rules is None:
        name = "Rules[" + "+".join(f.__name__ for f in families) + "]"
        members = {
            "families": tuple(f.__name__ for f in families),
            "overridden": frozenset(
                hook
                for family in families
                for klass in family.__mro__[: family.__mro__.index(Rules)]
                for hook in vars(klass)
                if hook in _HOOKS
            ),
            "__reduce__": _reduce,
        }
        rules = _COMBINED[families] = type(name, families, members)()
    return rules


def _reduce(rules: Rules) -> tuple[object, tuple[tuple[str, ...]]]:
    """Pickle put-together rules by the names of their variants (their class is made here)."""
    return rules_named, (rules.families,)


def rules_named(names: tuple[str, ...]) -> Rules:
    """The rules of the variants called ``names``: how a pickled state finds its rules."""
    return combine(tuple(_BY_NAME[name] for name in names))


HOUSE: Final[dict[str, str | int | bool]] = {
    "first_action": "redraw",
    "multi_play": "same-number",
    "stacking": "any",
}

MUSICIAN: Final[dict[str, str | int | bool]] = {
    "hand_size": 5,
    "dealer_draw_actions": "redraw",
    "first_player": "dealer",
    "first_reverse": "dealer-first",
    "wild_draw_four": "unrestricted",
    "challenge": False,
    "wild_keeps_symbol": True,
    "draw": "one-no-play",
    "stacking": "same-kind",
    "uno_penalty": 2,
    "chin": True,
    "don": True,
    "scoring": "musician",
    "target": 0,
    "rounds": 0,
    "next_dealer": "winner",
    **{f"musician_{name}": True for name in MUSICIAN_OPTIONS},
}

register_preset("house", HOUSE)
register_preset("musician", MUSICIAN)
