"""Every value of every rules option, and every preset, played for a round on the simulated
table at 2 to 6 players, on exact reads and with ``--noise harsh``: the referee takes every
move the rules allow from the table's own inputs, and the table top, the referee and a replay
on the pure engine agree at the end of each round.

The options and their values are read from :data:`table.rules.options.SPECS` (an option added
there is played here with no change): each word of a choice, both sides of a flag, and the
lowest, default and highest of a number. Rounds are short (a small hand, except where the
hand size is the option played) so that the whole runs in seconds.
"""

from __future__ import annotations

import pytest

from sim.tabletop.demo import DemoConfig, DemoResult, run_demo
from table.rules import PRESETS
from table.rules.options import SPECS, OptionSpec

PLAYERS = range(2, 7)
HAND = "3"  # cards dealt, unless the hand size is the option played
NOISY_HAND = "2"


def values(spec: OptionSpec) -> list[str]:
    """The values of ``spec`` played here, as ``--set`` writes them."""
    if isinstance(spec.default, bool):
        return ["false", "true"]
    if isinstance(spec.default, int):
        return [str(n) for n in sorted({spec.low, spec.default, spec.high})]
    return list(spec.choices)


VALUES = [(name, value) for name, spec in SPECS.items() for value in values(spec)]


def play(players: int, seed: int, overrides: dict[str, str], preset: str = "official",
         noise: str = "off", hands: str = "full") -> DemoResult:
    """One round at ``players``; it ends with a winner, checked by the simulator."""
    cfg = DemoConfig(fast=True, voice="captions", rounds=1, seed=seed, players=players,
                     preset=preset, overrides=overrides, noise=noise, hands=hands)
    result = run_demo(cfg)
    assert len(result.winners) == 1 or result.match_over, result.transcript[-5:]
    return result


def test_the_values_are_read_from_the_options() -> None:
    """Each option of the rules is here with each of its choices (72 in docs/rules.md when
    this was written; an option or choice added later is counted too)."""
    assert {name for name, _ in VALUES} == set(SPECS)
    assert ("customizable_effect", "others-draw-one") in VALUES
    assert ("seven_o", "true") in VALUES and ("hand_size", "20") in VALUES
    assert len(VALUES) >= 72


@pytest.mark.parametrize(("index", "name", "value"),
                         [(i, n, v) for i, (n, v) in enumerate(VALUES)],
                         ids=[f"{n}={v}" for n, v in VALUES])
def test_every_value_plays_a_round(index: int, name: str, value: str) -> None:
    players = PLAYERS[index % len(PLAYERS)]
    overrides = {"hand_size": HAND, name: value}
    if name == "hand_size" and int(value) * players > 100:
        players = 2  # twenty cards each: a table of two (six hands would hold the whole deck)
    play(players, index, overrides)


@pytest.mark.parametrize("preset", sorted(PRESETS))
@pytest.mark.parametrize("players", PLAYERS)
def test_every_preset_plays_a_round(preset: str, players: int) -> None:
    play(players, players, {"hand_size": HAND}, preset=preset)


def bundles() -> list[dict[str, str]]:
    """Tables of rules that, together, hold every value of every option: table ``k`` sets each
    option to its ``k``-th value, or past the end of its list to its default (a small hand for
    the hand size), so as many tables as the longest list."""
    lists = {name: values(spec) for name, spec in SPECS.items()}
    rest = {name: str(spec.default).lower() for name, spec in SPECS.items()}
    rest["hand_size"] = NOISY_HAND
    count = max(len(v) for v in lists.values())
    return [{name: vals[k] if k < len(vals) else rest[name] for name, vals in lists.items()}
            for k in range(count)]


@pytest.mark.parametrize("k", range(len(bundles())))
def test_every_value_plays_on_a_harsh_radio(k: int) -> None:
    """All options at once, one value each, with ``--noise harsh``: the pads are chip models
    on a noisy radio polled by the real reader backend. With only a play pad (the cheap
    table), apart from a hand of one card, where every seat pad is on the radio too."""
    rules = bundles()[k]
    players = PLAYERS[k % len(PLAYERS)]
    if int(rules["hand_size"]) * players > 100:
        players = 2  # (six hands of twenty would hold the whole deck)
    hands = "full" if rules["hand_size"] == "1" else "counts"
    play(players, k, rules, noise="harsh", hands=hands)


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_every_preset_plays_on_a_harsh_radio(preset: str) -> None:
    players = PLAYERS[sorted(PRESETS).index(preset) % len(PLAYERS)]
    play(players, 1, {"hand_size": NOISY_HAND}, preset=preset, noise="harsh", hands="counts")
