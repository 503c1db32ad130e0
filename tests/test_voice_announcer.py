"""The voice's announcer (:mod:`table.voice.announcer`): it never holds up the referee, puts
urgent things first, and survives a speech engine that hangs or crashes."""

from __future__ import annotations

import logging
import threading

import pytest

from table.referee.announcements import INFO, ROUTINE, URGENT, Announcement
from table.voice.announcer import QUIET_FIRST_S, SPOKEN_KEPT, Announcer
from table.voice.errors import SpeechError


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


def test_an_engine_slow_to_start_is_not_taken_for_a_hung_one() -> None:
    """On a slow board an engine's start (Open JTalk's dictionary) outlasts a phrase's
    timeout: the first phrase waits for it, and the engine is made once. Counted in the
    phrase's time, it was taken for hung and started again, its phrase cache rendered twice."""
    good = Good()
    starts: list[int] = []
    again = threading.Event()

    def slow_start() -> Good:
        starts.append(len(starts))
        if len(starts) > 1:
            again.set()
        else:  # longer than the phrase's timeout; a second start (the failure) ends it at once
            again.wait(4.0)
        return good

    # 2 s for the phrase once its engine is made, as a busy machine allows (the test above)
    ann = Announcer(slow_start, timeout=2.0)
    ann.announce(turn("Aki"))
    assert ann.idle(15)
    assert starts == [0] and ann.restarts == 0
    assert good.said == ["Aki's turn."]
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


class Mute:
    """A backend whose every phrase fails as a box without a sound card fails (aplay)."""

    def __init__(self) -> None:
        self.tried: list[str] = []

    def speak(self, text: str, lang: str) -> None:
        self.tried.append(text)
        raise SpeechError("aplay could not play (exit 1): aplay: main:831: audio open error")


def test_a_voice_that_keeps_failing_is_left_alone_for_a_while_and_tried_again(
        caplog: pytest.LogCaptureFixture) -> None:
    """No sound card: the engine fails on every phrase. After two failures in a row the voice
    is left alone (one warning, captions going on, no traceback) until its time comes, then
    tried again, and left alone twice as long when it fails again."""
    mute = Mute()
    now = [1000.0]
    captions: list[str] = []
    ann = Announcer(lambda: mute, caption=captions.append, clock=lambda: now[0])
    with caplog.at_level(logging.WARNING, logger="table.voice.announcer"):
        for i in range(10):
            ann.announce(Announcement("draws", (("player", "Aki"), ("count", i)), URGENT))
            assert ann.idle(10)
        assert len(captions) == 10  # every phrase is still written
        assert mute.tried == ["Aki draws 0.", "Aki draws 1."]
        assert ann.quiet_until == now[0] + QUIET_FIRST_S
        now[0] += QUIET_FIRST_S
        ann.announce(turn("Ken"))
        assert ann.idle(10)
        ann.announce(turn("Mio"))
        assert ann.idle(10)
    ann.close()
    assert mute.tried[2:] == ["Ken's turn."]  # tried again once, failed: left twice as long
    assert ann.quiet_until == now[0] + 2 * QUIET_FIRST_S
    assert not any(r.exc_info for r in caplog.records)  # one line each, no traceback
    # what failed (three times), a new engine once, then left alone (twice): not per phrase
    assert len(caplog.records) == 6
    assert caplog.records[3].getMessage() == ("speech engine failed again on draws: captions "
                                              "only; the voice is tried again in 60 s")


@pytest.mark.parametrize("kind", ["EspeakBackend", "Pyttsx3Backend"])
def test_a_player_that_cannot_play_is_named_in_one_line(kind: str) -> None:
    """aplay with no sound card exits 1: the engine's error names the player and its last
    words, which the announcer logs as one line, whichever backend renders the phrase (the
    pyttsx3 one, a Japanese table's, gave a traceback in the appliance's guest)."""
    from types import SimpleNamespace

    from table.voice import backends as made

    backend = getattr(made, kind).__new__(getattr(made, kind))
    backend.cache = SimpleNamespace(audio=lambda text, lang: b"RIFF")  # type: ignore[assignment]
    backend.player = ["sh", "-c", "cat >/dev/null; echo 'aplay: main:831: audio open error: "
                      "No such file or directory' >&2; exit 1"]
    with pytest.raises(SpeechError) as error:
        backend.speak("Aki draws 2.", "en")
    assert str(error.value) == ("sh could not play (exit 1): aplay: main:831: audio open "
                                "error: No such file or directory")


def test_a_player_gone_since_it_was_found_is_one_line() -> None:
    """A player removed after the backend found it (or one that hangs past its time) is a
    SpeechError of one line, not a traceback from the speaker thread."""
    from table.voice.backends import play

    with pytest.raises(SpeechError) as error:
        play(["/nonexistent/aplay", "-q", "-"], b"RIFF")
    assert str(error.value).startswith("/nonexistent/aplay could not play: ")
    assert "\n" not in str(error.value)
