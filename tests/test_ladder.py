"""The ladder: duplicate deals (the same deal, the seats rotated), the rating fit on known
cases, the RLCard-rule bot, and ``uno-table ladder`` as a user runs it."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from math import log10

import pytest

from sim.players import ladder
from sim.players.bots import RuleBot, seat_view
from sim.players.ladder import dealt, play_match, seatings
from table.analysis.ratings import Game, fit, rate
from table.cards import Card, Color, parse_cards
from table.commands.cli import main
from table.rules import CallUno, Deal, Draw, Play, State, make_options, new_game


def test_each_deal_is_played_once_per_seating_rotated_around_the_table() -> None:
    assert seatings("a", "b", 2) == [("a", "b"), ("b", "a")]
    four = seatings("a", "b", 4)
    assert len(four) == 8 and len(set(four)) == 8
    for bot in ("a", "b"):  # alone among the others, in each seat once
        alone = [s for s in four if s.count(bot) == 1]
        assert sorted(s.index(bot) for s in alone) == [0, 1, 2, 3]


def test_the_same_deal_comes_again_for_every_seating(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each bot is dealt, in its seat, the hand another bot held in that seat: the duplicate
    deal. Every seating of a deal starts from the same hands, first card, pile and dealer."""
    options = make_options("official")
    first = [dealt(options, 2, 42)[1] for _ in range(2)]
    assert first[0].hands == first[1].hands and first[0].pile == first[1].pile
    assert first[0].discard == first[1].discard and first[0].dealer == first[1].dealer
    assert dealt(options, 2, 43)[1].hands != first[0].hands  # another seed, another deal

    seen: list[tuple[str, int, tuple[Card, ...]]] = []
    real = ladder.make_bot

    def spy(name: str, rng: random.Random) -> object:
        bot = real("heuristic", rng)
        act, told = bot.act, []

        def act_and_note(view: object) -> object:
            if not told:
                told.append(1)
                seen.append((name, view.seat, view.hand))  # type: ignore[attr-defined]
            return act(view)  # type: ignore[arg-type]

        bot.act = act_and_note  # type: ignore[method-assign]
        return bot

    monkeypatch.setattr(ladder, "make_bot", spy)
    match = play_match("a", "b", 2, 3, seed=5)
    assert len(match.deals) == 3 and all(len(block) == 2 for block in match.deals)
    assert [g.seats for g in match.deals[0]] == [("a", "b"), ("b", "a")]
    by_game = [seen[i:i + 2] for i in range(0, len(seen), 2)]
    for one, two in zip(by_game[0::2], by_game[1::2], strict=True):
        hands_one = {seat: (name, hand) for name, seat, hand in one}
        hands_two = {seat: (name, hand) for name, seat, hand in two}
        for seat in hands_one.keys() & hands_two.keys():
            (name1, hand1), (name2, hand2) = hands_one[seat], hands_two[seat]
            assert name1 != name2  # the other bot sits there ...
            if len(hand1) == len(hand2) == 7:
                assert hand1 == hand2  # ... with the same hand (before anyone drew)


def test_the_rating_fit_recovers_known_strengths() -> None:
    """Bradley-Terry: 75 wins of 100 is a strength three times the other's (191 Elo); Luce at
    four seats: one A winning 40% among three B is A twice as strong as each B."""
    pair = [Game(("a", "b"), "a")] * 75 + [Game(("b", "a"), "b")] * 25
    s = fit(pair, ["a", "b"], prior=0)
    assert s["a"] / s["b"] == pytest.approx(3.0)
    four = [Game(("a", "b", "b", "b"), "a")] * 40 + [Game(("b", "a", "b", "b"), "b")] * 60
    s = fit(four, ["a", "b"], prior=0)
    assert s["a"] / s["b"] == pytest.approx(2.0)
    chain = ([Game(("a", "b"), "a")] * 2 + [Game(("a", "b"), "b")]
             + [Game(("b", "c"), "b")] * 2 + [Game(("b", "c"), "c")])
    s = fit(chain, ["a", "b", "c"], prior=0)  # a = 2 b = 4 c
    assert (s["a"] / s["b"], s["b"] / s["c"]) == (pytest.approx(2.0), pytest.approx(2.0))


def test_a_bot_that_never_won_still_gets_a_finite_rating_and_ratings_have_intervals() -> None:
    rng = random.Random(3)

    def blocks(n: int, p: float) -> list[list[Game]]:
        return [[Game(("a", "b"), "a" if rng.random() < p else "b")] for _ in range(n)]

    games = {"a v b": blocks(400, 0.75), "a v c": [[Game(("a", "c"), "a")]] * 20}
    ratings = {r.name: r for r in rate(games, ["a", "b", "c"], anchor="b", resamples=100)}
    a, b, c = ratings["a"], ratings["b"], ratings["c"]
    assert (b.elo, b.low, b.high) == (0.0, 0.0, 0.0)  # the anchor
    assert a.low < 400 * log10(3) < a.high and a.high - a.low < 150
    assert c.elo < 0 and c.low > -2000  # never won: below the anchor, but finite
    assert [r.name for r in rate(games, ["a", "b", "c"], "b", 0)] == ["a", "b", "c"]


def _table(aki: str, ken: str, start: str) -> State:
    hands = [(parse_cards(aki.split()), 0), (parse_cards(ken.split()), 0)]
    s, _ = new_game(make_options("official"), ["Aki", "Ken"], 1,
                    Deal(hands=hands, pile=parse_cards(["Y1", "Y2", "Y3"]),
                         start=parse_cards([start])))
    return s


def test_the_rlcard_rule_bot_plays_as_rlcards_code_reads() -> None:
    bot = RuleBot(random.Random(1))
    view = seat_view(_table("W W+4 R3 R8 G6", "Y5 Y6 Y7", "R5"), 0)
    plain = {bot.act(view) for _ in range(20)}
    assert plain == {Play(0, (Card(Color.RED, "3"),)), Play(0, (Card(Color.RED, "8"),))}
    wild = bot.act(seat_view(_table("W W+4 B1 B2 G6", "Y5 Y6 Y7", "R5"), 0))
    assert isinstance(wild, Play) and wild.cards == (Card(None, "W"),) and wild.color
    four = bot.act(seat_view(_table("W+4 B1 B2 G6", "Y5 Y6 Y7", "R5"), 0))
    assert four == Play(0, (Card(None, "W+4"),), Color.BLUE)  # the colour held most
    assert bot.act(seat_view(_table("B1 B2 G6", "Y5 Y6 Y7", "R5"), 0)) == Draw(0)
    assert bot.act(seat_view(_table("R1 B2", "Y5 Y6 Y7", "R5"), 0)) == CallUno(0)


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> Iterator[object]:
    code = main(argv)
    out, err = capsys.readouterr()
    yield code
    yield out
    yield err


def test_uno_table_ladder_rates_the_bots_with_intervals_and_places_the_levels(
        capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(["ladder", "--bots", "random,heuristic,rlcard-rule", "--deals", "20",
                           "--resamples", "20", "--json"], capsys)
    assert code == 0
    result = json.loads(str(out))
    names = [r["bot"] for r in result["ratings"]]
    assert sorted(names) == ["heuristic", "random", "rlcard-rule"]
    assert {r["bot"]: r["level"] for r in result["ratings"]}["heuristic"] == "normal"
    for r in result["ratings"]:
        assert r["ci95"][0] <= r["elo"] <= r["ci95"][1]
    assert len(result["matches"]) == 3 and all(m["games"] == 40 for m in result["matches"])
    assert "pair 3/3 heuristic v rlcard-rule: deal 20/20" in str(err)
    code, out, _ = _run(["ladder", "--bots", "heuristic,mix", "--deals", "5"], capsys)
    assert code == 0 and "heuristic" in str(out) and "95% interval" in str(out)


@pytest.mark.parametrize(("argv", "said"), [
    (["--deals", "0"], "--deals"),
    (["--bots", "heuristic,nobody"], "unknown bot 'nobody'"),
    (["--bots", "mix,mix"], "two or more different bots"),
    (["--players", "11"], "--players 11"),
])
def test_uno_table_ladder_refuses_bad_input_in_one_line(
        argv: list[str], said: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(["ladder", *argv], capsys)
    assert code == 2 and out == ""
    assert said in str(err) and len(str(err).strip().splitlines()) == 1
