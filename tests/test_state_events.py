"""The event stream's ``state`` events stay small all evening: the current state, the scores
and the round just finished; the whole history is ``status``'s."""

from __future__ import annotations

import json
import queue
from pathlib import Path
from typing import Any

from daemon_harness import write_config

from sim.hardware.ptys import PtyReader
from sim.players.scripted import ScriptedTable
from table.journal.history import status
from table.runtime.config import load_config
from table.runtime.daemon import Daemon

PLAYERS = ("Aki", "Ken", "Mio")


class Lines:
    """A text stream the daemon writes JSON lines to, kept as they were written."""

    def __init__(self) -> None:
        self.lines: queue.Queue[str] = queue.Queue()

    def write(self, text: str) -> int:
        for line in text.splitlines():
            self.lines.put(line)
        return len(text)

    def flush(self) -> None:
        return None

    def until(self, kind: str, **fields: Any) -> list[tuple[str, dict[str, Any]]]:
        """The events (line and object) up to the first of ``kind`` with ``fields``."""
        seen = []
        while True:
            line = self.lines.get(timeout=10)
            event = json.loads(line)
            seen.append((line, event))
            if event["type"] == kind and all(event.get(k) == v for k, v in fields.items()):
                return seen


def test_state_events_carry_the_round_just_finished_not_every_round(tmp_path: Path) -> None:
    table = ScriptedTable(PLAYERS, seed=4)
    taps = []
    while len(table.referee.state.results) < 3:
        taps.append(table.tap())
    pad = PtyReader(tmp_path / "pad")
    config = load_config(write_config(tmp_path, PLAYERS))
    stream = Lines()
    daemon = Daemon(config, stream)  # type: ignore[arg-type]
    daemon.start()
    try:
        stream.until("ready")
        states = []
        for n, (_, uid) in enumerate(taps, start=1):
            pad.send_uid(uid)
            seen = stream.until("verdict", n=n)
            if seen[-1][1]["verdict"] != "rejected":
                states += [e for e in stream.until("state", n=n) if e[1]["type"] == "state"]
    finally:
        daemon.stop()
        pad.close()
    # What a consumer that keeps the round just finished from each event builds is the
    # whole history, as ``status`` gives it from the journal.
    history: list[dict[str, Any]] = []
    for _, event in states:
        assert set(event) >= {"n", "state", "scores", "match_over", "last_round"}
        assert "rounds" not in event
        last = event["last_round"]
        if last is not None and last["round"] > len(history):
            history.append({"winner": last["winner"], "points": last["points"]})
    full = status(config.journal_path)
    assert len(full["rounds"]) == 3
    assert history == full["rounds"]
    assert states[-1][1]["scores"] == full["scores"]
    assert states[-1][1]["state"] == full["state"]
    # The round in progress before any finished, and the size does not grow with the rounds.
    assert states[0][1]["last_round"] is None
    sizes = [len(line) for line, e in states if e["last_round"] is not None]
    assert max(sizes) - min(sizes) < 40  # points' digits may differ; no round is repeated
