"""A real daemon killed with SIGKILL at random points of a scripted match, then restarted: each
time it resumes exactly where the uninterrupted run was, and no input it had answered is lost."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from daemon_harness import Daemon, start, tap_all, write_config

from sim.hardware.ptys import PtyReader
from sim.players.scripted import scripted_taps
from table.journal.records import MatchSetup, rebuild, resume, thaw
from table.journal.store import Journal, read_journal
from table.referee.referee import Referee
from table.referee.views import standing_json

PLAYERS = ("Aki", "Ken", "Mio")
TAPS = 160
KILLS = 22


def snapshot(ref: Referee) -> tuple[Any, ...]:
    """Everything the referee knows, hidden hands and hygiene included."""
    return (ref.state, ref.places, ref.on_pad, ref.actor, ref.showing, ref.due, ref.history)


def journal_inputs(folder: Path) -> tuple[MatchSetup, list[Any]]:
    records = read_journal(folder / "journal.sqlite3")
    assert len(records) == 1
    return records[0].setup, records[0].inputs


def play(daemon: Daemon, pad: PtyReader, taps: list[tuple[str, str]], first: int, last: int
         ) -> dict[int, str]:
    """Tap ``taps[first:last]``; the verdicts by input number."""
    return tap_all(daemon, pad, taps[first:last], first)


def test_kill_at_random_points_resumes_exactly(tmp_path: Path) -> None:
    taps = scripted_taps(PLAYERS, TAPS, seed=7)

    # The uninterrupted run: the reference for every point of the match.
    ref_dir = tmp_path / "uninterrupted"
    ref_dir.mkdir()
    pad = PtyReader(ref_dir / "pad")
    daemon, _ = start(write_config(ref_dir, PLAYERS), pad)
    expected = play(daemon, pad, taps, 0, TAPS)
    assert daemon.stop() == 0
    pad.close()
    setup, inputs = journal_inputs(ref_dir)
    assert [(i.reader, i.uid) for i in inputs] == taps
    assert {"accepted", "rejected"} <= set(expected.values())
    assert rebuild(setup, inputs).state.results, "the script plays at least one whole round"

    # The same match, killed at random points.
    rng = random.Random(2024)
    points = sorted(rng.sample(range(1, TAPS - 1), KILLS))
    run_dir = tmp_path / "killed"
    run_dir.mkdir()
    pad = PtyReader(run_dir / "pad")
    config = write_config(run_dir, PLAYERS, journal="snapshot_every = 10")
    snapshots_used = 0
    answered = 0  # inputs whose verdict was published before the kill
    verdicts: dict[int, str] = {}
    in_flight = 0  # kills with a tap written but not yet answered
    for number, point in enumerate([*points, TAPS]):
        daemon, ready = start(config, pad)
        restored = ready["inputs"]
        # Never less than what was answered; at most the one tap in flight at the kill.
        assert answered <= restored <= answered + 1, (answered, restored)
        if restored:
            resumed = next(e for e in daemon.seen if e["type"] == "resumed")
            want = rebuild(setup, inputs[:restored])
            assert {k: resumed[k] for k in ("state", "rounds", "scores", "match_over")} == \
                standing_json(want.state)
            said = [e["key"] for e in daemon.seen if e["type"] == "announcement"]
            assert "match-resumed" in said
            got_setup, got = journal_inputs(run_dir)
            assert got == inputs[:restored]
            assert snapshot(rebuild(got_setup, got)) == snapshot(want)
        if point == TAPS:
            verdicts |= play(daemon, pad, taps, restored, TAPS)
            assert daemon.stop() == 0
            break
        verdicts |= play(daemon, pad, taps, restored, point)
        answered = point
        if number % 2:
            pad.send_uid(taps[point][1])  # killed with a tap in flight
            in_flight += 1
        daemon.kill9()
        # The snapshot the next start resumes from gives exactly the state a full replay gives.
        journal = Journal(run_dir / "journal.sqlite3")
        record = journal.last_match()
        assert record is not None
        snap = journal.snapshot(record)
        journal.close()
        if snap is not None:
            thaw(snap.data, snap.version, setup)  # the daemon's process wrote it: same shape
            snapshots_used += 1
            assert snapshot(resume(setup, record.inputs, snap)) == \
                snapshot(rebuild(setup, record.inputs))
    pad.close()
    assert snapshots_used >= KILLS // 2

    # Every verdict published is the uninterrupted run's; only taps in flight went unanswered.
    assert all(verdicts[n] == expected[n] for n in verdicts)
    assert TAPS - in_flight <= len(verdicts) <= TAPS
    got_setup, got = journal_inputs(run_dir)
    assert got == inputs
    assert snapshot(rebuild(got_setup, got)) == snapshot(rebuild(setup, inputs))
