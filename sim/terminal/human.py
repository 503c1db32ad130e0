"""``uno-table sim``: a person plays one seat at the terminal against bots.

The person sees the table (as anyone at it would), their own hand and the moves open to them,
and answers with a number from the list, a card code (``R5``, ``W+4 blue``) or a control key.
Their moves go through the same virtual readers and buttons as the bots', so a wrong card is
refused by the referee, politely, exactly as at a real table.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass
from typing import TextIO

from sim.players.bots import SeatView, make_bot, seat_rng
from sim.tabletop.demo import (
    NAMES,
    TableConfig,
    choose_voice,
    hold_web,
    make_announcer,
    table_options,
)
from sim.tabletop.match import Command, Seat, play_match
from sim.tabletop.virtual import SimTable
from sim.tabletop.web_people import WebSeat, start_web
from sim.terminal.view import demo_line, hand_lines, table_lines
from table.cards import COLORS, Color, parse_card
from table.errors import TableError
from table.rules import Action, CallUno, Catch, Challenge, ChooseColor, Draw, Pass, Play

PROMPT = "your move (number, card code, or h for help): "

HELP = """\
  a number     the move of that number in the list
  R5, B+2, YS  play that card from your hand
  W red        play a wild naming a colour (r, y, g, b also work); W alone: name it next
  u            call UNO (when you are about to go down to one card)
  c            catch a player who went down to one card without calling UNO
  x            challenge a Wild Draw Four played on you
  d            draw a card (or take the cards you must draw)
  p            pass, keeping the card you drew
  z            undo: take back your last move (and everything done since)
  q            leave the table"""

KEYS = {
    "u": "uno", "uno": "uno", "c": "catch", "catch": "catch", "x": "challenge",
    "challenge": "challenge", "d": "draw", "draw": "draw", "p": "pass", "pass": "pass",
    "z": "undo", "undo": "undo", "q": "quit", "quit": "quit", "h": "help", "help": "help",
    "?": "help",
}


class InputError(TableError, ValueError):
    """A line the person typed that is not a move."""


def parse_color(word: str) -> Color:
    """A colour as typed (``r``, ``red``), or None."""
    word = word.lower()
    for c in COLORS:
        if word in (c.value, c.value[0]):
            return c
    raise InputError(f"{word!r} is not a colour: use red, yellow, green or blue (r, y, g, b)")


class Person:
    """The seat played at the terminal."""

    name = "person"

    def __init__(self, table: SimTable, inp: TextIO, out: TextIO) -> None:
        self.table = table
        self.inp = inp
        self.out = out

    def say(self, text: str) -> None:
        """Print a line for the person at the terminal."""
        self.out.write(text + "\n")
        self.out.flush()

    def _ask(self, prompt: str) -> str | None:
        self.out.write(prompt)
        self.out.flush()
        line = self.inp.readline()
        return None if not line else line.strip()

    def act(self, view: SeatView) -> Action | Command:
        """Ask the person for a move until they give one that can be made."""
        for text in table_lines(self.table.state, lang=self.table.lang)[1:3]:
            self.say(text)
        for text in hand_lines(view.hand, view.legal):
            self.say(text)
        while True:
            line = self._ask(PROMPT)
            if line is None:
                return "quit"
            if not line:
                continue
            try:
                choice = self.parse(line, view)
            except InputError as exc:
                self.say(f"  {exc}")
                continue
            if choice == "help":
                self.say(HELP)
                continue
            if isinstance(choice, str):
                return "undo" if choice == "undo" else "quit"
            return choice

    def parse(self, line: str, view: SeatView) -> Action | Command | str:
        """A typed line as a move. Raises :class:`InputError` with what to type instead."""
        seat = view.seat
        words = line.split()
        head = words[0].lower()
        if head.isdigit():
            n = int(head)
            if not 1 <= n <= len(view.legal):
                raise InputError(f"there is no move {n}: pick 1 to {len(view.legal)}")
            return view.legal[n - 1]
        key = KEYS.get(head)
        if key is not None and len(words) == 1:
            if key in ("undo", "quit", "help"):
                return key
            if key == "catch":
                for a in view.reactions:
                    if isinstance(a, Catch):
                        return a
                raise InputError("nobody is on one card without having called UNO")
            simple: dict[str, Action] = {
                "uno": CallUno(seat), "draw": Draw(seat), "pass": Pass(seat),
                "challenge": Challenge(seat),
            }
            return simple[key]
        if any(isinstance(a, ChooseColor) for a in view.legal) and len(words) == 1:
            return ChooseColor(seat, parse_color(head))
        try:
            card = parse_card(words[0])
        except TableError:
            raise InputError(
                f"{line!r} is not a move: type a number from the list, a card like R5 or "
                "'W+4 blue', or h for help"
            ) from None
        if card not in view.hand:
            raise InputError(f"you do not hold {card.code}")
        if len(words) > 2 or (len(words) == 2 and not card.is_wild):
            raise InputError(f"type just the card ({card.code}); only a wild takes a colour")
        color = parse_color(words[1]) if len(words) == 2 else None
        return Play(seat, (card,), color)

    def react(self, view: SeatView) -> Action | None:
        """Between turns: the person may call UNO or catch, as at a table."""
        catch = next((a for a in view.reactions if isinstance(a, Catch)), None)
        late = next((a for a in view.reactions if isinstance(a, CallUno)), None)
        if catch is not None:
            who = view.players[catch.target]
            line = self._ask(f"{who} is on one card and did not call UNO: c to catch, "
                             "Enter to let it go: ")
            return catch if line and line.lower() in ("c", "catch") else None
        if late is not None:
            line = self._ask("You are on one card and did not call UNO: u to call it now, "
                             "Enter to go on: ")
            return late if line and line.lower() in ("u", "uno") else None
        return None


@dataclass
class SimConfig(TableConfig):
    """What ``uno-table sim`` was asked for."""
    name: str = "Sam"  # the person's name at the table
    people: int = 1  # people at the table, the first seats (more than one: each at a phone)


def _checked_name(cfg: SimConfig) -> str:
    """The person's name, once the numbers of ``sim`` are checked (a clear error otherwise)."""
    if not 2 <= cfg.players <= len(NAMES):
        raise TableError(f"--players {cfg.players}: use 2 to {len(NAMES)}")
    name = cfg.name.strip()
    if not name or len(name.split()) != 1:
        raise TableError(f"--name {cfg.name!r}: use one word, e.g. --name Sam")
    if not 1 <= cfg.people <= cfg.players:
        raise TableError(f"--people {cfg.people}: use 1 to --players ({cfg.players})")
    if cfg.people > 1 and cfg.web is None:
        raise TableError(f"--people {cfg.people}: more than one person needs --web PORT "
                         "(each plays from their own phone)")
    return name


def main_sim(cfg: SimConfig, inp: TextIO = sys.stdin, out: TextIO = sys.stdout) -> int:
    """The ``sim`` command: a person plays bots on a simulated table."""
    name = _checked_name(cfg)
    options = table_options(cfg.preset, cfg.overrides)
    others = [n for n in NAMES if n.lower() != name.lower()][: cfg.players - 1]
    names = [name, *others]
    voice = choose_voice(cfg.voice, cfg.fast)
    announcer = make_announcer(voice, cfg.lang, names, cfg.voice_detail)

    def show(text: str) -> None:
        out.write(text + "\n")
        out.flush()

    if cfg.web is None:
        show(f"uno-table sim: you are {name}; against {', '.join(others)}; rules {cfg.preset}; "
             f"voice {voice}. Type h for help.")
    else:
        show(f"uno-table sim: {', '.join(names[: cfg.people])} against "
             f"{', '.join(names[cfg.people:])}; rules {cfg.preset}; voice {voice}. Each person "
             "plays from a phone: open your seat's link below.")
    table = SimTable(
        options, names, cfg.seed, cfg.lang,
        say=announcer.announce if announcer else None, hands=cfg.hands, noise=cfg.noise,
    )
    if announcer is not None:
        table.stream.subscribe(announcer.follow)  # --voice-detail: the plays, draws and counts
    server = remote = None
    person: list[Seat]
    if cfg.web is not None:
        server, remote = start_web(table, cfg.web, plays_cards=True)
        server.print_seats(out)
        person = [WebSeat(remote, seat) for seat in range(cfg.people)]
    else:
        person = [Person(table, inp, out)]
    table.show = show  # the table's first words after the seat links
    for text in table.transcript:
        show(text)
    seats: list[Seat] = person + [
        make_bot(cfg.bots[(i - cfg.people) % len(cfg.bots)], seat_rng(cfg.seed, i))
        for i in range(cfg.people, cfg.players)
    ]

    def after_move(t: SimTable) -> None:
        bot_next = (t.state.current_player or 0) >= cfg.people
        if not cfg.fast and bot_next and announcer is not None:
            announcer.idle(timeout=30)
        pace = cfg.pace if bot_next and not cfg.fast else 0.0
        if remote is not None:  # the pages' out-of-turn presses, between two moves
            remote.serve(pace)
        else:
            time.sleep(pace)

    def after_round(t: SimTable) -> None:
        for text in table_lines(t.state, lang=t.lang)[1:3]:
            show(text)

    try:
        with table:
            played = play_match(table, seats, cfg.rounds, after_move, after_round)
    except KeyboardInterrupt:
        show("\nstopped.")
        if server is not None:
            server.stop()
        return 130
    finally:
        if remote is not None:
            remote.over = True
        if announcer is not None:
            announcer.close(timeout=5)
    board = ", ".join(f"{n} {p}" for n, p in zip(names, table.state.scores, strict=True))
    show(demo_line("played", cfg.lang, rounds=played, board=board))
    if table.radio is not None:
        show(table.radio.summary())
    if server is not None:
        hold_web(server, out)
    return 0
