"""The Japanese voice: Open JTalk, run for real (pyopenjtalk and Debian's dictionary), and its
fallback to espeak-ng without a network.

The tests run with the network unreachable; the fallback tests also prove that nothing tries to
reach it: they run in a fresh process with a socket guard that records and refuses every
connection (and a control test shows the guard catches pyopenjtalk's own download)."""

from __future__ import annotations

import array
import io
import os
import re
import subprocess
import sys
import textwrap
import wave
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sim.hardware.ptys import sim_config
from table.referee.announcements import CATALOGUE, Announcement, render
from table.voice.audio import tidy
from table.voice.kana import catalogue_pieces, has_kanji, readings, to_kana
from table.voice.make_readings import generate
from table.voice.names import (
    UnreadableName,
    check_names,
    is_reading,
    plain_kana,
    romaji,
    spoken_names,
    unreadable,
)
from table.voice.openjtalk import engine

ROOT = Path(__file__).resolve().parent.parent
PLAIN = [chr(c) for c in range(0x3041, 0x3100) if plain_kana(chr(c))]
NAMES = {"player": "山田", "catcher": "陽菜", "offender": "翔太", "turn": "佐藤",
         "reader": "パッド", "target": "大翔", "token": "ドロー"}
VALUES: dict[str, str | int] = {"card": "R7", "color": "blue", "count": 4, "points": 34,
                                "round": 2, "scores": "山田さん10点", "table": "3",
                                "players": "山田\n陽菜\n翔太"}


def sample(key: str) -> str:
    names = set(re.findall(r"{(\w+)}", CATALOGUE[key]["ja"]))
    params = {**VALUES, **NAMES}
    return render(Announcement(key, tuple((n, params[n]) for n in sorted(names))), "ja")


def seconds_and_loudness(data: bytes) -> tuple[float, int]:
    with wave.open(io.BytesIO(data), "rb") as w:
        samples = array.array("h", w.readframes(w.getnframes()))
        seconds = w.getnframes() / w.getframerate()
    rms = int((sum(x * x for x in samples) / max(len(samples), 1)) ** 0.5)
    return seconds, rms


def test_every_japanese_phrase_renders_to_audible_speech_of_plausible_length() -> None:
    """Open JTalk says about 6 to 12 morae a second; a phrase is said in no less than a
    twentieth of a second per character and no more than a third (pauses included)."""
    jt = engine()
    wrong = {}
    for key in CATALOGUE:
        text = sample(key)
        seconds, rms = seconds_and_loudness(jt.wav(text))
        chars = len(re.sub(r"[、。!\s]", "", text))
        if not (0.05 * chars <= seconds <= 0.35 * chars + 1.0 and rms > 300):
            wrong[key] = (text, round(seconds, 2), rms)
    assert wrong == {}


def test_numbers_and_musician_words_are_read_as_players_say_them() -> None:
    jt = engine()
    said = {key: jt.reading(sample(key)) for key in ("round-scored", "renchan", "tenhou", "uno",
                                                     "false-don", "panpakapan", "pending-draw")}
    assert "サンジューヨンテン" in said["round-scored"]  # 34点
    assert "ヨンレンチャン" in said["renchan"]  # 4連チャン
    assert said["tenhou"].startswith("テンホー") and "ジューバイ" in said["tenhou"]
    assert "ウノ" in said["uno"] and "ユーエヌオー" not in said["uno"]
    assert said["false-don"].startswith("チョンボ")
    assert said["panpakapan"].startswith("パンパカパーン")
    assert "ヨンマイ" in said["pending-draw"]  # 4枚
    assert "ヤマダ" in said["pending-draw"]


def test_a_kanji_name_is_said_not_skipped() -> None:
    jt = engine()
    with_name, _ = seconds_and_loudness(jt.wav("陽菜さんの番です。"))
    without, _ = seconds_and_loudness(jt.wav("さんの番です。"))
    assert with_name - without > 0.12  # ヒナ: two morae
    assert jt.reading("陽菜さんの番です。").startswith("ヒナ")


def test_a_reading_changes_what_is_said() -> None:
    """凛音 is リンネ to the dictionary; the family says りおん."""
    jt = engine()
    said = spoken_names(["凛音", "山田"], {"凛音": "りおん"}, {})
    assert said == {"凛音": "リオン", "山田": "山田"}
    turn = Announcement("turn", (("player", "凛音"),))
    plain, with_reading = render(turn, "ja"), render(turn, "ja", said)
    assert jt.reading(plain).startswith("リンネ")
    assert jt.reading(with_reading).startswith("リオン")
    assert jt.wav(plain) != jt.wav(with_reading)


def test_names_in_romaji_are_said_in_kana() -> None:
    assert [romaji(n) for n in ("Ken", "Aki", "Shouta", "Yūki", "Kanna", "Sam")] == [
        "ケン", "アキ", "ショウタ", "ユウキ", "カンナ", None]
    assert check_names(["Ken", "陽菜"], {}, {}) == {"Ken": "ケン", "陽菜": "陽菜"}


@pytest.mark.parametrize(("name", "why"), [("Sam", "spell its Latin letters"),
                                           ("𠮷田", "cannot read '𠮷'"),
                                           ("🦊", "cannot read")])
def test_a_name_the_voice_cannot_say_is_one_line(name: str, why: str) -> None:
    with pytest.raises(UnreadableName) as err:
        check_names(["陽菜", name], {}, {}, where="table.toml: table.readings")
    message = str(err.value)
    assert "\n" not in message and why in message
    assert message.startswith(f"table.toml: table.readings: the name {name!r}")
    assert "allowed: its reading in kana" in message
    check_names(["陽菜", name], {name: "さむ"}, {})  # a reading fixes it


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(PLAIN), min_size=1, max_size=10))
def test_open_jtalk_reads_every_word_of_plain_kana(said: str) -> None:
    """What lets the start skip the dictionary: a name said in plain kana is never one that
    Open JTalk cannot read (the engine itself asked, not the fast way)."""
    assert plain_kana(said)
    assert unreadable(said, has_open_jtalk=True) is None


@pytest.mark.parametrize("said", ["ゎ", "ヶ", "ヷ", "あ き"])
def test_the_kana_open_jtalk_skips_are_not_plain(said: str) -> None:
    assert is_reading(said) and not plain_kana(said)
    assert unreadable(said, has_open_jtalk=True) is not None


def test_names_in_kana_are_checked_without_loading_the_dictionary(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The daemon's start at a table whose names are kana (or romaji, or have readings) does
    not wait for Open JTalk's dictionary: a slow board is ready that much sooner."""
    loads: list[str] = []

    def counted() -> object:
        loads.append("engine")
        return engine()

    monkeypatch.setattr("table.voice.openjtalk.engine", counted)
    said = check_names(["Aki", "Ken", "陽菜"], {"陽菜": "ひな"}, {"Aki": "あき"})
    assert said == {"Aki": "あき", "Ken": "ケン", "陽菜": "ヒナ"} and loads == []
    with pytest.raises(UnreadableName):
        check_names(["Aki", "Sam"], {}, {"Aki": "あき"})
    assert loads  # a name not in plain kana is looked up as before


def write_config(tmp_path: Path, players: list[str], table: str = "") -> Path:
    """A simulated table in Japanese; ``table`` adds lines to its [table] section."""
    if not (tmp_path / "pad").is_symlink():
        (tmp_path / "pad").symlink_to("/dev/null")  # where the play pad's serial port would be
    path = tmp_path / "table.toml"
    text = sim_config(players).replace('language = "en"', f'language = "ja"\n{table}')
    path.write_text(text, encoding="utf-8")
    return path


def uno_table(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "table.commands.cli", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=120,
                          env={**os.environ, **(env or {})}, check=False)


def test_run_and_enroll_refuse_an_unsayable_name_and_a_bad_reading_in_one_line(
    tmp_path: Path,
) -> None:
    config = write_config(tmp_path, ["陽菜", "Sam"])
    out = uno_table("run", "--config", str(config))
    assert out.returncode == 2
    assert out.stderr.count("\n") == 1 and "the name 'Sam' cannot be said" in out.stderr
    enrolled = uno_table("enroll", "--config", str(config), "--out", str(tmp_path / "deck.toml"))
    assert (enrolled.returncode, enrolled.stderr) == (2, out.stderr)
    assert not (tmp_path / "deck.toml").exists()
    config = write_config(tmp_path, ["陽菜", "凛音"], 'readings = { "凛音" = "rion" }')
    out = uno_table("run", "--config", str(config))
    assert out.returncode == 2
    assert out.stderr == (f"uno-table: {config}: table.readings.凛音: 'rion' is not allowed; "
                          "allowed: the name's reading in hiragana or katakana\n")


def test_say_in_japanese_goes_through_open_jtalk_with_the_reading(tmp_path: Path) -> None:
    wav = tmp_path / "say.wav"
    out = uno_table("say", "turn", "player=凛音", "--lang", "ja", "--reading", "凛音=りおん",
                    "--out", str(wav))
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[0] == "凛音さんの番です。"
    assert "openjtalk" in out.stdout
    assert wav.read_bytes() == tidy(engine().wav("リオンさんの番です。"))


def test_the_kana_readings_match_the_catalogue() -> None:
    """ja_readings.toml is what Open JTalk makes of today's catalogue (python -m
    table.voice.kana writes it again after a change of the Japanese phrases)."""
    assert generate(catalogue_pieces()) == dict(sorted(readings().items()))
    # Names become a reading first; the token stays, since its katakana word (ドロー) is also a
    # word of other phrases.
    said = {v: "やまだ" for k, v in NAMES.items() if k != "token"}
    leftovers = {key: to_kana(sample(key), said)
                 for key in CATALOGUE}
    assert {k: v for k, v in leftovers.items() if has_kanji(v)} == {}


GUARD = textwrap.dedent("""\
    import socket, sys
    attempts = []
    def refuse(self, address, *args, **kwargs):
        attempts.append(address)
        raise OSError("network unreachable (test guard)")
    socket.socket.connect = refuse
    socket.socket.connect_ex = refuse
    socket.create_connection = lambda address, *a, **k: refuse(None, address)
    import atexit
    atexit.register(lambda: print(f"connection attempts: {len(attempts)}", file=sys.stderr))
    """)


def guarded(code: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """``code`` in a new process with the socket guard, and no dictionary to be found."""
    env = {**os.environ, "OPEN_JTALK_DICT_DIR": str(tmp_path / "no-dictionary"),
           "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-c", GUARD + textwrap.dedent(code)], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120, env=env, check=False)


def test_the_guard_catches_what_pyopenjtalk_would_download(tmp_path: Path) -> None:
    """The control: pyopenjtalk's own helper, with no dictionary, tries the network."""
    out = guarded("""
        import pyopenjtalk
        try:
            pyopenjtalk.g2p("テスト")
        except Exception as exc:
            print(type(exc).__name__)
        """, tmp_path)
    assert "connection attempts: 1" in out.stderr or "connection attempts: 2" in out.stderr


def test_without_the_dictionary_espeak_ng_speaks_japanese_after_one_warning(
    tmp_path: Path,
) -> None:
    out = guarded("""
        import logging
        from pathlib import Path
        from table.referee.announcements import Announcement
        from table.voice.announcer import Announcer
        from table.voice.backends import WavBackend
        logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(message)s")
        backend = WavBackend(Path("out"))
        ann = Announcer(lambda: backend, lang="ja", spoken_names={"陽菜": "ひな"})
        for key in ("turn", "uno", "turn"):
            ann.announce(Announcement(key, (("player", "陽菜"),), 2))
            assert ann.idle(60)
        ann.close()
        print(sorted(p.name for p in Path("out").iterdir()))
        """, tmp_path)
    assert out.returncode == 0, out.stderr
    assert "['0001.wav', '0002.wav', '0003.wav']" in out.stdout
    warnings = [line for line in out.stderr.splitlines() if line.startswith("WARNING")]
    assert len(warnings) == 1
    assert "open-jtalk-mecab-naist-jdic" in warnings[0] and "espeak-ng" in warnings[0]
    assert "connection attempts: 0" in out.stderr
    seconds, rms = seconds_and_loudness((tmp_path / "out" / "0001.wav").read_bytes())
    assert seconds > 0.5 and rms > 300


def test_voices_and_doctor_say_what_to_install(tmp_path: Path) -> None:
    env = {"OPEN_JTALK_DICT_DIR": str(tmp_path / "no-dictionary")}
    out = uno_table("voices", env=env)
    assert out.returncode == 0, out.stderr
    line = next(x for x in out.stdout.splitlines() if x.startswith("Japanese voice"))
    assert "open-jtalk-mecab-naist-jdic" in line and "espeak-ng" in line
    out = uno_table("voices")
    assert "Japanese voice: Open JTalk (mei_normal)" in out.stdout
    config = write_config(tmp_path, ["陽菜", "山田"])
    out = uno_table("doctor", "--config", str(config), env=env)
    assert "open-jtalk-mecab-naist-jdic" in out.stdout
    assert "the name '陽菜' cannot be said" in out.stdout


def test_voices_sample_writes_one_file_per_voice_and_language(tmp_path: Path) -> None:
    out = uno_table("voices", "--sample", str(tmp_path / "samples"))
    assert out.returncode == 0, out.stderr
    files = {p.stem: p for p in (tmp_path / "samples").glob("*.wav")}
    assert {"ja-openjtalk", "ja-espeak-ng", "en-pyttsx3", "en-espeak-ng-en", "en-espeak-ng-en-us",
            "ja-musician-round", "en-official-round"} <= set(files)
    for stem, path in files.items():
        seconds, rms = seconds_and_loudness(path.read_bytes())
        assert seconds > 3 and rms > 300, stem
        assert f"sample {stem}: {path}" in out.stdout
    # the same four phrases in each language's files
    assert abs(seconds_and_loudness(files["ja-openjtalk"].read_bytes())[0]
               - seconds_and_loudness(files["ja-espeak-ng"].read_bytes())[0]) < 8
    out = uno_table("voices", "--sample", str(tmp_path / "samples" / "ja-openjtalk.wav"))
    assert out.returncode == 2 and out.stderr.count("\n") == 1


def test_doctor_shows_each_name_s_reading_and_the_line_that_fixes_a_likely_wrong_one(
        tmp_path: Path) -> None:
    config = write_config(tmp_path, ["陽葵", "山田", "Yuta"], 'readings = { "山田" = "やまだ" }')
    out = uno_table("doctor", "--config", str(config))
    assert "name 山田: said ヤマダ\n" in out.stdout
    assert "name 陽葵: said ハルキ -- check it: most families say ひまり" in out.stdout
    assert '-> if that is wrong, add under [table] readings: "陽葵" = "ひまり"' in out.stdout
    assert 'Yuta = "ゆうた"' in out.stdout
