"""The wav backend through the announcer, with the phrase cache, on real espeak-ng output."""

from __future__ import annotations

from pathlib import Path

from table.announce import Announcement
from table.voice.announcer import Announcer
from table.voice.backends import PhraseCache, WavBackend
from table.voice.espeak import wav_seconds


def test_announcements_become_wav_files_and_repeats_come_from_the_cache(tmp_path: Path) -> None:
    cache = PhraseCache()
    backend = WavBackend(tmp_path / "out", cache)
    ann = Announcer(lambda: backend, lang="ja", pronounce={"Aki": "あき"})
    for _ in range(3):
        ann.announce(Announcement("uno", (("player", "Aki"),), 2))
        assert ann.idle(20)
    ann.close()
    files = sorted((tmp_path / "out").glob("*.wav"))
    assert [f.name for f in files] == ["0001.wav", "0002.wav", "0003.wav"]
    assert all(wav_seconds(f) > 0.3 for f in files)
    assert files[0].read_bytes() == files[2].read_bytes()
    assert (cache.misses, cache.hits) == (1, 2)
    assert ann.spoken == ["あき、ウノ!"] * 3


def test_prewarm_renders_only_what_is_new() -> None:
    cache = PhraseCache()
    assert cache.prewarm(["Aki's turn.", "Ken's turn.", "Aki's turn."], "en") == 2
    assert cache.prewarm(["Aki's turn."], "en") == 0
