"""Announcements: the phrases the referee says, in English and Japanese, and their words.

An :class:`Announcement` is a phrase key with parameters and a priority; :func:`render` turns it
into text in one language (which phrase each engine event is said with is
:mod:`table.referee.said`). Announcements are made from engine events, which carry only public
information, so nothing said can reveal a hidden card. The phrases are the ``[said]`` section of
the table's catalogue (:mod:`table.referee.phrases`); the Japanese ones are written as a
Japanese referee speaks, in kanji and kana, with numbers as digits before their counters
(``34点``, ``2枚``): Open JTalk reads them as said (さんじゅうよんてん, にまい), and
:mod:`table.voice.kana` turns them into kana for espeak-ng, which reads no kanji.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

from table.cards import Card, Color, parse_card
from table.referee.phrases import LANGUAGES, by_key, words

# Priorities: penalties and verdicts go before routine turn calls.
ROUTINE: Final = 0
INFO: Final = 1
URGENT: Final = 2


@dataclass(frozen=True, slots=True)
class Announcement:
    """A phrase key, its parameters and its priority: what the referee says."""
    key: str
    params: tuple[tuple[str, str | int], ...] = ()
    priority: int = INFO

    def param(self, name: str) -> str | int | None:
        """The value of parameter ``name``, or None."""
        return dict(self.params).get(name)


# The referee's phrases, by key then language (the [said] section of the table's phrases).
CATALOGUE: Final[dict[str, dict[str, str]]] = by_key("said")

# Reasons of refusal said with the general "rejected" phrase on purpose: they come from the
# software's own inputs (self-play's chance, a scenario, a program calling the API), never from
# a player at the table. Every other reason has its own ``rejected-REASON`` phrase
# (tests/test_referee_announcements.py reads the code for every reason a refusal can give).
SAID_GENERALLY: Final = frozenset(
    {"unknown-action", "unknown-button", "unknown-admin-action", "hand-already-known",
     "pile-not-empty", "reshuffle-mismatch"}
)


def corrections() -> dict[str, dict[str, str]]:
    """The polite corrections (``rejected`` phrases, which name no one), by key, in every
    language: what the web pages show for a refused input instead of the program's reason."""
    return {key: dict(words) for key, words in CATALOGUE.items() if key.startswith("rejected")}


def rejection_key(reason: str | None) -> str:
    """The phrase that corrects a refusal for ``reason``: its own, else the general one."""
    key = f"rejected-{reason}"
    return key if key in CATALOGUE else "rejected"


# A card's colour, rank and number as a phrase says them, by language.
_COLOR_WORDS: Final = {lang: {Color(k): w for k, w in words("colour", lang).items()}
                      for lang in LANGUAGES}
_RANK_WORDS: Final = {lang: words("rank", lang) for lang in LANGUAGES}
_NUMBER_WORDS: Final = {lang: words("number", lang) for lang in LANGUAGES}
_JA_DIGITS: Final = ("ぜろ", "いち", "に", "さん", "よん", "ご", "ろく", "なな", "はち", "きゅう")
_JA_UNITS: Final = ((1000, "せん"), (100, "ひゃく"), (10, "じゅう"))
_JA_IRREGULAR: Final = {300: "さんびゃく", 600: "ろっぴゃく", 800: "はっぴゃく", 3000: "さんぜん",
                        8000: "はっせん"}


def ja_number(n: int) -> str:
    """A whole number read in kana (``34`` -> ``さんじゅうよん``), up to 99,999."""
    if n < 0:
        return "マイナス " + ja_number(-n)
    if n < 10:
        return _JA_DIGITS[n]
    parts: list[str] = []
    if n >= 10000:
        parts.append(ja_number(n // 10000) + "まん")
        n %= 10000
    for unit, word in _JA_UNITS:
        digit, n = divmod(n, unit)
        if not digit:
            continue
        if digit * unit in _JA_IRREGULAR:
            parts.append(_JA_IRREGULAR[digit * unit])
        else:
            parts.append(("" if digit == 1 else _JA_DIGITS[digit]) + word)
    if n:
        parts.append(_JA_DIGITS[n])
    return "".join(parts)


def card_words(card: Card, lang: str) -> str:
    """A card as players say it: ``red seven``, ``赤の7``, ``ワイルドドローフォー``."""
    if card.number is not None:
        rank = _NUMBER_WORDS[lang][str(card.number)]
    else:
        rank = _RANK_WORDS[lang][card.rank]
    if card.color is None:
        return rank
    color = _COLOR_WORDS[lang][card.color]
    return f"{color} {rank}" if lang == "en" else f"{color}の{rank}"


def color_word(color: Color, lang: str) -> str:
    """A colour as said in ``lang`` (``red``, ``赤``)."""
    return _COLOR_WORDS[lang][color]


def number_words(n: int, lang: str) -> str:
    """A count or a score as written in a phrase: digits, which Open JTalk reads with the
    counter after them (``34点`` さんじゅうよんてん); a minus said as a word in Japanese."""
    if lang == "ja" and n < 0:
        return f"マイナス{-n}"
    return str(n)


# Who is already named with a title, or by a family word, takes no さん after the name.
_JA_TITLES: Final = ("さん", "ちゃん", "くん", "君", "さま", "様", "先生", "せんせい")
_JA_FAMILY: Final = frozenset({
    "パパ", "ママ", "お父さん", "お母さん", "おとうさん", "おかあさん", "父", "母",
    "おじいちゃん", "おばあちゃん", "じいじ", "ばあば", "お兄ちゃん", "お姉ちゃん",
    "おにいちゃん", "おねえちゃん", "兄", "姉", "弟", "妹",
})
PERSON_PARAMS: Final = ("player", "catcher", "offender", "turn", "target")


def ja_addressed(name: str) -> bool:
    """True when ``name`` (as written or as said, in kana of either kind) is already a way to
    address a person, so that a phrase says ``ママの番です`` and not ``ママさんの番です``
    (ユイチャン as much as ゆいちゃん)."""
    plain = _hiragana(name)
    return (name in _JA_FAMILY or plain in _JA_FAMILY or plain.endswith(_JA_TITLES)
            or name.endswith(_JA_TITLES))


def _hiragana(text: str) -> str:
    return "".join(chr(ord(ch) - 0x60) if 0x30A1 <= ord(ch) <= 0x30F6 else ch for ch in text)


def _ja_person(written: str, said: str) -> str:
    """A name in a Japanese list of people: with さん unless it already addresses someone."""
    return said if ja_addressed(written) or ja_addressed(said) else f"{said}さん"


def table_words(table: str, lang: str) -> str:
    """A table's id as said: ``3番テーブル`` for an id ending in a number (``3``,
    ``table-3``), else the id after テーブル; ``Table 3`` in English."""
    if lang != "ja":
        return table
    digits = re.search(r"(\d+)$", table)
    return f"{int(digits.group(1))}番テーブル" if digits else f"テーブル「{table}」"


def _without_title(template: str, names: Mapping[str, tuple[str, str]]) -> str:
    for param, (written, said) in names.items():
        if ja_addressed(written) or ja_addressed(said):
            template = template.replace(f"{{{param}}}さん", f"{{{param}}}")
    return template


# Words Open JTalk misreads, written in kanji in the captions and said from this spelling.
SPOKEN_JA: Final[Mapping[str, str]] = {"山札": "やまふだ", "手札": "てふだ", "黄色": "きいろ"}


def speech(text: str, lang: str) -> str:
    """The caption ``text`` as the voice is given it: in Japanese, the words Open JTalk
    misreads (山札 is not やまさつ) spelt as said; in English the text itself."""
    if lang != "ja":
        return text
    for word, said in SPOKEN_JA.items():
        text = text.replace(word, said)
    return text


def names_in(ann: Announcement) -> list[str]:
    """The people ``ann`` names: the names :func:`render` says through ``pronounce``."""
    found: list[str] = []
    for name, value in ann.params:
        if name in PERSON_PARAMS:
            found.append(str(value))
        elif name == "players":
            found.extend(str(value).split("\n"))
    return found


def render(
    ann: Announcement, lang: str = "en", pronounce: Mapping[str, str] | None = None
) -> str:
    """The text of ``ann`` in ``lang``. Player names go through ``pronounce`` when given."""
    if lang not in LANGUAGES:
        raise ValueError(f"unknown language {lang!r}: use en or ja")
    template = CATALOGUE[ann.key][lang]
    values: dict[str, str] = {}
    written: dict[str, str] = {}
    for name, value in ann.params:
        if name in PERSON_PARAMS:
            written[name] = str(value)
            values[name] = (pronounce or {}).get(str(value), str(value))
        elif name == "players":  # names, one a line: "Aki, Ken and Mio" / "Aki、Ken、Mio"
            names = str(value).split("\n")
            said = [(pronounce or {}).get(n, n) for n in names]
            values[name] = ("、".join(_ja_person(n, s) for n, s in zip(names, said, strict=True))
                            if lang == "ja" else _and(said))
        elif name == "table":
            values[name] = table_words(str(value), lang)
        elif name == "card":
            values[name] = card_words(parse_card(str(value)), lang)
        elif name == "color":
            values[name] = _COLOR_WORDS[lang][Color(value)]
        elif isinstance(value, int):
            values[name] = number_words(value, lang)
        else:
            values[name] = str(value)
    if lang == "ja":
        template = _without_title(template, {k: (written[k], v) for k, v in values.items()
                                             if k in PERSON_PARAMS})
    return template.format(**values)


def _and(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
