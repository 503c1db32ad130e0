"""Cards, card codes, physical copies, deck editions and card points (docs/rules.md §1).

Cards are canonical values: ``parse_card("r5") is parse_card("R5")``. Comparing and hashing by
identity keeps the rules engine fast; pickling round-trips through the code.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import ClassVar, Final

from table.errors import CardCodeError


class Color(enum.Enum):
    """A card colour. ``value`` is the word used in replay JSON and config (``"red"``)."""

    RED = "red"
    YELLOW = "yellow"
    GREEN = "green"
    BLUE = "blue"

    # By identity, in C: an enum hashes its name in Python, and colours are looked up every
    # action (the tables of the cards that match a colour). Members are unique, so equal
    # colours are the same object.
    __hash__ = object.__hash__

    @property
    def letter(self) -> str:
        """The colour's letter in card codes: ``R``, ``Y``, ``G`` or ``B``."""
        return self.value[0].upper()

    @classmethod
    def parse(cls, text: str) -> Color:
        """Read ``red``, ``r`` or ``R`` (any case). Raises :class:`CardCodeError`."""
        t = text.strip().lower()
        for c in cls:
            if t in (c.value, c.value[0]):
                return c
        raise CardCodeError(f"unknown colour {text!r}: use red, yellow, green or blue")


COLORS: Final = (Color.RED, Color.YELLOW, Color.GREEN, Color.BLUE)
_BY_LETTER: Final = {c.letter: c for c in COLORS}

# Ranks. Numbers are "0".."9"; the rest are symbols.
SKIP: Final = "S"
REVERSE: Final = "R"
DRAW_TWO: Final = "+2"
WILD: Final = "W"
WILD_DRAW_FOUR: Final = "W+4"
SHUFFLE_HANDS: Final = "WSH"
CUSTOMIZABLE: Final = "WC"

NUMBER_RANKS: Final = tuple(str(n) for n in range(10))
ACTION_RANKS: Final = (SKIP, REVERSE, DRAW_TWO)
WILD_RANKS: Final = (WILD, WILD_DRAW_FOUR, SHUFFLE_HANDS, CUSTOMIZABLE)

_RANK_NAMES: Final = {
    SKIP: "Skip",
    REVERSE: "Reverse",
    DRAW_TWO: "Draw Two",
    WILD: "Wild",
    WILD_DRAW_FOUR: "Wild Draw Four",
    SHUFFLE_HANDS: "Wild Shuffle Hands",
    CUSTOMIZABLE: "Wild Customizable",
}


class Card:
    """One card face: a colour (``None`` for wilds) and a rank.

    Build cards with :func:`parse_card` or ``Card(color, rank)``: one instance per face, so
    cards compare by identity. They have no order of their own (sort with ``key=sort_key``): a
    comparison method written in Python would make every search of a list of cards (``index``,
    ``remove``, ``in``) go through it, several times slower.
    """

    __slots__ = ("code", "color", "is_action", "is_draw", "is_wild", "number", "points", "rank")
    _instances: ClassVar[dict[tuple[Color | None, str], Card]] = {}

    color: Color | None
    rank: str
    code: str
    number: int | None
    is_wild: bool
    is_action: bool
    is_draw: bool
    points: int

    def __new__(cls, color: Color | None, rank: str) -> Card:
        key = (color, rank)
        card = cls._instances.get(key)
        if card is not None:
            return card
        if rank in WILD_RANKS:
            if color is not None:
                raise CardCodeError(f"a {_RANK_NAMES[rank]} has no colour")
        elif rank in NUMBER_RANKS or rank in ACTION_RANKS:
            if color is None:
                raise CardCodeError(f"card rank {rank!r} needs a colour")
        else:
            raise CardCodeError(f"unknown card rank {rank!r}")
        card = super().__new__(cls)
        card.color = color
        card.rank = rank
        card.code = rank if color is None else color.letter + rank
        card.number = int(rank) if rank in NUMBER_RANKS else None
        card.is_wild = color is None
        card.is_action = rank in ACTION_RANKS
        card.is_draw = rank in (DRAW_TWO, WILD_DRAW_FOUR)
        if card.number is not None:
            card.points = card.number
        elif card.is_action:
            card.points = 20
        elif rank in (WILD, WILD_DRAW_FOUR):
            card.points = 50
        else:
            card.points = 40
        cls._instances[key] = card
        return card

    def __reduce__(self) -> tuple[object, tuple[Color | None, str]]:
        return (Card, (self.color, self.rank))

    def __copy__(self) -> Card:
        return self

    def __deepcopy__(self, memo: object) -> Card:
        return self

    def __repr__(self) -> str:
        return f"Card({self.code})"

    def __str__(self) -> str:
        return self.code

    @property
    def name(self) -> str:
        """An English name for logs and docs (``red 5``, ``Wild Draw Four``)."""
        rank = _RANK_NAMES.get(self.rank, self.rank)
        return rank if self.color is None else f"{self.color.value} {rank}"


_RANK_ORDER: Final = {r: i for i, r in enumerate(NUMBER_RANKS + ACTION_RANKS + WILD_RANKS)}
_COLOR_ORDER: Final = {None: 4, Color.RED: 0, Color.YELLOW: 1, Color.GREEN: 2, Color.BLUE: 3}


def sort_key(card: Card) -> tuple[int, int]:
    """Colour, then rank: the order cards are listed in."""
    return (_COLOR_ORDER[card.color], _RANK_ORDER[card.rank])


_CODE_RE: Final = re.compile(r"^\s*([A-Za-z+0-9]+?)(?:#(\d+))?\s*$")


def parse_card(code: str) -> Card:
    """Read a card code such as ``R5``, ``b+2``, ``ys``, ``W+4`` (case-insensitive).

    Raises :class:`CardCodeError` with a message that says what is allowed.
    """
    text = code.strip().upper()
    if "#" in text:
        raise CardCodeError(f"{code!r} names a physical copy; a card code has no '#N'")
    if text in WILD_RANKS:
        return Card(None, text)
    if len(text) >= 2 and text[0] in _BY_LETTER:
        rank = text[1:]
        if rank in NUMBER_RANKS or rank in ACTION_RANKS:
            return Card(_BY_LETTER[text[0]], rank)
    raise CardCodeError(
        f"unknown card code {code!r}: use a colour letter R/Y/G/B with 0-9, S, R or +2 "
        "(R5, YS, B+2), or W, W+4, WSH, WC"
    )


def parse_cards(codes: Iterable[str]) -> tuple[Card, ...]:
    """Read several card codes at once, in order (see :func:`parse_card`)."""
    return tuple(parse_card(c) for c in codes)



@dataclass(frozen=True, slots=True)
class CardCopy:
    """One physical card: a face and its copy number, written ``R5#2``."""

    card: Card
    copy: int

    @property
    def code(self) -> str:
        """The copy's code, ``R5#2``: the face's code, ``#`` and the copy number."""
        return f"{self.card.code}#{self.copy}"

    def __str__(self) -> str:
        return self.code


def parse_copy(code: str) -> CardCopy:
    """Read ``R5#2`` (a face and a copy number from 1)."""
    m = _CODE_RE.match(code)
    if not m or m.group(2) is None:
        raise CardCodeError(f"{code!r} is not a physical card: write CODE#N, e.g. R5#2")
    n = int(m.group(2))
    if n < 1:
        raise CardCodeError(f"{code!r}: copy numbers start at 1")
    return CardCopy(parse_card(m.group(1)), n)


# ---------------------------------------------------------------------------------------------
# Editions


def _classic_counts() -> dict[Card, int]:
    counts: dict[Card, int] = {}
    for color in COLORS:
        counts[Card(color, "0")] = 1
        for rank in NUMBER_RANKS[1:] + ACTION_RANKS:
            counts[Card(color, rank)] = 2
    counts[Card(None, WILD)] = 4
    counts[Card(None, WILD_DRAW_FOUR)] = 4
    return counts


def _edition_2018() -> dict[Card, int]:
    counts = _classic_counts()
    counts[Card(None, SHUFFLE_HANDS)] = 1
    counts[Card(None, CUSTOMIZABLE)] = 3
    return counts


EDITIONS: Final[dict[str, dict[Card, int]]] = {
    "classic-108": _classic_counts(),
    "2018-112": _edition_2018(),
}


def edition_counts(edition: str) -> dict[Card, int]:
    """How many copies of each face an edition has. Raises :class:`CardCodeError` if unknown."""
    try:
        return EDITIONS[edition]
    except KeyError:
        raise CardCodeError(
            f"unknown deck edition {edition!r}: use one of {', '.join(EDITIONS)}"
        ) from None


def edition_cards(edition: str) -> list[Card]:
    """Every card of an edition, in a fixed order (colour, rank)."""
    cards = _EDITION_CARDS.get(edition)
    if cards is None:
        counts = edition_counts(edition)
        cards = _EDITION_CARDS[edition] = tuple(c for c, n in counts.items() for _ in range(n))
    return list(cards)


_EDITION_CARDS: dict[str, tuple[Card, ...]] = {}


def edition_copies(edition: str) -> Iterator[CardCopy]:
    """Every physical card of an edition, ``R0#1``, ``R1#1``, ``R1#2``..."""
    for card, n in edition_counts(edition).items():
        for i in range(1, n + 1):
            yield CardCopy(card, i)


