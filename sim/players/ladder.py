"""The ladder: duplicate matches between bots, rated together (``uno-table ladder``).

Every pair of entrants meets on the same deals. A deal (the hands, the first card, the draw
pile's order, the dealer and chance's later draws, all from the deal's seed) is played once per
seating of a pattern rotated around the table: at two players ``A B`` then ``B A``, so each bot
plays each hand from each seat; at ``n`` players one A among ``n - 1`` B rotated through the
``n`` seats, then one B among ``n - 1`` A the same way. Luck of the deal cancels in the pair's
total, which is what makes a few hundred deals tell bots apart. Deal ``d`` is the same deal in
every match of a ladder run (the seed fixes it).

The games are rated by :mod:`table.analysis.ratings` (Bradley-Terry, Luce's form at more than
two seats, Elo scale, bootstrap over the deals).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations

from sim.players.arena import ArenaStats, play_bot_round
from sim.players.bots import make_bot, seat_rng
from table.analysis.ratings import Game, Rating, rate
from table.analysis.selfplay import RandomTable
from table.rules import Options, State, make_options, new_game

#: The entrants of ``uno-table ladder`` by default, weakest expected first.
DEFAULT_ENTRANTS = ("random", "rlcard-rule", "mix", "heuristic", "prior", "expert:40", "expert")


def seatings(a: str, b: str, players: int) -> list[tuple[str, ...]]:
    """The seatings in which one deal is played by the pair ``a``, ``b`` (see the module)."""
    out: list[tuple[str, ...]] = []
    for one, rest in ((a, b), (b, a)):
        pattern = (one,) + (rest,) * (players - 1)
        for shift in range(players):
            seating = pattern[-shift:] + pattern[:-shift] if shift else pattern
            if seating not in out:
                out.append(seating)
    return out


def deal_seed(seed: int, deal: int) -> int:
    """The seed of deal number ``deal`` of a ladder run seeded ``seed``."""
    return seed * 1_000_003 + deal


def dealt(options: Options, players: int, seed: int) -> tuple[RandomTable, State]:
    """The deal of ``seed``, ready to play: its table (chance for the rest of the round) and
    the round's first state. The same seed gives the same deal, dealer and chance."""
    table = RandomTable(options, players, seed)
    s, _ = new_game(options, table.names, table.dealer(), table.deal())
    return table, s


def play_deal(seating: Sequence[str], options: Options, seed: int) -> int | None:
    """Play the deal of ``seed`` with the bots of ``seating`` (one a seat): the winning seat,
    or ``None`` for a round stopped at the cap."""
    table, s = dealt(options, len(seating), seed)
    bots = [make_bot(name, seat_rng(seed, i)) for i, name in enumerate(seating)]
    stats = ArenaStats(list(seating))
    play_bot_round(table, s, bots, stats)
    return None if stats.capped or s.winner is None else s.winner


@dataclass
class Match:
    """The games of one pair: per deal, the games of its seatings."""

    a: str
    b: str
    deals: list[list[Game]] = field(default_factory=list)
    capped: int = 0

    def score(self) -> tuple[int, int]:
        """``a``'s wins and the games with a winner."""
        games = [g for block in self.deals for g in block]
        return sum(g.winner == self.a for g in games), len(games)


@dataclass
class Ladder:
    """A ladder run: its matches and the ratings fitted to them."""

    entrants: tuple[str, ...]
    players: int
    seed: int
    anchor: str | None
    matches: list[Match]
    ratings: list[Rating]


Progress = Callable[[int, int, str, str, int], None]


def pairs(entrants: Sequence[str]) -> list[tuple[str, str]]:
    """Every pair of entrants, in the order the ladder plays them."""
    return list(combinations(entrants, 2))


def play_match(a: str, b: str, players: int, deals: int, seed: int, preset: str = "official",
               progress: Callable[[int], None] | None = None) -> Match:
    """``deals`` duplicate deals between ``a`` and ``b``."""
    options = make_options(preset)
    match = Match(a, b)
    for d in range(deals):
        block: list[Game] = []
        for seating in seatings(a, b, players):
            winner = play_deal(seating, options, deal_seed(seed, d))
            if winner is None:
                match.capped += 1
            else:
                block.append(Game(seating, seating[winner]))
        match.deals.append(block)
        if progress is not None:
            progress(d + 1)
    return match


def run_ladder(entrants: Sequence[str], players: int, deals: Mapping[tuple[str, str], int],
               seed: int, preset: str = "official", resamples: int = 200,
               progress: Progress | None = None) -> Ladder:
    """Every pair of ``entrants`` (:func:`pairs`) over its number of duplicate ``deals``, then
    the ratings (``random`` at 0 when it plays; the geometric mean at 0 otherwise).
    ``progress(pair number, pairs, a, b, deals done)`` is called after each deal."""
    matches: list[Match] = []
    todo = pairs(entrants)
    for k, (a, b) in enumerate(todo, 1):
        def tick(done: int, k: int = k, a: str = a, b: str = b) -> None:
            if progress is not None:
                progress(k, len(todo), a, b, done)
        matches.append(play_match(a, b, players, deals[(a, b)], seed, preset, tick))
    blocks = {f"{m.a} v {m.b}": m.deals for m in matches}
    anchor = "random" if "random" in entrants else None
    ratings = rate(blocks, list(entrants), anchor, resamples, seed)
    return Ladder(tuple(entrants), players, seed, anchor, matches, ratings)
