"""The announcer: speaks announcements in the background so the referee never waits for speech.

- :meth:`Announcer.announce` never blocks: it files the announcement and returns.
- Penalties and verdicts (higher priority) are spoken before routine turn calls; a newer turn
  call replaces an older one not yet spoken; the backlog is bounded (the least urgent, oldest
  announcement is dropped first).
- The speech engine runs in a speaker thread of its own. If it raises, or does not finish an
  utterance within ``timeout`` seconds, the speaker is abandoned, the failure is logged, and a
  new engine is made by the factory. Captions are written for every announcement regardless,
  so the game goes on even with no working voice.
- Each announcement is handed to the engine's phrase cache as soon as it is queued, so that it
  renders in the background while the one before it is still being said.
- Captions name the players as written (山田); speech says them as ``spoken_names`` gives
  (ヤマダ for a name with a reading), over ``pronounce``.
- An announcement is rendered once: the table hands over the words it wrote on its event
  stream (the caption), and they are what is said unless a name in them is said otherwise,
  whose spoken words are rendered once, when the announcement is queued.
"""

from __future__ import annotations

import itertools
import logging
import queue
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from table.referee.announcements import Announcement, names_in, render
from table.voice import detail as voice_detail
from table.voice.errors import SpeechError

log = logging.getLogger(__name__)

SPOKEN_KEPT = 100  # the latest phrases kept in ``Announcer.spoken``: memory stays flat all evening
# An engine that fails twice running (no sound card, a player that cannot open it) is left
# alone this long, doubled each time up to the most, captions going on meanwhile: one warning
# in the log, not a traceback and a new engine for every phrase all evening.
QUIET_FIRST_S = 60.0
QUIET_MOST_S = 600.0
# How long a new engine may take to start (Open JTalk's dictionary, a cache being read) before
# it counts as hung: its start is not counted in the phrase's own ``timeout``, or a slow board
# would start every engine twice.
MAKE_TIMEOUT_S = 60.0


class Backend(Protocol):
    """What the announcer needs of a speech engine: to say a text in a language."""
    def speak(self, text: str, lang: str) -> None:
        """Say ``text`` and return when it has been said (it may hang: the announcer copes)."""


class _Speaker:
    """One engine in one thread: the only thread that ever touches that engine (its phrase
    cache, thread-safe, is also used from the announcer's side to render ahead)."""

    def __init__(self, factory: Callable[[], Backend]) -> None:
        self.jobs: queue.Queue[tuple[str, str, threading.Event] | None] = queue.Queue()
        self.failed = threading.Event()
        self.made = threading.Event()  # the engine is made (or failed to be)
        self.cache: Any = None  # the backend's PhraseCache, once the backend is made
        self._factory = factory
        self.thread = threading.Thread(target=self._run, name="speaker", daemon=True)
        self.thread.start()

    def _run(self) -> None:
        try:
            backend = self._factory()  # made in the thread that uses it (pyttsx3 needs that)
        except Exception:
            log.exception("the speech engine could not start")
            self.failed.set()
            self.made.set()
            return
        self.cache = getattr(backend, "cache", None)
        self.made.set()
        while True:
            job = self.jobs.get()
            if job is None:
                return
            text, lang, done = job
            try:
                backend.speak(text, lang)
            except SpeechError as exc:  # a failure the engine names: one line
                log.warning("the speech engine failed on %r: %s", text, exc)
                self.failed.set()
                return
            except Exception:
                log.exception("the speech engine failed on %r", text)
                self.failed.set()
                return
            finally:
                done.set()


class Announcer:
    """Speaks announcements in the background, urgent ones first, captions for all."""
    def __init__(
        self,
        factory: Callable[[], Backend],
        lang: str = "en",
        pronounce: Mapping[str, str] | None = None,
        caption: Callable[[str], None] | None = None,
        max_backlog: int = 8,
        timeout: float = 10.0,
        spoken_names: Mapping[str, str] | None = None,
        detail: str = "turns",
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.factory = factory
        self.clock = clock
        self.failures = 0  # the engine's failures in a row
        self.quiet_until = 0.0  # the voice left alone until then (captions go on)
        self._quiet_for = 0.0
        self.lang = lang
        self.pronounce = dict(pronounce or {})
        self.said_as = {**self.pronounce, **(spoken_names or {})}
        self.caption = caption
        self.max_backlog = max_backlog
        self.timeout = timeout
        self.restarts = 0
        self.detail = voice_detail.Detail(detail)  # how much it says besides announcements
        self.spoken: deque[str] = deque(maxlen=SPOKEN_KEPT)  # the latest phrases said
        self._backlog: list[tuple[int, int, Announcement, str]] = []  # (priority, order, ann, said)
        self._order = itertools.count()
        self._cond = threading.Condition()
        self._stopping = False
        self._busy = False  # the worker is saying something
        self._speaker = _Speaker(factory)
        self._worker = threading.Thread(target=self._run, name="announcer", daemon=True)
        self._worker.start()

    # --- the referee's side: never blocks ---------------------------------------------------

    def announce(self, ann: Announcement, text: str | None = None) -> None:
        """File ``ann`` to be said (its caption written now); never blocks. ``text``: its words
        as the table wrote them (in :attr:`lang`, names through :attr:`pronounce`), not
        rendered again; rendered here when not given."""
        written = render(ann, self.lang, self.pronounce) if text is None else text
        if self.caption is not None:
            self.caption(written)
        said = self.said_words(ann, written)
        self._file(ann, said)

    def follow(self, event: Mapping[str, Any]) -> None:
        """Told of one event of the table's stream: at a ``detail`` above ``turns``, the plays
        (and at ``everything`` the draws and counts) it brings are said too, after what is
        already queued; never a caption, never on the stream. Never blocks."""
        for ann in self.detail.hear(event):
            self._file(ann, voice_detail.words(ann, self.lang, self.said_as))

    def _file(self, ann: Announcement, said: str) -> None:
        cache = self._speaker.cache
        if cache is not None:
            cache.ahead(said, self.lang)
        with self._cond:
            if ann.key == "turn":
                self._backlog = [item for item in self._backlog if item[2].key != "turn"]
            self._backlog.append((ann.priority, next(self._order), ann, said))
            while len(self._backlog) > self.max_backlog:
                least = min(self._backlog, key=lambda item: (item[0], item[1]))
                self._backlog.remove(least)
                log.info("speech backlog full: dropped %s", least[2].key)
            self._cond.notify()

    def said_words(self, ann: Announcement, written: str) -> str:
        """What is said for ``ann`` written as ``written``: those words, unless a name in it is
        said otherwise (a reading), then its words with the names as said."""
        if all(self.said_as.get(n, n) == self.pronounce.get(n, n) for n in names_in(ann)):
            return written
        return render(ann, self.lang, self.said_as)

    def close(self, timeout: float = 5.0) -> None:
        """Say what is queued (within ``timeout``), then stop."""
        with self._cond:
            self._stopping = True
            self._cond.notify()
        self._worker.join(timeout)
        self._speaker.jobs.put(None)

    def idle(self, timeout: float = 5.0) -> bool:
        """Wait until everything queued has been handled (for tests and shutdown)."""
        with self._cond:
            return self._cond.wait_for(lambda: not self._backlog and not self._busy, timeout)

    # --- the worker ---------------------------------------------------------------------------

    def _next(self) -> tuple[Announcement, str] | None:
        with self._cond:
            self._cond.wait_for(lambda: self._backlog or self._stopping)
            if not self._backlog:
                return None
            best = max(self._backlog, key=lambda item: (item[0], -item[1]))
            self._backlog.remove(best)
            self._busy = True
            return best[2], best[3]

    def _run(self) -> None:
        while True:
            job = self._next()
            if job is None:
                return
            ann, text = job
            if self.clock() >= self.quiet_until:
                done, speaker = threading.Event(), self._speaker
                speaker.jobs.put((text, self.lang, done))
                if speaker.made.wait(MAKE_TIMEOUT_S) and done.wait(self.timeout) \
                        and not speaker.failed.is_set():
                    self.spoken.append(text)
                    self.failures, self._quiet_for = 0, 0.0
                else:
                    self._replace_speaker(ann)
            with self._cond:
                self._busy = False
                self._cond.notify_all()

    def _replace_speaker(self, ann: Announcement) -> None:
        failed = self._speaker.failed.is_set()
        self.failures = self.failures + 1 if failed else 0
        if self.failures >= 2:
            self._quiet_for = min(max(QUIET_FIRST_S, 2 * self._quiet_for), QUIET_MOST_S)
            self.quiet_until = self.clock() + self._quiet_for
            log.warning("speech engine failed again on %s: captions only; the voice is tried "
                        "again in %.0f s", ann.key, self._quiet_for)
        else:
            log.warning("speech engine %s on %s; starting a new one (captions go on)",
                        "failed" if failed else "hung", ann.key)
        self._speaker.jobs.put(None)  # a hung thread is abandoned; it is a daemon thread
        self._speaker = _Speaker(self.factory)
        self.restarts += 1
