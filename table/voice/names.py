"""Player names as the Japanese voice says them, and the start-up check that it can.

A name is written in the configuration as the family writes it: kanji (山田, 陽菜), kana (ゆい),
or Latin letters (Ken). What is said, in Japanese:

- the name's reading from ``[table] readings`` (kana), when it has one;
- else its ``[table] pronunciations`` entry;
- else a name in romaji (Ken, Yui, Shouta) as kana; else the name itself, which Open JTalk reads
  from its dictionary (山田 やまだ, 陽菜 ひな) and espeak-ng reads only when it is kana.

:func:`check_names` fails, in one line, for a name that would come out wrong: one Open JTalk
cannot read (a character it skips, a Latin name it would spell letter by letter) or, when
espeak-ng speaks Japanese instead, a name with kanji and no reading.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from table.errors import TableError
from table.voice.kana import has_kanji, katakana
from table.voice.romaji import romaji

_KANA_READING: Final = re.compile(r"^[\u3041-\u3096\u30A1-\u30FA\u30FC\u30FB ]+$")
# The kana Open JTalk reads in any order (every kana but the rare small ゎ ゕ ゖ ヮ ヵ ヶ, ヷ to ヺ
# and spaces, which it skips in some places): a name said in these alone needs no look in
# its dictionary, so the daemon starts without loading it (tests/test_japanese_voice.py).
_PLAIN_KANA: Final = re.compile(r"^[\u3041-\u308D\u308F-\u3094\u30A1-\u30ED\u30EF-\u30F4ー]+$")


class UnreadableName(TableError, ValueError):
    """A player's name the Japanese voice cannot say right."""


def is_reading(text: str) -> bool:
    """True for a reading the config may give: hiragana or katakana (and ー, spaces)."""
    return bool(_KANA_READING.match(text))


def spoken_names(
    players: Sequence[str], readings: Mapping[str, str], pronunciations: Mapping[str, str]
) -> dict[str, str]:
    """What the Japanese voice says for each player's name (katakana for kana readings, so that
    Open JTalk takes each as one word)."""
    said: dict[str, str] = {}
    for name in players:
        if name in readings:
            said[name] = katakana(readings[name])
        elif name in pronunciations:
            said[name] = pronunciations[name]
        else:
            said[name] = romaji(name) or name
    return said


def _latin(text: str) -> bool:
    return any(unicodedata.category(ch).startswith("L") and ch.isascii() for ch in text)


def plain_kana(said: str) -> bool:
    """True for words every Japanese voice reads as written: kana Open JTalk reads anywhere."""
    return bool(_PLAIN_KANA.match(said))


def unreadable(said: str, has_open_jtalk: bool) -> str | None:
    """Why ``said`` would come out wrong, or None when it is fine."""
    if not has_open_jtalk:
        if has_kanji(said) or _latin(said):
            return "espeak-ng speaks Japanese here (Open JTalk is not installed) and reads no kanji"
        return None
    if _latin(said):
        return "Open JTalk would spell its Latin letters one by one"
    from table.voice.openjtalk import engine

    for node in engine().nodes(said):
        text = str(node.get("string", ""))
        if node.get("pron") == "、" and not all(unicodedata.category(c).startswith("P")
                                               for c in text):
            return f"Open JTalk cannot read {text!r} in it"
    return None


def check_names(
    players: Sequence[str],
    readings: Mapping[str, str],
    pronunciations: Mapping[str, str],
    where: str = "table.readings",
) -> dict[str, str]:
    """What the Japanese voice says for each name; raises :class:`UnreadableName` (one line) for a
    name it cannot say right. ``where`` names the place to fix it. Names said in plain kana
    alone are fine as they are: the dictionary is loaded only for another."""
    from table.voice.errors import SpeechError
    from table.voice.openjtalk import engine

    said = spoken_names(players, readings, pronunciations)
    if all(plain_kana(said[name]) for name in players):
        return said
    try:
        engine()
        has_open_jtalk = True
    except SpeechError:
        has_open_jtalk = False
    for name in players:
        why = unreadable(said[name], has_open_jtalk)
        if why is not None:
            example = "やまだ" if has_kanji(name) else "さむ"
            raise UnreadableName(f"{where}: the name {name!r} cannot be said in Japanese ({why}); "
                             f"allowed: its reading in kana, e.g. {name} = \"{example}\"")
    return said


# Names given today whose common reading Open JTalk's dictionary does not have (it says 陽葵
# ハルキ, 美羽 ミワ): the reading most families mean, offered in the warning.
COMMON_READINGS: Final = {
    "陽葵": "ひまり", "美羽": "みう", "心愛": "ここあ", "律": "りつ", "詩": "うた", "杏": "あん",
    "乃愛": "のあ", "柚希": "ゆずき", "一華": "いちか", "彩葉": "いろは", "律希": "りつき",
}
# English names whose letters also read as romaji (Mike ミケ, Jane ジャネ), with their reading.
ENGLISH_NAMES: Final = {
    "mike": "まいく", "jane": "じぇーん", "kate": "けいと", "jake": "じぇいく", "luke": "るーく",
    "rose": "ろーず", "anne": "あん", "mone": "もね", "nate": "ねいと", "jade": "じぇいど",
    "joe": "じょー", "kai": "かい", "ken": "けん", "amanda": "あまんだ", "hannah": "はんな",
}
_ENGLISH_LOOK: Final = re.compile(r"^[^aeiou]*[aeiou][bcdfgjklmnprstz]e$|ee|oo|ea|ck|th")
_PALATAL: Final = ("y", "j", "sh", "ch", "ky", "ry", "gy", "ny", "hy", "my", "py", "by")
_LONG_AFTER: Final = {"o": ("u", "o", "h"), "u": ("u", "n", "i", "a", "e", "o")}  # not before these
_ROU_ENDINGS: Final = ("taro", "jiro", "ichiro", "saburo", "shiro", "goro")
_N_BEFORE_VOWEL: Final = re.compile(r"(?<=[aeiou])n(?=ichi|y[aou])")


@dataclass(frozen=True, slots=True)
class NameReading:
    """How the Japanese voice will say one player's name, and a warning when that is likely
    not how the family says it, with the ``[table] readings`` line that fixes it."""

    name: str
    reading: str  # katakana, as the voice says it
    warning: str | None = None
    fix: str | None = None  # e.g. 陽葵 = "ひまり"

    def lines(self) -> list[str]:
        """The name's reading on one line, and the warning with its fix on the next."""
        out = [f"{self.name}: said {self.reading}"]
        if self.warning:
            out.append(f"  warning: {self.name}: {self.warning}; if that is wrong, add under "
                       f"[table] readings: {self.fix}")
        return out


def _romaji_doubt(name: str) -> tuple[str, str] | None:
    """Why a romaji name is likely misread, and the reading it more likely has."""
    low = name.lower()
    if low in ENGLISH_NAMES and low not in ("kai", "ken"):
        return "looks like an English name, read as romaji", ENGLISH_NAMES[low]
    if _ENGLISH_LOOK.search(low):
        return "looks like an English name, read as romaji", ""
    guess = _long_vowels(_N_BEFORE_VOWEL.sub("n'", low))
    if guess == low:
        return None
    kana = romaji(guess)
    return ("romaji hides long vowels and ン before a vowel", "") if kana is None else (
        "romaji hides long vowels and ン before a vowel", _hira(kana))


def _long_vowels(low: str) -> str:
    """Romaji with the long vowels it most likely leaves out: yo, sho, ryo as you, shou, ryou;
    yu, shu, ryu before a consonant or at the end as yuu; Taro, Ichiro as tarou, ichirou."""
    out = ""
    for i, ch in enumerate(low):
        out += ch
        after = low[i + 1: i + 2]
        palatal = low[:i].endswith(_PALATAL)
        if palatal and ch in _LONG_AFTER and after not in _LONG_AFTER[ch]:
            out += "u"
    return out + "u" if low.endswith(_ROU_ENDINGS) else out


def _hira(text: str) -> str:
    return "".join(chr(ord(ch) - 0x60) if 0x30A1 <= ord(ch) <= 0x30F6 else ch for ch in text)


def _kanji_doubt(name: str, nodes: Sequence[Mapping[str, object]]) -> str | None:
    """Why Open JTalk likely misreads a kanji name, from its words for ``name``さん."""
    words = [n for n in nodes if n.get("string") not in ("さん",)]
    if name in COMMON_READINGS:
        return f"most families say {COMMON_READINGS[name]}"
    if len(words) > 1:
        return "Open JTalk reads it as words, not as one name"
    if len(name) == 1:
        return "a one-kanji name has many readings"
    if words and words[0].get("pos_group2") != "人名":
        return "Open JTalk does not know it as a name"
    return None


def name_readings(
    players: Sequence[str], readings: Mapping[str, str], pronunciations: Mapping[str, str]
) -> list[NameReading]:
    """Each name's reading as the Japanese voice will say it (Open JTalk where it works, else
    the kana espeak-ng is given), with a warning for a romaji or kanji name whose reading is
    likely wrong."""
    from table.voice.errors import SpeechError
    from table.voice.openjtalk import engine

    said = spoken_names(players, readings, pronunciations)
    try:
        jt = engine()
    except SpeechError:
        jt = None
    out: list[NameReading] = []
    for name in players:
        if jt is not None:
            whole = jt.reading(f"{said[name]}さん")
            reading = whole[:-2] if whole.endswith("サン") else whole
        else:
            reading = katakana(said[name])
        reading = reading.replace("’", "")
        warning, fix = None, None
        if name not in readings and name not in pronunciations:
            if romaji(name) is not None:
                doubt = _romaji_doubt(name)
                if doubt is not None:
                    warning, fix = doubt[0], f'{name} = "{doubt[1] or "its reading in kana"}"'
            elif has_kanji(name) and jt is not None:
                base = re.sub("(ちゃん|くん|君|さん|さま|様)$", "", name)
                why = _kanji_doubt(base, jt.nodes(f"{base}さん"))
                if why is not None:
                    warning = why
                    fix = f'"{name}" = "{COMMON_READINGS.get(name, "its reading in kana")}"'
        if warning:
            warning = f"said {reading}, but {warning}"
        out.append(NameReading(name, reading, warning, fix))
    return out
