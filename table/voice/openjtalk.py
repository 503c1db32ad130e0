"""Open JTalk through pyopenjtalk: the Japanese voice.

Everything is found on this machine, never downloaded: the MeCab dictionary from
``OPEN_JTALK_DICT_DIR`` or Debian's ``open-jtalk-mecab-naist-jdic``, the HTS voice from
``UNO_TABLE_HTS_VOICE``, pyopenjtalk's bundled ``mei_normal`` or Debian's
``hts-voice-nitech-jp-atr503-m001``. pyopenjtalk's own helpers download the dictionary on first
use when it is missing; this module never calls them: it builds the engine from pyopenjtalk's
two classes with the paths it found, or says what to install.

One engine per process (:func:`engine`), shared by every thread through a lock.
"""

from __future__ import annotations

import atexit
import importlib.util
import io
import logging
import os
import threading
import wave
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from table.voice.errors import SpeechError

log = logging.getLogger(__name__)

DEBIAN_DICT: Final = Path("/var/lib/mecab/dic/open-jtalk/naist-jdic")
DEBIAN_VOICE: Final = Path(
    "/usr/share/hts-voice/nitech-jp-atr503-m001/nitech_jp_atr503_m001.htsvoice"
)
DICT_FILES: Final = ("sys.dic", "matrix.bin", "char.bin", "unk.dic")
INSTALL_ENGINE: Final = "pip install 'uno-table[japanese]' (pyopenjtalk-ndy)"
INSTALL_DICT: Final = ("the Debian package open-jtalk-mecab-naist-jdic "
                       "(sudo apt-get install open-jtalk-mecab-naist-jdic), "
                       "or set OPEN_JTALK_DICT_DIR to an Open JTalk dictionary")


@dataclass(frozen=True, slots=True)
class Found:
    """Where the dictionary and the voice are."""

    dictionary: Path
    voice: Path


def _is_dictionary(folder: Path) -> bool:
    return all((folder / f).is_file() for f in DICT_FILES)


def _package_folder() -> Path | None:
    spec = importlib.util.find_spec("pyopenjtalk")
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def locate() -> Found:
    """The dictionary and voice to use. Raises :class:`SpeechError` naming what to install."""
    package = _package_folder()
    if package is None:
        raise SpeechError(f"Open JTalk: pyopenjtalk is not installed: {INSTALL_ENGINE}")
    from_env = os.environ.get("OPEN_JTALK_DICT_DIR") or None
    if from_env is not None:
        candidates = [Path(from_env)]  # a dictionary named on purpose is the only one tried
    else:
        candidates = [DEBIAN_DICT, *sorted(package.glob("open_jtalk_dic_*"))]
    dictionary = next((c for c in candidates if _is_dictionary(c)), None)
    if dictionary is None:
        where = f"OPEN_JTALK_DICT_DIR={from_env} holds no dictionary" if from_env else \
            f"no dictionary in {DEBIAN_DICT}"
        raise SpeechError(f"Open JTalk: {where}: install {INSTALL_DICT}")
    voices = [package / "htsvoice" / "mei_normal.htsvoice", DEBIAN_VOICE]
    wanted = os.environ.get("UNO_TABLE_HTS_VOICE") or None
    if wanted is not None:
        voices = [Path(wanted)]
    voice = next((v for v in voices if v.is_file()), None)
    if voice is None:
        raise SpeechError(f"Open JTalk: no HTS voice found ({', '.join(map(str, voices))}): "
                          f"reinstall pyopenjtalk-ndy, or install the Debian (contrib) package "
                          f"hts-voice-nitech-jp-atr503-m001")
    return Found(dictionary, voice)


class Engine:
    """Open JTalk's text front end and HTS engine, used under one lock."""

    def __init__(self, found: Found) -> None:
        from pyopenjtalk.htsengine import HTSEngine
        from pyopenjtalk.openjtalk import OpenJTalk
        from pyopenjtalk.version import __version__

        self.found = found
        self.name = f"openjtalk-{__version__}:{found.voice.stem}"  # the phrase cache's key
        self._lock = threading.Lock()
        try:
            self._jtalk: Any = OpenJTalk(dn_mecab=str(found.dictionary).encode())
            self._hts: Any = HTSEngine(str(found.voice).encode())
        except Exception as exc:  # a broken dictionary or voice file: its own exception types
            raise SpeechError(f"Open JTalk could not load {found.dictionary} and "
                              f"{found.voice}: {exc}") from None
        self.rate = int(self._hts.get_sampling_frequency())

    def nodes(self, text: str) -> list[dict[str, Any]]:
        """Open JTalk's words for ``text``: each a dict with ``string``, ``pron``, ``pos``."""
        with self._lock:
            return list(self._jtalk.run_frontend(text))

    def reading(self, text: str) -> str:
        """How ``text`` is read, in katakana."""
        with self._lock:
            return str(self._jtalk.g2p(text, kana=True))

    def wav(self, text: str) -> bytes:
        """``text`` spoken, as the bytes of a 16-bit mono WAV file."""
        import numpy as np

        with self._lock:
            labels = self._jtalk.make_label(self._jtalk.run_frontend(text))
            if not labels:
                raise SpeechError(f"Open JTalk finds nothing to say in {text!r}")
            samples = self._hts.synthesize(labels)
        peak = float(np.max(np.abs(samples))) if len(samples) else 0.0
        if peak > 32767:  # a loud phrase runs past full scale: scale it down, never clip it
            samples = samples * (32767 / peak)
        pcm = np.clip(samples, -32768, 32767).astype("<i2").tobytes()
        out = io.BytesIO()
        with wave.open(out, "wb") as w:
            w.setnchannels(1)
            w.setsampwidth(2)
            w.setframerate(self.rate)
            w.writeframes(pcm)
        return out.getvalue()


_engine: Engine | None = None
_engine_lock = threading.Lock()


@atexit.register
def _close() -> None:
    """Free the engine before the interpreter tears its modules down (pyopenjtalk's classes,
    freed during that teardown, can raise where no exception can be printed)."""
    global _engine
    _engine = None


def engine() -> Engine:
    """The process's Open JTalk engine, made on first use. Raises :class:`SpeechError`."""
    global _engine
    with _engine_lock:
        if _engine is None:
            _engine = Engine(locate())
        return _engine


def japanese_status() -> str:
    """One line on the Japanese voice: what speaks Japanese here, and what to install if
    Open JTalk cannot."""
    try:
        jt = engine()
    except SpeechError as exc:
        return f"espeak-ng (kana only, kanji names need readings); {exc}"
    return f"Open JTalk ({jt.found.voice.stem}), dictionary {jt.found.dictionary}"


_warned = False


def japanese_renderer() -> tuple[str, Callable[[str], bytes]] | None:
    """Open JTalk's name and render function, or None (logged once a process) when it cannot
    work here, so that espeak-ng speaks Japanese instead."""
    global _warned
    try:
        jt = engine()
    except SpeechError as exc:
        if not _warned:
            log.warning("%s; Japanese is spoken by espeak-ng instead", exc)
            _warned = True
        return None
    return jt.name, jt.wav
