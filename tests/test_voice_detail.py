"""How much the voice says (``[voice] detail``, ``--voice-detail``): at ``turns`` what it
always said; at ``plays`` each card played, named ("Mio plays yellow one"); at ``everything``
the draws and each player's count too; in English and Japanese. Only the voice says more: the
captions and the table's events are the same at every level, and nothing said names a card
that was not face up on the pile."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from sim.players.bots import make_bot, seat_rng
from sim.tabletop.match import play_match
from sim.tabletop.virtual import SimTable
from table.commands.cli import main
from table.referee.announcements import ROUTINE, Announcement
from table.rules import Draw, Play, make_options
from table.voice.announcer import Announcer
from table.voice.detail import Detail, words


class Recorder:
    """A speech engine that says nothing and keeps what it was given."""

    def __init__(self) -> None:
        self.said: list[str] = []
        self.lock = threading.Lock()

    def speak(self, text: str, lang: str) -> None:
        with self.lock:
            self.said.append(text)


def _round(seed: int, lang: str, listen: Any, say: Any = None) -> SimTable:
    """One round of three quick bots on the simulated table, every event told to ``listen``."""
    table = SimTable(make_options("official"), ["Aki", "Ken", "Mio"], seed, lang=lang,
                     hands="full", say=say)
    table.stream.subscribe(listen)
    bots = [make_bot("heuristic", seat_rng(seed, i)) for i in range(3)]
    with table:
        play_match(table, bots, rounds=1)
    return table


def test_the_phrases_in_english_and_japanese() -> None:
    plays = Announcement("plays", (("player", "Mio"), ("card", "Y1")), ROUTINE)
    assert words(plays, "en") == "Mio plays yellow one."
    assert words(plays, "ja") == "Mioさん、黄色の1。"
    assert words(plays, "ja", {"Mio": "ミオ"}) == "ミオさん、黄色の1。"
    two = Announcement("plays", (("player", "ママ"), ("card", "R5 B5")), ROUTINE)
    assert words(two, "ja") == "ママ、赤の5 と 青の5。"  # ママ takes no さん
    assert words(Announcement("draws", (("player", "Ken"), ("count", 2)), ROUTINE),
                 "en") == "Ken draws 2 cards."
    assert words(Announcement("holds-one", (("player", "Ken"),), ROUTINE), "en"
                 ) == "Ken has one card."


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_each_level_says_what_it_promises_and_names_only_cards_played(lang: str) -> None:
    levels = {level: Detail(level) for level in ("turns", "plays", "everything")}
    heard: dict[str, list[Announcement]] = {level: [] for level in levels}
    actions: list[Any] = []

    def listen(event: Any) -> None:
        if event["type"] == "verdict" and event["verdict"] != "rejected":
            actions.append(event.extra["action"])
        for level, detail in levels.items():
            heard[level].extend(detail.hear(event))

    table = _round(11, lang, listen)
    played = [a for a in actions if isinstance(a, Play)]
    draws = [a for a in actions if isinstance(a, Draw)]
    assert played and draws
    assert heard["turns"] == []
    # plays: every card played, by whom, in order, and nothing else.
    assert [(a.param("player"), a.param("card")) for a in heard["plays"]] == [
        (table.players[p.player], " ".join(c.code for c in p.cards)) for p in played]
    # everything: the plays, a phrase for each draw, and the counts after both.
    every = heard["everything"]
    assert [a for a in every if a.key == "plays"] == heard["plays"]
    assert len([a for a in every if a.key.startswith("draws")]) == len(draws)
    assert len([a for a in every if a.key.startswith("holds")]) >= len(played) + len(draws) - 1
    # Nothing said names a card that was not played: a draw is said by its count.
    named = {code for a in every for code in str(a.param("card") or "").split()}
    assert named <= {c.code for p in played for c in p.cards}
    for ann in every:
        assert words(ann, lang)  # every phrase renders in the table's language


def test_the_voice_says_more_but_the_captions_and_events_stay_the_same() -> None:
    """A demo's wiring: the announcements through ``say``, the stream followed for the rest."""
    runs: dict[str, tuple[list[str], list[str], list[str]]] = {}
    for level in ("turns", "plays"):
        engine = Recorder()
        captions: list[str] = []
        announcer = Announcer(lambda engine=engine: engine, "en", caption=captions.append,
                              max_backlog=10_000, detail=level)
        events: list[str] = []

        def listen(event: Any, announcer: Announcer = announcer, events: list[str] = events
                   ) -> None:
            events.append(repr({k: v for k, v in event.items() if k != "t"}))  # not the clock
            announcer.follow(event)

        _round(11, "en", listen, say=announcer.announce)
        assert announcer.idle(timeout=60)
        announcer.close()
        runs[level] = (engine.said, captions, events)
    turns, plays = runs["turns"], runs["plays"]
    assert not any(" plays " in s for s in turns[0])
    said = [s for s in plays[0] if " plays " in s]
    assert said and all(s.endswith(".") for s in said)
    assert plays[1] == turns[1]  # the captions
    assert plays[2] == turns[2]  # the events, field for field
    assert not any(" plays " in c for c in plays[1])


def test_demo_takes_the_level_and_refuses_another(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["demo", "--fast", "--voice-detail", "loud"])
    assert exit_.value.code == 2
    assert "--voice-detail" in capsys.readouterr().err
    assert main(["demo", "--fast", "--rounds", "1", "--voice-detail", "everything"]) == 0


def test_the_daemon_says_each_card_played_with_detail_plays(
        tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """``[voice] detail = "plays"`` at a real daemon: the voice names the card, the event
    stream (what the web and MQTT get) does not carry the phrase."""
    import web_harness

    plain = web_harness.sim_config
    monkeypatch.setattr(web_harness, "sim_config", lambda *a, **k: plain(*a, **k).replace(
        'backend = "captions"', 'backend = "captions"\ndetail = "plays"', 1))
    with web_harness.web_daemon(tmp_path) as t:
        assert t.daemon.config.voice_detail == "plays"
        t.tap("Y1#1")  # the first card, turned up: said as always
        t.wait("announcement", key="turn", text="Ken's turn.")
        t.tap("Y7#1")  # Ken plays
        t.wait("announcement", key="turn", text="Mio's turn.")
        assert t.daemon.announcer.idle(timeout=20)
        spoken = list(t.daemon.announcer.spoken)
        events: list[Any] = []
        while not t.events.empty():
            events.append(dict(t.events.get()))
    assert spoken[-4:] == ["The first card is yellow one.", "Ken's turn.",
                           "Ken plays yellow seven.", "Mio's turn."], spoken
    assert events and not any("plays" in str(e) for e in events)
