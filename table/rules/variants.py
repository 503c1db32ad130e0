"""The presets of the local and Musician rules, registered like python-chess variants.

``house`` turns on the local rules most tables in [000] play: a first card that is not a
number goes back (「最初の1枚目が記号カードの時は山札の間に戻し」), cards of one number go down
together (local rule 4), and draw cards stack on draw cards (local rule 6). Jump-in is left off:
「このルールを採用する場合、数字/記号のみが一致するカードを複数枚出せるルールは採用しないことが
多い」.

``musician`` is the complete Japanese house variant of [002] (RULES.md §6), every scoring option
on: 「以上の「オプションルール」をすべて採用してもいい」. The match has no fixed end (the seed's
score sheet just keeps going): set ``rounds`` or ``target`` to end it.
"""

from __future__ import annotations

from typing import Final

from table.rules.options import MUSICIAN_OPTIONS, register_preset

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
