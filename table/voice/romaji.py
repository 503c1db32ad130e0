"""Latin letters in Japanese speech: names in romaji (Ken ケン, Shouta ショウタ) and the ids of
readers and tables (``aki-pad`` アキ パッド), as katakana, so that no voice spells them letter
by letter. Imports nothing of the voice's other modules.
"""

from __future__ import annotations

import re
from typing import Final

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


# Words of reader and table ids said as words, not spelt letter by letter.
_ENGLISH_WORDS: Final = {
    "pad": "パッド", "draw": "ドロー", "play": "プレイ", "seat": "シート", "table": "テーブル",
    "pile": "パイル", "reader": "リーダー", "left": "レフト", "right": "ライト", "top": "トップ",
    "discard": "ディスカード", "main": "メイン", "usb": "ユーエスビー", "spi": "エスピーアイ",
}
_LATIN_WORD: Final = re.compile(r"[A-Za-z]+(?:[-_][A-Za-z]+)*")


def latin_in_kana(text: str) -> str:
    """Latin words in Japanese speech as kana: ids of readers and tables (``aki-pad`` アキ
    パッド, ``draw`` ドロー) and romaji; a word that is neither is left as it is."""
    def said(m: re.Match[str]) -> str:
        parts = re.split(r"[-_]", m.group())
        kana = [_ENGLISH_WORDS.get(p.lower()) or romaji(p) for p in parts]
        return m.group() if None in kana else " ".join(k for k in kana if k)

    return _LATIN_WORD.sub(said, text)
