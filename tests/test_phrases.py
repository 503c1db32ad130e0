"""One phrase catalogue per language (table/referee/phrases_en.toml, phrases_ja.toml): every key
written once in each, the same keys in both, no phrase written anywhere else (a Python dict of
languages, a page script's own words), and the pages given theirs as ``/static/words.js``."""

from __future__ import annotations

import ast
import re
import string
import tomllib
from pathlib import Path

import pytest
from web_harness import Client

from table.referee import phrases
from table.web.base import web_app
from table.web.server import WebServer

ROOT = Path(__file__).resolve().parent.parent
FILES = {lang: ROOT / "table" / "referee" / f"phrases_{lang}.toml" for lang in phrases.LANGUAGES}
SECTION = re.compile(r"^\[([^\]]+)\]\s*$")
KEY = re.compile(r'^("(?:[^"\\]|\\.)*"|[A-Za-z0-9_-]+)\s*=')


def written_keys(text: str) -> list[tuple[str, str]]:
    """Every (section, key) as written, in order, twice if written twice."""
    found: list[tuple[str, str]] = []
    section = ""
    for line in text.splitlines():
        if m := SECTION.match(line):
            section = m.group(1).strip('"')
        elif m := KEY.match(line):
            found.append((section, m.group(1).strip('"')))
    return found


def twice(keys: list[tuple[str, str]]) -> set[tuple[str, str]]:
    return {k for k in keys if keys.count(k) > 1}


def test_each_key_is_written_once_per_language_and_in_both() -> None:
    written = {lang: written_keys(path.read_text(encoding="utf-8"))
               for lang, path in FILES.items()}
    for lang, keys in written.items():
        assert not twice(keys), f"phrases_{lang}.toml writes these twice: {twice(keys)}"
        loaded = tomllib.loads(FILES[lang].read_text(encoding="utf-8"))
        assert {(s, k) for s, words in loaded.items() for k in words} == set(keys)
    en, ja = (set(written[lang]) for lang in ("en", "ja"))
    assert not en - ja, f"in English, not in Japanese: {sorted(en - ja)}"
    assert not ja - en, f"in Japanese, not in English: {sorted(ja - en)}"


def test_the_checks_find_a_key_written_twice_or_in_one_language() -> None:
    text = '[said]\nturn = "a"\nuno = "b"\n[web]\nturn = "c"\nuno = "d"\n'
    assert not twice(written_keys(text))  # the same key in two sections is two keys
    doubled = text + 'turn = "e"\n'
    assert twice(written_keys(doubled)) == {("web", "turn")}
    with pytest.raises(tomllib.TOMLDecodeError):
        tomllib.loads(doubled)  # and the table would not start with it
    assert set(written_keys(text)) - set(written_keys(text.replace('uno = "d"\n', ""))) == {
        ("web", "uno")}


def test_a_phrase_has_the_same_placeholders_in_both_languages() -> None:
    # English alone adds a plural ending; the Japanese note names the fix itself, where the
    # English one is given it (the same words as the command's own hint).
    only_en = {("demo", "played"): {"s"}, ("stats", "no plots"): {"how"}}
    for section, words in phrases.PHRASES["en"].items():
        for key, text in words.items():
            en = {f for _, f, _, _ in string.Formatter().parse(text) if f}
            ja = {f for _, f, _, _ in string.Formatter().parse(
                phrases.PHRASES["ja"][section][key]) if f}
            assert en - only_en.get((section, key), set()) == ja, (section, key)


def _catalogues_in(path: Path) -> list[int]:
    """Lines of dict literals keyed by language whose words are phrases (text with a space,
    or a dict of words): a catalogue outside the one."""
    lines = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Dict):
            continue
        keys = [k.value for k in node.keys if isinstance(k, ast.Constant)]
        if {"en", "ja"} <= set(keys):
            values = dict(zip(keys, node.values, strict=False))
            en = values["en"]
            if isinstance(en, ast.Dict | ast.Call) or (
                    isinstance(en, ast.Constant) and " " in str(en.value)):
                lines.append(node.lineno)
    return lines


def test_no_phrase_is_written_outside_the_catalogue() -> None:
    found = {str(path.relative_to(ROOT)): lines
             for folder in ("table", "sim") for path in sorted((ROOT / folder).rglob("*.py"))
             if (lines := _catalogues_in(path))}
    assert found == {}
    scripts = [*(ROOT / "table" / "web" / "static").glob("*.js"),
               *(ROOT / "table" / "hub" / "static").glob("*.js")]
    own = [p.name for p in scripts
           if re.search(r"\bWORDS\s*=|Object\.assign\(WORDS", p.read_text(encoding="utf-8"))]
    assert own == []


def test_the_pages_load_their_words_from_the_catalogue() -> None:
    server = WebServer("127.0.0.1", 0)
    server.serve_app(web_app([]), [])
    try:
        status, headers, body = Client(server.port).request("GET", "/static/words.js")
    finally:
        server.stop()
    assert status == 200 and headers["content-type"].startswith("text/javascript")
    text = body.decode("utf-8")
    for lang in phrases.LANGUAGES:
        for section in ("web", "hub"):
            for word in phrases.PHRASES[lang][section].values():
                assert word.replace('"', '\\"') in text
    pages = [*(ROOT / "table" / "web" / "static").glob("*.html"),
             *(ROOT / "table" / "hub" / "static").glob("*.html")]
    for page in pages:
        html = page.read_text(encoding="utf-8")
        if "/static/table.js" in html:
            assert html.index("/static/words.js") < html.index("/static/table.js"), page.name
