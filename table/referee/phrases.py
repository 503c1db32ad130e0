"""The table's one phrase catalogue per language: ``phrases_en.toml`` and ``phrases_ja.toml``
beside this module hold every word the table says, shows or writes (the referee's phrases, the
voice's detail, enrolment's, the simulator's transcript and demo lines, the evening's report,
the web's ``/stats`` and refused pages, and the web pages' and the hub's words, which the pages
load as ``/static/words.js``), one section per place they appear, each key written once per
language (a key written twice does not load; tests/test_phrases.py checks that both languages
have the same keys).
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Final

LANGUAGES: Final = ("en", "ja")


def _load(lang: str) -> dict[str, dict[str, str]]:
    path = Path(__file__).with_name(f"phrases_{lang}.toml")
    return tomllib.loads(path.read_text(encoding="utf-8"))


# Language, then section, then key: the phrase.
PHRASES: Final[dict[str, dict[str, dict[str, str]]]] = {lang: _load(lang) for lang in LANGUAGES}


def words(section: str, lang: str) -> dict[str, str]:
    """Every phrase of ``section`` in ``lang`` (English for a language the table lacks), by key."""
    return dict(PHRASES.get(lang, PHRASES["en"])[section])


def by_key(section: str) -> dict[str, dict[str, str]]:
    """Every phrase of ``section`` by key, then by language (``{"turn": {"en": "...", ...}}``)."""
    return {key: {lang: PHRASES[lang][section][key] for lang in LANGUAGES}
            for key in PHRASES["en"][section]}
