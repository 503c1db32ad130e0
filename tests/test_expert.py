"""The expert and mix bots: the expert searches only what its seat may know, plays legally under
every preset, and plays the same games for the same seed; mix follows MixBot's published rules."""

from __future__ import annotations

import hashlib
import json
import random
import subprocess
import sys

from hypothesis import given, settings
from hypothesis import strategies as st

from sim.players.arena import bot_selfplay
from sim.players.bots import MixBot, make_bot, seat_view
from sim.players.expert import ExpertBot, PriorBot
from table.analysis.search import determinise, information_set
from table.analysis.selfplay import RandomTable
from table.cards import Card, Color, parse_card, parse_cards
from table.rules import (
    PRESETS,
    CallUno,
    Deal,
    Phase,
    Play,
    State,
    apply_in_place,
    legal_actions,
    make_options,
    new_game,
)

RED = Color.RED
FEW = 12  # playouts a decision in these tests: the search's paths, not its strength
# The expert's decisions in fixed rounds (test_the_expert_decides_as_pinned): 2 and 4 players,
# at its full budget of 40 playouts a decision (at 120, before: 798fdf84ff90040c at 2 players).
PIN_2, PIN_4 = "582b52cc431f4e9e", "a619f879d1d2d16f"


def _position(preset: str, seed: int, steps: int) -> State | None:
    """A position of a lively self-play round after about ``steps`` actions, with a choice."""
    options = make_options(preset)
    table = RandomTable(options, 2 + seed % 3, seed)
    s, _ = new_game(options, table.names, table.dealer(), table.deal())
    found = None
    for _ in range(steps):
        if s.phase is not Phase.PLAY:
            break
        table.supply_chance(s)
        acts = legal_actions(s)
        if len(acts) > 1:
            found = s.copy()
        action = table.choose(s)
        assert action is not None
        apply_in_place(s, action)
        late = table.out_of_turn(s)
        if late is not None and s.phase is Phase.PLAY:
            apply_in_place(s, late)
    return found


def _permute_hidden(s: State, seat: int, rng: random.Random) -> State:
    """``s`` with the cards ``seat`` cannot see (other hands, the draw pile) dealt again."""
    t = s.copy()
    places = [h.known for i, h in enumerate(t.hands) if i != seat] + [t.pile]
    cards = [c for place in places for c in place]
    rng.shuffle(cards)
    for place in places:
        n = len(place)
        place[:] = cards[:n]
        del cards[:n]
    t.challenge = None if s.challenge is None else s.challenge  # its hand is masked anyway
    return t


@settings(max_examples=25, deadline=None)
@given(st.sampled_from(sorted(PRESETS)), st.integers(0, 10_000), st.integers(1, 60),
       st.integers(0, 2**32))
def test_the_expert_decides_the_same_whatever_the_hidden_cards_are(
        preset: str, seed: int, steps: int, shuffle_seed: int) -> None:
    s = _position(preset, seed, steps)
    if s is None or s.current_player is None or s.challenge is not None:
        return
    seat = s.current_player
    other = _permute_hidden(s, seat, random.Random(shuffle_seed))
    va, vb = seat_view(s, seat), seat_view(other, seat)
    assert va.table == vb.table  # the information set holds no hidden card
    assert all(not h.known for i, h in enumerate(va.table.hands) if i != seat)
    assert not va.table.pile
    first = ExpertBot(random.Random(seed), FEW).act(va)
    second = ExpertBot(random.Random(seed), FEW).act(vb)
    assert first == second
    assert PriorBot(random.Random(seed)).act(va) == PriorBot(random.Random(seed)).act(vb)


@settings(max_examples=20, deadline=None)
@given(st.sampled_from(sorted(PRESETS)), st.integers(0, 10_000), st.integers(1, 80))
def test_a_determinised_world_keeps_every_card_in_one_place(
        preset: str, seed: int, steps: int) -> None:
    s = _position(preset, seed, steps)
    if s is None or s.current_player is None:
        return
    seat = s.current_player
    world = determinise(information_set(s, seat), random.Random(seed))
    world.check_conservation()
    assert world.hands[seat].known == s.hands[seat].known
    assert [len(h) for h in world.hands] == [len(h) for h in s.hands]
    assert world.hidden == 0 and world.pile_unknown == 0


def test_the_expert_plays_legally_under_every_preset() -> None:
    """Whole rounds with the expert at every seat but one: every action it takes is listed
    (the arena applies it through the engine, which refuses anything illegal)."""
    for preset in sorted(PRESETS):
        for players in (2, 4):
            names = [f"expert:{FEW}"] + ["heuristic"] * (players - 1)
            stats = bot_selfplay(names, 2, seed=players, preset=preset)
            assert stats.rounds == 2 and stats.capped == 0


def test_the_expert_plays_the_same_games_for_the_same_seed() -> None:
    one = bot_selfplay([f"expert:{FEW}", "mix"], 3, seed=5).summary()
    two = bot_selfplay([f"expert:{FEW}", "mix"], 3, seed=5).summary()
    assert one == two


def _dealt(me: str, other: str, start: str, pile: str = "") -> State:
    hands = [(parse_cards(me.split()), 0), (parse_cards(other.split()), 0)]
    s, _ = new_game(make_options("official"), ["Aki", "Ken"], 1,
                    Deal(hands=hands, pile=parse_cards(pile.split()), start=parse_cards([start])))
    return s


def _mix(s: State) -> Play | CallUno | object:
    return MixBot(random.Random(1)).act(seat_view(s, 0))


def test_mix_keeps_a_wild_with_more_than_two_other_cards() -> None:
    # R5 on top: only the Wild plays; with three other cards MixBot draws instead.
    assert type(_mix(_dealt("W G1 B2 Y3", "G4 G5 G6", "R5", pile="G7 G8"))).__name__ == "Draw"
    played = _mix(_dealt("W G1 B2", "G4 G5 G6", "R5", pile="G7 G8"))
    assert isinstance(played, Play) and played.cards == (Card(None, "W"),)


def test_mix_ranks_draw_two_first_and_attacks_a_player_on_one_card() -> None:
    played = _mix(_dealt("R+2 RS R7 RR", "G4 G5 G6", "R5", pile="G7 G8"))
    assert isinstance(played, Play) and played.cards[0].rank == "+2"
    played = _mix(_dealt("R7 RR Y1", "G4", "R5", pile="G7 G8"))
    assert isinstance(played, Play) and played.cards[0].rank == "R"  # Reverse: Ken loses a turn


def test_selfplay_prints_win_rates_for_expert_and_mix() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "table.commands.cli", "selfplay", "--bots", "expert,mix",
         "--players", "2", "--games", "2", "--seed", "3"],
        capture_output=True, text=True, check=True,
    )
    data = json.loads(out.stdout)
    assert set(data["win_rate_per_bot"]) == {"expert", "mix"}
    assert len(data["win_rate_per_bot"]["mix"]["ci95"]) == 2


def test_make_bot_refuses_a_bad_budget_in_one_line() -> None:
    import pytest

    from sim.players.bots import BotError, parse_bots

    for bad in ("expert:0", "expert:x", "expert:"):
        with pytest.raises(BotError) as caught:
            parse_bots(bad)
        assert "\n" not in str(caught.value)
    assert isinstance(make_bot("expert:3", random.Random(0)), ExpertBot)


def test_selfplay_with_the_expert_policy_is_the_same_for_the_same_seed() -> None:
    from table.analysis.selfplay import selfplay

    one = selfplay(2, 2, 7, policy="expert")
    assert one == selfplay(2, 2, 7, policy="expert")
    assert one["policy"] == "expert" and sum(one["wins_per_seat"]) == 2  # type: ignore[arg-type]


def test_sim_levels_seat_random_heuristic_and_the_expert() -> None:
    from table.commands.cli import build_parser

    parse = build_parser().parse_args
    assert [parse(["sim", "--level", lv]).bots for lv in ("easy", "normal", "hard")] == [
        "random", "heuristic", "expert"]
    assert parse(["sim"]).bots == "heuristic"
    out = subprocess.run(
        [sys.executable, "-m", "table.commands.cli", "sim", "--level", "expert"],
        capture_output=True, text=True,
    )
    assert out.returncode == 2
    assert out.stderr.strip().splitlines()[-1].endswith("'expert': use easy, normal or hard")


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.integers(1, 60))
def test_the_playouts_model_every_seat_as_the_heuristic_bot_plays(seed: int, steps: int) -> None:
    """The expert's playout policy makes the heuristic bot's move (one that never forgets UNO
    and never bluffs) from the state of a dealt world, in every official position."""
    from sim.players.bots import HeuristicBot
    from table.analysis.policies import Heuristic

    s = _position("official", seed, steps)
    if s is None or s.current_player is None or s.challenge is not None:
        return
    seat = s.current_player
    bot = HeuristicBot(random.Random(seed), forget=0.0, bluff=0.0)
    model = Heuristic(random.Random(seed))
    assert model.act(s, legal_actions(s)) == bot.act(seat_view(s, seat))


def test_the_expert_learns_the_colour_an_opponent_drew_for() -> None:
    """Ken draws rather than answer a red 7: the expert remembers that Ken holds no red card
    (but for the card he drew), from the table alone, and its worlds deal him none."""
    s = _dealt("R7 R2 W B4 G6", "B1 G3 Y5 Y8", "R5", pile="G9 B2 Y1 B7 G2")
    bot = ExpertBot(random.Random(1), FEW)
    first = seat_view(s, 0)
    bot.voids.observe(first)
    bot.voids.acted(first, Play(0, (parse_card("R7"),), None))
    apply_in_place(s, Play(0, (parse_card("R7"),), None))
    apply_in_place(s, legal_actions(s)[-1])  # Ken draws G2, which does not play
    view = seat_view(s, 0)
    bot.voids.observe(view)
    assert bot.voids.lacks == {RED} and bot.voids.free == 1
    worlds = [determinise(view.table, random.Random(k), bot.voids.constraint(view))
              for k in range(30)]
    assert all(sum(c.color is RED for c in w.hands[1].known) <= 1 for w in worlds)
    for w in worlds:
        w.check_conservation()  # every card in one place, the hand its size
        assert len(w.hands[1]) == 5 and w.hands[0].known == s.hands[0].known


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 10_000), st.integers(1, 25), st.integers(0, 2**32))
def test_what_the_expert_remembers_holds_no_hidden_card(
        seed: int, turns: int, shuffle_seed: int) -> None:
    """The expert plays ``turns`` turns of a 2-player round against the heuristic bot, so it
    has memories; then the cards it cannot see are dealt again: it decides the same."""
    import copy

    from sim.players.bots import HeuristicBot

    options = make_options("official")
    table = RandomTable(options, 2, seed)
    s, _ = new_game(options, table.names, table.dealer(), table.deal())
    bots = [ExpertBot(random.Random(seed), FEW), HeuristicBot(random.Random(seed))]
    for _ in range(400):
        table.supply_chance(s)
        if s.phase is not Phase.PLAY or s.current_player is None:
            return
        seat = s.current_player
        if seat == 0 and s.challenge is None:
            turns -= 1
            if turns == 0:
                break
        apply_in_place(s, bots[seat].act(seat_view(s, seat)))
        if s.uno_window is not None and s.phase is Phase.PLAY:
            late = bots[s.uno_window].react(seat_view(s, s.uno_window))
            if late is not None:
                apply_in_place(s, late)
    else:
        return
    other = _permute_hidden(s, 0, random.Random(shuffle_seed))
    one, two = copy.deepcopy(bots[0]), copy.deepcopy(bots[0])
    assert one.act(seat_view(s, 0)) == two.act(seat_view(other, 0))
    assert one.voids == two.voids


def _facing_a_wild_draw_four(ken: str) -> State:
    """Aki played a red 7; Ken answers with a Wild Draw Four (he holds no red: it is legal)."""
    s = _dealt("R7 R2 B4 G6 Y9", "W+4 " + ken, "R5", pile="G9 B2 Y1 B7 G2 Y3 B8")
    apply_in_place(s, Play(0, (parse_card("R7"),), None))
    apply_in_place(s, Play(1, (parse_card("W+4"),), Color.BLUE))
    return s


def test_the_expert_challenges_a_wild_draw_four_only_when_a_bluff_is_likely() -> None:
    """Ken, with four cards left, most likely held some red (the heuristic bot challenges):
    but a player holding red seldom plays a Wild Draw Four, so the expert takes the four
    cards. Holding twenty cards, he almost surely held red: the expert challenges."""
    from sim.players.bots import HeuristicBot
    from table.rules import Challenge, Draw

    s = _facing_a_wild_draw_four("B1 G3 Y5 Y8")
    view = seat_view(s, 0)
    assert isinstance(HeuristicBot(random.Random(1)).act(view), Challenge)
    assert isinstance(ExpertBot(random.Random(1), FEW).act(view), Draw)
    many = "B1 G3 Y5 Y8 B3 G4 Y6 B6 G7 Y7 B9 G8 Y2 B5 G1 Y4 G5 B0 G0 Y0"
    s = _facing_a_wild_draw_four(many)
    assert isinstance(ExpertBot(random.Random(1), FEW).act(seat_view(s, 0)), Challenge)


def test_the_expert_plays_a_chain_of_skips_that_takes_it_out() -> None:
    """Two players, a red 5 on the pile: the heuristic bot plays the blue 5 of its long colour
    and hands Ken the turn; the expert sees that the red Skip, then the blue Skip, Reverse and
    Draw Two (each a turn again with two players) and the blue 5 empty its hand, and goes out
    without Ken playing a card."""
    from sim.players.bots import HeuristicBot

    s = _dealt("B5 RS BS BR B+2", "G4 G5 G6 G7 G8", "R5", pile="G9 Y1 Y2 Y3")
    first = HeuristicBot(random.Random(1)).act(seat_view(s, 0))
    assert isinstance(first, Play) and first.cards[0] == parse_card("B5")
    bot = ExpertBot(random.Random(1), FEW)
    played = []
    while s.phase is Phase.PLAY and s.current_player == 0:
        action = bot.act(seat_view(s, 0))
        if isinstance(action, Play):
            played.append(action.cards[0].code)
        apply_in_place(s, action)
    assert played[0] == "RS" and s.winner == 0 and len(s.hands[1]) == 7


def test_a_chain_that_goes_out_takes_no_wild_draw_four_a_challenge_would_catch() -> None:
    """Red Skip, then a Wild Draw Four naming blue, then the blue 1: out, and the Wild Draw
    Four was legal (no red left beside it). With a red 1 instead, that Wild Draw Four would be
    a bluff: there is no chain, and at four players none either (a Skip hands the turn on)."""
    from table.analysis.prior import Seen, chain_out

    two = Seen(RED, "5", make_options("official"), 2, False)
    assert chain_out(parse_cards(["RS", "W+4", "B1"]), two) == (parse_card("RS"), None)
    assert chain_out(parse_cards(["RS", "W+4", "R1"]), two) is None
    four = Seen(RED, "5", make_options("official"), 4, False)
    assert chain_out(parse_cards(["RS", "W+4", "B1"]), four) is None


def _expert_decisions(players: int, rounds: int, seed: int) -> str:
    """A digest of every action the expert (its full budget) takes in ``rounds`` seeded rounds
    against the heuristic bot."""
    from sim.players.arena import ArenaStats, play_bot_round
    from sim.players.bots import seat_rng

    options = make_options("official")
    taken: list[str] = []
    for r in range(rounds):
        expert = ExpertBot(seat_rng(seed + r, 0))
        act = expert.act

        def recorded(view: object, act: object = act) -> object:
            action = act(view)  # type: ignore[operator]
            taken.append(repr(action))
            return action

        expert.act = recorded  # type: ignore[method-assign, assignment]
        others = [make_bot("heuristic", seat_rng(seed + r, i)) for i in range(1, players)]
        table = RandomTable(options, players, seed + r)
        s, _ = new_game(options, table.names, table.dealer(), table.deal())
        play_bot_round(table, s, [expert, *others], ArenaStats(["expert"] * players))
    return hashlib.sha256("\n".join(taken).encode()).hexdigest()[:16]


def test_a_long_decision_stops_at_its_cap_of_playout_actions() -> None:
    """The expert's long decisions (long playouts: an opponent with many cards) stop once their
    playouts have taken ``ENDGAME_STEPS`` actions, after a whole world and never before two:
    their time bounded on a Pi's budget, and the same decisions on any machine, unlike a time
    cap. The others play every world of the budget."""
    from sim.players.arena import ArenaStats, play_bot_round
    from sim.players.bots import seat_rng
    from sim.players.expert import ENDGAME_STEPS

    options = make_options("official")
    searched: list[tuple[int, int, int]] = []  # (options, playouts, actions taken)
    expert = ExpertBot(seat_rng(1, 0))
    act = expert.act

    def recorded(view: object, act: object = act) -> object:
        before = expert.search.playouts
        action = act(view)  # type: ignore[operator]
        if expert.search.playouts > before:
            searched.append((len(expert.search.last), expert.search.playouts - before,
                             expert.search.taken))
        return action

    expert.act = recorded  # type: ignore[method-assign, assignment]
    table = RandomTable(options, 2, 1)
    while len(searched) < 60:
        s, _ = new_game(options, table.names, table.dealer(), table.deal())
        play_bot_round(table, s, [expert, make_bot("heuristic", seat_rng(1, 1))],
                       ArenaStats(["expert", "heuristic"]))
    assert ENDGAME_STEPS is not None
    stopped = [(n, played, taken) for n, played, taken in searched
               if played < max(2, expert.search.iterations // n) * n]
    assert stopped and len(stopped) < len(searched)  # some decisions, not all
    for n, played, taken in stopped:
        assert taken >= ENDGAME_STEPS and played >= 2 * n and played % n == 0


def test_the_expert_decides_as_pinned() -> None:
    """The expert's decisions in fixed rounds, pinned: a change made for speed (the search, its
    playouts, the particle filter, the heuristic model) must leave every decision as it was
    (docs/performance.md, the expert's time per decision)."""
    assert _expert_decisions(2, 3, 1) == PIN_2
    assert _expert_decisions(4, 1, 1) == PIN_4
