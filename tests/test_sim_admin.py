"""The simulator's web people mode: the admin page's undo is the admin's own input there too,
on the stream as what it is, with the table top taken back with the referee."""

from __future__ import annotations

from typing import Any

from sim.tabletop.virtual import SimTable
from sim.tabletop.web_people import SimRemote
from table.rules import Draw, make_options


def test_the_admin_undo_in_people_mode_taps_no_token() -> None:
    events: list[dict[str, Any]] = []
    with SimTable(make_options("official"), ["Aki", "Ken", "Mio"], 3) as sim:
        sim.deal()
        before = sim.state
        turn = before.turn
        assert sim.perform(turn, Draw(turn)).verdict == "accepted"
        sim.stream.subscribe(lambda e: events.append(dict(e)))
        remote = SimRemote(sim, plays_cards=False)
        remote.admin("undo")
        remote.serve()
        assert sim.state == before
        sim.check()  # the card drawn went back on the pile: the table top agrees
    kinds = [e["type"] for e in events if e["type"] != "settled"]
    assert kinds[:3] == ["admin", "verdict", "state"]  # no tag event: no token was tapped
    assert events[0]["action"] == "undo"
    assert (events[1]["input"], events[1]["action"], events[1]["verdict"]) == (
        "admin", "undo", "accepted")
