"""The wav backend through the announcer, with the phrase cache, on real espeak-ng output."""

from __future__ import annotations

from pathlib import Path

from table.referee.announcements import Announcement
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
    assert list(ann.spoken) == ["あき、ウノ!"] * 3


def test_prewarm_renders_only_what_is_new() -> None:
    cache = PhraseCache()
    assert cache.prewarm(["Aki's turn.", "Ken's turn.", "Aki's turn."], "en") == 2
    assert cache.prewarm(["Aki's turn."], "en") == 0


def test_pyttsx3_renders_each_utterance_in_its_own_thread() -> None:
    """The default backend, as the announcer uses it: made and used in the speaker thread, one
    utterance per runAndWait, several utterances in a row (pyttsx3 2.99 only renders the last
    one queued before a runAndWait, so queuing more than one would lose speech)."""
    import threading

    from table.voice.backends import Pyttsx3Backend

    results: list[bytes] = []

    def work() -> None:
        backend = Pyttsx3Backend(play=False)
        for text, lang in (("Aki's turn.", "en"), ("あきの ばん。", "ja"), ("Ken's turn.", "en")):
            results.append(backend.render(text, lang))

    t = threading.Thread(target=work)
    t.start()
    t.join(60)
    assert len(results) == 3
    assert all(len(r) > 22050 for r in results)  # more than half a second of 16-bit audio
    assert results[0] != results[2]
