"""``uno-table enroll``: tag a deck by tapping each card when asked for it.

The referee asks aloud for each card in turn ("Tap the red zero."), then for the control
tokens; progress is printed a line a card. A tag already enrolled is refused (and the same card
asked for again). The deck file is rewritten after every card, so it is the enrolment's whole
state: stopping (Ctrl-C) and running the same command again carries on where it stopped.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import queue
import signal
import stat
import sys
from pathlib import Path
from typing import Any

from table.cards import edition_copies, edition_counts, parse_copy
from table.errors import TableError
from table.files.private import open_private
from table.inputs import ReaderStatus, Report, TagRead
from table.readers.factory import make_reader
from table.referee.announcements import Announcement, card_words
from table.referee.registry import ACTION_TOKENS, DeckError, build_deck, deck_toml, load_deck
from table.runtime.config import Config, load_config
from table.voice.announcer import Announcer

TOKEN_WORDS = {
    "en": {"draw": "draw", "pass": "pass", "uno": "UNO", "challenge": "challenge", "don": "Don",
           "undo": "undo", "next-round": "next round", "color": "{} colour", "seat": "seat {}"},
    "ja": {"draw": "ドロー", "pass": "パス", "uno": "ウノ", "challenge": "チャレンジ",
           "don": "ドン",
           "undo": "取り消し", "next-round": "次のラウンド", "color": "{}", "seat": "{}番の席"},
}
_COLOR_JA = {"red": "あか", "yellow": "きいろ", "green": "みどり", "blue": "あお"}


def token_words(name: str, lang: str) -> str:
    """What the voice says to ask for the control token ``name`` in ``lang``."""
    words = TOKEN_WORDS[lang]
    head, _, arg = name.partition(":")
    if head == "color":
        return words["color"].format(_COLOR_JA[arg] if lang == "ja" else arg)
    if head == "seat":
        return words["seat"].format(int(arg))
    return words[head]


def wanted(edition: str, seats: int) -> list[str]:
    """Every tag to enrol, in the order asked: the cards, then the tokens."""
    cards = [c.code for c in edition_copies(edition)]
    tokens = [f"color:{c}" for c in ("red", "yellow", "green", "blue")]
    tokens += list(ACTION_TOKENS) + [f"seat:{n}" for n in range(1, seats + 1)]
    return cards + [f"token:{t}" for t in tokens]


def prompt(code: str, edition: str, lang: str) -> tuple[Announcement, str]:
    """What to say and print for ``code``."""
    if code.startswith("token:"):
        words = token_words(code[6:], lang)
        return Announcement("enroll-token", (("token", words),), 2), f"the {words} token"
    copy = parse_copy(code)
    copies = edition_counts(edition)[copy.card]
    said = Announcement("enroll-tap", (("card", copy.card.code),), 2)
    shown = card_words(copy.card, "en")
    return said, shown + (f" (copy {copy.copy} of {copies})" if copies > 1 else "")


def save(path: Path, entries: dict[str, str], edition: str) -> None:
    """Write the deck file atomically: a stop at any moment leaves a whole file. It is private
    (:mod:`table.files.private`: the UIDs tell the cards in a hand apart); a deck file rewritten
    keeps its group and mode, less what they gave every user."""
    text = deck_toml(build_deck(entries, edition, str(path)))
    tmp = path.with_name(path.name + ".part")
    try:
        tmp.unlink(missing_ok=True)  # a part left by a stop: made again, private
        fd = open_private(tmp, os.O_WRONLY | os.O_TRUNC)
        with open(fd, "w", encoding="utf-8") as f:
            _like(f.fileno(), path)
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except OSError as exc:
        raise DeckError(f"{path}: cannot write the deck file: {exc.strerror}") from None


def _started(out: Path) -> bool:
    """Whether ``out`` holds an enrolment to carry on: anything there but nothing at all or an
    empty file (``touch deck.toml`` first is a fresh start). A folder, a broken link or a file
    that is not a deck is refused by :func:`load_deck`."""
    return os.path.lexists(out) and not (os.path.isfile(out) and os.path.getsize(out) == 0)


def _like(fd: int, path: Path) -> None:
    """The new deck file gets the old one's group and mode (less the other users' bits)."""
    try:
        old = os.stat(path)
    except FileNotFoundError:
        return
    with contextlib.suppress(OSError):  # not a member of that group: the new file keeps ours
        os.fchown(fd, -1, old.st_gid)
    os.fchmod(fd, stat.S_IMODE(old.st_mode) & 0o660)


class Enrolment:
    """A deck being tagged: which card is asked for next, and the file it goes to."""

    def __init__(self, out: Path, edition: str, seats: int, say: Any,
                 skip: frozenset[str] = frozenset()) -> None:
        self.out, self.edition, self.say = out, edition, say
        self.entries: dict[str, str] = {}
        if _started(out):
            deck = load_deck(out, edition)
            if deck.edition != edition:
                raise DeckError(f"{out}: a {deck.edition} deck, not {edition}: use --edition "
                                f"{deck.edition} or another --out file")
            self.entries = {uid: tag.code for uid, tag in deck.tags.items()}
        have = set(self.entries.values())
        every = wanted(edition, seats)
        unknown = sorted(skip - set(every))
        if unknown:
            raise TableError(f"--skip {unknown[0]}: not a card or token of this enrolment "
                             f"(write codes like R5#2 or token:don)")
        self.todo = [code for code in every if code not in have and code not in skip]
        self.total = len(self.entries) + len(self.todo)

    def run(self, taps: queue.SimpleQueue[Report | None], lang: str) -> None:
        """Ask for each card in turn. A ``None`` in ``taps`` (Ctrl-C) raises :class:`Stopped`
        at a clean point: between two cards, the deck file whole."""
        print("waiting for the reader...", flush=True)
        while True:  # a tap before the port is open would be lost
            report = _next(taps)
            if isinstance(report, ReaderStatus) and report.state == "live":
                break
        for code in list(self.todo):
            said, shown = prompt(code, self.edition, lang)
            print(f"[{len(self.entries) + 1:3d}/{self.total}] {code}: tap {shown}", flush=True)
            self.say(said)
            while True:
                report = _next(taps)
                if isinstance(report, ReaderStatus):
                    if report.state == "lost":
                        print(f"      the reader is disconnected: {report.detail}", flush=True)
                    continue
                if not isinstance(report, TagRead):
                    continue  # a card taken off the pad
                taken = self.entries.get(report.uid)
                if taken is not None:
                    print(f"      {report.uid} is already enrolled as {taken}: "
                          f"tap {shown}", flush=True)
                    self.say(Announcement("enroll-taken", said.params, 2))
                    continue
                self.entries[report.uid] = code
                save(self.out, self.entries, self.edition)
                self.todo.remove(code)
                print(f"      {report.uid} = {code}", flush=True)
                break


class Stopped(Exception):
    """Ctrl-C or SIGTERM during an enrolment."""


def _next(taps: queue.SimpleQueue[Report | None]) -> Report:
    while True:
        try:
            # With a timeout: a signal delivered to another thread runs its Python handler
            # only when this (main) thread comes back to the interpreter.
            report = taps.get(timeout=0.25)
        except queue.Empty:
            continue
        if report is None:
            raise Stopped
        return report


def enroll_command(args: argparse.Namespace) -> int:
    """``uno-table enroll``: tag a deck card by card into ``--out``; the exit code."""
    from table.commands.checks import given_path
    from table.runtime.daemon import backend_factory, check_names_said

    out = Path(given_path("--out", args.out, "the deck file to write (and to resume from)"))
    config: Config = load_config(args.config, need_deck=False)
    check_names_said(config)
    edition = args.edition
    if edition is None and _started(out):
        try:
            edition = load_deck(out).edition
        except DeckError:
            edition = None
    edition = edition or config.options.deck
    seats = args.seats if args.seats is not None else len(config.players)
    if not 1 <= seats <= 10:
        raise TableError(f"--seats {seats}: allowed: 1 to 10 seat tokens")
    spec = config.reader(args.reader)
    skip = frozenset(code.strip() for code in args.skip.split(",") if code.strip())
    enrolment = Enrolment(out, edition, seats, None, skip)
    if not enrolment.todo:
        print(f"{out}: all {enrolment.total} tags are enrolled already")
        return 0
    save(out, enrolment.entries, edition)  # a place it cannot be written is said now
    announcer = Announcer(backend_factory(config, prewarm=False), config.language)
    enrolment.say = announcer.announce
    taps: queue.SimpleQueue[Report | None] = queue.SimpleQueue()  # put() is signal-safe
    reader = make_reader(spec, taps.put)

    def stop(signum: int, frame: object) -> None:
        taps.put(None)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    print(f"enrolling {enrolment.total} tags of {edition} on reader {spec.name} into {out}; "
          f"{len(enrolment.entries)} done already", flush=True)
    reader.start()
    try:
        enrolment.run(taps, config.language)
    except Stopped:
        done = len(enrolment.entries)
        print(f"\nstopped: {done} of {enrolment.total} enrolled in {out}; "
              "run the same command again to go on", file=sys.stderr, flush=True)
        return 130
    finally:
        reader.stop(timeout=2.0)
    announcer.announce(Announcement("enroll-done", (("count", enrolment.total),), 2))
    announcer.idle(timeout=10.0)
    announcer.close()
    print(f"wrote {enrolment.total} tags to {out}: uno-table deck check {out} to verify")
    return 0
