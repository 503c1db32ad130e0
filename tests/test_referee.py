"""The referee driven directly, for what scenarios cannot say: time, set-up errors and tags of
another deck."""

from __future__ import annotations

import pytest
from pad_table import pad_referee, uid

from table.inputs import Press, ReaderRole, TagRead, Tick
from table.referee.announcements import render
from table.referee.referee import Referee, RefereeError
from table.referee.registry import virtual_deck
from table.rules import make_options


def referee() -> Referee:
    return pad_referee("W R1 R2", "B1 B2 B3")


def test_missing_colour_is_asked_for_again_after_a_few_seconds() -> None:
    ref = referee()
    assert ref.handle(TagRead("pad", uid(ref, "W#1"), t=10.0)).verdict == "accepted"
    assert ref.handle(Tick(12.0)).announcements == ()
    out = ref.handle(Tick(15.5))
    assert [render(a) for a in out.announcements] == [
        "Aki, please choose a colour for the wild."
    ]
    assert ref.handle(Tick(16.0)).announcements == ()
    ref.handle(TagRead("pad", uid(ref, "token:color:green"), t=17.0))
    assert ref.state.color is not None and ref.state.color.value == "green"
    assert ref.handle(Tick(40.0)).announcements == ()


def test_a_tag_of_another_edition_is_an_unknown_card() -> None:
    ref = referee()
    other = virtual_deck("2018-112")
    wsh = next(u for u, t in other.tags.items() if t.code == "WSH#1")
    before = ref.state
    out = ref.handle(TagRead("pad", wsh))
    assert (out.verdict, out.reason) == ("rejected", "unknown-tag")
    assert [render(a) for a in out.announcements] == ["Unknown card. Please try another."]
    assert ref.state is before


def test_uno_button_out_of_time_is_refused() -> None:
    ref = referee()
    ref.handle(TagRead("pad", uid(ref, "R1#1")))  # Aki: 2 cards left
    assert ref.handle(Press(0, "uno")).reason == "uno-not-due"


@pytest.mark.parametrize(
    ("readers", "message"),
    [
        ([ReaderRole("pad", "play"), ReaderRole("pad2", "play")], "exactly one play pad"),
        ([ReaderRole("seat", "seat", None), ReaderRole("pad", "play")], "needs one of the players"),
        ([ReaderRole("pad", "floor")], "unknown role 'floor'"),
    ],
)
def test_table_setup_errors(readers: list[ReaderRole], message: str) -> None:
    with pytest.raises(RefereeError, match=message):
        Referee.create(make_options(), ["Aki", "Ken"], virtual_deck(), readers)


def test_reader_lost_and_back_are_said_and_change_nothing() -> None:
    from table.inputs import ReaderStatus

    ref = referee()
    before = ref.state
    assert ref.handle(ReaderStatus("pad", "connecting", 1.0)).announcements == ()
    assert ref.handle(ReaderStatus("pad", "live", 1.1)).announcements == ()
    lost = ref.handle(ReaderStatus("pad", "lost", 5.0))
    assert [render(a) for a in lost.announcements] == ["The pad reader is disconnected."]
    back = ref.handle(ReaderStatus("pad", "live", 9.0))
    assert [render(a) for a in back.announcements] == ["The pad reader is back."]
    assert ref.state is before
    assert ref.handle(TagRead("pad", uid(ref, "R1#1"), 9.5)).verdict == "accepted"
