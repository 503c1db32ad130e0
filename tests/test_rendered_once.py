"""An announcement is rendered once: the table's step writes its words for the event stream,
and the caption, the phrase cache, the voice and the simulator's transcript take those words
instead of rendering them again (the daemon's path, the demo's and the simulator's)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from recorded_evening import Lines, config_for, load

import sim.tabletop.virtual
import sim.tabletop.web_people
import table.runtime.daemon
import table.runtime.step
import table.voice.announcer
from sim.players.bots import make_bot, seat_rng
from sim.tabletop.match import play_match
from sim.tabletop.virtual import SimTable
from table.referee import announcements
from table.referee.announcements import Announcement
from table.rules import make_options
from table.voice.announcer import Announcer

assert sim.tabletop.virtual and sim.tabletop.web_people and table.runtime.daemon  # loaded
assert table.runtime.step and table.voice.announcer


def counted(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every rendering of an announcement from now on (in any module that imported
    ``render``): the words it made."""
    original = announcements.render
    made: list[str] = []

    def render(ann: Announcement, lang: str = "en", pronounce: object = None) -> str:
        text = original(ann, lang, pronounce)  # type: ignore[arg-type]
        made.append(text)
        return text

    for module in list(sys.modules.values()):
        if getattr(module, "render", None) is original:
            monkeypatch.setattr(module, "render", render)
    return made


class Ahead:
    """A phrase cache that keeps what it was asked to render ahead."""

    def __init__(self) -> None:
        self.texts: list[str] = []

    def ahead(self, text: str, lang: str) -> None:
        self.texts.append(text)


class Voice:
    """A speech engine that keeps what it said, with a phrase cache."""

    def __init__(self) -> None:
        self.cache = Ahead()
        self.said: list[str] = []

    def speak(self, text: str, lang: str) -> None:
        self.said.append(text)


def test_the_daemon_renders_each_announcement_once_for_the_stream_cache_and_voice(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    setup, items, _, _ = load()
    config = config_for(setup, tmp_path)
    stream = Lines()
    voice = Voice()
    daemon = table.runtime.daemon.Daemon(config, stream, backend=lambda: voice)
    assert daemon.announcer.idle()
    made = counted(monkeypatch)
    try:
        for item in items[:150]:
            before, events = len(made), len(stream.events)
            daemon.loop.take(item)
            assert daemon.announcer.idle()
            texts = [e["text"] for e in stream.events[events:] if e["type"] == "announcement"]
            assert made[before:] == texts, f"{item}: rendered {made[before:]}, said {texts}"
    finally:
        daemon.announcer.close()
        daemon.journal.close()
    written = [e["text"] for e in stream.events if e["type"] == "announcement"]
    assert len(written) > 30  # the evening says things
    ahead = voice.cache.texts  # the stream's words, ahead (once the engine had started)
    assert ahead and ahead == written[len(written) - len(ahead):]
    assert set(voice.said) <= set(written)  # and said (a newer turn call replaces an older)


def test_the_simulator_renders_each_announcement_once_for_stream_transcript_and_voice(
        monkeypatch: pytest.MonkeyPatch) -> None:
    voice = Voice()
    announcer = Announcer(lambda: voice)
    made = counted(monkeypatch)
    players = ["Aki", "Ken", "Mio"]
    streamed: list[str] = []
    with SimTable(make_options("official"), players, 3, say=announcer.announce) as sim:
        sim.stream.subscribe(
            lambda e: streamed.append(e["text"]) if e["type"] == "announcement" else None)
        play_match(sim, [make_bot("heuristic", seat_rng(3, i)) for i in range(3)], rounds=1)
        sim.tell(Announcement("voice-test", (), 2))  # the web admin's voice test
    assert announcer.idle()
    announcer.close()
    transcript = [line.removeprefix("  > ") for line in sim.transcript if line.startswith("  > ")]
    assert len(transcript) > 20
    assert made == transcript  # one rendering each, in the order said
    assert streamed == transcript[-len(streamed):]  # the opening words are not on the stream
    ahead = voice.cache.texts
    assert ahead and ahead == transcript[len(transcript) - len(ahead):]
    assert set(voice.said) <= set(transcript)


def test_the_voice_renders_again_only_an_announcement_whose_names_are_said_otherwise(
        monkeypatch: pytest.MonkeyPatch) -> None:
    voice = Voice()
    announcer = Announcer(lambda: voice, lang="ja", spoken_names={"陽菜": "ひな"})
    made = counted(monkeypatch)
    captioned = Announcement("uno", (("player", "陽菜"),), 2)
    plain = Announcement("uno", (("player", "Ken"),), 2)
    announcer.announce(captioned, announcements.render(captioned, "ja"))
    announcer.announce(plain, "ケンさん、ウノ！")  # the table's words, taken as they are
    assert announcer.idle()
    announcer.close()
    assert len(made) == 2  # the caption above, and its spoken words once: ひな
    assert "ひな" in made[1] and "陽菜" not in made[1]
    assert voice.said == [made[1], "ケンさん、ウノ！"]
