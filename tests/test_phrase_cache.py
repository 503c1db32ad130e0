"""The phrase cache: on disk across restarts (keyed by voice, language and text), rendering
ahead in the background, and giving way to the speaker."""

from __future__ import annotations

import logging
import threading
from pathlib import Path

import pytest

from table.referee.announcements import URGENT, Announcement
from table.voice.announcer import Announcer
from table.voice.backends import DiskCache, PhraseCache, Voice, standard_voice

PHRASES = ["陽菜さんの番です。", "山田さん、ウノ!", "色は青です。"]


class Counting:
    """A voice that counts its renders; a render of a text in ``gates`` waits for its gate."""

    def __init__(self, name: str = "counting") -> None:
        self.name = name
        self.lock = threading.Lock()  # one render at a time, as Open JTalk's engine
        self.asked: dict[str, threading.Event] = {}
        self.rendered: list[str] = []
        self.gates: dict[str, threading.Event] = {}
        self.started: dict[str, threading.Event] = {}

    def render(self, text: str) -> bytes:
        self.asked.setdefault(text, threading.Event()).set()
        with self.lock:
            if text in self.gates:
                self.started[text].set()
                assert self.gates[text].wait(30)
            self.rendered.append(text)
        return b"RIFF" + text.encode() * 20

    def gate(self, text: str) -> threading.Event:
        self.gates[text] = threading.Event()
        self.started[text] = threading.Event()
        return self.gates[text]

    def voice(self, lang: str) -> Voice:
        return Voice(self.name, self.render)


def test_a_restart_renders_nothing_again(tmp_path: Path) -> None:
    """The real Open JTalk voice: the second process's cache finds every phrase on disk."""
    first = PhraseCache(voices=standard_voice, disk=DiskCache(tmp_path / "phrases"))
    assert first.prewarm(PHRASES, "ja") == 3
    wavs = [first.audio(text, "ja") for text in PHRASES]
    again = PhraseCache(voices=standard_voice, disk=DiskCache(tmp_path / "phrases"))
    assert again.prewarm(PHRASES, "ja") == 0
    assert again.disk_hits == 3
    assert [again.audio(text, "ja") for text in PHRASES] == wavs
    assert len(list((tmp_path / "phrases").glob("*.wav"))) == 3


def test_the_disk_cache_is_keyed_by_voice_and_language(tmp_path: Path) -> None:
    one, other = Counting("voice-one"), Counting("voice-two")
    PhraseCache(voices=one.voice, disk=DiskCache(tmp_path)).audio("ケン", "ja")
    PhraseCache(voices=other.voice, disk=DiskCache(tmp_path)).audio("ケン", "ja")
    PhraseCache(voices=other.voice, disk=DiskCache(tmp_path)).audio("ケン", "en")
    PhraseCache(voices=other.voice, disk=DiskCache(tmp_path)).audio("ケン", "en")
    assert (one.rendered, other.rendered) == (["ケン"], ["ケン", "ケン"])


def test_a_cache_folder_it_cannot_write_is_one_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    (tmp_path / "file").write_text("in the way")
    voice = Counting()
    cache = PhraseCache(voices=voice.voice, disk=DiskCache(tmp_path / "file" / "phrases"))
    with caplog.at_level(logging.WARNING):
        for text in PHRASES * 2:
            assert cache.audio(text, "ja").startswith(b"RIFF")
    assert voice.rendered == PHRASES  # each once: kept in memory
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and "kept in memory only" in warnings[0].getMessage()


def test_trim_removes_the_oldest_phrases_beyond_the_limit(tmp_path: Path) -> None:
    import os

    disk = DiskCache(tmp_path, limit=250)
    for i, text in enumerate(PHRASES):
        disk.put(("v", "ja", text), b"RIFF" + b"x" * 96)
        os.utime(disk.path(("v", "ja", text)), (1000 + i, 1000 + i))
    assert disk.trim() == 1
    assert disk.get(("v", "ja", PHRASES[0])) is None
    assert disk.get(("v", "ja", PHRASES[2])) is not None


def test_the_next_phrase_renders_while_the_previous_one_plays() -> None:
    voice = Counting()
    cache = PhraseCache(voices=voice.voice)
    playing = threading.Event()
    release = threading.Event()

    class Playing:
        def __init__(self) -> None:
            self.cache = cache

        def speak(self, text: str, lang: str) -> None:
            self.cache.audio(text, lang)
            if text.startswith("ケン"):
                playing.set()
                assert release.wait(30)  # the first phrase is still being said

    ann = Announcer(Playing, lang="ja", timeout=60)
    ann.announce(Announcement("uno", (("player", "ケン"),), URGENT))
    assert playing.wait(30)
    hits = cache.hits
    ann.announce(Announcement("turn", (("player", "ミオ"),)))
    assert cache.settled(30)
    assert "ミオさんの番です。" in voice.rendered  # rendered while ケン's phrase plays
    release.set()
    assert ann.idle(30)
    ann.close()
    assert cache.hits == hits + 1  # the speaker found it ready


def test_prewarming_gives_way_to_a_phrase_the_speaker_needs() -> None:
    voice = Counting()
    cache = PhraseCache(voices=voice.voice)
    first = voice.gate(PHRASES[0])
    texts = [*PHRASES, *(f"{n}点です。" for n in range(20))]
    assert cache.prewarm_in_background(texts, "ja")
    assert voice.started[PHRASES[0]].wait(30)  # the background thread is busy with the first
    voice.asked["チン!"] = threading.Event()
    needed = threading.Thread(target=cache.audio, args=("チン!", "ja"))
    needed.start()
    assert voice.asked["チン!"].wait(30)  # the speaker waits for the engine
    first.set()
    needed.join(30)
    assert cache.settled(30)
    assert voice.rendered.index("チン!") == 1  # next, before the rest of what prewarm queued
    assert sorted(voice.rendered) == sorted(["チン!", *texts])


def test_a_phrase_is_rendered_once_when_asked_for_twice_at_once() -> None:
    voice = Counting()
    cache = PhraseCache(voices=voice.voice)
    gate = voice.gate("ケンさん、ウノ!")
    threads = [threading.Thread(target=cache.audio, args=("ケンさん、ウノ!", "ja"))
               for _ in range(3)]
    for t in threads:
        t.start()
    assert voice.started["ケンさん、ウノ!"].wait(30)
    gate.set()
    for t in threads:
        t.join(30)
    assert voice.rendered == ["ケンさん、ウノ!"]


def test_under_the_service_the_phrases_go_to_its_cache_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from table.voice.backends import default_cache_folder

    assert default_cache_folder() == tmp_path / "xdg-cache" / "uno-table" / "phrases"
    monkeypatch.setenv("CACHE_DIRECTORY", "/var/cache/uno-table")  # systemd's CacheDirectory=
    assert default_cache_folder() == Path("/var/cache/uno-table/phrases")


def test_a_musician_table_prewarms_its_stacks_chins_and_dons() -> None:
    from table.voice.prewarm import prewarm_texts

    plain = prewarm_texts(["山田", "陽菜"], "ja")
    musician = prewarm_texts(["山田", "陽菜"], "ja", stacking=True, musician=True)
    assert "山田さんの番です。" in plain and set(plain) < set(musician)
    assert {"ドン!陽菜さんが山田さんのカードで上がり!", "チン!山田さんの上がり!",
            "陽菜さん、4枚引くか、重ねてください。"} <= set(musician) - set(plain)


def test_memory_keeps_the_newest_phrases_within_its_limit(tmp_path: Path) -> None:
    voice = Counting()
    cache = PhraseCache(voices=voice.voice, disk=DiskCache(tmp_path), memory=300)
    for text in PHRASES:  # each over the limit alone: memory keeps only the newest
        cache.audio(text, "ja")
    assert cache.audio(PHRASES[-1], "ja") and cache.hits == 1  # the newest, from memory
    cache.audio(PHRASES[0], "ja")  # the oldest left memory: read back from disk
    assert cache.disk_hits == 1 and voice.rendered == PHRASES
