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
from typing import Final

from table.errors import TableError
from table.voice.kana import has_kanji, katakana

# Hepburn and Kunrei syllables, longest first when matched.
_SYLLABLES: Final = {
    "kya": "キャ", "kyu": "キュ", "kyo": "キョ", "sha": "シャ", "shu": "シュ", "sho": "ショ",
    "sya": "シャ", "syu": "シュ", "syo": "ショ", "cha": "チャ", "chu": "チュ", "cho": "チョ",
    "tya": "チャ", "tyu": "チュ", "tyo": "チョ", "nya": "ニャ", "nyu": "ニュ", "nyo": "ニョ",
    "hya": "ヒャ", "hyu": "ヒュ", "hyo": "ヒョ", "mya": "ミャ", "myu": "ミュ", "myo": "ミョ",
    "rya": "リャ", "ryu": "リュ", "ryo": "リョ", "gya": "ギャ", "gyu": "ギュ", "gyo": "ギョ",
    "bya": "ビャ", "byu": "ビュ", "byo": "ビョ", "pya": "ピャ", "pyu": "ピュ", "pyo": "ピョ",
    "shi": "シ", "chi": "チ", "tsu": "ツ", "dzu": "ヅ",
    "ja": "ジャ", "ju": "ジュ", "jo": "ジョ", "ji": "ジ", "je": "ジェ", "fu": "フ",
    "ka": "カ", "ki": "キ", "ku": "ク", "ke": "ケ", "ko": "コ",
    "sa": "サ", "si": "シ", "su": "ス", "se": "セ", "so": "ソ",
    "ta": "タ", "ti": "チ", "tu": "ツ", "te": "テ", "to": "ト",
    "na": "ナ", "ni": "ニ", "nu": "ヌ", "ne": "ネ", "no": "ノ",
    "ha": "ハ", "hi": "ヒ", "hu": "フ", "he": "ヘ", "ho": "ホ",
    "ma": "マ", "mi": "ミ", "mu": "ム", "me": "メ", "mo": "モ",
    "ya": "ヤ", "yu": "ユ", "yo": "ヨ",
    "ra": "ラ", "ri": "リ", "ru": "ル", "re": "レ", "ro": "ロ",
    "wa": "ワ", "wo": "ヲ",
    "ga": "ガ", "gi": "ギ", "gu": "グ", "ge": "ゲ", "go": "ゴ",
    "za": "ザ", "zi": "ジ", "zu": "ズ", "ze": "ゼ", "zo": "ゾ",
    "da": "ダ", "di": "ヂ", "du": "ヅ", "de": "デ", "do": "ド",
    "ba": "バ", "bi": "ビ", "bu": "ブ", "be": "ベ", "bo": "ボ",
    "pa": "パ", "pi": "ピ", "pu": "プ", "pe": "ペ", "po": "ポ",
    "a": "ア", "i": "イ", "u": "ウ", "e": "エ", "o": "オ",
}
_LONG: Final = {"ā": "aa", "ī": "ii", "ū": "uu", "ē": "ee", "ō": "ou", "â": "aa", "ô": "ou"}
_KANA_READING: Final = re.compile(r"^[\u3041-\u3096\u30A1-\u30FA\u30FC\u30FB ]+$")


class UnreadableName(TableError, ValueError):
    """A player's name the Japanese voice cannot say right."""


def romaji(name: str) -> str | None:
    """A name in romaji as katakana (``Ken`` -> ``ケン``, ``Shouta`` -> ``ショウタ``), or None
    when it is not romaji (``Sam``)."""
    text = "".join(_LONG.get(ch, ch) for ch in name.lower())
    if not text.isascii() or not text.replace("'", "").replace("-", "").isalpha():
        return None
    out: list[str] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch in "'-":
            i += 1
            continue
        if ch == "n" and (i + 1 == len(text) or text[i + 1] not in "aiueoy"):
            out.append("ン")
            i += 2 if i + 1 < len(text) and text[i + 1] == "'" else 1
            continue
        if i + 1 < len(text) and ch == text[i + 1] and ch not in "aiueon":
            out.append("ッ")  # a doubled consonant: Kotta, Ippei
            i += 1
            continue
        if ch == "m" and i + 1 < len(text) and text[i + 1] in "bmp":
            out.append("ン")  # Hepburn's m before b, m, p: Kamba
            i += 1
            continue
        for size in (3, 2, 1):
            kana = _SYLLABLES.get(text[i:i + size])
            if kana is not None:
                out.append(kana)
                i += size
                break
        else:
            return None
    return "".join(out)


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
    name it cannot say right. ``where`` names the place to fix it."""
    from table.voice.espeak import SpeechError
    from table.voice.openjtalk import engine

    try:
        engine()
        has_open_jtalk = True
    except SpeechError:
        has_open_jtalk = False
    said = spoken_names(players, readings, pronunciations)
    for name in players:
        why = unreadable(said[name], has_open_jtalk)
        if why is not None:
            example = "やまだ" if has_kanji(name) else "さむ"
            raise UnreadableName(f"{where}: the name {name!r} cannot be said in Japanese ({why}); "
                             f"allowed: its reading in kana, e.g. {name} = \"{example}\"")
    return said
