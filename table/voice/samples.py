"""``uno-table voices --sample DIR``: the same phrases said by every voice usable here, one WAV
file per voice and language, so that a person can listen and compare; and two rounds as the
table's default voices say them (a Musician round in Japanese, an official one in English)."""

from __future__ import annotations

import io
import wave
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Final

from table.errors import TableError
from table.referee.announcements import Announcement, render
from table.voice.errors import SpeechError
from table.voice.espeak import wav_bytes_seconds

PAUSE_S: Final = 0.4
# A few moments of a round, the same in both languages.
PHRASES: Final = (
    Announcement("round-start", (("round", 1), ("player", "Ken"))),
    Announcement("turn", (("player", "Hina"),)),
    Announcement("uno-missed", (("player", "Ken"), ("count", 2))),
    Announcement("round-scored", (("player", "Hina"), ("points", 34))),
)
JA_NAMES: Final = {"Ken": "ケン", "Hina": "陽菜"}
# espeak-ng's English voices worth comparing (variants ship with espeak-ng-data).
ENGLISH_VARIANTS: Final = ("en", "en-us", "en+f3", "en+m3", "en-us+klatt4")


# Moments of a round for the documentation's samples: a Musician round in Japanese, an
# official round in English.
def _a(key: str, **params: str | int) -> Announcement:
    return Announcement(key, tuple(params.items()))


MUSICIAN_ROUND: Final = (
    _a("round-start", round=3, player="陽菜"),
    _a("turned-up", card="G7"),
    _a("turn", player="翔太"),
    _a("wild", color="blue"),
    _a("pending-draw-stack", player="山田", count=2),
    _a("uno", player="陽菜"),
    _a("don", player="山田", target="陽菜"),
    _a("renchan", player="山田", count=3),
    _a("round-scored", player="山田", points=34),
)
OFFICIAL_ROUND: Final = (
    _a("round-start", round=1, player="Ken"),
    _a("turned-up", card="R7"),
    _a("turn", player="Hina"),
    _a("reversed-counterclockwise"),
    _a("uno-missed", player="Ken", count=2),
    _a("uno", player="Hina"),
    _a("round-won", player="Hina"),
    _a("round-scored", player="Hina", points=34),
)


def round_samples(folder: Path) -> list[str]:
    """The two rounds of the documentation, as the table's default voices say them."""
    from table.voice.backends import standard_voice

    lines = []
    for stem, lang, anns in (("ja-musician-round", "ja", MUSICIAN_ROUND),
                             ("en-official-round", "en", OFFICIAL_ROUND)):
        voice = standard_voice(lang)
        line = _write(folder / f"{stem}.wav", [voice.render(render(a, lang)) for a in anns])
        lines.append(f"{stem}: {line}, {voice.name})")
    return lines


def _write(path: Path, parts: list[bytes]) -> str:
    """``parts`` joined into the WAV file ``path``; says where and how long (without the
    closing parenthesis)."""
    data = join_wavs(parts)
    try:
        path.write_bytes(data)
    except OSError as exc:
        raise TableError(f"{path}: cannot write the sample: {exc.strerror}") from None
    return f"{path} ({wav_bytes_seconds(data):.1f} s"


def sample_texts(lang: str) -> list[str]:
    """The sample phrases in ``lang``, names as the voice says them."""
    names = JA_NAMES if lang == "ja" else {}
    return [render(a, lang, names) for a in PHRASES]


def join_wavs(parts: list[bytes]) -> bytes:
    """WAV files of one format, one after the other with a short pause between."""
    frames: list[bytes] = []
    params = None
    for data in parts:
        with wave.open(io.BytesIO(data), "rb") as w:
            params = w.getparams()
            frames.append(w.readframes(w.getnframes()))
    if params is None:
        raise TableError("nothing to join")
    pause = b"\0" * (int(params.framerate * PAUSE_S) * params.sampwidth * params.nchannels)
    out = io.BytesIO()
    with wave.open(out, "wb") as w:
        w.setnchannels(params.nchannels)
        w.setsampwidth(params.sampwidth)
        w.setframerate(params.framerate)
        w.writeframes(pause.join(frames))
    return out.getvalue()


def _voices() -> Iterator[tuple[str, str, Callable[[str], bytes] | str]]:
    """(file stem, language, render function or why it is not usable here)."""
    from table.voice.backends import Pyttsx3Backend, espeak_wav_bytes
    from table.voice.espeak import variant_wav
    from table.voice.openjtalk import engine

    try:
        yield "ja-openjtalk", "ja", engine().wav
    except SpeechError as exc:
        yield "ja-openjtalk", "ja", str(exc)
    yield "ja-espeak-ng", "ja", lambda text: espeak_wav_bytes(text, "ja")
    try:
        pyttsx3 = Pyttsx3Backend(play=False)
        yield "en-pyttsx3", "en", lambda text: pyttsx3.render(text, "en")
    except SpeechError as exc:
        yield "en-pyttsx3", "en", str(exc)
    for variant in ENGLISH_VARIANTS:
        def render(text: str, variant: str = variant) -> bytes:
            return variant_wav(text, variant)

        yield f"en-espeak-ng-{variant.replace('+', '-')}", "en", render


def write_samples(folder: str | Path) -> list[str]:
    """Write the samples into ``folder``; one line per file (or per voice not usable here)."""
    folder = Path(folder)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise TableError(f"{folder}: cannot make the folder: {exc.strerror}") from None
    lines = []
    for stem, lang, voice in _voices():
        if isinstance(voice, str):
            lines.append(f"sample {stem}: not usable here: {voice}")
            continue
        line = _write(folder / f"{stem}.wav", [voice(text) for text in sample_texts(lang)])
        lines.append(f"sample {stem}: {line})")
    return lines + [f"sample {line}" for line in round_samples(folder)]
