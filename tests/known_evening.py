"""A scripted match whose every figure is worked out by hand, kept in a real journal with
chosen input times: what ``uno-table stats`` must report for it.

Three players on a table with only a play pad (hands are counted, not read), three cards
each, two rounds (``rounds = 2``), a false catch costs two cards. Dealer Aki; 美緒 is on the
dealer's left and starts both rounds (Aki wins round 1 and, the winner dealing, deals again).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from table.cards import CardCopy, parse_card
from table.inputs import ReaderRole, TagRead
from table.journal import store
from table.journal.records import MatchSetup, feed_referee
from table.journal.store import Journal
from table.referee.registry import Token, virtual_deck
from table.rules import make_options

PLAYERS = ("Aki", "美緒", "Ken")
START = 1_700_000_000.0  # when the match row is written

# (seconds after START, what is tapped on the play pad). A card is FACE#COPY.
SCRIPT: list[tuple[float, str]] = [
    # --- round 1 ---
    (0, "R5#1"),  # turned up; 美緒's turn
    (4, "R7#1"),  # 美緒 plays (turn: 4 s)
    (10, "R2#1"),  # Ken plays, 2 cards left (6 s)
    (15, "W+4#1"),  # Aki plays a Wild Draw Four...
    (17, "color:blue"),  # ...names blue (Aki's turn: 7 s)
    (20, "challenge"),  # 美緒 challenges: Aki shows the two cards left
    (23, "B3#1"),
    (25, "B4#1"),  # no red card: innocent. 美緒 draws 4 + 2, is skipped (8 s)
    (30, "B9#1"),  # Ken plays down to one card and forgets UNO (5 s)
    (31, "seat:1"),
    (32, "uno"),  # Aki catches Ken: Ken draws 2
    (140, "B3#1"),  # Aki, after a 108 s pause (left out): 1 + 1 + 0 = 2 s
    (141, "uno"),  # Aki calls UNO
    (150, "B5#1"),  # 美緒 (1 + 9 = 10 s)
    (152, "B1#1"),  # Ken (2 s)
    (160, "B4#1"),  # Aki's last card: Aki wins round 1 (8 s)
    # 美緒 shows 7 cards (13 points), Ken 2 (18 points): Aki scores 31
    (170, "G1#1"), (171, "G2#1"), (172, "G3#1"), (173, "Y1#1"), (174, "Y2#1"),
    (175, "Y3#1"), (176, "R1#1"),
    (180, "Y9#1"), (181, "G9#1"),
    (190, "next-round"),
    # --- round 2: Aki, the winner, deals; 美緒 starts ---
    (200, "Y5#1"),  # turned up
    (203, "Y6#1"),  # 美緒 (3 s)
    (207, "Y7#1"),  # Ken (4 s)
    (212, "Y8#1"),  # Aki (5 s)
    (220, "G8#1"),  # 美緒, down to one card (8 s)...
    (221, "uno"),  # ...calls UNO
    (222, "seat:1"),
    (223, "uno"),  # Aki "catches" 美緒, who called: a false catch, Aki draws 2
    (230, "G3#1"),  # Ken (10 s), down to one card, not caught
    (300, "G7#1"),  # Aki: a 70 s pause, left out (0 s)
    (305, "G4#1"),  # 美緒 wins round 2 (5 s); the match is over
    # Aki shows 3 cards (21 points), Ken 1 (50): 美緒 scores 71
    (310, "R9#1"), (311, "B8#1"), (312, "Y4#1"),
    (320, "W#1"),
]

# What the report must say.
SCORES = {"Aki": 31, "美緒": 71, "Ken": 0}
ROUNDS_WON = {"Aki": 1, "美緒": 1, "Ken": 0}
POINTS_PAID = {"Aki": 21, "美緒": 13, "Ken": 68}
PENALTIES = {"Aki": {"false-catch": 1}, "美緒": {"challenge-failed": 1},
             "Ken": {"uno-not-called": 1}}
PENALTY_CARDS = {"Aki": 2, "美緒": 6, "Ken": 2}
CATCHES = {"Aki": 1, "美緒": 0, "Ken": 0}
TURNS = {  # each player's turns in seconds, both rounds
    "Aki": [7, 2, 8, 5, 0],
    "美緒": [4, 8, 10, 3, 8, 5],
    "Ken": [6, 5, 2, 4, 10],
}
COLOURS = {"red": 2, "yellow": 3, "green": 4, "blue": 5, "wild": 1}
ROUND_SECONDS = [160 - 108, 305 - 200 - 70]  # turn-up to the winning card, pauses left out
ROUND_TURNS = [9, 7]


def setup() -> MatchSetup:
    options = make_options(target=0, rounds=2, hand_size=3, false_catch_penalty=2)
    return MatchSetup(PLAYERS, options, 0, (ReaderRole("pad", "play"),), virtual_deck())


def uids() -> dict[str, str]:
    deck = virtual_deck()
    return {tag.code: uid for uid, tag in deck.tags.items()}


def _tag_code(step: str) -> str:
    if "#" in step:
        face, copy = step.split("#")
        return CardCopy(parse_card(face), int(copy)).code
    return Token(step).code


class Clock:
    """Stands in for ``time`` in the journal's module: each write takes the next time."""

    def __init__(self, times: list[float]) -> None:
        self.times: Iterator[float] = iter(times)

    def time(self) -> float:
        return next(self.times)


def write(path: Path, monkeypatch: pytest.MonkeyPatch, script: list[tuple[float, str]] = SCRIPT,
          start: float = START) -> list[str]:
    """``script`` as a match started at ``start`` in the journal at ``path`` (appended when
    it holds matches already); the verdict of each input."""
    codes = uids()
    monkeypatch.setattr(store, "time", Clock([start] + [start + t for t, _ in script]))
    ref = setup().referee()
    journal = Journal(path)
    journal.begin(setup())
    verdicts = []
    for _, step in script:
        item = TagRead("pad", codes[_tag_code(step)])
        word = feed_referee(ref, item).journal_word
        verdicts.append(word)
        assert journal.append(item, word)
    journal.close()
    monkeypatch.undo()
    return verdicts
