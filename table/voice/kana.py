"""Japanese text as kana, for espeak-ng, which reads kana but says every kanji as the English
words "Chinese letter".

The catalogue's Japanese is written with kanji for Open JTalk and for the captions. The kana
reading of each piece of catalogue text (the text between the placeholders, and the words put
into them) is in ``ja_readings.toml`` beside this module, made by Open JTalk itself
(``python -m table.voice.kana``; a test checks that it matches the catalogue). Numbers are read
with :func:`~table.referee.announcements.ja_number`.
"""

from __future__ import annotations

import re
import sys
import tomllib
import unicodedata
from collections.abc import Iterable, Mapping
from functools import cache
from pathlib import Path
from typing import Final

from table.cards import COLORS, EDITIONS, Card
from table.referee.announcements import CATALOGUE, card_words, color_word, ja_number, number_words

READINGS_FILE: Final = Path(__file__).with_name("ja_readings.toml")
_PLACEHOLDER: Final = re.compile(r"\{\w+\}")
_DIGITS: Final = re.compile(r"\d+")
_KATAKANA: Final = range(0x30A1, 0x30F7)  # ァ..ヶ; ヷ..ヺ and ー stay as they are


def has_kanji(text: str) -> bool:
    return any(unicodedata.name(ch, "").startswith("CJK UNIFIED") for ch in text)


def hiragana(text: str) -> str:
    """Katakana turned to hiragana (espeak-ng reads both; hiragana reads as plain Japanese)."""
    return "".join(chr(ord(ch) - 0x60) if ord(ch) in _KATAKANA else ch for ch in text)


def katakana(text: str) -> str:
    return "".join(chr(ord(ch) + 0x60) if ord(ch) + 0x60 in _KATAKANA else ch for ch in text)


def catalogue_pieces() -> list[str]:
    """Every piece of text the Japanese catalogue can say that holds a kanji or a digit."""
    pieces: list[str] = []
    for phrases in CATALOGUE.values():
        pieces += _PLACEHOLDER.split(phrases["ja"])
    cards: set[Card] = {card for counts in EDITIONS.values() for card in counts}
    pieces += [card_words(card, "ja") for card in cards]
    pieces += [color_word(color, "ja") for color in COLORS]
    pieces.append(number_words(-1, "ja"))
    wanted = (p for p in pieces if p and (has_kanji(p) or _DIGITS.search(p)))
    return sorted(set(wanted))


@cache
def readings() -> dict[str, str]:
    """Catalogue piece -> its reading in hiragana, longest piece first."""
    with READINGS_FILE.open("rb") as f:
        table = tomllib.load(f)
    return dict(sorted(table.items(), key=lambda kv: -len(kv[0])))


def to_kana(text: str, extra: Mapping[str, str] | None = None) -> str:
    """``text`` with every catalogue piece replaced by its reading, then every number by its
    words. ``extra`` maps other words (names) to their readings first."""
    for word, said in {**(extra or {}), **readings()}.items():
        text = text.replace(word, said)
    return _DIGITS.sub(lambda m: ja_number(int(m.group())), text)


def generate(pieces: Iterable[str]) -> dict[str, str]:
    """Each piece's reading as Open JTalk gives it, in hiragana."""
    from table.voice.openjtalk import engine

    jt = engine()
    return {p: hiragana(jt.reading(p).replace("’", "")) for p in pieces}


def _toml(table: Mapping[str, str]) -> str:
    lines = ["# Kana readings of the Japanese catalogue's pieces, for espeak-ng.",
             "# Made by Open JTalk: python -m table.voice.kana (do not edit by hand).", ""]
    lines += [f'"{k}" = "{v}"' for k, v in sorted(table.items())]
    return "\n".join(lines) + "\n"


def main() -> int:
    """Write ``ja_readings.toml`` from the catalogue (needs Open JTalk)."""
    READINGS_FILE.write_text(_toml(generate(catalogue_pieces())), encoding="utf-8")
    print(f"wrote {READINGS_FILE}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
