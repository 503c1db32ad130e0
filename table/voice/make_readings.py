"""A developer's tool, never run by the table: writes ``ja_readings.toml`` (the kana readings
of the catalogue's Japanese pieces, for espeak-ng) from what Open JTalk makes of them.

Run ``python -m table.voice.make_readings`` after changing a Japanese phrase.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Mapping

from table.voice.kana import READINGS_FILE, catalogue_pieces, hiragana


def generate(pieces: Iterable[str]) -> dict[str, str]:
    """Each piece's reading as Open JTalk gives it, in hiragana."""
    from table.voice.openjtalk import engine

    jt = engine()
    return {p: hiragana(jt.reading(p).replace("’", "")) for p in pieces}


def _toml(table: Mapping[str, str]) -> str:
    lines = ["# Kana readings of the Japanese catalogue's pieces, for espeak-ng.",
             "# Made by Open JTalk: python -m table.voice.make_readings (do not edit by hand).",
             ""]
    lines += [f'"{k}" = "{v}"' for k, v in sorted(table.items())]
    return "\n".join(lines) + "\n"


def main() -> int:
    """Write ``ja_readings.toml`` from the catalogue (needs Open JTalk)."""
    READINGS_FILE.write_text(_toml(generate(catalogue_pieces())), encoding="utf-8")
    print(f"wrote {READINGS_FILE}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
