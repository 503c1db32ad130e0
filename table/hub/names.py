"""Player names as a person reads them: two names that look the same on the TV are the same
player to the hub, whatever their code points.

:func:`skeleton` folds a name the way Unicode's confusable detection does (UTS #39's
skeleton, with a small table of its look-alikes): NFKC first (fullwidth ``Ｍｉｏ``, the
mathematical ``𝐌𝐢𝐨``, ligatures and superscripts become plain letters), then each Cyrillic,
Greek or other letter that is drawn like a Latin one becomes that Latin letter, then ``rn``
becomes ``m``, ``1``, ``I`` and ``|`` become ``l`` and ``0`` becomes ``o``, and last the case
is folded. ``Мio`` (a Cyrillic ``М``) and ``Mio`` have one skeleton; ``Mío`` (an accent) keeps
its own, as it should: accents are read.

The table is ours, not the whole of Unicode's ``confusables.txt`` (some 6,000 lines): it holds
the letters of the scripts a club's player list is written in that are drawn like Latin ones.
A name in a script that has no Latin look-alike (Japanese, say) is its own skeleton.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from typing import Final

# Drawn like the Latin letter after it (from UTS #39 confusables.txt, the letters of the
# Cyrillic, Greek, Armenian and Latin scripts that fold to a Latin letter).
_LOOK_ALIKES: Final = {
    "A": "АΑᎪ", "B": "ВΒᏴ", "C": "СϹᏟⅭ", "D": "ᎠⅮ", "E": "ЕΕᎬ", "H": "НΗᎻ", "I": "ІΙӀ",
    "J": "ЈᎫ", "K": "КΚᏦ", "M": "МΜᎷⅯ", "N": "ΝⲚ", "O": "ОΟՕ", "P": "РΡᏢ", "S": "ЅᏚ",
    "T": "ТΤᎢ", "V": "ᏙⅤ", "W": "ᏔԜ", "X": "ХΧⅩ", "Y": "ҮΥ", "Z": "ΖᏃ",
    "a": "аɑα", "c": "сϲⅽ", "d": "ԁⅾ", "e": "еҽ", "g": "ɡ", "h": "һ", "i": "іıɩιⅰ",
    "j": "јϳ", "l": "ӏⅼ", "m": "ⅿ", "o": "оοօσ", "p": "рρ", "q": "ԛ", "s": "ѕ",
    "u": "υս", "v": "ѵνⅴ", "w": "ԝ", "x": "хⅹ", "y": "уγ",
}
_FOLD: Final = str.maketrans(
    {alike: latin for latin, alikes in _LOOK_ALIKES.items() for alike in alikes}
    | {"1": "l", "I": "l", "|": "l", "0": "o"}
)


def skeleton(name: str) -> str:
    """What ``name`` looks like (module doc): equal skeletons, names a reader confuses."""
    folded = unicodedata.normalize("NFKC", name).translate(_FOLD).replace("rn", "m")
    return unicodedata.normalize("NFKC", folded.casefold())


def look_alike(name: str, others: Iterable[str]) -> str | None:
    """The first of ``others`` that is not ``name`` but looks like it; ``None`` when none
    does."""
    mine = skeleton(name)
    return next((other for other in others if other != name and skeleton(other) == mine),
                None)
