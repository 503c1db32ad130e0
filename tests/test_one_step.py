"""The table's one step, checked against a recorded evening: every journal row and every event
a daemon wrote for it, in order, byte for byte but the clock."""

from __future__ import annotations

from pathlib import Path

from recorded_evening import Lines, config_for, load, play

from table.runtime.daemon import Daemon
from table.voice.backends import CaptionsBackend


def test_a_recorded_evening_gives_the_same_journal_and_events(tmp_path: Path) -> None:
    setup, items, rows, events = load()
    got_rows, got_events = play(tmp_path, setup, items)
    assert got_rows == rows
    assert len(got_events) == len(events)
    for i, (got, want) in enumerate(zip(got_events, events, strict=True)):
        assert got == want, f"event {i}"


def test_the_buzzer_sounds_for_a_refusal_never_for_a_card_resting_on_a_pad(
        tmp_path: Path) -> None:
    from gpiozero.pins.mock import MockFactory

    setup, items, _, _ = load()
    config = config_for(setup, tmp_path, '[controls]\nbuzzer = 13\npin_factory = "mock"\n')
    stream = Lines()
    factory = MockFactory()
    daemon = Daemon(config, stream, backend=CaptionsBackend,  # type: ignore[arg-type]
                    pin_factory=factory)
    buzzed: list[int] = []
    buzz = daemon.controls.rejected
    daemon.controls.rejected = lambda: (buzzed.append(daemon.inputs), buzz())
    try:
        for item in items[:400]:
            daemon.loop.take(item)
    finally:
        daemon.announcer.close()
        daemon.controls.close()
        daemon.journal.close()
        factory.reset()
    verdicts = [e for e in stream.events if e["type"] == "verdict"]
    resting = {e["n"] for e in verdicts if e["reason"] == "still-on-pad"}
    refused = {e["n"] for e in verdicts if e["reason"] == "not-your-turn"}
    assert resting and refused  # the evening has both
    assert refused <= set(buzzed)
    assert not resting & set(buzzed)
