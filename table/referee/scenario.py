"""The scenario language (docs/design.md §3): parse ``.scn`` files and replay them on the engine.

Parsing and replaying are separate: :func:`parse` turns text into :class:`Line` values (raising
:class:`ScenarioError` with ``file:line`` for anything it cannot read), and :func:`replay` runs
them. A line the referee rejects is not an error: it is a ``rejected`` step.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from table.cards import Card, Color, edition_counts, parse_card
from table.errors import ScenarioError, TableError
from table.files.text import read_text
from table.inputs import Press, ReaderRole, TagLifted, TagRead
from table.referee.announcements import render
from table.referee.referee import BUTTONS, Referee
from table.referee.registry import normalise_uid, parse_tag, virtual_deck
from table.referee.views import standing_json
from table.rules import (
    Action,
    CallUno,
    Catch,
    Challenge,
    ChooseColor,
    Deal,
    Don,
    Draw,
    Options,
    Pass,
    Phase,
    Play,
    Show,
    State,
    Swap,
    make_options,
    same_names,
)

_COMMENT = re.compile(r"(^|\s)#.*$")
SETUP_WORDS = ("players", "rules", "set", "dealer", "hand", "pile", "start")
PHYSICAL_WORDS = ("tap", "press", "lift")  # what readers and buttons report
VERBS = (
    "plays", "draws", "passes", "uno", "catches", "challenges", "shows", "chooses", "don", "swaps"
)


@dataclass(frozen=True, slots=True)
class Line:
    """One line of a scenario, read: its number, text, word and arguments."""
    number: int
    text: str
    word: str  # a setup word, a verb, a physical word, "undo" or "next-round"
    args: tuple[str, ...] = ()
    player: str | None = None  # for game lines


def _strip(raw: str) -> str:
    return _COMMENT.sub("", raw).strip()


def parse(text: str, path: str = "<scenario>") -> list[Line]:
    """Read a scenario. Raises :class:`ScenarioError` (``file:line: message``)."""
    lines: list[Line] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        body = _strip(raw)
        if not body:
            continue
        words = body.split()
        head = words[0].lower()
        if head in SETUP_WORDS or head in ("undo", "next-round"):
            if head in ("undo", "next-round") and len(words) > 1:
                raise ScenarioError(path, number, f"'{head}' takes no arguments")
            lines.append(Line(number, body, head, tuple(words[1:])))
        elif head in PHYSICAL_WORDS:
            if len(words) != 3:
                what = "PLAYER BUTTON" if head == "press" else "READER TAG"
                raise ScenarioError(path, number, f"'{head}' takes {what}")
            lines.append(Line(number, body, head, tuple(words[1:])))
        elif len(words) >= 2 and words[1].lower() in VERBS:
            lines.append(Line(number, body, words[1].lower(), tuple(words[2:]), words[0]))
        else:
            raise ScenarioError(
                path,
                number,
                f"cannot read {body!r}: expected a set-up line ({', '.join(SETUP_WORDS)}), "
                f"'undo', 'next-round', a physical line ({', '.join(PHYSICAL_WORDS)}), "
                f"or NAME VERB with a verb from {', '.join(VERBS)}",
            )
    return lines


@dataclass
class StepRecord:
    """What one scenario line did: verdict, reason and what was said."""
    line: int
    input: str
    verdict: str
    reason: str | None
    announcements: list[str]

    def as_json(self) -> dict[str, Any]:
        """The record as the ``replay`` command prints it."""
        return {
            "line": self.line,
            "input": self.input,
            "verdict": self.verdict,
            "reason": self.reason,
            "announcements": self.announcements,
        }


@dataclass
class _Setup:
    players: list[str] = field(default_factory=list)
    preset: str = "official"
    overrides: dict[str, str] = field(default_factory=dict)
    dealer: str | None = None
    hands: dict[str, tuple[list[Card], int]] = field(default_factory=dict)
    pile: list[Card] = field(default_factory=list)
    start: list[Card] = field(default_factory=list)

    def clear_deal(self) -> None:
        self.dealer = None
        self.hands = {}
        self.pile = []
        self.start = []


class Replay:
    """Runs parsed lines; holds the state, the undo history and the step records."""

    def __init__(self, path: str = "<scenario>", lang: str = "en") -> None:
        self.path = path
        self.lang = lang
        self.setup = _Setup()
        self.referee: Referee | None = None
        self.steps: list[StepRecord] = []
        self.pending_round = False  # ``next-round`` seen, its set-up lines may follow
        self._last: Line | None = None  # the latest line run
        self._carry: list[str] = []  # what the deal said, spoken before the next step

    @property
    def state(self) -> State | None:
        """The game state so far (None before the first deal)."""
        return self.referee.state if self.referee else None

    # --- errors and lookups ---------------------------------------------------------------

    def _error(self, line: Line, message: str) -> ScenarioError:
        return ScenarioError(self.path, line.number, message)

    def _card(self, line: Line, code: str) -> Card:
        try:
            return parse_card(code)
        except TableError as exc:
            raise self._error(line, str(exc)) from None

    def _seat(self, line: Line, name: str) -> int:
        players = self.state.players if self.state else tuple(self.setup.players)
        for i, p in enumerate(players):
            if p.lower() == name.lower():
                return i
        raise self._error(line, f"unknown player {name!r}: the players are {', '.join(players)}")

    # --- set-up ---------------------------------------------------------------------------

    def _setup_line(self, line: Line) -> None:
        su = self.setup
        w, args = line.word, line.args
        if self.state is not None and not self.pending_round and w not in ("hand",):
            raise self._error(line, f"'{w}' is a set-up line: it goes before the first play")
        if w == "players":
            if self.state is not None:
                raise self._error(line, "players are set once, before the first round")
            if not 2 <= len(args) <= 10:
                raise self._error(line, "'players' takes 2 to 10 names")
            twins = same_names(args)
            if twins:
                raise self._error(line, f"{twins}: give each player a different name")
            su.players = list(args)
        elif w == "rules":
            if len(args) != 1:
                raise self._error(line, "'rules' takes one preset name")
            su.preset = args[0]
            self._options(line)
        elif w == "set":
            if not args:
                raise self._error(line, "'set' takes option=value pairs")
            for pair in args:
                key, eq, value = pair.partition("=")
                if not eq:
                    raise self._error(line, f"{pair!r} is not option=value")
                su.overrides[key] = value
            self._options(line)
        elif w == "dealer":
            if len(args) != 1:
                raise self._error(line, "'dealer' takes one name")
            self._need_players(line)
            self._seat(line, args[0])
            su.dealer = args[0]
        elif w == "hand":
            self._need_players(line)
            if self.state is not None and not self.pending_round:
                raise self._error(line, "'hand' is a set-up line: it goes before the first play")
            if len(args) < 2:
                raise self._error(line, "'hand' takes a name and cards, or a name and a count")
            name = self.setup.players[self._seat(line, args[0])]
            if len(args) == 2 and args[1].isascii() and args[1].isdigit():
                su.hands[name] = ([], int(args[1]))
            else:
                su.hands[name] = ([self._card(line, c) for c in args[1:]], 0)
        elif w == "pile":
            su.pile = [self._card(line, c) for c in args]
        elif w == "start":
            if not args:
                raise self._error(line, "'start' takes the card turned up")
            su.start = [self._card(line, c) for c in args]
        if w in ("hand", "pile", "start"):
            self._check_copies(line)

    def _check_copies(self, line: Line) -> None:
        """Blame the set-up line that names a card more often than the deck holds it."""
        su = self.setup
        named = [c for cards, _ in su.hands.values() for c in cards] + su.pile + su.start
        edition = self._options(line).deck
        counts = edition_counts(edition)
        for card in dict.fromkeys(named):
            if named.count(card) > counts.get(card, 0):
                raise self._error(line, f"{card.code} is named {named.count(card)} times in the "
                                        f"set-up, but the {edition} deck has "
                                        f"{counts.get(card, 0)}")

    def _need_players(self, line: Line) -> None:
        if not self.setup.players:
            raise self._error(line, "the 'players' line must come first")

    def _options(self, line: Line) -> Options:
        try:
            return make_options(self.setup.preset, **self.setup.overrides)
        except TableError as exc:
            raise self._error(line, str(exc)) from None

    def _deal(self, line: Line) -> Deal:
        su = self.setup
        size = self._options(line).hand_size
        out = self.state.eliminated if self.state else [False] * len(su.players)
        hands = [
            su.hands.get(p, ([], 0 if gone else size))
            for p, gone in zip(su.players, out, strict=True)
        ]
        return Deal(hands=hands, pile=su.pile, start=su.start)

    def _begin(self, line: Line) -> None:
        """Deal the first round (or the next one) from the set-up lines read so far."""
        su = self.setup
        self._need_players(line)
        try:
            dealer = self._seat(line, su.dealer) if su.dealer else None
            deal = self._deal(line)
            if self.referee is None:
                options = self._options(line)
                self.referee, said = Referee.create(
                    options,
                    su.players,
                    virtual_deck(options.deck),
                    virtual_readers(su.players),
                    dealer or 0,
                    deal,
                )
            else:
                out = self.referee.next_round(deal, dealer)
                if out.verdict == "rejected":
                    raise self._error(line, f"the next round cannot start: {out.reason}")
                said = list(out.announcements)
        except TableError as exc:
            raise self._error(line, str(exc)) from None
        self.pending_round = False
        su.clear_deal()
        self._carry = [render(a, self.lang) for a in said]

    # --- game lines -----------------------------------------------------------------------

    def _action(self, line: Line, seat: int) -> Action:
        w, args = line.word, line.args
        if w == "plays":
            if not args:
                raise self._error(line, "'plays' takes one or more cards")
            color: Color | None = None
            codes = list(args)
            if len(codes) > 1:
                try:
                    color = Color.parse(codes[-1])
                    codes.pop()
                except TableError:
                    color = None
            return Play(seat, tuple(self._card(line, c) for c in codes), color)
        if w == "draws":
            if len(args) > 1:
                raise self._error(line, "'draws' takes at most one card")
            return Draw(seat, self._card(line, args[0]) if args else None)
        if w == "chooses":
            if len(args) != 1:
                raise self._error(line, "'chooses' takes a colour")
            try:
                return ChooseColor(seat, Color.parse(args[0]))
            except TableError as exc:
                raise self._error(line, str(exc)) from None
        if w == "catches":
            if len(args) != 1:
                raise self._error(line, "'catches' takes a player")
            return Catch(seat, self._seat(line, args[0]))
        if w == "shows":
            return Show(seat, tuple(self._card(line, c) for c in args))
        if w == "don":  # optionally with the hand shown: ``Aki don R1 B2``
            return Don(seat, tuple(self._card(line, c) for c in args))
        if w == "swaps":
            if len(args) != 1:
                raise self._error(line, "'swaps' takes a player")
            return Swap(seat, self._seat(line, args[0]))
        if args:
            raise self._error(line, f"'{w}' takes no arguments")
        if w == "passes":
            return Pass(seat)
        if w == "uno":
            return CallUno(seat)
        return Challenge(seat)

    def _record(self, line: Line, verdict: str, reason: str | None, says: list[str]) -> None:
        says, self._carry = self._carry + says, []
        self.steps.append(StepRecord(line.number, line.text, verdict, reason, says))

    def run_line(self, line: Line) -> None:
        """Run one parsed line; raises :class:`ScenarioError` for one that is wrong."""
        self._last = line
        if line.word in SETUP_WORDS:
            self._setup_line(line)
            return
        if line.word == "next-round":
            s = self.state
            if s is None or s.phase is not Phase.ROUND_OVER or len(s.results) < s.round:
                over = s is not None and s.phase is Phase.MATCH_OVER
                self._record(line, "rejected", "match-over" if over else "round-not-over", [])
                return
            self.pending_round = True
            self._record(line, "accepted", None, [])
            return
        if self.referee is None or self.pending_round:
            self._begin(line)
        ref = self.referee
        assert ref is not None
        if line.word in ("lift", "tap") and line.args[0] not in ref.readers:
            readers = ", ".join(ref.readers)  # the virtual table lacks it: the file is wrong
            raise self._error(line, f"unknown reader {line.args[0]!r}: the readers are {readers}")
        if line.word == "lift":  # not judged, nothing said: no step, only what rests where
            ref.handle(TagLifted(line.args[0], self._uid(line, ref)))
            return
        if line.word == "undo":
            out = ref.undo()
        elif line.word == "tap":
            out = ref.handle(TagRead(line.args[0], self._uid(line, ref)))
        elif line.word == "press":
            if line.args[1].lower() not in BUTTONS:
                allowed = ", ".join(BUTTONS)
                raise self._error(line, f"unknown button {line.args[1]!r}: use {allowed}")
            out = ref.handle(Press(self._seat(line, line.args[0]), line.args[1].lower()))
        else:
            assert line.player is not None
            out = ref.act(self._action(line, self._seat(line, line.player)))
        says = [render(a, self.lang) for a in out.announcements]
        self._record(line, out.journal_word, out.reason, says)

    def _uid(self, line: Line, ref: Referee) -> str:
        """A tap's tag: a hex UID, or a card copy / token of the virtual deck."""
        text = line.args[1]
        if text.lower().startswith("token:") or "#" in text:
            try:
                tag = parse_tag(text if text.lower().startswith("token:") else text.upper())
            except TableError as exc:
                raise self._error(line, str(exc)) from None
            uid = ref.deck.uid_of(tag)
            if uid is None:
                raise self._error(line, f"{text} is not in the {ref.deck.edition} virtual deck")
            return uid
        try:
            return normalise_uid(text)
        except TableError as exc:
            raise self._error(line, str(exc)) from None

    def run(self, lines: Sequence[Line]) -> None:
        """Run a whole scenario. One with no lines (an empty file, or only comments) is an
        error like one without a ``players`` line: there is no game to referee."""
        if not lines:
            raise ScenarioError(self.path, 1, "no scenario lines (the file is empty or only "
                                "comments): a scenario starts with players NAME NAME ...")
        for line in lines:
            self.run_line(line)
        self.finish()

    def finish(self) -> None:
        """The end of the file completes a set-up: the first round, or the round after a
        ``next-round``, starts now. What its deal says goes with the last step (there is no
        later one to carry it)."""
        if self._last is None or (self.referee is not None and not self.pending_round):
            return
        self._begin(self._last)
        if self.steps:
            self.steps[-1].announcements += self._carry
            self._carry = []

    # --- output ---------------------------------------------------------------------------

    def result(self) -> dict[str, Any]:
        """The replay JSON of docs/design.md §3."""
        s = self.state
        if s is None:
            return {"steps": [], "state": None, "rounds": [], "scores": {}, "match_over": False}
        return {"steps": [r.as_json() for r in self.steps], **standing_json(s)}


def virtual_readers(players: Sequence[str]) -> list[ReaderRole]:
    """The replay's virtual table: a play pad ``pad``, a draw shoe ``shoe`` and one seat pad
    per player, named after the player."""
    return [
        ReaderRole("pad", "play"),
        ReaderRole("shoe", "draw"),
        *(ReaderRole(name, "seat", i) for i, name in enumerate(players)),
    ]


def replay_text(text: str, path: str = "<scenario>", lang: str = "en") -> Replay:
    """Run a scenario given as text."""
    rp = Replay(path, lang)
    rp.run(parse(text, path))
    return rp


def replay_file(path: str, lang: str = "en") -> Replay:
    """Run the scenario file at ``path``."""
    return replay_text(read_text(path, "scenario file"), path, lang)
