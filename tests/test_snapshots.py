"""Snapshots of the referee are read back only by code of the shape that wrote them: a class
in them changed since (a field added to the options) means the whole match is replayed, never
a referee thawed with its values shifted into the wrong fields."""

from __future__ import annotations

import dataclasses
import importlib
from typing import Any

import pytest
from test_journal import PLAYERS, played

from table.inputs import ReaderRole
from table.journal.records import MatchSetup, Snapshot, StaleSnapshot, freeze, rebuild, resume, thaw
from table.referee.registry import virtual_deck
from table.rules import make_options

SETUP = MatchSetup(PLAYERS, make_options("official", target=0, uno_penalty=4, draw="until-playable",
                                         challenge_penalty=3),
                   0, (ReaderRole("pad", "play"),), virtual_deck())


def with_a_field_inserted(cls: type) -> type:
    """``cls`` as a later version might have it: the same name and module, one field more
    before all the others."""
    fields: list[tuple[str, Any, Any]] = [("inserted", "bool", dataclasses.field(default=False))]
    for f in dataclasses.fields(cls):
        given = {"default": f.default} if f.default is not dataclasses.MISSING \
            else {"default_factory": f.default_factory}
        fields.append((f.name, f.type, dataclasses.field(**given)))  # type: ignore[call-overload]
    changed = dataclasses.make_dataclass(cls.__name__, fields, frozen=True, slots=True)
    changed.__module__, changed.__qualname__ = cls.__module__, cls.__qualname__
    return changed


def by_name(value: Any, cls: type) -> dict[str, Any]:
    return {f.name: getattr(value, f.name) for f in dataclasses.fields(cls)}


def test_a_snapshot_of_the_same_code_is_used() -> None:
    inputs, _ = played(120)
    live = rebuild(SETUP, inputs)
    data, version = freeze(live)
    thawed = thaw(data, version, SETUP)
    assert thawed.state == live.state and thawed.history == live.history


@pytest.mark.parametrize("where", ["table.rules.options.Options",
                                   "table.rules.variant_state.Extra"])
def test_a_snapshot_of_another_shape_is_replayed(monkeypatch: pytest.MonkeyPatch, where: str
                                                 ) -> None:
    inputs, _ = played(120)
    live = rebuild(SETUP, inputs)
    data, version = freeze(live)  # written by this code...
    module_name, _, name = where.rpartition(".")
    module = importlib.import_module(module_name)
    original = getattr(module, name)
    monkeypatch.setattr(module, name, with_a_field_inserted(original))  # ...read by the next
    with pytest.raises(StaleSnapshot):
        thaw(data, version, SETUP)
    resumed = resume(SETUP, inputs, Snapshot(len(inputs), data, version))
    assert by_name(resumed.state.options, type(SETUP.options)) == by_name(SETUP.options,
                                                                         type(SETUP.options))
    assert by_name(resumed.state.extra, type(live.state.extra)) == \
        by_name(live.state.extra, type(live.state.extra))
    assert resumed.state.hands == live.state.hands and resumed.state.scores == live.state.scores
