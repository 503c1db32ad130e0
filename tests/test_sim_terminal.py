"""``uno-table sim`` driven through a real pty, as a person at a terminal: a play typed as a
card code, a wrong card refused by the referee, an UNO call, a typo answered with a hint."""

from __future__ import annotations

import os
import re
import select
import signal
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest

PROMPT = "your move (number, card code, or h for help): "
SEED = 3


def ctrl_c_heard() -> None:
    """In the child before it starts: Ctrl-C (SIGINT) back to its default. A suite started as
    a shell's background job has SIGINT ignored, which a child inherits, and Python then never
    raises KeyboardInterrupt: the program under test could not be stopped as a person stops
    it."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


class Terminal:
    """The program on the slave side of a pty; we type on the master side."""

    def __init__(self, *args: str) -> None:
        self.master, slave = os.openpty()
        env = dict(os.environ, PYTHONUNBUFFERED="1")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "table.commands.cli", *args],
            stdin=slave, stdout=slave, stderr=slave, env=env, close_fds=True,
            preexec_fn=ctrl_c_heard,
        )
        os.close(slave)
        self.text = ""

    def read_until(self, *marks: str, timeout: float = 20.0) -> str:
        """Everything up to (and including) the first of ``marks`` to appear."""
        deadline = time.monotonic() + timeout
        start = len(self.text)
        while True:
            found = [(self.text.find(m, start), m) for m in marks]
            hits = [(i, m) for i, m in found if i >= 0]
            if hits:
                i, m = min(hits)
                end = i + len(m)
                chunk, self.text = self.text[:end], self.text[end:]
                return chunk
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"none of {marks} within {timeout}s; got:\n{self.text}")
            ready, _, _ = select.select([self.master], [], [], left)
            if ready:
                try:
                    data = os.read(self.master, 4096)
                except OSError:
                    data = b""
                if not data:
                    raise AssertionError(f"the program ended; output:\n{self.text}")
                self.text += data.decode("utf-8", errors="replace").replace("\r\n", "\n")

    def type(self, line: str) -> None:
        os.write(self.master, (line + "\n").encode())

    def close(self) -> int:
        try:
            self.proc.wait(timeout=20)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
            os.close(self.master)
        return self.proc.returncode


def _screen(chunk: str) -> tuple[list[str], list[str]]:
    hand = re.findall(r"your hand: (.*)", chunk)[-1].split()
    moves = re.findall(r"^\s+\d+\. (.*)$", chunk, re.M)
    return hand, moves


@pytest.fixture
def term() -> Iterator[Terminal]:
    t = Terminal("sim", "--fast", "--players", "2", "--set", "hand_size=4",
                 "--seed", str(SEED), "--voice", "captions", "--rounds", "1")
    yield t
    if t.proc.poll() is None:
        t.proc.kill()


def test_a_person_plays_is_refused_and_calls_uno_at_the_terminal(term: Terminal) -> None:
    chunk = term.read_until(PROMPT)
    assert "uno-table sim: you are Sam" in chunk
    term.type("hello")  # not a move: a hint, the prompt again, nothing changes
    assert "is not a move: type a number from the list" in term.read_until(PROMPT)

    played = refused = called = False
    for _ in range(60):
        hand, moves = _screen(chunk)
        plays = [m.split()[1] for m in moves if m.startswith("play ")]
        wrong = [c for c in hand if c not in plays and not c.startswith("W")]
        if not refused and wrong and plays and "draw" in moves:
            term.type(wrong[0])  # a card from the hand that does not match
            after = term.read_until(PROMPT)
            assert f"Sam plays {wrong[0]}" in after
            assert "Sorry, that card does not match." in after
            assert f"your hand: {' '.join(hand)}" in after  # the card is still in the hand
            refused = True
            chunk = after
            continue
        if not called and "call UNO" in moves:
            term.type("u")
            chunk = term.read_until(PROMPT)
            assert "Sam calls UNO!" in chunk
            called = True
            continue
        if plays:
            card = plays[0]
            term.type(card if not card.startswith("W") else f"{card} red")
            chunk = term.read_until(PROMPT, "round played")
            assert f"Sam plays {card}" in chunk and "Sorry" not in chunk
            played = True
        else:
            term.type("1")
            chunk = term.read_until(PROMPT, "round played")
        if "round played" in chunk or (played and refused and called):
            break
    assert played and refused and called
    if "round played" not in chunk:
        term.type("q")
        term.read_until("played; scores:")
    assert term.close() == 0


def test_undo_takes_back_the_persons_last_move(term: Terminal) -> None:
    chunk = term.read_until(PROMPT)
    for _ in range(30):
        hand, moves = _screen(chunk)
        plays = [m.split()[1] for m in moves if m.startswith("play ") and "naming" not in m]
        if plays and "draw" in moves:
            break
        term.type("1")
        chunk = term.read_until(PROMPT)
    else:
        raise AssertionError("no plain card play offered in 30 moves")
    term.type(plays[0])
    after = term.read_until(PROMPT)
    assert f"Sam plays {plays[0]}" in after
    assert plays[0] not in _screen(after)[0] or hand.count(plays[0]) > 1
    term.type("z")  # back to before the play, bots' moves since included
    undone = term.read_until(PROMPT)
    assert "Undone." in undone
    assert _screen(undone)[0] == hand
    term.type("q")
    term.read_until("played; scores:")
    assert term.close() == 0


def test_the_demo_redraws_the_table_in_place_on_a_terminal() -> None:
    """On a terminal (not --fast) the demo clears the screen and draws the header, the table
    view and the latest lines of the game again after every move."""
    term = Terminal("demo", "--rounds", "1", "--seed", str(SEED), "--pace", "0",
                    "--voice", "captions")
    try:
        out = term.read_until("checked:", timeout=60)
    finally:
        term.close()
    frames = out.split("\x1b[H\x1b[2J")[1:]
    assert len(frames) > 10  # one frame a move
    for frame in frames:
        lines = frame.split("\n")
        assert lines[0].startswith("uno-table demo: Aki (heuristic)")
        assert "| clockwise |" in lines[2] or "| counterclockwise |" in lines[2]
        assert "(cards [score])" in lines[3]
    assert "plays" in frames[-1]  # the latest moves are shown under the view
