"""What the Japanese voice says, as a family hears it: captions in kanji and speech in the
readings Open JTalk needs, names addressed right, each name's reading shown before play,
audio with headroom and short silences, and espeak-ng's kana as a Japanese speaker reads it.

Open JTalk (pyopenjtalk with Debian's dictionary) and espeak-ng run for real."""

from __future__ import annotations

import ast
import io
import os
import subprocess
import sys
import wave
from array import array
from pathlib import Path

import pytest

from table.commands.enroll import token_words
from table.referee.announcements import CATALOGUE, Announcement, render
from table.referee.said import SAID
from table.rules.events import EventKind
from table.voice.audio import PEAK
from table.voice.backends import japanese_voice, spoken_text
from table.voice.kana import to_kana
from table.voice.names import name_readings, spoken_names
from table.voice.openjtalk import engine

ROOT = Path(__file__).resolve().parent.parent


def said(key: str, **params: str | int) -> str:
    """A phrase's caption in Japanese."""
    return render(Announcement(key, tuple(params.items())), "ja")


def heard(caption: str) -> str:
    """What Open JTalk says for a caption, in katakana."""
    return engine().reading(spoken_text(caption, "ja"))


def voice_imports() -> dict[str, set[str]]:
    """Each module of table/voice and the voice modules it imports (in functions too)."""
    graph: dict[str, set[str]] = {}
    for path in (ROOT / "table" / "voice").glob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        used = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
        graph[path.stem] = {m.rsplit(".", 1)[1] for m in used if m.startswith("table.voice.")}
    return graph


def test_the_voice_modules_import_one_another_without_a_cycle() -> None:
    graph = voice_imports()

    def reaches(start: str, goal: str, seen: set[str]) -> bool:
        for nxt in graph.get(start, set()) - seen:
            if nxt == goal or reaches(nxt, goal, seen | {nxt}):
                return True
        return False

    assert [m for m in graph if reaches(m, m, set())] == []
    assert "openjtalk" not in graph["kana"]  # the readings' generator is a developer's tool


def test_the_draw_pile_is_written_in_kanji_and_said_yamafuda() -> None:
    caption = said("rejected-not-top-card")
    assert "山札" in caption
    assert "ヤマフダ" in heard(caption)
    assert "ヤマサツ" not in heard(caption)
    shuffle = said("shuffle-hands")
    assert "手札" in shuffle and "テフダ" in heard(shuffle)


def test_a_name_whose_reading_ends_in_chan_or_kun_takes_no_san() -> None:
    voice = spoken_names(["結衣ちゃん", "翔太くん", "山田"], {"結衣ちゃん": "ゆいちゃん"}, {})
    assert render(Announcement("turn", (("player", "結衣ちゃん"),)), "ja", voice) == \
        "ユイチャンの番です。"
    assert render(Announcement("turn", (("player", "翔太くん"),)), "ja", voice) == \
        "翔太くんの番です。"
    assert said("turn", player="結衣ちゃん") == "結衣ちゃんの番です。"


def test_the_table_assignment_names_the_table_and_its_players_politely() -> None:
    caption = said("table-assignment", table="table-3", players="山田\nゆいちゃん\nKen")
    assert caption == "3番テーブルは、山田さん、ゆいちゃん、Kenさんです。"
    reading = heard(caption)
    assert reading.startswith("サンバンテーブル") and "テーブルサン" not in reading
    assert "ケンサン" in reading


def test_reader_ids_are_said_as_words_not_letter_by_letter() -> None:
    reading = heard(said("reader-lost", reader="draw"))
    assert "ドロー" in reading and "ディー" not in reading
    assert "アキ\u3000パッド" in heard(said("reader-back", reader="aki-pad"))


def test_the_wording_is_a_referee_s_at_a_family_table() -> None:
    japanese = {key: phrases["ja"] for key, phrases in CATALOGUE.items()}
    assert japanese["pending-draw-challenge"].endswith("チャレンジしてください。")
    assert "シャッフルワイルド" in japanese["shuffle-hands"]
    assert not [k for k, text in japanese.items() if "あなた" in text or "知らない" in text]
    # A penalty asks for its cards (「引いてください」), or, where it costs a turn instead
    # (uno_penalty_kind = "lose-turn"), says the turn is lost (「休みです」); the keys are
    # SAID's (table/referee/said.py), the wording the catalogue's (announcements.py).
    penalties = SAID[EventKind.PENALTY].phrases
    lose_turn = {k for k in penalties if k.endswith("-loses-turn")}
    assert lose_turn == {"caught-loses-turn", "uno-missed-loses-turn"}
    assert {k: japanese[k] for k in set(penalties) - lose_turn
            if not japanese[k].endswith("引いてください。")} == {}
    assert {k: japanese[k] for k in lose_turn if not japanese[k].endswith("休みです。")} == {}
    assert token_words("seat:1", "ja") == "1番の席"


def samples(data: bytes) -> tuple[array[int], int]:
    with wave.open(io.BytesIO(data), "rb") as w:
        return array("h", w.readframes(w.getnframes())), w.getframerate()


# Phrases whose Open JTalk rendering ran past full scale before the audio was tidied.
LOUD = ["color-needed", "challenge", "round-won", "rejected-uno-not-due", "don", "journal-back"]


@pytest.mark.parametrize("key", LOUD)
def test_audio_has_headroom_and_short_silences(key: str) -> None:
    voice = japanese_voice()
    assert voice is not None
    names = {"player": "山田", "catcher": "陽菜", "offender": "翔太", "target": "大翔"}
    params = {n: v for n, v in names.items() if f"{{{n}}}" in CATALOGUE[key]["ja"]}
    pcm, rate = samples(voice.render(said(key, **params)))
    peak = max(abs(s) for s in pcm)
    assert peak == PEAK < 32767  # -1 dBFS: as loud as every other phrase, never clipped
    floor = peak * 0.02
    lead = next(i for i, s in enumerate(pcm) if abs(s) >= floor) / rate
    tail = next(i for i, s in enumerate(reversed(pcm)) if abs(s) >= floor) / rate
    assert 0.05 <= lead <= 0.12 and 0.05 <= tail <= 0.12


def test_espeak_ng_is_given_the_kana_a_japanese_speaker_reads() -> None:
    assert "さんわすきっぷ" in to_kana(said("skipped", player="ケン"))
    assert "いってん" in to_kana(said("round-scored", player="ケン", points=1))
    assert "ろっかい" in to_kana(said("rendon", player="ケン", count=6))
    assert "じゅってん" in to_kana(said("round-scored", player="ケン", points=10))
    minus = to_kana(said("round-scored", player="ケン", points=-120))
    assert "ひゃくにじゅってん" in minus and "いちにじゅう" not in minus


ROMAJI = {"Kenichi": "けんいち", "Yuta": "ゆうた", "Yoko": "ようこ", "Taro": "たろう",
          "Mike": "まいく", "Jane": "じぇーん"}
KANJI = {"陽葵": "ひまり", "心愛": "ここあ", "律": "りつ", "詩": "うた", "美羽": "みう",
         "杏": "あん"}
FINE = ["Ken", "Yui", "Shouta", "Haruto", "Aki", "山田", "陽菜", "翔太", "大翔", "結衣ちゃん"]


def test_a_likely_misread_name_is_warned_with_the_reading_line_that_fixes_it() -> None:
    found = {r.name: r for r in name_readings([*ROMAJI, *KANJI, *FINE], {}, {})}
    assert {n: found[n].fix for n in ROMAJI} == {n: f'{n} = "{r}"' for n, r in ROMAJI.items()}
    assert {n: found[n].fix for n in KANJI} == {n: f'"{n}" = "{r}"' for n, r in KANJI.items()}
    assert {n: found[n].warning for n in FINE} == dict.fromkeys(FINE)
    assert found["陽葵"].reading == "ハルキ" and found["Kenichi"].reading == "ケニチ"
    fixed = name_readings(["陽葵"], {"陽葵": "ひまり"}, {})[0]
    assert (fixed.reading, fixed.warning) == ("ヒマリ", None)


def test_say_shows_a_name_s_reading_and_its_fix_before_the_evening(tmp_path: Path) -> None:
    out = subprocess.run([sys.executable, "-m", "table.commands.cli", "say", "--lang", "ja", "陽葵",
                          "--out", str(tmp_path / "name.wav")], cwd=ROOT, capture_output=True,
                         text=True, timeout=120, env=dict(os.environ), check=False)
    assert out.returncode == 0, out.stderr
    assert "陽葵: said ハルキ" in out.stdout
    assert '"陽葵" = "ひまり"' in out.stdout
