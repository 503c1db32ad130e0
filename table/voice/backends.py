"""Speech backends behind :class:`table.voice.announcer.Backend`, chosen by name
(``[voice] backend``): ``pyttsx3``, ``espeak-ng``, ``wav``, ``captions``.

Every backend renders audio through a :class:`PhraseCache`, which picks a :class:`Voice` per
language: Japanese goes to Open JTalk when it is installed (:mod:`table.voice.openjtalk`),
everything else, and Japanese on a machine without it, to espeak-ng. The cache keeps what it
rendered in memory and, with a :class:`DiskCache`, on disk keyed by voice, language and text,
so that a restart does not render again. Phrases known in advance are rendered in a background
thread (:meth:`PhraseCache.prewarm_in_background`), and so is each announcement as soon as it is
queued (:meth:`PhraseCache.ahead`): the next phrase renders while the previous one plays.
"""

from __future__ import annotations

import hashlib
import logging
import os
import shutil
import subprocess
import tempfile
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Final, cast

from table.files.durable import replace_durably
from table.referee.announcements import speech
from table.voice.audio import tidy
from table.voice.errors import SpeechError
from table.voice.espeak import TIMEOUT_S, VOICES, render_wav

BACKENDS = ("pyttsx3", "espeak-ng", "wav", "captions")
DISK_LIMIT: Final = 256 * 1024 * 1024  # bytes of WAV files the disk cache keeps at most
MEMORY_LIMIT: Final = 64 * 1024 * 1024  # bytes of WAV kept in memory (the oldest go first)

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Voice:
    """One engine and voice for one language."""

    name: str  # engine, voice and version: part of the disk cache's key
    render: Callable[[str], bytes]  # text -> WAV bytes
    anywhere: bool = True  # may render in any thread (pyttsx3: only in the speaker thread)


@cache
def espeak_version() -> str:
    """espeak-ng's version (part of the phrase cache's key), or ``?``."""
    try:
        done = subprocess.run(["espeak-ng", "--version"], capture_output=True, text=True,
                              timeout=TIMEOUT_S, check=False)
    except (OSError, subprocess.SubprocessError):
        return "?"
    words = done.stdout.split()
    return words[3] if len(words) > 3 else "?"


SAID: Final = "+said2"  # in each standard voice's name: audio from before tidying is not reused


def spoken_text(text: str, lang: str) -> str:
    """A caption as the voice is given it: Japanese words Open JTalk misreads spelt as said
    (:func:`~table.referee.announcements.speech`) and ids in Latin letters as kana."""
    if lang != "ja":
        return text
    from table.voice.romaji import latin_in_kana

    return latin_in_kana(speech(text, lang))


def said_by(render: Callable[[str], bytes], lang: str) -> Callable[[str], bytes]:
    """``render`` given the spoken text of a caption, its audio tidied (:mod:`.audio`)."""
    return lambda text: tidy(render(spoken_text(text, lang)))


def espeak_voice(lang: str) -> Voice:
    """espeak-ng's voice for ``lang``."""
    return Voice(f"espeak-ng-{espeak_version()}:{VOICES.get(lang, lang)}{SAID}",
                 said_by(lambda text: espeak_wav_bytes(text, lang), lang))


def japanese_voice() -> Voice | None:
    """Open JTalk, or None when it cannot work here (said once in the log)."""
    from table.voice.openjtalk import japanese_renderer

    found = japanese_renderer()
    return None if found is None else Voice(found[0] + SAID, said_by(found[1], "ja"))


def standard_voice(lang: str) -> Voice:
    """Open JTalk for Japanese where it works, espeak-ng otherwise."""
    if lang == "ja":
        voice = japanese_voice()
        if voice is not None:
            return voice
    return espeak_voice(lang)


def default_cache_folder() -> Path:
    """Where rendered phrases are kept between runs: systemd's CacheDirectory under the service,
    else the user's cache folder."""
    if os.environ.get("CACHE_DIRECTORY"):
        return Path(os.environ["CACHE_DIRECTORY"].split(":")[0]) / "phrases"
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "uno-table" / "phrases"


class DiskCache:
    """WAV files by (voice, language, text) in one folder. A folder it cannot use is said once
    in the log and the phrases stay in memory only; it never stops the voice."""

    def __init__(self, folder: Path, limit: int = DISK_LIMIT) -> None:
        self.folder = folder
        self.limit = limit
        self.broken = False

    def path(self, key: tuple[str, str, str]) -> Path:
        """The file that holds the phrase of ``key``."""
        digest = hashlib.sha256("\0".join(key).encode()).hexdigest()[:40]
        return self.folder / f"{digest}.wav"

    def get(self, key: tuple[str, str, str]) -> bytes | None:
        """The WAV bytes kept for ``key``, or None."""
        try:
            data = self.path(key).read_bytes()
        except OSError:
            return None
        return data if data.startswith(b"RIFF") and len(data) > 44 else None

    def put(self, key: tuple[str, str, str], data: bytes) -> None:
        """Keep ``data`` for ``key`` (a folder it cannot write in is said once)."""
        if self.broken:
            return
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=self.folder, suffix=".part")
            with os.fdopen(fd, "wb") as f:
                f.write(data)
                f.flush()
                os.fsync(f.fileno())  # the bytes before the name: a cut never keeps half
            replace_durably(Path(tmp), self.path(key))
        except OSError as exc:
            self.broken = True
            log.warning("phrase cache: cannot write in %s (%s): phrases are kept in memory only",
                        self.folder, exc.strerror)

    def files(self) -> list[Path]:
        """The WAV files kept."""
        try:
            return list(self.folder.glob("*.wav"))
        except OSError:
            return []

    def size(self) -> int:
        """Bytes kept on disk."""
        return sum(p.stat().st_size for p in self.files())

    def trim(self) -> int:
        """Remove the least recently written files beyond the limit; how many went."""
        files = sorted(self.files(), key=lambda p: p.stat().st_mtime)
        total = sum(p.stat().st_size for p in files)
        removed = 0
        while files and total > self.limit:
            oldest = files.pop(0)
            total -= oldest.stat().st_size
            oldest.unlink(missing_ok=True)
            removed += 1
        return removed


Key = tuple[str, str, str]


class PhraseCache:
    """WAV bytes by (voice, language, text). Thread-safe: a phrase being rendered is waited for,
    not rendered twice; rendering happens outside the lock. With ``enabled`` false every phrase
    is rendered each time (and neither kept nor read from disk)."""

    def __init__(
        self,
        enabled: bool = True,
        render: Callable[[str, str], bytes] | None = None,
        voices: Callable[[str], Voice] | None = None,
        disk: DiskCache | None = None,
        memory: int = MEMORY_LIMIT,
    ) -> None:
        self.enabled = enabled
        self.memory = memory
        self._bytes = 0
        if render is not None:
            self.voice: Callable[[str], Voice] = lambda lang: Voice(
                "custom", lambda text: render(text, lang))
        else:
            self.voice = cache(voices or standard_voice)
        self.disk = disk
        self._wavs: dict[Key, bytes] = {}
        self._rendering: set[Key] = set()
        self._cond = threading.Condition()
        self._urgent = 0  # renders a speaker is waiting for: the background thread gives way
        self._ahead: deque[tuple[str, str]] = deque()
        self._working = False
        self._thread: threading.Thread | None = None
        self.hits = 0
        self.disk_hits = 0
        self.misses = 0

    def audio(self, text: str, lang: str, urgent: bool = True) -> bytes:
        """``text`` in ``lang`` as WAV bytes: kept, read from disk, or rendered now."""
        voice = self.voice(lang)
        if not self.enabled:
            self.misses += 1
            return voice.render(text)
        key = (voice.name, lang, text)
        with self._cond:
            self._cond.wait_for(lambda: key not in self._rendering)
            found = self._wavs.get(key)
            if found is not None:
                self.hits += urgent  # counted for the speaker: it waited on no render of its own
                return found
            self._rendering.add(key)
            self._urgent += urgent
        data = None
        try:
            data = self.disk.get(key) if self.disk is not None else None
            if data is not None:
                self.disk_hits += 1
            else:
                self.misses += 1
                data = voice.render(text)
                if self.disk is not None:
                    self.disk.put(key, data)
            return data
        finally:
            with self._cond:
                self._rendering.discard(key)
                self._urgent -= urgent
                if data is not None and key not in self._wavs:
                    self._keep(key, data)
                self._cond.notify_all()

    def _keep(self, key: Key, data: bytes) -> None:
        """Keep ``data`` in memory, dropping the oldest phrases beyond the limit (the disk
        cache still has them). Called under the lock."""
        self._wavs[key] = data
        self._bytes += len(data)
        while self._bytes > self.memory and len(self._wavs) > 1:
            oldest = next(iter(self._wavs))
            self._bytes -= len(self._wavs.pop(oldest))

    def prewarm(self, texts: Iterable[str], lang: str) -> int:
        """Render ``texts`` now; returns how many were not in memory or on disk."""
        before = self.misses
        for text in texts:
            self.audio(text, lang, urgent=False)
        return self.misses - before

    # --- rendering ahead, in a background thread -------------------------------------------

    def ahead(self, text: str, lang: str) -> None:
        """Render ``text`` soon, in the background, before anything prewarm queued. Does
        nothing for a voice that renders only in the speaker thread (pyttsx3)."""
        self._queue([text], lang, first=True)

    def prewarm_in_background(self, texts: Iterable[str], lang: str) -> bool:
        """Queue ``texts`` for the background thread; False (nothing queued) when the voice
        renders only in the speaker thread, for which :meth:`prewarm` is the way."""
        return self._queue(list(texts), lang, first=False)

    def _queue(self, texts: list[str], lang: str, first: bool) -> bool:
        if not self.enabled or not self.voice(lang).anywhere:
            return False
        with self._cond:
            if first:
                self._ahead.extendleft((t, lang) for t in reversed(texts))
            else:
                self._ahead.extend((t, lang) for t in texts)
            if self._thread is None:
                self._thread = threading.Thread(target=self._work, name="phrase-renderer",
                                                daemon=True)
                self._thread.start()
            self._cond.notify_all()
        return True

    def settled(self, timeout: float | None = None) -> bool:
        """Wait until the background thread has nothing left to render."""
        with self._cond:
            return self._cond.wait_for(lambda: not self._ahead and not self._working, timeout)

    def _work(self) -> None:
        while True:
            with self._cond:
                self._cond.wait_for(lambda: self._ahead and not self._urgent)
                text, lang = self._ahead.popleft()
                self._working = True
            try:
                self.audio(text, lang, urgent=False)
            except Exception:  # said by the speaker when the phrase is needed
                log.warning("phrase cache: could not render %r ahead", text, exc_info=True)
            finally:
                with self._cond:
                    self._working = False
                    self._cond.notify_all()


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


def play(player: list[str], data: bytes) -> None:
    """``data`` (a WAV file) played by ``player``; its failure (no sound card, a device another
    program holds, a sandbox that refuses it) a SpeechError of one line with the player's own
    last words."""
    try:
        subprocess.run(player, input=data, check=True, capture_output=True, timeout=60)
    except subprocess.CalledProcessError as exc:
        said = (exc.stderr or b"").decode("utf-8", "replace").strip().splitlines()
        raise SpeechError(f"{player[0]} could not play (exit {exc.returncode}): "
                          f"{said[-1] if said else 'it said nothing'}") from None
    except (subprocess.TimeoutExpired, OSError) as exc:  # stuck, or gone since it was found
        raise SpeechError(f"{player[0]} could not play: {exc}") from None


class CaptionsBackend:
    """No sound: the announcer's captions are the output."""

    def speak(self, text: str, lang: str) -> None:
        """Say nothing: the captions are the voice."""
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
        """Write ``text`` as the next numbered WAV file."""
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
        """Play ``text`` through the audio output."""
        assert self.player is not None
        play(self.player, self.cache.audio(text, lang))


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
    that was lost.

    espeak-ng's speed is one setting for the whole process, and while espeak-ng is busy a new
    speed is only a command in its queue, which a cancel drops: each new engine queues pyttsx3's
    200 words a minute, and the stop at each ``runAndWait`` cancels when espeak-ng is busy. A
    speed set once could so be lost, and every phrase after it said too fast. So each render
    first lets espeak-ng finish what it has in hand, then sets the speed and reads it back."""

    VOICE_IDS: Final = {"en": "gmw/en-US+klatt4", "ja": "jpx/ja"}  # as the espeak-ng backend's
    RATE: Final = 175  # words a minute: espeak-ng's own default (pyttsx3 would say 200)
    TRIES: Final = 3

    def __init__(self, play: bool = True, disk: DiskCache | None = None) -> None:
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
        self.cache = PhraseCache(voices=self._voice, disk=disk)
        self._finished = threading.Event()
        self.engine.connect("finished-utterance", lambda **_: self._finished.set())

    def _voice(self, lang: str) -> Voice:
        if lang == "ja":
            voice = japanese_voice()
            if voice is not None:
                return voice
        voice_id = self.VOICE_IDS.get(lang, self.VOICE_IDS["en"])
        name = f"pyttsx3-{espeak_version()}:{voice_id}@{self.RATE}{SAID}"
        return Voice(name, said_by(lambda text: self.render(text, lang), lang), anywhere=False)

    def render(self, text: str, lang: str) -> bytes:
        """``text`` in ``lang`` as WAV bytes, rendered by pyttsx3 (tried again if lost)."""
        if lang == "ja":
            from table.voice.kana import to_kana

            text = to_kana(text)  # espeak-ng reads no kanji
        for _ in range(self.TRIES):
            data = self._render_once(text, self.VOICE_IDS.get(lang, self.VOICE_IDS["en"]))
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

        _wait_espeak_idle(TIMEOUT_S)
        _hold_espeak_rate(self.RATE, TIMEOUT_S)
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
        """Play ``text`` through the audio output."""
        data = self.cache.audio(text, lang)
        if self.player is not None:
            play(self.player, data)


def _wait_espeak_idle(timeout: float) -> None:
    """Until espeak-ng, under pyttsx3, has no utterance in hand (or ``timeout`` seconds)."""
    from pyttsx3.drivers import _espeak

    deadline = time.monotonic() + timeout
    while _espeak.IsPlaying() and time.monotonic() < deadline:
        time.sleep(0.002)


def _hold_espeak_rate(rate: int, timeout: float) -> None:
    """espeak-ng's speed, under pyttsx3, set to ``rate`` words a minute and read back as the
    one in force (set again while a cancel dropped it, for at most ``timeout`` seconds)."""
    from pyttsx3.drivers import _espeak

    current = _espeak_current()
    deadline = time.monotonic() + timeout
    while current(_espeak.RATE, 1) != rate and time.monotonic() < deadline:
        _espeak.SetParameter(_espeak.RATE, rate, 0)
        settled = min(deadline, time.monotonic() + 0.5)
        while current(_espeak.RATE, 1) != rate and time.monotonic() < settled:
            time.sleep(0.002)
    if current(_espeak.RATE, 1) != rate:
        log.warning("espeak-ng kept its speed at %d words a minute, not %d",
                    current(_espeak.RATE, 1), rate)


@cache
def _espeak_current() -> Callable[[int, int], int]:
    """espeak-ng's ``espeak_GetParameter`` (pyttsx3's own binding leaves out its second
    argument: 0 the default, 1 the value in force)."""
    import ctypes

    from pyttsx3.drivers import _espeak

    prototype = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_int, ctypes.c_int)
    return cast(Callable[[int, int], int], prototype(("espeak_GetParameter", _espeak.dll)))


def make_backend(name: str, folder: Path | None = None, disk: DiskCache | None = None) -> object:
    """A backend by its config name, its phrases kept in ``disk`` too when given. Raises
    :class:`SpeechError` when it cannot work here."""
    if name == "pyttsx3":
        return Pyttsx3Backend(disk=disk)
    if name == "espeak-ng":
        return EspeakBackend(PhraseCache(disk=disk))
    if name == "wav":
        return WavBackend(folder or Path("announcements"), PhraseCache(disk=disk))
    if name == "captions":
        return CaptionsBackend()
    raise SpeechError(f"unknown voice backend {name!r}: use {', '.join(BACKENDS)}")
