"""Japanese text as kana, for espeak-ng, which reads kana but says every kanji as the English
words "Chinese letter".

The catalogue's Japanese is written with kanji for Open JTalk and for the captions. The kana
reading of each piece of catalogue text (the text between the placeholders, and the words put
into them) is in ``ja_readings.toml`` beside this module, made by Open JTalk itself
(``python -m table.voice.make_readings``, a developer's tool; a test checks that it matches
the catalogue). Numbers are read
with :func:`~table.referee.announcements.ja_number`.
"""

from __future__ import annotations

import re
import tomllib
import unicodedata
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Final

from table.cards import COLORS, EDITIONS, Card
from table.referee.announcements import (
    CATALOGUE,
    card_words,
    color_word,
    ja_number,
    speech,
    table_words,
)
from table.voice.romaji import latin_in_kana

READINGS_FILE: Final = Path(__file__).with_name("ja_readings.toml")
_PLACEHOLDER: Final = re.compile(r"\{\w+\}")
_DIGITS: Final = re.compile(r"\d+")
_WORDS: Final = re.compile(r"[\u3041-\u30FA\u4E00-\u9FFF\d]")  # kana, kanji or a digit
_KATAKANA: Final = range(0x30A1, 0x30F7)  # ァ..ヶ; ヷ..ヺ and ー stay as they are


def has_kanji(text: str) -> bool:
    """True when ``text`` holds a kanji."""
    return any(unicodedata.name(ch, "").startswith("CJK UNIFIED") for ch in text)


def hiragana(text: str) -> str:
    """Katakana turned to hiragana (espeak-ng reads both; hiragana reads as plain Japanese)."""
    return "".join(chr(ord(ch) - 0x60) if ord(ch) in _KATAKANA else ch for ch in text)


def katakana(text: str) -> str:
    """Hiragana turned to katakana."""
    return "".join(chr(ord(ch) + 0x60) if ord(ch) + 0x60 in _KATAKANA else ch for ch in text)


def catalogue_pieces() -> list[str]:
    """Every piece of text the Japanese catalogue can say, as the voice is given it
    (:func:`~table.referee.announcements.speech`): kana-only pieces too, since a particle は is
    said わ and espeak-ng says it ha."""
    pieces: list[str] = []
    for phrases in CATALOGUE.values():
        pieces += _PLACEHOLDER.split(speech(phrases["ja"], "ja"))
    cards: set[Card] = {card for counts in EDITIONS.values() for card in counts}
    pieces += [speech(card_words(card, "ja"), "ja") for card in cards]
    pieces += [speech(color_word(color, "ja"), "ja") for color in COLORS]
    pieces += [table_words("1", "ja").lstrip("1"), *table_words("t", "ja").split("t")]
    wanted = (p for p in pieces if _WORDS.search(p))
    return sorted(set(wanted))


@cache
def readings() -> dict[str, str]:
    """Catalogue piece -> its reading in hiragana, longest piece first."""
    with READINGS_FILE.open("rb") as f:
        table = tomllib.load(f)
    return dict(sorted(table.items(), key=lambda kv: -len(kv[0])))


# Counters after which a number's last sound doubles: 1点 いってん, 6回 ろっかい, 10点 じゅってん.
_COUNTED: Final = re.compile(r"(\d+)(?=[点回])")
_DOUBLED: Final = {"いち": "いっ", "ろく": "ろっ", "はち": "はっ", "じゅう": "じゅっ"}


def _counted(n: int) -> str:
    said = ja_number(n)
    for plain, doubled in _DOUBLED.items():
        if said.endswith(plain):
            return said[: -len(plain)] + doubled
    return said


def to_kana(text: str, extra: Mapping[str, str] | None = None) -> str:
    """``text`` in kana for espeak-ng: ``extra`` (names and their readings) and every catalogue
    piece replaced by its reading in one pass (a reading is never read again), each number by
    its words, with the sound change before 点 and 回."""
    text = _COUNTED.sub(lambda m: _counted(int(m.group(1))), latin_in_kana(speech(text, "ja")))
    words = {**readings(), **(extra or {})}
    if words:
        pattern = re.compile("|".join(re.escape(w) for w in sorted(words, key=len, reverse=True)))
        text = pattern.sub(lambda m: words[m.group()], text)
    return _DIGITS.sub(lambda m: ja_number(int(m.group())), text)
