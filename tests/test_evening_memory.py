"""A long evening at one table: what the referee keeps does not grow with the rounds played."""

from __future__ import annotations

import sys

from sim.players.scripted import ScriptedTable
from table.journal.records import UNDO_DEPTH, trim

PLAYERS = ("Aki", "Ken", "Mio", "Yui")


def test_the_undo_history_does_not_copy_every_round_for_every_input() -> None:
    """Each of the last ``UNDO_DEPTH`` inputs keeps a state to go back to. The rounds already
    scored are the same in all of them: held once, not once per input, or the memory of an
    evening grows with rounds x inputs kept (about 1.4 MB after 100,000 taps)."""
    table = ScriptedTable(PLAYERS, seed=1)
    ref = table.referee
    while len(ref.state.results) < 40:
        table.tap()  # refereed on the table's own referee, as the daemon's loop would
        trim(ref)
    assert len(ref.history) == UNDO_DEPTH
    held = {id(snap.state.results): snap.state.results for snap in ref.history}
    kept = sum(sys.getsizeof(r) for r in held.values())
    assert kept < 10 * sys.getsizeof(ref.state.results), f"{len(held)} copies, {kept} bytes"
