"""The expert's particle filter: the worlds it searches are drawn in proportion to how likely
each makes what the opponent was seen to do, and the filter reads no hidden card."""

from __future__ import annotations

import random

import pytest

from sim.players import expert
from sim.players.expert import Answer, ExpertBot
from table.analysis.search import Search, information_set
from table.cards import Color, parse_card, parse_cards
from table.rules import Deal, State, make_options, new_game


def _dealt(aki: str, ken: str, start: str, pile: str) -> State:
    hands = [(parse_cards(aki.split()), 0), (parse_cards(ken.split()), 0)]
    s, _ = new_game(make_options("official"), ["Aki", "Ken"], 1,
                    Deal(hands=hands, pile=parse_cards(pile.split()), start=parse_cards([start])))
    return s


def test_the_particles_follow_the_likelihood() -> None:
    """Ken's four hidden cards, dealt at random, hold a wild in about one world in six; a
    likelihood that favours those worlds twenty to one puts a wild in most particles."""
    s = _dealt("R1 G7 B3", "Y5 Y6 B9 G2", "R5", pile="R9 YS G3 B4 Y1 Y2 G8 B8")
    info = information_set(s, 0)
    search = Search(random.Random(3), 40)

    def has_wild(world: State) -> bool:
        return any(c.is_wild for c in world.hands[1].known)

    search.likelihood = lambda hands: 20.0 if any(c.is_wild for c in hands[1]) else 1.0
    particles = search._particles(info, 400)
    assert len(particles) == 400
    share = sum(map(has_wild, particles)) / len(particles)
    plain = sum(has_wild(search._world(info)) for _ in range(400)) / 400
    assert plain < 0.35 and share > 0.6
    assert all(p.hands[0].known == s.hands[0].known for p in particles)  # its own hand stands


def test_the_expert_weighs_a_world_by_the_opponents_answers() -> None:
    """Ken answered Aki's red 7 with a red 2: a heuristic player holding a red Draw Two would
    have played that first when Aki is close to going out, so a world in which Ken still
    holds one is unlikely."""
    s = _dealt("R1 G7", "Y5 Y6 R+2", "R5", pile="R9 YS G3")
    view_bot = ExpertBot(random.Random(1), 12)
    answer = Answer(Color.RED, "7", parse_card("R2"), None, 2)
    view_bot.voids.answers = [(answer, ())]
    from sim.players.bots import seat_view

    likelihood = view_bot._likelihood(seat_view(s, 0))
    assert likelihood is not None
    held = s.copy()
    hands = [h.known for h in held.hands]
    assert likelihood(hands) == expert.SLIP  # the real hand: R+2 would have been the answer
    hands[1] = list(parse_cards(["Y5", "Y6", "G3"]))
    assert likelihood(hands) == 1.0 - expert.SLIP


def test_a_draw_says_the_opponent_held_no_answer() -> None:
    """Ken drew on Aki's red 7 (five cards in hand, Aki on three): a heuristic player draws
    only with nothing to answer a red 7 (nor a wild to spend, the table being calm), so a world
    that deals Ken a red card or a 7 is unlikely; one with a wild is likely (a wild is kept)."""
    drew = expert.Drew(Color.RED, "7", 3, 5)
    assert drew.chance(parse_cards(["Y5", "G2", "B9", "W", "Y1"]), 0) == 1.0
    assert drew.chance(parse_cards(["Y5", "G2", "B9", "R1", "Y1"]), 0) == 0.0
    assert drew.chance(parse_cards(["Y5", "G2", "B9", "G7", "Y1"]), 0) == 0.0
    # One card drawn since, unseen: the red 1 may be that card, one chance in five.
    assert drew.chance(parse_cards(["Y5", "G2", "B9", "R1", "Y1"]), 1) == 1 / 5
    # Aki close to going out: a heuristic player plays a wild then, so a wild was not held.
    assert expert.Drew(Color.RED, "7", 2, 5).chance(parse_cards(["Y5", "W"]), 0) == 0.0


def test_the_expert_remembers_the_draw_and_weighs_worlds_by_it(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Aki plays a red 7; Ken draws a card and keeps it. Aki's next decision (the draws
    weighed: ``WEIGH_DRAWS``) weighs a world in which Ken held a red card below one in which he
    held none, and counts the kept card as drawn since (it may be the red one)."""
    monkeypatch.setattr(expert, "WEIGH_DRAWS", True)
    from sim.players.bots import seat_view
    from table.rules import Draw, Pass, Play, apply_in_place

    s = _dealt("R7 G7 B3 Y2", "Y5 Y6 B9 G2", "R5", pile="R1 YS G3 B4 G9")
    bot = ExpertBot(random.Random(1), 12)
    play = Play(0, (parse_card("R7"),))
    bot.voids.observe(seat_view(s, 0))
    bot.voids.acted(seat_view(s, 0), play)
    apply_in_place(s, play)
    apply_in_place(s, Draw(1))  # Ken draws the red 1 and keeps it
    apply_in_place(s, Pass(1))
    bot.voids.observe(seat_view(s, 0))
    [(drew, free, later)] = bot.voids.draws
    assert (drew.color, drew.rank, drew.count, drew.size, free, later) == (
        Color.RED, "7", 3, 4, 1, ())
    likelihood = bot._likelihood(seat_view(s, 0))
    assert likelihood is not None
    hands = [h.known for h in s.hands]  # Ken's real hand: the red 1 is the card he drew
    none = [hands[0], list(parse_cards(["Y5", "Y6", "B9", "G2", "Y1"]))]
    two = [hands[0], list(parse_cards(["Y5", "R6", "B9", "G2", "R2"]))]
    assert likelihood(none) == 1.0 - expert.DRAW_SLIP
    assert likelihood(two) == expert.DRAW_SLIP
    assert expert.DRAW_SLIP < likelihood(hands) < 1.0 - expert.DRAW_SLIP
