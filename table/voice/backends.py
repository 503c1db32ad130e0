"""Speech backends behind :class:`table.voice.announcer.Backend`, chosen by name
(``[voice] backend``): ``espeak-ng``, ``wav``, ``captions``.

Audio is rendered to WAV bytes by espeak-ng, through a :class:`PhraseCache`: an announcement
said once (or pre-rendered at start-up) is ready at once the next time.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import threading
from collections.abc import Iterable
from pathlib import Path

from table.voice.espeak import SpeechError, render_wav

BACKENDS = ("espeak-ng", "wav", "captions")


class PhraseCache:
    """WAV bytes by (language, text). Thread-safe; rendering happens outside the lock."""

    def __init__(self, enabled: bool = True) -> None:
        self.enabled = enabled
        self._wavs: dict[tuple[str, str], bytes] = {}
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def audio(self, text: str, lang: str) -> bytes:
        key = (lang, text)
        if self.enabled:
            with self._lock:
                found = self._wavs.get(key)
            if found is not None:
                self.hits += 1
                return found
        self.misses += 1
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "phrase.wav"
            render_wav(text, lang, path)
            data = path.read_bytes()
        if self.enabled:
            with self._lock:
                self._wavs[key] = data
        return data

    def prewarm(self, texts: Iterable[str], lang: str) -> int:
        """Render ``texts`` ahead of time; returns how many were new."""
        before = self.misses
        for text in texts:
            self.audio(text, lang)
        return self.misses - before


def audio_player() -> list[str] | None:
    """A command that plays a WAV file from standard input, if this machine has one."""
    for cmd in (["aplay", "-q", "-"], ["paplay"], ["pw-play", "-"]):
        if shutil.which(cmd[0]):
            return cmd
    return None


class CaptionsBackend:
    """No sound: the announcer's captions are the output."""

    def speak(self, text: str, lang: str) -> None:
        return None


class WavBackend:
    """Each announcement written to ``folder`` as ``0001.wav``, ``0002.wav``..."""

    def __init__(self, folder: Path, cache: PhraseCache | None = None) -> None:
        self.folder = folder
        self.cache = cache or PhraseCache()
        self.count = 0
        folder.mkdir(parents=True, exist_ok=True)

    def speak(self, text: str, lang: str) -> None:
        self.count += 1
        (self.folder / f"{self.count:04d}.wav").write_bytes(self.cache.audio(text, lang))


class EspeakBackend:
    """espeak-ng audio played through the first player found (aplay, paplay, pw-play)."""

    def __init__(self, cache: PhraseCache | None = None) -> None:
        self.cache = cache or PhraseCache()
        self.player = audio_player()
        if self.player is None:
            raise SpeechError("no audio output found (aplay, paplay or pw-play)")

    def speak(self, text: str, lang: str) -> None:
        assert self.player is not None
        data = self.cache.audio(text, lang)
        subprocess.run(self.player, input=data, check=True, capture_output=True, timeout=60)
