"""The espeak-ng command line: WAV rendering and phoneme output, one process per utterance.

A process per utterance costs 10-20 ms and cannot hang the caller past its timeout, which is
why it is the fallback backend and the one the tests use to check what is actually said.
"""

from __future__ import annotations

import shutil
import subprocess
import wave
from pathlib import Path
from typing import Final

from table.voice.errors import SpeechError

__all__ = ["SpeechError", "espeak_path", "phonemes", "render_wav", "variant_wav",
           "wav_bytes_seconds", "wav_seconds"]

# English in the Klatt variant of the US voice: an offline recogniser heard 99% of the
# catalogue's words from it and 31% from espeak-ng's default "en" (bench/english_voices.py,
# docs/voice.md#english-voices).
VOICES: Final = {"en": "en-us+klatt4", "ja": "ja"}
TIMEOUT_S: Final = 10.0


def espeak_path() -> str:
    """The espeak-ng program's path; raises :class:`SpeechError` saying how to install it."""
    path = shutil.which("espeak-ng")
    if path is None:
        raise SpeechError(
            "espeak-ng is not installed: install the Debian package espeak-ng "
            "(sudo apt-get install espeak-ng)"
        )
    return path


def _run(args: list[str]) -> subprocess.CompletedProcess[bytes]:
    try:
        done = subprocess.run(
            [espeak_path(), *args], capture_output=True, timeout=TIMEOUT_S, check=False
        )
    except subprocess.TimeoutExpired:
        raise SpeechError(f"espeak-ng took longer than {TIMEOUT_S:.0f} s") from None
    if done.returncode != 0:
        raise SpeechError(f"espeak-ng failed: {done.stderr.decode(errors='replace').strip()}")
    return done


def render_wav(text: str, lang: str, out: Path) -> float:
    """Speak ``text`` in ``lang`` into the WAV file ``out``; return its length in seconds."""
    voice = VOICES.get(lang)
    if voice is None:
        raise SpeechError(f"no voice for language {lang!r}: use en or ja")
    _run(["-v", voice, "-w", str(out), "--", _readable(text, lang)])
    return wav_seconds(out)


def variant_wav(text: str, variant: str, speed: int | None = None) -> bytes:
    """``text`` said by one of espeak-ng's voices or variants (``en-us``, ``en+f3``), at
    ``speed`` words a minute (espeak-ng's default 175), as WAV bytes. An MBROLA voice whose
    data is not installed is an error (espeak-ng would say it with another voice)."""
    done = _run(["-v", variant, *(["-s", str(speed)] if speed else []), "--stdout", "--", text])
    if b"MBROLA" in done.stderr:
        raise SpeechError(f"espeak-ng voice {variant}: {done.stderr.decode().splitlines()[0]}")
    return done.stdout


def phonemes(text: str, lang: str) -> str:
    """What espeak-ng will say, as its phoneme mnemonics (``-x``). A switch to English inside
    Japanese shows as ``(en)``."""
    done = _run(["-q", "-x", "-v", VOICES[lang], "--", _readable(text, lang)])
    return done.stdout.decode().strip()


def _readable(text: str, lang: str) -> str:
    """Japanese as kana: espeak-ng says each kanji as the English words "Chinese letter"."""
    if lang != "ja":
        return text
    from table.voice.kana import to_kana

    return to_kana(text)


def wav_seconds(path: Path) -> float:
    """The length in seconds of the WAV file at ``path``."""
    with wave.open(str(path), "rb") as w:
        return w.getnframes() / float(w.getframerate())


def wav_bytes_seconds(data: bytes) -> float:
    """The length in seconds of a WAV file given as bytes."""
    import io

    with wave.open(io.BytesIO(data), "rb") as w:
        return w.getnframes() / float(w.getframerate())
