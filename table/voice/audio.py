"""A phrase's audio made ready to play: its peak at -1 dBFS (loud as the others, never clipped)
and its silences trimmed to 0.1 s before and after.

Open JTalk's samples run past full scale on loud phrases and both engines leave a quarter to a
third of a second of silence at each end, which makes a short call sound late. Plain Python on
16-bit mono WAV bytes (the ``array`` module), so that it needs nothing beyond the standard
library.
"""

from __future__ import annotations

import io
import sys
import wave
from array import array
from typing import Final

PEAK: Final = round(32767 * 10 ** (-1 / 20))  # -1 dBFS: headroom for the sound card's filters
KEPT_S: Final = 0.1  # silence kept before and after the speech
QUIET: Final = 0.02  # a sample below 2% of the phrase's peak (-34 dB) counts as silence


def tidy(data: bytes) -> bytes:
    """16-bit mono WAV bytes with the silence at either end cut to :data:`KEPT_S` and the peak
    set to :data:`PEAK`; anything else (another sample width, no audio) comes back unchanged."""
    with wave.open(io.BytesIO(data), "rb") as w:
        if w.getsampwidth() != 2 or w.getnchannels() != 1:
            return data
        rate = w.getframerate()
        samples = array("h", w.readframes(w.getnframes()))
    if sys.byteorder == "big":
        samples.byteswap()
    peak = max((abs(s) for s in samples), default=0)
    if peak == 0:
        return data
    keep = round(KEPT_S * rate)
    start = max(0, _first_loud(samples, peak) - keep)
    end = min(len(samples), _last_loud(samples, peak) + 1 + keep)
    gain = PEAK / peak
    out = array("h", (round(s * gain) for s in samples[start:end]))
    if sys.byteorder == "big":
        out.byteswap()
    buf = io.BytesIO()
    with wave.open(buf, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(out.tobytes())
    return buf.getvalue()


def _first_loud(samples: array[int], peak: int) -> int:
    floor = peak * QUIET
    return next(i for i, s in enumerate(samples) if abs(s) >= floor)


def _last_loud(samples: array[int], peak: int) -> int:
    floor = peak * QUIET
    return next(i for i in range(len(samples) - 1, -1, -1) if abs(samples[i]) >= floor)
