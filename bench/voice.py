"""Time from an announcement being queued to its audio being ready, with and without the
phrase cache (the wav backend: espeak-ng rendering, no sound card needed).

    python bench/voice.py [--count 200]

Prints p50 and p95 in milliseconds. Target: p95 <= 100 ms with the cache.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import threading
import time
from pathlib import Path

from table.referee.announcements import URGENT, Announcement
from table.voice.announcer import Announcer
from table.voice.backends import PhraseCache, WavBackend

PLAYERS = ("Aki", "Ken", "Mio", "Yui")


class Timed(WavBackend):
    """Records when each announcement's audio is ready."""

    def __init__(self, folder: Path, cache: PhraseCache) -> None:
        super().__init__(folder, cache)
        self.ready: list[float] = []
        self.done = threading.Semaphore(0)

    def speak(self, text: str, lang: str) -> None:
        self.cache.audio(text, lang)
        self.ready.append(time.perf_counter())
        self.done.release()


def phrases(i: int) -> Announcement:
    name = PLAYERS[i % len(PLAYERS)]
    if i % 3 == 0:
        return Announcement("draws", (("player", name), ("count", 2)), URGENT)
    return Announcement("turn", (("player", name),))


def run(count: int, cached: bool, lang: str) -> list[float]:
    with tempfile.TemporaryDirectory() as tmp:
        cache = PhraseCache(enabled=cached)
        backend = Timed(Path(tmp), cache)
        if cached:  # what the daemon does at start: the phrases of this table
            from table.referee.announcements import render

            cache.prewarm((render(phrases(i), lang) for i in range(12)), lang)
        ann = Announcer(lambda: backend, lang=lang, timeout=30)
        latencies = []
        for i in range(count):
            queued = time.perf_counter()
            ann.announce(phrases(i))
            assert backend.done.acquire(timeout=30)
            latencies.append((backend.ready[-1] - queued) * 1000)
        ann.close()
        return latencies


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=200)
    args = parser.parse_args()
    print("| language | cache | p50 ms | p95 ms |")
    print("|---|---|---:|---:|")
    for lang in ("en", "ja"):
        for cached in (False, True):
            ms = sorted(run(args.count, cached, lang))
            p95 = ms[int(len(ms) * 0.95) - 1]
            state = "on" if cached else "off"
            print(f"| {lang} | {state} | {statistics.median(ms):.2f} | {p95:.2f} |")


if __name__ == "__main__":
    main()
