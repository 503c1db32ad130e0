"""English voices compared by what can be measured without a listener: an offline speech
recogniser (PocketSphinx, its bundled US English model) transcribes each voice's rendering of
every English catalogue phrase, and the word error rate stands in for intelligibility; with it
the speaking rate and the render time.

The recogniser listens as a player who knows the referee's phrases: its grammar is the
catalogue's phrases (with other names and numbers free), so an error is a word it heard as
another one of the game's words. Its open-vocabulary language model misses nine words in ten of
any espeak-ng voice, which tells nothing apart; the grammar does. Phrases with words its
dictionary lacks (the Musician's Don, Chombo...) are left out.

    pip install pocketsphinx==5.1.1    # a wheel with its own model; no download at run time
    python bench/english_voices.py [--voices en,en-us+klatt4] [--rates 175,150]

A recogniser is not a person: a low error rate says the words come through clearly, not that
the voice is pleasant. MBROLA voices, which espeak-ng lists, need Debian's non-free mbrola
packages and are left out when they cannot speak here.
"""

from __future__ import annotations

import argparse
import io
import re
import statistics
import time
import wave

from table.referee.announcements import CATALOGUE, Announcement, render
from table.voice.espeak import SpeechError, variant_wav
from table.voice.samples import ENGLISH_VARIANTS

NAMES = {"player": "Anna", "catcher": "Tom", "offender": "Mia", "target": "Mia", "turn": "Tom",
         "reader": "pad", "token": "draw"}
VALUES: dict[str, str | int] = {"card": "R7", "color": "blue", "count": 2, "points": 34,
                                "round": 2, "scores": "ten"}
CANDIDATES = (*ENGLISH_VARIANTS, "en-gb-x-rp", "en-us+Annie", "mb-us1")
RATES = (175, 150)  # espeak-ng's default words a minute, and a slower one (pyttsx3's is 200)


def phrases() -> list[str]:
    out = []
    for key, texts in CATALOGUE.items():
        wanted = sorted(set(re.findall(r"{(\w+)}", texts["en"])))
        params = {**VALUES, **NAMES}
        out.append(render(Announcement(key, tuple((n, params[n]) for n in wanted)), "en"))
    return out


_NUMBERS = {"2": "two", "4": "four", "34": "thirty four"}


def words(text: str) -> list[str]:
    text = re.sub(r"\d+", lambda m: f" {_NUMBERS[m.group()]} ", text.lower())
    return ["yuno" if w == "uno" else w for w in re.findall(r"[a-z']+", text)]


def grammar(sentences: list[list[str]]) -> str:
    """A JSGF grammar: any one of the sentences."""
    body = " | ".join(" ".join(s) for s in sentences)
    return f"#JSGF V1.0;\ngrammar referee;\npublic <phrase> = {body};\n"


def errors(said: list[str], heard: list[str]) -> int:
    """Word-level edit distance."""
    row = list(range(len(heard) + 1))
    for i, w in enumerate(said, 1):
        prev, row[0] = row[0], i
        for j, h in enumerate(heard, 1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (w != h))
    return row[-1]


def pcm16k(data: bytes) -> bytes:
    """Mono 16-bit audio resampled to 16 kHz (the recogniser's rate), linearly."""
    import numpy as np

    with wave.open(io.BytesIO(data), "rb") as w:
        rate = w.getframerate()
        samples = np.frombuffer(w.readframes(w.getnframes()), dtype="<i2").astype(float)
    n = int(len(samples) * 16000 / rate)
    resampled = np.interp(np.arange(n) * rate / 16000, np.arange(len(samples)), samples)
    return bytes(resampled.astype("<i2").tobytes())


def main() -> None:
    from pocketsphinx import Decoder

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--voices", default=",".join(CANDIDATES), help="espeak-ng voices")
    parser.add_argument("--rates", default=",".join(map(str, RATES)), help="words a minute")
    args = parser.parse_args()
    rates = [int(r) for r in args.rates.split(",")]

    decoder = Decoder(samprate=16000, loglevel="FATAL")
    decoder.add_word("yuno", "Y UW N OW", False)  # UNO as espeak-ng says it (uno is AH N OW)
    texts = [t for t in phrases() if all(decoder.lookup_word(w) for w in words(t))]
    decoder.add_jsgf_string("referee", grammar([words(t) for t in texts]))
    decoder.activate_search("referee")
    print(f"{len(texts)} phrases\n")
    print("| espeak-ng voice | words a minute | word error rate | phrases heard exactly | "
          "words per second said | render ms p50 |")
    print("|---|---:|---:|---:|---:|---:|")
    for variant in args.voices.split(","):
        for rate in rates:
            wrong = total = exact = 0
            seconds = 0.0
            ms = []
            try:
                for text in texts:
                    started = time.perf_counter()
                    data = variant_wav(text, variant, rate)
                    ms.append((time.perf_counter() - started) * 1000)
                    pcm = pcm16k(data)
                    seconds += len(pcm) / 32000
                    decoder.start_utt()
                    decoder.process_raw(pcm, full_utt=True)
                    decoder.end_utt()
                    heard = words(decoder.hyp().hypstr if decoder.hyp() else "")
                    said = words(text)
                    wrong += errors(said, heard)
                    total += len(said)
                    exact += heard == said
            except SpeechError as exc:
                print(f"| {variant} | {rate} | not usable here: {str(exc)[:60]} | | | |",
                      flush=True)
                break
            print(f"| {variant} | {rate} | {wrong / total:.1%} | {exact}/{len(texts)} | "
                  f"{total / seconds:.2f} | {statistics.median(ms):.0f} |", flush=True)


if __name__ == "__main__":
    main()
