"""The tag registry: which RFID tag UID is which physical card or control token.

A deck file (docs/design.md §3) is TOML with one table, ``uids``, mapping an upper-case hex UID to a
card copy (``"R5#2"``) or a token (``"token:color:red"``). :func:`load_deck` checks it and says
exactly what is wrong; :func:`virtual_deck` makes the deck the simulator uses.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from table.cards import COLORS, CardCopy, edition_copies, edition_counts, parse_copy
from table.errors import CardCodeError, TableError
from table.files.text import read_toml


class DeckError(TableError, ValueError):
    """A deck file that cannot be used. ``str()`` names the file and the entry."""


ACTION_TOKENS: Final = ("draw", "pass", "uno", "challenge", "don", "undo", "next-round")
MAX_SEATS: Final = 10


def all_tokens() -> list[str]:
    """Every control token of docs/design.md §1, as written after ``token:``."""
    return (
        [f"color:{c.value}" for c in COLORS]
        + list(ACTION_TOKENS)
        + [f"seat:{n}" for n in range(1, MAX_SEATS + 1)]
    )


_TOKENS: Final = frozenset(all_tokens())
_UID_RE: Final = re.compile(r"^(?:[0-9A-F]{2}){4,10}$")


@dataclass(frozen=True, slots=True)
class Token:
    """A control chip: ``color:red``, ``draw``, ``seat:2``..."""

    name: str

    @property
    def code(self) -> str:
        """The token as a deck file writes it (``token:undo``)."""
        return f"token:{self.name}"


Tag = CardCopy | Token


def normalise_uid(text: str) -> str:
    """``04:a1:b2:c3`` or ``04 A1 B2 C3`` -> ``04A1B2C3``. Raises :class:`DeckError`."""
    uid = re.sub(r"[\s:.-]", "", text).upper()
    if uid.startswith("0X"):
        uid = uid[2:]
    if not _UID_RE.match(uid):
        raise DeckError(f"{text!r} is not a tag UID: write 4 to 10 bytes in hex, e.g. 04A1B2C3")
    return uid


def parse_tag(text: str) -> Tag:
    """A deck file value: a card copy (``R5#2``) or a token (``token:seat:1``)."""
    if text.startswith("token:"):
        name = text[len("token:") :]
        if name not in _TOKENS:
            raise DeckError(
                f"unknown token {text!r}: use token:color:red|yellow|green|blue, "
                f"token:{'|'.join(ACTION_TOKENS)} or token:seat:1..{MAX_SEATS}"
            )
        return Token(name)
    try:
        return parse_copy(text)
    except CardCodeError as exc:
        raise DeckError(str(exc)) from None


@dataclass(frozen=True)
class Deck:
    """UID to tag, for one deck edition."""

    edition: str
    tags: dict[str, Tag]

    def lookup(self, uid: str) -> Tag | None:
        """The tag with this UID (in any spelling), or ``None`` for an unknown tag."""
        try:
            return self.tags.get(normalise_uid(uid))
        except DeckError:
            return None

    def uid_of(self, tag: Tag) -> str | None:
        """The UID of a card copy or token in this deck, or None."""
        for uid, t in self.tags.items():
            if t == tag:
                return uid
        return None

    def missing(self) -> list[str]:
        """Card copies and tokens of the edition that no tag carries."""
        have = {t.code for t in self.tags.values()}
        wanted = [c.code for c in edition_copies(self.edition)] + [
            f"token:{t}" for t in all_tokens()
        ]
        return [code for code in wanted if code not in have]


def build_deck(entries: dict[str, str], edition: str, source: str = "<deck>") -> Deck:
    """Check ``entries`` (UID text to tag text) and make a :class:`Deck`.

    Refuses: a UID written twice (in any spelling), an unknown code or token, a card copy on
    two tags, a copy the edition does not have (``R0#2``; WSH in ``classic-108``).
    """
    counts = edition_counts(edition)
    tags: dict[str, Tag] = {}
    where: dict[Tag, str] = {}
    for raw_uid, raw_tag in entries.items():
        try:
            uid = normalise_uid(raw_uid)
            if not isinstance(raw_tag, str):
                raise DeckError(f"the value must be a string like \"R5#2\", not {_kind(raw_tag)}")
            tag = parse_tag(raw_tag.strip())
        except DeckError as exc:
            raise DeckError(f"{source}: uids.{raw_uid}: {exc}") from None
        if uid in tags:
            raise DeckError(f"{source}: UID {uid} is listed twice")
        if isinstance(tag, CardCopy) and tag.copy > counts.get(tag.card, 0):
            have = counts.get(tag.card, 0)
            raise DeckError(
                f"{source}: uids.{raw_uid}: the {edition} deck has {have} of {tag.card.code}, "
                f"so there is no {tag.code}"
            )
        if isinstance(tag, CardCopy) and tag in where:
            raise DeckError(
                f"{source}: {tag.code} is on two tags, {where[tag]} and {uid}"
            )
        tags[uid] = tag
        if isinstance(tag, CardCopy):
            where[tag] = uid
    return Deck(edition, tags)


def _kind(value: object) -> str:
    """A value that is not a string, named short (a table may nest a thousand deep)."""
    if isinstance(value, dict):
        return "a table"
    return "a list" if isinstance(value, list) else repr(value)


def load_deck(path: str | Path, edition: str = "classic-108") -> Deck:
    """Read and check a deck file. Raises :class:`DeckError` with a one-line message."""
    path = Path(path)
    data = read_toml(path, "deck file", DeckError)
    uids = data.get("uids")
    if not isinstance(uids, dict):
        empty = "the deck file is empty: " if not data else ""
        raise DeckError(f"{path}: {empty}no [uids] table (UID = \"CARD#N\" lines)")
    extra = sorted(set(data) - {"uids", "edition"})
    if extra:
        raise DeckError(f"{path}: unknown key {extra[0]!r}: a deck file holds [uids]")
    edition = data.get("edition", edition)
    if not isinstance(edition, str):
        raise DeckError(f"{path}: edition must be a name like classic-108, not {_kind(edition)}")
    try:
        edition_counts(edition)
    except CardCodeError as exc:
        raise DeckError(f"{path}: {exc}") from None
    return build_deck(uids, edition, str(path))


def _virtual_uid(code: str, edition: str) -> str:
    """A stable 7-byte UID (NTAG style: 04 first) derived from the tag's code."""
    digest = hashlib.sha256(f"uno-table:{edition}:{code}".encode()).hexdigest().upper()
    return "04" + digest[:12]


def virtual_deck(edition: str = "classic-108") -> Deck:
    """One UID per card of ``edition`` plus one of each token, the same on every machine."""
    entries: dict[str, str] = {}
    codes: Iterator[str] = (c.code for c in edition_copies(edition))
    for code in [*codes, *(f"token:{t}" for t in all_tokens())]:
        entries[_virtual_uid(code, edition)] = code
    return build_deck(entries, edition, "virtual")


def deck_toml(deck: Deck) -> str:
    """The deck file text for ``deck`` (written by hand: the format is two lines of TOML)."""
    lines = [
        "# uno-table deck file: tag UID = card copy or control token",
        f'edition = "{deck.edition}"',
        "",
        "[uids]",
    ]
    lines += [f'"{uid}" = "{tag.code}"' for uid, tag in deck.tags.items()]
    return "\n".join(lines) + "\n"
