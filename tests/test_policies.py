"""Self-play policies: what each one does with the actions the engine offers, and that a seed
fixes the games."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from table.analysis.policies import POLICIES, Heuristic, Policy, PolicyError, make_policy
from table.analysis.selfplay import RandomTable, Stats, rounds, selfplay, shuffle
from table.cards import WILD_DRAW_FOUR, edition_cards, parse_cards
from table.rules import (
    Action,
    CallUno,
    Catch,
    Challenge,
    Deal,
    Draw,
    Play,
    State,
    legal_actions,
    make_options,
    new_game,
)

ROOT = Path(__file__).resolve().parent.parent


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "table.commands.cli", *args],
        capture_output=True, text=True, cwd=ROOT,
    )


@dataclass
class Decision:
    acts: tuple[Action, ...]
    chosen: Action | None
    has_drawn: bool


@dataclass
class Recorder:
    """Passes every decision through to ``inner`` and keeps it."""

    inner: Policy
    name: str = "recorder"
    turns: list[Decision] = field(default_factory=list)
    reactions: list[Decision] = field(default_factory=list)

    def act(self, s: State, acts: Sequence[Action]) -> Action:
        chosen = self.inner.act(s, acts)
        self.turns.append(Decision(tuple(acts), chosen, s.has_drawn))
        return chosen

    def react(self, s: State, acts: Sequence[Action]) -> Action | None:
        chosen = self.inner.react(s, acts)
        self.reactions.append(Decision(tuple(acts), chosen, s.has_drawn))
        return chosen


def recorded(policy: str, games: int, players: int, seed: int) -> tuple[Recorder, Stats]:
    table = RandomTable(make_options("official"), players, seed, policy)
    recorder = Recorder(table.policy)
    table.policy = recorder
    stats = Stats()
    for _ in rounds(table, games, stats):
        pass
    return recorder, stats


def is_wd4(a: Action) -> bool:
    return isinstance(a, Play) and a.cards[0].rank == WILD_DRAW_FOUR


@pytest.mark.parametrize("players", [2, 4])
def test_play_first_plays_when_it_can_draws_only_when_it_cannot(players: int) -> None:
    rec, stats = recorded("play-first", 60, players, seed=5)
    assert stats.games == 60 and stats.capped == 0
    plays_seen = drawn_plays = 0
    for d in rec.turns:
        assert d.chosen in d.acts
        assert not isinstance(d.chosen, Challenge)
        ordinary = [a for a in d.acts if isinstance(a, Play) and not is_wd4(a)]
        if ordinary:
            plays_seen += 1
            # UNO before the play that leaves one card; otherwise a play of a card other than a
            # Wild Draw Four, never a draw.
            assert isinstance(d.chosen, CallUno | Play), d
            assert not is_wd4(d.chosen)
            drawn_plays += d.has_drawn
        elif any(is_wd4(a) for a in d.acts):
            assert isinstance(d.chosen, CallUno) or is_wd4(d.chosen), d
        elif any(isinstance(a, Draw) for a in d.acts):
            assert isinstance(d.chosen, Draw), d
    assert plays_seen > 100 and drawn_plays > 10  # the drawn card is played when it plays


def test_play_first_always_calls_uno_and_never_challenges_or_catches() -> None:
    rec, stats = recorded("play-first", 80, 3, seed=2)
    calls = [d for d in rec.turns if isinstance(d.chosen, CallUno)]
    assert len(calls) > 40
    for d in rec.turns:  # on turn: UNO whenever it is offered before a play
        if any(isinstance(a, CallUno) for a in d.acts) and any(isinstance(a, Play) for a in d.acts):
            assert isinstance(d.chosen, CallUno), d
    for d in rec.reactions:  # out of turn: its own late call every time, never a catch
        late = [a for a in d.acts if isinstance(a, CallUno)]
        assert d.chosen == (late[0] if late else None), d
    assert not any(isinstance(d.chosen, Challenge) for d in rec.turns)
    assert "uno-not-called" not in stats.penalties
    assert "challenge-failed" not in stats.penalties
    assert "illegal-wild-draw-four" not in stats.penalties


def test_the_expert_playout_model_plays_whole_rounds_and_catches_every_miss() -> None:
    """``Heuristic``, the model of every seat in the expert's playouts, through the engine as
    the search plays it (the compiled build runs this too: its out-of-turn answer once failed
    there)."""
    table = RandomTable(make_options("official"), 3, 5, "play-first")
    recorder = Recorder(Heuristic(random.Random(5)))
    table.policy = recorder
    stats = Stats()
    for _ in rounds(table, 30, stats):
        pass
    assert stats.games == sum(stats.wins.values()) == 30 and stats.capped == 0
    for d in recorder.reactions:  # out of turn: a Don, a catch or its own call, at once
        eager = [a for a in d.acts if isinstance(a, (Catch, CallUno))]
        assert d.chosen == (eager[0] if eager else None), d
    assert any(isinstance(d.chosen, CallUno) for d in recorder.turns)
    assert "uno-not-called" not in stats.penalties


def dealt(hand: str, top: str) -> State:
    """Seat 0 (on turn) holds ``hand``; ``top`` is turned up."""
    deal = Deal(hands=[(parse_cards(hand.split()), 0), (parse_cards(["G1", "G2", "G3", "G4"]), 0)],
                pile=parse_cards(["Y1", "Y2", "Y3", "Y4"]), start=parse_cards([top]))
    s, _ = new_game(make_options("official"), ["Aki", "Ken"], dealer=1, deal=deal)
    assert s.turn == 0
    return s


def test_play_first_picks_any_playable_card_and_keeps_the_wild_draw_four() -> None:
    s = dealt("R5 R7 B+2 W+4 W", "R2")
    picked: Counter[str] = Counter()
    for seed in range(400):
        a = make_policy("play-first", random.Random(seed)).act(s, legal_actions(s))
        assert isinstance(a, Play)
        picked[str(a.cards[0])] += 1
    # The three playable cards other than the Wild Draw Four, about a third each (a wild is
    # one card, however many colours it may name).
    assert set(picked) == {"R5", "R7", "W"}
    assert all(100 < n < 170 for n in picked.values()), picked
    only_wd4 = dealt("B7 W+4 G1", "R2")
    for seed in range(20):
        a = make_policy("play-first", random.Random(seed)).act(only_wd4, legal_actions(only_wd4))
        assert is_wd4(a)


def test_random_takes_any_legal_action_even_a_draw_with_playable_cards() -> None:
    rec, _ = recorded("random", 20, 2, seed=4)
    kinds = Counter(type(d.chosen).__name__ for d in rec.turns)
    assert kinds["Challenge"] > 0 and kinds["Pass"] > 0
    assert any(isinstance(d.chosen, Draw) and not d.has_drawn
               and any(isinstance(a, Play) for a in d.acts) for d in rec.turns)
    assert any(isinstance(d.chosen, Catch) for d in rec.reactions)
    assert any(d.chosen is None for d in rec.reactions)
    s = dealt("R5 R7 B+2 W+4 W", "R2")
    acts = legal_actions(s)
    chosen = Counter(
        make_policy("random", random.Random(seed)).act(s, acts) for seed in range(len(acts) * 60)
    )
    assert set(chosen) == set(acts)  # every one, wild colours and the draw included
    assert any(isinstance(a, Draw) for a in chosen)


@pytest.mark.parametrize("policy", sorted(set(POLICIES) - {"expert"}))  # expert: test_expert.py
def test_the_same_seed_gives_the_same_summary(policy: str) -> None:
    a = run("selfplay", "--games", "15", "--players", "3", "--seed", "7", "--policy", policy)
    b = run("selfplay", "--games", "15", "--players", "3", "--seed", "7", "--policy", policy)
    c = run("selfplay", "--games", "15", "--players", "3", "--seed", "8", "--policy", policy)
    assert a.returncode == 0, a.stderr
    assert a.stdout == b.stdout != c.stdout
    summary = json.loads(a.stdout)
    assert summary["policy"] == policy
    assert summary["games"] == summary["rounds"] == 15
    assert summary["turns"] == summary["actions"] > 0
    assert sum(summary["wins_per_seat"]) == 15


def test_lively_is_the_default() -> None:
    assert selfplay(10, 4, 3) == selfplay(10, 4, 3, policy="lively")
    assert selfplay(10, 4, 3)["policy"] == "lively"
    assert selfplay(10, 4, 3, policy="play-first") != selfplay(10, 4, 3)


def test_an_unknown_policy_is_one_line_exit_2() -> None:
    out = run("selfplay", "--games", "1", "--policy", "clever")
    assert out.returncode == 2
    assert out.stderr == (
        "uno-table: unknown --policy 'clever': use one of lively, play-first, random, greedy, "
        "expert\n"
    )
    with pytest.raises(PolicyError, match="unknown policy 'clever'"):
        make_policy("clever", random.Random(1))


def test_policy_and_bots_together_are_refused_in_one_line() -> None:
    out = run("selfplay", "--policy", "random", "--bots", "heuristic,random")
    assert out.returncode == 2
    assert out.stderr.count("\n") == 1 and "--policy" in out.stderr and "--bots" in out.stderr


def test_self_play_shuffles_as_random_shuffle_does() -> None:
    """The same seed deals the same decks as ``random.Random.shuffle`` would, so seeded
    self-play and its pinned traces stay as they are."""
    deck = edition_cards("classic-108")
    for seed in range(20):
        ours, theirs = random.Random(seed), random.Random(seed)
        for size in (len(deck), 2, 1, 0, 37, len(deck)):
            a, b = deck[:size], deck[:size]
            shuffle(ours, a)
            theirs.shuffle(b)
            assert a == b
        assert ours.random() == theirs.random()
