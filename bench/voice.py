"""The voice's speed: render times per voice, and the time from a verdict to its audio being
ready, without and with the phrase cache, over the announcements of real (self-played) rounds.

    python bench/voice.py [--rounds 6] [--evening 3] [--lang ja] [--markdown]

1. Render time of every catalogue phrase per voice (Open JTalk, espeak-ng), with the length of
   the audio it makes.
2. Verdict to audio ready: self-played Musician rounds at a four-player table (山田, 陽菜,
   翔太, ケン); each step's announcements are queued together, as the daemon does after a
   verdict, and each one's latency runs from that moment to its audio being in the speaker's
   hands. Playback takes no time here, so a phrase also waits for the ones queued before it
   to render: the figures are an upper bound. Modes:
   - no cache: every phrase rendered when it is said;
   - cold: cache on, nothing prewarmed (phrases render ahead once queued);
   - prewarmed: the start-up phrases of the table rendered in the background, settled;
   - restart: a second process's cache over the first's disk cache.
   "turn" is the phrases of a normal turn (turn calls, draws, passes, skips, colours, UNO).
   Also the longest time the referee spent in ``announce`` (it must never wait for speech).
3. The disk cache of an evening: ``--evening`` matches' worth of rounds at that table.

Target: p95 <= 100 ms for a normal turn's phrases with the cache.
"""

from __future__ import annotations

import argparse
import re
import statistics
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from table.analysis.selfplay import RandomTable
from table.referee.announcements import CATALOGUE, Announcement, render
from table.referee.said import from_events
from table.rules import Phase, apply_in_place, make_options, new_game
from table.rules.engine import next_round
from table.voice.announcer import Announcer
from table.voice.backends import DiskCache, PhraseCache, Voice, espeak_voice, standard_voice
from table.voice.espeak import wav_bytes_seconds
from table.voice.prewarm import prewarm_texts

PLAYERS = ("山田", "陽菜", "翔太", "ケン")
EN_PLAYERS = ("Yamada", "Hina", "Shota", "Ken")
TURN_KEYS = frozenset({"turn", "draws", "passed", "skipped", "wild", "color-chosen", "uno",
                       "reversed-clockwise", "reversed-counterclockwise", "color-needed",
                       "pending-draw", "pending-draw-stack"})


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * len(ordered)) - 1))]


def match_steps(rounds: int, seed: int, names: tuple[str, ...]) -> Iterator[list[Announcement]]:
    """The announcements of each step of ``rounds`` self-played Musician rounds."""
    options = make_options("musician")
    table = RandomTable(options, len(names), seed)
    s, events = new_game(options, names, table.dealer(), table.deal())
    yield from_events(events, names, options)
    for _ in range(rounds):
        while s.phase is Phase.PLAY:
            table.supply_chance(s)
            action = table.choose(s)
            assert action is not None
            events = apply_in_place(s, action)
            late = table.out_of_turn(s)
            if late is not None:
                events += apply_in_place(s, late)
            yield from_events(events, names, options)
        if s.phase is not Phase.ROUND_OVER:
            return
        s, events = next_round(s, table.deal(s))
        yield from_events(events, names, options)


# --- 1. render times --------------------------------------------------------------------------


def sample_texts(lang: str) -> list[str]:
    names = PLAYERS if lang == "ja" else EN_PLAYERS
    people = dict(zip(("player", "catcher", "offender", "target", "turn"), names * 2,
                      strict=False))
    values: dict[str, str | int] = {**people, "card": "R7", "color": "blue", "count": 2,
                                    "points": 34, "round": 2, "scores": "10",
                                    "reader": "pad", "token": "draw"}
    out = []
    for key, phrases in CATALOGUE.items():
        wanted = sorted(set(re.findall(r"{(\w+)}", phrases[lang])))
        out.append(render(Announcement(key, tuple((n, values[n]) for n in wanted)), lang))
    return out


def render_times(voice: Voice, texts: list[str]) -> tuple[list[float], float]:
    """Milliseconds per phrase, and the seconds of audio made in all."""
    ms, audio = [], 0.0
    for text in texts:
        started = time.perf_counter()
        data = voice.render(text)
        ms.append((time.perf_counter() - started) * 1000)
        audio += wav_bytes_seconds(data)
    return ms, audio


# --- 2. verdict to audio ready -------------------------------------------------------------------


class Ready:
    """A backend that only fetches the audio (playback takes no time) and notes when."""

    def __init__(self, cache: PhraseCache) -> None:
        self.cache = cache
        self.ready: list[tuple[str, float]] = []
        self.done = threading.Semaphore(0)

    def speak(self, text: str, lang: str) -> None:
        self.cache.audio(text, lang)
        self.ready.append((text, time.perf_counter()))
        self.done.release()


def verdict_latency(cache: PhraseCache, steps: list[list[Announcement]], lang: str,
                    names: tuple[str, ...]) -> tuple[list[float], list[float], float]:
    """(ms of every phrase, ms of a normal turn's phrases, longest announce() in ms)."""
    backend = Ready(cache)
    ann = Announcer(lambda: backend, lang=lang, timeout=120, max_backlog=64)
    every: list[float] = []
    turn: list[float] = []
    longest = 0.0
    for batch in steps:
        if not batch:
            continue
        before = len(backend.ready)
        queued = time.perf_counter()
        for a in batch:
            started = time.perf_counter()
            ann.announce(a)
            longest = max(longest, time.perf_counter() - started)
        assert ann.idle(300)
        for a, (_text, at) in zip(batch, backend.ready[before:], strict=False):
            ms = (at - queued) * 1000
            every.append(ms)
            if a.key in TURN_KEYS:
                turn.append(ms)
    ann.close()
    return every, turn, longest * 1000


def table_prewarm(cache: PhraseCache, lang: str, names: tuple[str, ...]) -> float:
    """The daemon's start: the table's phrases in the background; seconds until settled."""
    started = time.perf_counter()
    texts = prewarm_texts(names, lang, stacking=True, musician=True)  # the Musician's rules
    cache.prewarm_in_background(texts, lang)
    cache.settled(None)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=6, help="rounds of the latency match")
    parser.add_argument("--evening", type=int, default=3,
                        help="matches of --rounds rounds for the disk cache's size")
    parser.add_argument("--lang", choices=("ja", "en"), default="ja")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    lang = args.lang
    names = PLAYERS if lang == "ja" else EN_PLAYERS

    voices: list[Voice] = [standard_voice(lang)]
    if voices[0].name != espeak_voice(lang).name:
        voices.append(espeak_voice(lang))
    texts = sample_texts(lang)
    print(f"## Render time, every phrase of the catalogue ({len(texts)}, {lang})\n")
    print("| voice | p50 ms | p95 ms | max ms | audio s | render s per audio s |")
    print("|---|---:|---:|---:|---:|---:|")
    for voice in voices:
        ms, audio = render_times(voice, texts)
        print(f"| {voice.name} | {statistics.median(ms):.0f} | {percentile(ms, 0.95):.0f} | "
              f"{max(ms):.0f} | {audio:.1f} | {sum(ms) / 1000 / audio:.3f} |")

    steps = list(match_steps(args.rounds, args.seed, names))
    phrases = sum(len(b) for b in steps)
    print(f"\n## Verdict to audio ready, {standard_voice(lang).name}: {args.rounds} Musician "
          f"rounds, {len(steps)} steps, {phrases} phrases\n")
    print("| cache | every phrase p50 / p95 ms | normal turn p50 / p95 ms | "
          "longest announce() ms | start-up prewarm s |")
    print("|---|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "phrases"
        modes: list[tuple[str, Callable[[], PhraseCache], bool]] = [
            ("off", lambda: PhraseCache(enabled=False), False),
            ("on, cold", lambda: PhraseCache(disk=DiskCache(Path(tmp) / "cold")), False),
            ("on, prewarmed", lambda: PhraseCache(disk=DiskCache(folder)), True),
            ("on, after a restart (this match on disk)",
             lambda: PhraseCache(disk=DiskCache(folder)), True),
        ]
        for label, make, prewarm in modes:
            cache = make()
            warm = table_prewarm(cache, lang, names) if prewarm else 0.0
            every, turn, longest = verdict_latency(cache, steps, lang, names)
            print(f"| {label} | {statistics.median(every):.1f} / {percentile(every, 0.95):.1f} |"
                  f" {statistics.median(turn):.1f} / {percentile(turn, 0.95):.1f} | "
                  f"{longest:.2f} | {warm:.1f} |")

        evening = PhraseCache(disk=DiskCache(Path(tmp) / "evening"))
        table_prewarm(evening, lang, names)
        said = 0
        for match in range(args.evening):
            for batch in match_steps(args.rounds, args.seed + 100 + match, names):
                for a in batch:
                    evening.audio(render(a, lang), lang)
                    said += 1
        disk = evening.disk
        assert disk is not None
        print(f"\n## Disk cache after an evening: {args.evening} matches of {args.rounds} "
              f"rounds, {said} phrases said\n")
        print(f"{len(disk.files())} files, {disk.size() / 1e6:.1f} MB "
              f"({standard_voice(lang).name})")


if __name__ == "__main__":
    main()
