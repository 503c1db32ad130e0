"""The daemon end to end: a damaged journal repaired at start, a full disk that does not stop
the game, clean stops on signals, pronunciations and the phrase cache."""

from __future__ import annotations

import json
import queue
import signal
from pathlib import Path
from typing import Any

import pytest
from daemon_harness import start, tap_all, write_config

import table.voice.backends as backends
from sim.hardware.ptys import PtyReader
from sim.players.scripted import scripted_taps
from table.errors import TableError
from table.journal.records import rebuild
from table.journal.store import Journal, read_journal
from table.referee.registry import parse_tag
from table.referee.views import standing_json
from table.runtime.config import Config, load_config
from table.runtime.daemon import Daemon, backend_factory, run, setup_of
from table.voice.backends import CaptionsBackend, PhraseCache

PLAYERS = ("Aki", "Ken", "Mio")


class Stream:
    """A text stream the daemon writes JSON lines to, read back through a queue."""

    def __init__(self) -> None:
        self.events: queue.Queue[dict[str, Any]] = queue.Queue()

    def write(self, text: str) -> int:
        for line in text.splitlines():
            self.events.put(json.loads(line))
        return len(text)

    def flush(self) -> None:
        return None

    def until(self, kind: str, **fields: Any) -> list[dict[str, Any]]:
        """The events up to the first of ``kind`` with ``fields``, that one included."""
        seen = []
        while True:
            event = self.events.get(timeout=10)
            seen.append(event)
            if event["type"] == kind and all(event.get(k) == v for k, v in fields.items()):
                return seen

    def wait(self, kind: str, **fields: Any) -> dict[str, Any]:
        return self.until(kind, **fields)[-1]


def full_disk(tmp_path: Path) -> tuple[PtyReader, Config, Journal, Stream, Daemon]:
    """A daemon, ready, whose journal cannot grow past its first match's set-up."""
    pad = PtyReader(tmp_path / "pad")
    config = load_config(write_config(tmp_path, PLAYERS))
    journal = Journal(config.journal_path, preallocate=False)
    journal.begin(setup_of(config))
    pages = journal.db.execute("PRAGMA page_count").fetchone()[0]
    journal.close()
    # SQLite's own limit on the file's size: writes fail with SQLITE_FULL, as on a full disk.
    journal = Journal(config.journal_path, max_pages=pages, preallocate=False)
    stream = Stream()
    daemon = Daemon(config, stream, journal=journal)  # type: ignore[arg-type]
    daemon.start()
    stream.wait("ready")
    return pad, config, journal, stream, daemon


def test_a_full_disk_is_announced_and_the_game_goes_on(tmp_path: Path) -> None:
    pad, config, journal, stream, daemon = full_disk(tmp_path)
    taps = scripted_taps(PLAYERS, 120, seed=3)
    full_at = None
    for i, (_, uid) in enumerate(taps[:100]):
        pad.send_uid(uid)
        seen = stream.until("verdict", n=i + 1)
        states = [e["state"] for e in seen if e["type"] == "journal"]
        if full_at is None and states:
            assert states == ["full"]
            full_at = i
            assert stream.until("announcement")[-1]["key"] == "journal-full"
    assert full_at is not None, "the journal's file reached its size limit"
    assert len(journal.waiting) == 100 - full_at  # every input kept, in memory, in order
    assert len(read_journal(config.journal_path)[-1].inputs) == full_at

    journal.db.execute("PRAGMA max_page_count=100000")  # space again
    for i, (_, uid) in enumerate(taps[100:], start=100):
        pad.send_uid(uid)
        seen = stream.until("verdict", n=i + 1)
        if i == 100:
            assert [e["state"] for e in seen if e["type"] == "journal"] == ["saved"]
            assert stream.until("announcement")[-1]["key"] == "journal-back"
    assert not journal.waiting
    live = standing_json(daemon.referee.state)
    daemon.stop()
    pad.close()
    record = read_journal(config.journal_path)[-1]
    assert [(i.reader, i.uid) for i in record.inputs] == taps
    assert standing_json(rebuild(record.setup, record.inputs).state) == live


def played_journal(tmp_path: Path, count: int, seed: int) -> tuple[PtyReader, Path, Path]:
    """``count`` taps at a real daemon, stopped: its pad, configuration and journal."""
    pad = PtyReader(tmp_path / "pad")
    config = write_config(tmp_path, PLAYERS)
    daemon, _ = start(config, pad)
    tap_all(daemon, pad, scripted_taps(PLAYERS, count, seed=seed))
    assert daemon.stop() == 0
    return pad, config, tmp_path / "journal.sqlite3"


def test_a_damaged_journal_is_repaired_and_said_aloud(tmp_path: Path) -> None:
    pad, config, path = played_journal(tmp_path, 25, seed=4)
    data = bytearray(path.read_bytes())
    at = data.find(b'"v":"')  # the first input stored: the oldest cell of the last leaf
    for i in range(at, at + 40):
        data[i] ^= 0x3C
    path.write_bytes(bytes(data))

    daemon, ready = start(config, pad)
    repaired = next(e for e in daemon.seen if e["type"] == "journal")
    assert repaired["state"] == "repaired" and "damaged" in repaired["message"]
    said = [e["key"] for e in daemon.seen if e["type"] == "announcement"]
    assert said[:2] == ["journal-repaired", "match-resumed"]
    assert 0 < ready["inputs"] < 25
    assert list(tmp_path.glob("journal.sqlite3.damaged-*"))
    assert daemon.stop() == 0


def test_sigint_stops_cleanly_and_the_next_start_resumes(tmp_path: Path) -> None:
    pad = PtyReader(tmp_path / "pad")
    config = write_config(tmp_path, PLAYERS)
    daemon, _ = start(config, pad)
    tap_all(daemon, pad, scripted_taps(PLAYERS, 10, seed=9))
    daemon.proc.send_signal(signal.SIGINT)
    assert daemon.proc.wait(20) == 0
    assert daemon.wait_type("stopped")["inputs"] == 10
    daemon, ready = start(config, pad)
    assert ready["inputs"] == 10
    assert daemon.stop() == 0


def test_a_changed_table_starts_a_new_match(tmp_path: Path) -> None:
    pad = PtyReader(tmp_path / "pad")
    config = write_config(tmp_path, PLAYERS)
    daemon, _ = start(config, pad)
    pad.send_uid(scripted_taps(PLAYERS, 1)[0][1])
    daemon.wait_type("verdict")
    assert daemon.stop() == 0
    config = write_config(tmp_path, ("Aki", "Ken"))
    daemon, ready = start(config, pad)
    assert ready["inputs"] == 0
    assert any(e["type"] == "new-match" for e in daemon.seen)
    assert daemon.stop() == 0
    assert len(read_journal(tmp_path / "journal.sqlite3")) == 2


def test_pronunciations_are_spoken_and_the_cache_is_prewarmed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pad = PtyReader(tmp_path / "pad")
    text = write_config(tmp_path, PLAYERS).read_text().replace(
        'language = "en"\n', 'language = "ja"\npronunciations = { Aki = "あき", Ken = "けん" }\n'
    )
    (tmp_path / "table.toml").write_text(text, encoding="utf-8")
    config = load_config(tmp_path / "table.toml")
    rendered: list[tuple[str, str]] = []

    def render(text: str, lang: str) -> bytes:
        rendered.append((text, lang))
        return b""

    class Recording(CaptionsBackend):
        def __init__(self) -> None:
            self.cache = PhraseCache(render=render)

    monkeypatch.setattr(backends, "make_backend", lambda name, folder=None, disk=None: Recording())
    made: Any = backend_factory(config)()  # what the speaker thread does at start
    assert made.cache.settled(60)  # the phrases render in the background
    texts = [t for t, _ in rendered]
    # Mio, in romaji, is said in kana: Open JTalk would spell the Latin letters
    assert "あきさんの番です。" in texts and "けんさんの番です。" in texts
    assert "ミオさんの番です。" in texts
    assert all(lang == "ja" for _, lang in rendered)

    stream = Stream()
    daemon = Daemon(config, stream, backend=CaptionsBackend)  # type: ignore[arg-type]
    daemon.start()
    said = stream.wait("announcement")
    assert said["text"] == "第1ラウンド。親はあきさんです。"
    daemon.stop()
    pad.close()


def test_the_japanese_voice_loads_its_dictionary_as_it_starts(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Open JTalk's dictionary is loaded while the speech engine starts, not inside its first
    phrase: a phrase has 10 s before its engine is taken for hung, and on a slow board the
    dictionary alone took most of that (the engine was started twice)."""
    text = write_config(tmp_path, PLAYERS).read_text().replace('language = "en"\n',
                                                               'language = "ja"\n')
    (tmp_path / "table.toml").write_text(text, encoding="utf-8")
    config = load_config(tmp_path / "table.toml")
    loaded: list[str] = []

    class Quiet:
        cache = None

        def speak(self, text: str, lang: str) -> None:
            return None

    monkeypatch.setattr(backends, "make_backend", lambda name, folder=None, disk=None: Quiet())
    monkeypatch.setattr("table.voice.openjtalk.japanese_renderer",
                        lambda: loaded.append("dictionary"))
    backend_factory(config)()
    assert loaded == ["dictionary"]


def test_a_japanese_table_starts_its_readers_before_it_looks_up_the_names(
        tmp_path: Path) -> None:
    """Each name's reading still reaches the log, but after the table started (its first words
    and its readers): on a slow board Open JTalk's dictionary, loaded for the readings, held
    back the referee's ``ready`` by tens of seconds (tests/test_japanese_voice.py checks that
    names in kana are checked without it)."""
    pad = PtyReader(tmp_path / "pad")
    text = write_config(tmp_path, PLAYERS).read_text().replace(
        'language = "en"\n', 'language = "ja"\npronunciations = { Aki = "あき", Ken = "けん" }\n')
    (tmp_path / "table.toml").write_text(text, encoding="utf-8")
    daemon, _ = start(tmp_path / "table.toml", pad)
    assert daemon.stop() == 0
    pad.close()
    log = "".join(daemon.stderr)
    first_words = log.index("says: 第1ラウンド。親はあきさんです。")
    assert first_words < log.index("name Aki: said アキ") < log.index("name Mio: said ミオ")


def test_what_fails_to_serve_beside_the_table_stops_the_table_started_before_it(
        tmp_path: Path) -> None:
    """The web view is served once the daemon has started; when it cannot be, ``run`` stops
    the table it started (its journal closed and unlocked) before the error goes up as the
    one line the user reads: no daemon left running behind a failed command."""
    pad = PtyReader(tmp_path / "pad")
    config = load_config(write_config(tmp_path, PLAYERS))

    def broken(daemon: Any, subscribe: Any) -> Any:
        raise TableError("web: cannot serve")

    handlers = signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGINT)
    try:
        with pytest.raises(TableError, match="cannot serve"):
            run(config, None, attach=broken)
    finally:
        signal.signal(signal.SIGTERM, handlers[0])
        signal.signal(signal.SIGINT, handlers[1])
    Journal(config.journal_path).close()  # not "in use by another uno-table"
    pad.close()


def test_seat_buttons_and_turn_leds_on_gpiozero_mock_pins(tmp_path: Path) -> None:
    from gpiozero.pins.mock import MockFactory

    pad = PtyReader(tmp_path / "pad")
    controls = """
[controls]
buzzer = 13
[controls.seats.Aki]
draw = 17
led = 5
[controls.seats.Ken]
draw = 27
pass = 22
led = 6
"""
    text = write_config(tmp_path, ("Aki", "Ken")).read_text().replace("[voice]",
                                                                       controls + "[voice]")
    (tmp_path / "table.toml").write_text(text, encoding="utf-8")
    config = load_config(tmp_path / "table.toml")
    pins = MockFactory()
    stream = Stream()
    daemon = Daemon(config, stream, pin_factory=pins)  # type: ignore[arg-type]
    daemon.start()
    try:
        stream.wait("ready")
        pad.send_uid(config.deck.uid_of(parse_tag("R5#1")) or "")  # the card turned up
        stream.wait("verdict", n=1)
        assert pins.pin(6).state and not pins.pin(5).state  # Ken plays first: his LED
        pins.pin(17).drive_low()  # Aki presses draw out of turn
        pins.pin(17).drive_high()
        seen = stream.until("verdict", n=2)
        assert seen[-1]["verdict"] == "rejected" and seen[-1]["reason"] == "not-your-turn"
        assert {"type": "press", "seat": "Aki", "button": "draw"}.items() <= next(
            e for e in seen if e["type"] == "press").items()
        pins.pin(27).drive_low()  # Ken draws...
        pins.pin(27).drive_high()
        assert stream.wait("verdict", n=3)["verdict"] == "accepted"
        pins.pin(22).drive_low()  # ...and passes: Aki's turn, her LED
        pins.pin(22).drive_high()
        assert stream.wait("verdict", n=4)["verdict"] == "accepted"
        assert pins.pin(5).state and not pins.pin(6).state
        assert any(s.state for s in pins.pin(13).states)  # the buzzer sounded once
    finally:
        daemon.stop()
        pins.reset()
        pad.close()
    record = read_journal(config.journal_path)[-1]
    assert [type(i).__name__ for i in record.inputs] == ["TagRead", "Press", "Press", "Press"]


def test_next_round_token_after_the_match_starts_a_new_match(tmp_path: Path) -> None:
    from sim.players.scripted import ScriptedTable
    from table.referee.registry import Token
    from table.rules import Phase, make_options

    table = ScriptedTable(PLAYERS, make_options(target=1), seed=6)
    taps = []
    while table.referee.state.phase is not Phase.MATCH_OVER:
        taps.append(table.tap())
    pad = PtyReader(tmp_path / "pad")
    daemon, _ = start(write_config(tmp_path, PLAYERS, rules="target = 1"), pad)
    tap_all(daemon, pad, taps)
    over = daemon.wait_for(lambda e: e["type"] == "state" and e["n"] == len(taps))
    assert over["match_over"] and over["scores"]["Aki"] + over["scores"]["Ken"] \
        + over["scores"]["Mio"] > 1
    pad.send_uid(table.deck.uid_of(Token("next-round")) or "")
    daemon.wait_type("new-match")
    assert daemon.wait_type("announcement")["key"] == "round-start"
    assert daemon.stop() == 0
    records = read_journal(tmp_path / "journal.sqlite3")
    assert [len(r.inputs) for r in records] == [len(taps) + 1, 0]


def test_gpio_controls_without_pins_are_a_one_line_error(tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    pad = PtyReader(tmp_path / "pad")
    text = write_config(tmp_path, PLAYERS).read_text().replace(
        "[voice]", "[controls]\nbuzzer = 13\n[voice]")
    (tmp_path / "table.toml").write_text(text, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != "GPIOZERO_PIN_FACTORY"}
    done = subprocess.run(
        [sys.executable, "-m", "table.commands.cli", "run",
         "--config", str(tmp_path / "table.toml")],
        capture_output=True, text=True, timeout=60, env=env,
    )
    pad.close()
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith(f"uno-table: {tmp_path / 'table.toml'}: controls: GPIO13 "
                               "(buzzer): BadPinFactory: ")
    # what fixes it, not the extra that once broke it
    assert lines[0].endswith("no GPIO library: on a Pi sudo ./uno install again (or pip "
                             "uninstall -y RPi.GPIO rpi-lgpio, then pip install '.[pi]' && pip "
                             "install --no-deps mfrc522==0.0.7); elsewhere set [controls] "
                             'pin_factory = "mock"')
    assert not (tmp_path / "journal.sqlite3").exists()  # nothing started


def test_nothing_published_or_logged_names_a_tag(tmp_path: Path) -> None:
    """Seat pads and shown hands are hidden information: the event stream names readers, and
    the INFO log says only what is said aloud."""
    pad = PtyReader(tmp_path / "pad")
    daemon, _ = start(write_config(tmp_path, PLAYERS), pad)
    taps = scripted_taps(PLAYERS, 120, seed=8)
    tap_all(daemon, pad, taps)
    assert daemon.stop() == 0
    stream = [json.dumps(e) for e in daemon.seen] + ["".join(daemon.stderr)]
    for _, uid in taps:
        assert not any(uid in text for text in stream)
    assert all("uid" not in e for e in daemon.seen)
    # The stream's contract: every event has t and type; only verdict events carry a verdict.
    assert all(isinstance(e["t"], float) and isinstance(e["type"], str) for e in daemon.seen)
    assert all(e["type"] == "verdict" for e in daemon.seen if "verdict" in e)
    verdicts = [e for e in daemon.seen if e["type"] == "verdict"]
    assert len(verdicts) == len(taps)
    assert {e["verdict"] for e in verdicts} <= {"accepted", "rejected", "penalty"}
    said = {e["text"] for e in daemon.seen if e["type"] == "announcement"}
    logged = {line.split("says: ", 1)[1].strip() for line in daemon.stderr if "says: " in line}
    assert logged <= said


def test_events_to_a_file_are_flushed_one_by_one(tmp_path: Path) -> None:
    """``--events FILE`` (here a named pipe, read as the daemon writes): each event arrives
    whole and at once, not when a buffer fills."""
    import os
    import subprocess
    import sys
    import threading

    pad = PtyReader(tmp_path / "pad")
    config = write_config(tmp_path, PLAYERS)
    fifo = tmp_path / "events"
    os.mkfifo(fifo)
    proc = subprocess.Popen([sys.executable, "-m", "table.commands.cli", "run",
                             "--config", str(config), "--events", str(fifo)],
                            stderr=subprocess.DEVNULL)
    lines: queue.Queue[dict[str, Any]] = queue.Queue()

    def pump() -> None:
        with open(fifo, encoding="utf-8") as stream:
            for line in stream:
                lines.put(json.loads(line))

    threading.Thread(target=pump, daemon=True).start()

    def next_of(kind: str) -> dict[str, Any]:
        while True:
            event = lines.get(timeout=20)
            if event["type"] == kind:
                return event

    try:
        next_of("ready")
        pad.send_uid(scripted_taps(PLAYERS, 1)[0][1])
        assert next_of("verdict")["verdict"] == "accepted"
    finally:
        proc.terminate()
        assert proc.wait(20) == 0
        pad.close()
    assert next_of("stopped")["inputs"] == 1


def test_a_journal_that_cannot_be_written_is_refused_at_start(tmp_path: Path) -> None:
    """A journal its user may only read: one line naming the cause and exit 2, before the
    daemon says ready; the journal keeps its inputs and is read as before."""
    from daemon_harness import refusal, refused
    from unprivileged import check_held, unprivileged

    check_held(tmp_path)
    pad, config, path = played_journal(tmp_path, 10, seed=9)
    path.chmod(0o444)
    before = path.read_bytes()
    try:
        done = refused(config, unprivileged)
    finally:
        pad.close()
    assert refusal(done.returncode, done.stderr) == (
        f"uno-table: {path}: the journal cannot be written: Permission denied (the user running"
        " uno-table must be able to write it and its folder)")
    events = [json.loads(line)["type"] for line in done.stdout.splitlines()]
    assert events == ["start"]
    assert path.read_bytes() == before
    assert len(read_journal(path)[-1].inputs) == 10


def test_a_stop_that_cannot_write_keeps_the_inputs_beside_the_journal(tmp_path: Path) -> None:
    """Stopped while the disk is full: the waiting inputs go to a file beside the journal, the
    stop says so and exits non-zero; the next start writes them into the journal."""
    from table.runtime.daemon import EXIT_UNSAVED

    pad, config, journal, stream, daemon = full_disk(tmp_path)
    taps = scripted_taps(PLAYERS, 80, seed=3)
    for i, (_, uid) in enumerate(taps):
        pad.send_uid(uid)
        stream.wait("verdict", n=i + 1)
    waiting = len(journal.waiting)
    assert waiting > 0 and not journal.healthy
    live = standing_json(daemon.referee.state)
    assert daemon.stop() == EXIT_UNSAVED
    kept = stream.until("stopped")
    said = next(e for e in kept if e["type"] == "journal" and e["state"] == "unsaved")
    side = tmp_path / "journal.sqlite3.unsaved"
    assert said["kept"] == waiting and said["lost"] == 0 and said["file"] == str(side)
    assert oct(side.stat().st_mode & 0o777) == oct(0o600)
    # status reads them already; the next start writes them into the journal.
    record = read_journal(config.journal_path)[-1]
    assert [(i.reader, i.uid) for i in record.inputs] == taps
    daemon, ready = start(write_config(tmp_path, PLAYERS), pad)
    assert ready["inputs"] == len(taps)
    assert any(e["type"] == "journal" and e.get("state") == "restored"
               and e["inputs"] == waiting for e in daemon.seen)
    resumed = next(e for e in daemon.seen if e["type"] == "resumed")
    assert {k: resumed[k] for k in live} == live
    assert daemon.stop() == 0
    pad.close()
    assert not side.exists()
    record = read_journal(config.journal_path)[-1]
    assert [(i.reader, i.uid) for i in record.inputs] == taps
