"""The voice's announcer (:mod:`table.voice.announcer`): it never holds up the referee, puts
urgent things first, and survives a speech engine that hangs or crashes."""

from __future__ import annotations

import threading

from table.referee.announcements import INFO, ROUTINE, URGENT, Announcement
from table.voice.announcer import SPOKEN_KEPT, Announcer


def turn(name: str) -> Announcement:
    return Announcement("turn", (("player", name),), ROUTINE)


def penalty(name: str) -> Announcement:
    return Announcement("draws", (("player", name), ("count", 2)), URGENT)


class Gate:
    """A backend that says each sentence only when the test lets it."""

    def __init__(self) -> None:
        self.said: list[str] = []
        self.started = threading.Semaphore(0)
        self.go = threading.Semaphore(0)

    def speak(self, text: str, lang: str) -> None:
        self.started.release()
        assert self.go.acquire(timeout=10)
        self.said.append(text)


def test_urgent_first_and_a_newer_turn_call_replaces_an_older_one() -> None:
    gate = Gate()
    ann = Announcer(lambda: gate)
    ann.announce(turn("Aki"))
    assert gate.started.acquire(timeout=10)  # "Aki's turn." is being said
    ann.announce(turn("Ken"))
    ann.announce(penalty("Mio"))
    ann.announce(turn("Mio"))
    for _ in range(3):
        gate.go.release()
    assert ann.idle(10)
    assert gate.said == ["Aki's turn.", "Mio draws 2.", "Mio's turn."]
    ann.close()


def test_backlog_is_bounded_dropping_the_least_urgent() -> None:
    gate = Gate()
    ann = Announcer(lambda: gate, max_backlog=2)
    ann.announce(turn("Aki"))
    assert gate.started.acquire(timeout=10)
    ann.announce(Announcement("reshuffled", (), INFO))
    ann.announce(penalty("Ken"))
    ann.announce(penalty("Mio"))
    for _ in range(3):
        gate.go.release()
    assert ann.idle(10)
    assert gate.said == ["Aki's turn.", "Ken draws 2.", "Mio draws 2."]
    ann.close()


class Hung:
    def __init__(self) -> None:
        self.entered = threading.Event()

    def speak(self, text: str, lang: str) -> None:
        self.entered.set()
        threading.Event().wait()  # never returns


class Broken:
    def speak(self, text: str, lang: str) -> None:
        raise OSError("audio device gone")


class Good:
    def __init__(self) -> None:
        self.said: list[str] = []

    def speak(self, text: str, lang: str) -> None:
        self.said.append(text)


def test_a_hung_engine_does_not_delay_the_referee_and_is_replaced() -> None:
    hung, good = Hung(), Good()
    engines = iter([hung, good])
    captions: list[str] = []
    # The hung engine costs the whole timeout; the good one must answer within it, which 2 s
    # allows on a busy machine (0.3 s was a bet on an idle one).
    ann = Announcer(lambda: next(engines), caption=captions.append, timeout=2.0)
    ann.announce(turn("Aki"))  # returns at once although the engine will hang on it
    assert captions == ["Aki's turn."]
    assert hung.entered.wait(10)
    ann.announce(penalty("Ken"))
    assert ann.idle(10)
    assert ann.restarts == 1
    assert good.said == ["Ken draws 2."]
    assert captions == ["Aki's turn.", "Ken draws 2."]
    ann.close()


def test_a_crashing_engine_is_replaced() -> None:
    good = Good()
    engines = iter([Broken(), good])
    ann = Announcer(lambda: next(engines), timeout=5)
    ann.announce(turn("Aki"))
    assert ann.idle(10)
    ann.announce(turn("Ken"))
    assert ann.idle(10)
    assert ann.restarts == 1 and good.said == ["Ken's turn."]
    ann.close()


class Quick:
    """A backend that says everything at once."""

    def speak(self, text: str, lang: str) -> None:
        return None


def test_an_evening_of_phrases_keeps_only_the_latest() -> None:
    """What was said is kept for tests and checks, the latest few only: an evening of
    announcements must not grow the daemon's memory."""
    ann = Announcer(Quick)
    for i in range(SPOKEN_KEPT + 50):
        ann.announce(Announcement("draws", (("player", "Aki"), ("count", i)), URGENT))
        assert ann.idle(10)
    ann.close()
    assert len(ann.spoken) == SPOKEN_KEPT
    assert ann.spoken[-1] == f"Aki draws {SPOKEN_KEPT + 49}."
    assert ann.spoken[0] == "Aki draws 50."
