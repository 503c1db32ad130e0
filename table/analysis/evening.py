"""An evening's figures from its journal alone: scores by round, round wins, points paid,
penalties by kind and player, time per turn, the longest round, the most played colour.

Each match is replayed through the referee exactly as ``history`` does (the journal's set-up,
then every input through :func:`~table.journal.records.give`). What the engine did at each
accepted action is read back by applying that action once more to the state the referee kept
before it (its undo history): nothing of the rules is worked out here. An input that was
undone does not count; a card that joined a play (several cards at once) makes one play.

Time per turn comes from the inputs' times: a turn runs from the input that gave a player the
turn to the input that ended it, and any gap of more than :data:`PAUSE` seconds between two
inputs in it is a pause, left out.
"""

from __future__ import annotations

import datetime as dt
import itertools
import statistics
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from table.errors import TableError
from table.journal.reading import MatchRecord
from table.journal.records import feed_referee
from table.rules import Action, Event, Phase, State, apply, standings
from table.rules.events import PENALTY_KINDS
from table.rules.scoring import hand_value

PAUSE: Final = 60.0  # seconds: a longer gap between two inputs is a pause, not play

COLOURS: Final = ("red", "yellow", "green", "blue", "wild")


class StatsError(TableError, ValueError):
    """A selection of matches that the journal cannot give (no such match, a bad date)."""


@dataclass(frozen=True, slots=True)
class Step:
    """One accepted action of a match, as it stands once undos are taken into account."""

    before: State  # the state the referee kept before it
    action: Action | None  # None: the next round was started
    events: tuple[Event, ...]
    index: int  # the input that made it


def steps(record: MatchRecord) -> tuple[list[Step], State]:
    """The accepted actions of ``record`` that stand, and the state it ends in."""
    ref = record.setup.referee()
    ref.speaking = False
    done: list[Step] = []
    for index, item in enumerate(record.inputs):
        top = ref.history[-1] if ref.history else None
        out = feed_referee(ref, item)
        last = ref.history[-1] if ref.history else None
        if last is top:
            continue  # refused, ignored, or nothing the game state records
        if top is not None and ref.state is top.state:
            if done:
                done.pop()  # an undo: the last action is taken back
            continue
        assert last is not None
        events = tuple(apply(last.state, out.action).events) if out.action is not None else ()
        step = Step(last.state, out.action, events, index)
        if done and last.state is done[-1].before:
            done[-1] = step  # a card joined the play before it: one play of several cards
        else:
            done.append(step)
    return done, ref.state


@dataclass
class Turn:
    """One turn: whose it was, in which round, and how many seconds it took."""

    player: int
    round: int
    seconds: float


@dataclass
class RoundFacts:
    """One round's figures: winner, points, what each paid, turns, time, finish."""

    number: int
    winner: int
    points: tuple[int, ...]
    paid: tuple[int, ...]
    turns: int = 0
    seconds: float = 0.0
    finish: str = "plain"  # plain | chin | don


@dataclass
class MatchFacts:
    """One match's figures, gathered by replaying its inputs."""

    number: int
    started: float
    players: tuple[str, ...]
    preset: str
    state: State
    rounds: list[RoundFacts] = field(default_factory=list)
    turns: list[Turn] = field(default_factory=list)
    penalties: list[Counter[str]] = field(default_factory=list)  # per seat: kind -> count
    penalty_cards: list[int] = field(default_factory=list)  # per seat
    catches: list[int] = field(default_factory=list)  # per seat: forgotten UNOs caught
    colours: Counter[str] = field(default_factory=Counter)

    @property
    def over(self) -> bool:
        """Whether the match has ended."""
        return self.state.phase is Phase.MATCH_OVER


def _gaps(times: Sequence[float]) -> list[float]:
    """Seconds between each input and the next, pauses (over :data:`PAUSE`) counted as 0."""
    out = []
    for a, b in itertools.pairwise(times):
        gap = max(0.0, b - a)
        out.append(gap if gap <= PAUSE else 0.0)
    return out


def _paid(s: State, seat: int, points: int) -> int:
    """What ``seat`` paid in the round just scored in ``s``: a loss under zero-sum scoring,
    else the points its hand gave the winner (under ``lowest``, its own points)."""
    if points < 0:
        return -points
    if seat == s.winner or s.options.scoring in ("japanese", "musician"):
        return 0
    if s.options.scoring == "lowest":
        return points
    finish = s.extra.finish
    if finish is not None and seat in finish.winners:
        return 0
    return hand_value(s, seat)


def match_facts(number: int, record: MatchRecord) -> MatchFacts:
    """The figures of match ``number``, its inputs replayed through the referee."""
    done, final = steps(record)
    n = len(record.setup.players)
    facts = MatchFacts(number, record.started, record.setup.players,
                       record.setup.options.preset, final,
                       penalties=[Counter() for _ in range(n)], penalty_cards=[0] * n,
                       catches=[0] * n)
    gaps = _gaps(record.times)

    def seconds(a: int, b: int) -> float:
        return sum(gaps[a:b])

    turn_from: int | None = None  # the input that gave ``on_turn`` the turn
    on_turn = 0
    round_from: int | None = None
    round_turns = 0
    for k, step in enumerate(done):
        after = done[k + 1].before if k + 1 < len(done) else final
        before = step.before
        for e in step.events:
            if e.kind == "penalty" and e.reason in PENALTY_KINDS and e.player is not None:
                facts.penalties[e.player][e.reason] += 1
                facts.penalty_cards[e.player] += e.count
            elif e.kind == "caught" and e.player is not None:
                facts.catches[e.player] += 1
            elif e.kind == "played" and e.card is not None:
                facts.colours[e.card.color.value if e.card.color else "wild"] += 1
        kinds = {e.kind for e in step.events}
        ends_turn = "turn" in kinds or "round-won" in kinds
        if ends_turn and turn_from is not None:
            facts.turns.append(Turn(on_turn, before.round, seconds(turn_from, step.index)))
            round_turns += 1
        if "turned-up" in kinds and before.phase is Phase.START:
            round_from, round_turns = step.index, 0
        if ends_turn:
            # The turn passes (a wild's player still names its colour in their own turn).
            turn_from = step.index if "round-won" not in kinds else None
            on_turn = after.turn
        if "round-won" in kinds:
            took = seconds(round_from, step.index) if round_from is not None else 0.0
            facts.rounds.append(RoundFacts(before.round, -1, (), (), round_turns, took))
            round_from = None
        if "round-scored" in kinds:
            result = after.results[-1]
            paid = tuple(_paid(after, i, p) for i, p in enumerate(result.points))
            finish = after.extra.finish.kind if after.extra.finish is not None else "plain"
            for r in facts.rounds:
                if r.number == len(after.results):
                    r.winner, r.points, r.paid = result.winner, result.points, paid
                    r.finish = finish
    facts.rounds = [r for r in facts.rounds if r.points]  # won but not yet scored: left out
    return facts


def _parse_since(text: str) -> float:
    try:
        when = dt.datetime.fromisoformat(text)
    except ValueError:
        raise StatsError(f"--since {text!r}: not a date; write YYYY-MM-DD or "
                         "YYYY-MM-DD HH:MM (local time)") from None
    try:
        return when.timestamp()  # a naive date or time is local time
    except (ValueError, OverflowError, OSError):  # a date the clock cannot hold: 0001-01-01
        raise StatsError(f"--since {text!r}: a date the clock cannot hold; allowed: "
                         "YYYY-MM-DD or YYYY-MM-DD HH:MM from 1970-01-01 on") from None


def select(records: list[MatchRecord], match: int | None = None,
           since: str | None = None) -> list[tuple[int, MatchRecord]]:
    """The matches asked for, with their numbers in the journal (from 1)."""
    numbered = list(enumerate(records, start=1))
    if match is not None:
        if not 1 <= match <= len(records):
            raise StatsError(f"--match {match}: the journal holds matches 1 to {len(records)}"
                             if records else f"--match {match}: the journal holds no match")
        return [numbered[match - 1]]
    if since is not None:
        start = _parse_since(since)
        return [(i, r) for i, r in numbered if r.started >= start]
    return numbered


# --- the summary ----------------------------------------------------------------------------


def _mean(values: Sequence[float]) -> float | None:
    return round(statistics.fmean(values), 2) if values else None


def _median(values: Sequence[float]) -> float | None:
    return round(statistics.median(values), 2) if values else None


def _iso(t: float) -> str:
    return dt.datetime.fromtimestamp(t).isoformat(timespec="seconds")


def _most(colours: Counter[str]) -> str | None:
    plain = {c: n for c, n in colours.items() if c != "wild"}
    if not plain:
        return None
    top = max(plain.values())
    return next(c for c in COLOURS if plain.get(c) == top)


def _longest(rounds: Sequence[tuple[int, RoundFacts]]) -> dict[str, Any] | None:
    if not rounds:
        return None
    match, r = max(rounds, key=lambda mr: (mr[1].seconds, mr[1].turns))
    return {"match": match, "round": r.number, "seconds": round(r.seconds, 1), "turns": r.turns}


def match_summary(m: MatchFacts) -> dict[str, Any]:
    """One match's figures as ``summary.json`` holds them."""
    names = m.players
    players: dict[str, Any] = {}
    for seat, name in enumerate(names):
        times = [t.seconds for t in m.turns if t.player == seat]
        players[name] = {
            "points": m.state.scores[seat],
            "rounds_won": sum(r.winner == seat for r in m.rounds),
            "points_paid": sum(r.paid[seat] for r in m.rounds),
            "penalties": sum(m.penalties[seat].values()),
            "penalty_cards": m.penalty_cards[seat],
            "catches": m.catches[seat],
            "turns": len(times),
            "seconds_per_turn": _mean(times),
            "median_seconds_per_turn": _median(times),
            "turn_seconds": [round(t, 1) for t in times],
        }
    cumulative = {name: [0] for name in names}
    for r in m.rounds:
        for seat, name in enumerate(names):
            cumulative[name].append(cumulative[name][-1] + r.points[seat])
    winner = names[standings(m.state)[0]] if m.over else None
    return {
        "match": m.number,
        "started": _iso(m.started),
        "rules": m.preset,
        "over": m.over,
        "winner": winner,
        "players": players,
        "penalties": {name: dict(sorted(m.penalties[seat].items()))
                      for seat, name in enumerate(names)},
        "rounds": [
            {"round": r.number, "winner": names[r.winner], "finish": r.finish,
             "turns": r.turns, "seconds": round(r.seconds, 1),
             "points": dict(zip(names, r.points, strict=True)),
             "paid": dict(zip(names, r.paid, strict=True))}
            for r in m.rounds
        ],
        "cumulative": cumulative,
        "colours": {c: m.colours[c] for c in COLOURS},
        "most_played_colour": _most(m.colours),
        "longest_round": _longest([(m.number, r) for r in m.rounds]),
    }


def evening_summary(matches: Sequence[MatchFacts]) -> dict[str, Any]:
    """Every selected match, and the evening over all of them (players by name)."""
    names: list[str] = []
    for m in matches:
        names += [n for n in m.players if n not in names]
    players: dict[str, dict[str, Any]] = {}
    penalties: dict[str, Counter[str]] = {n: Counter() for n in names}
    colours: Counter[str] = Counter()
    for n in names:
        times: list[float] = []
        row = {"matches": 0, "matches_won": 0, "points": 0, "rounds_won": 0, "points_paid": 0,
               "penalties": 0, "penalty_cards": 0, "catches": 0}
        for m in matches:
            if n not in m.players:
                continue
            seat = m.players.index(n)
            row["matches"] += 1
            row["matches_won"] += m.over and m.players[standings(m.state)[0]] == n
            row["points"] += m.state.scores[seat]
            row["rounds_won"] += sum(r.winner == seat for r in m.rounds)
            row["points_paid"] += sum(r.paid[seat] for r in m.rounds)
            row["penalties"] += sum(m.penalties[seat].values())
            row["penalty_cards"] += m.penalty_cards[seat]
            row["catches"] += m.catches[seat]
            penalties[n].update(m.penalties[seat])
            times += [t.seconds for t in m.turns if t.player == seat]
        players[n] = {**row, "turns": len(times), "seconds_per_turn": _mean(times),
                      "median_seconds_per_turn": _median(times)}
    for m in matches:
        colours.update(m.colours)
    return {
        "matches": len(matches),
        "rounds": sum(len(m.rounds) for m in matches),
        "players": players,
        "penalties": {n: dict(sorted(c.items())) for n, c in penalties.items()},
        "colours": {c: colours[c] for c in COLOURS},
        "most_played_colour": _most(colours),
        "longest_round": _longest([(m.number, r) for m in matches for r in m.rounds]),
    }


def turn_times(matches: Sequence[MatchFacts]) -> dict[str, list[float]]:
    """Every turn's seconds, by player name (for the box plot)."""
    out: dict[str, list[float]] = {}
    for m in matches:
        for t in m.turns:
            out.setdefault(m.players[t.player], []).append(t.seconds)
    return out


def summary(matches: Sequence[MatchFacts]) -> dict[str, Any]:
    """What ``stats`` writes to ``summary.json`` (docs/stats.md gives its schema)."""
    return {
        "pause_seconds": PAUSE,
        "matches": [match_summary(m) for m in matches],
        "evening": evening_summary(matches),
    }


def started(record: MatchRecord) -> str:
    """When ``record`` started, in local time (YYYY-MM-DD HH:MM)."""
    return dt.datetime.fromtimestamp(record.started).strftime("%Y-%m-%d %H:%M")
