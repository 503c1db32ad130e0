"""Speech backends behind :class:`table.voice.announcer.Backend`, chosen by name
(``[voice] backend``): ``espeak-ng``, ``wav``, ``captions``.

Audio is rendered to WAV bytes by espeak-ng, through a :class:`PhraseCache`: an announcement
said once (or pre-rendered at start-up) is ready at once the next time.
"""

from __future__ import annotations

import logging
import shutil
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Final

from table.voice.espeak import TIMEOUT_S, SpeechError, render_wav

BACKENDS = ("pyttsx3", "espeak-ng", "wav", "captions")

log = logging.getLogger(__name__)


class PhraseCache:
    """WAV bytes by (language, text). Thread-safe; rendering happens outside the lock."""

    def __init__(
        self, enabled: bool = True, render: Callable[[str, str], bytes] | None = None
    ) -> None:
        self.enabled = enabled
        self._render = render or espeak_wav_bytes
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
        data = self._render(text, lang)
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


def espeak_wav_bytes(text: str, lang: str) -> bytes:
    """WAV bytes from the espeak-ng command."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "phrase.wav"
        render_wav(text, lang, path)
        return path.read_bytes()


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
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:  # a file in the way, no permission: the daemon says captions
            raise SpeechError(f"cannot make the folder {folder}: {exc.strerror}") from None

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


class Pyttsx3Backend:
    """pyttsx3 on espeak-ng, used the way its Linux bugs allow: the engine is made in the
    speaker thread that uses it; only ``save_to_file`` is used (``say`` shells out to aplay and,
    after a ``save_to_file``, keeps writing to that file); one utterance per ``runAndWait``;
    the audio is played by our own player, or only rendered when the machine has none.

    ``runAndWait`` does not wait for the audio: espeak-ng renders in a thread of its own, and
    a new engine's loop gives up after one 10 ms pass, file written or not (a slow CPU, or the
    first utterance loading its voice, loses that race); and a stop left pending by one
    ``runAndWait`` cancels the next utterance, reported finished but never written. So a render
    waits for the engine to report the utterance finished, then for espeak-ng to be idle (its
    thread has written the file and left pyttsx3's callback), and renders again an utterance
    that was lost."""

    VOICE_IDS: Final = {"en": "gmw/en", "ja": "jpx/ja"}
    TRIES: Final = 3

    def __init__(self, play: bool = True) -> None:
        try:
            import pyttsx3
        except ImportError:
            raise SpeechError("pyttsx3 is not installed (pip install pyttsx3)") from None
        try:
            self.engine = pyttsx3.init("espeak")
        except Exception as exc:  # pyttsx3 raises bare errors when libespeak-ng is missing
            raise SpeechError(f"pyttsx3 could not start espeak-ng: {exc}") from None
        self.player = audio_player() if play else None
        self.rendered = 0
        self.lost = 0  # utterances pyttsx3 reported finished without writing them
        self.cache = PhraseCache(render=self.render)
        self._finished = threading.Event()
        self.engine.connect("finished-utterance", lambda **_: self._finished.set())

    def render(self, text: str, lang: str) -> bytes:
        for _ in range(self.TRIES):
            data = self._render_once(text, self.VOICE_IDS.get(lang, "gmw/en"))
            if data is not None:
                self.rendered += 1
                return data
            self.lost += 1
            log.warning("pyttsx3 lost the utterance %r; rendering it again", text)
        raise SpeechError(f"pyttsx3 did not render {text!r} in {self.TRIES} tries")

    def _render_once(self, text: str, voice: str) -> bytes | None:
        """The utterance's WAV bytes, or None when pyttsx3 lost it."""
        import contextlib
        import io

        self.engine.setProperty("voice", voice)
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "utterance.wav"
            self._finished.clear()
            with contextlib.redirect_stdout(io.StringIO()):  # it prints "Audio saved to ..."
                self.engine.save_to_file(text, str(path))
                self.engine.runAndWait()
                self._finished.wait(TIMEOUT_S)
                _wait_espeak_idle(TIMEOUT_S)
            return path.read_bytes() if path.exists() else None

    def speak(self, text: str, lang: str) -> None:
        data = self.cache.audio(text, lang)
        if self.player is not None:
            subprocess.run(self.player, input=data, check=True, capture_output=True, timeout=60)


def _wait_espeak_idle(timeout: float) -> None:
    """Until espeak-ng, under pyttsx3, has no utterance in hand (or ``timeout`` seconds)."""
    from pyttsx3.drivers import _espeak

    deadline = time.monotonic() + timeout
    while _espeak.IsPlaying() and time.monotonic() < deadline:
        time.sleep(0.002)


def make_backend(name: str, folder: Path | None = None) -> object:
    """A backend by its config name. Raises :class:`SpeechError` when it cannot work here."""
    if name == "pyttsx3":
        return Pyttsx3Backend()
    if name == "espeak-ng":
        return EspeakBackend()
    if name == "wav":
        return WavBackend(folder or Path("announcements"))
    if name == "captions":
        return CaptionsBackend()
    raise SpeechError(f"unknown voice backend {name!r}: use {', '.join(BACKENDS)}")
