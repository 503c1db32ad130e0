"""``uno-table enroll``: tag a deck by tapping each card when asked for it.

The referee asks aloud for each tag in turn ("Tap the red zero."): the undo token first, then
the cards in the edition's order (R0, R1#1, R1#2 ... W+4#4: ``enroll --sheet`` prints it, to
sort a deck before), then the other tokens; progress is printed a line a tag. Copies of a card
are interchangeable: any red five may become R5#1, the referee tells the copies apart only by
their tags. A tag already enrolled is refused (and the same card asked for again); a tap of the
undo token takes back the tag enrolled last and asks for it again. The deck file is rewritten
after every tag, so it is the enrolment's whole state: stopping (Ctrl-C) and running the same
command again carries on where it stopped. ``enroll --verify`` names each card tapped, aloud and
on screen, and ends (the next-round token, or Ctrl-C) with the tags never tapped.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import queue
import signal
import stat
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

from table.cards import edition_copies, edition_counts, parse_copy
from table.errors import TableError
from table.files.durable import replace_durably
from table.files.private import open_private
from table.inputs import ReaderStatus, Report, TagRead
from table.readers.factory import ReaderSpec, make_reader
from table.referee import phrases
from table.referee.announcements import Announcement, card_words
from table.referee.registry import (
    ACTION_TOKENS,
    MAX_SEATS,
    Deck,
    DeckError,
    build_deck,
    deck_toml,
    load_deck,
)
from table.runtime.config import Config, load_config
from table.voice.announcer import Announcer

# A token as enrolment names it, and a colour token's colour, by language (the [token] and
# [token-colour] sections of the table's phrases).
TOKEN_WORDS: Final = {lang: phrases.words("token", lang) for lang in phrases.LANGUAGES}
TOKEN_COLOURS: Final = {lang: phrases.words("token-colour", lang) for lang in phrases.LANGUAGES}


def token_words(name: str, lang: str) -> str:
    """How a token (``color:red``, ``seat:2``, ``undo``) is said in ``lang``."""
    words = TOKEN_WORDS[lang]
    head, _, arg = name.partition(":")
    if head == "color":
        return words["color"].format(TOKEN_COLOURS[lang][arg])
    if head == "seat":
        return words["seat"].format(int(arg))
    return words[head]


UNDO: Final = "token:undo"
FINISH: Final = "token:next-round"  # ends a verify pass


def wanted(edition: str, seats: int) -> list[str]:
    """Every tag to enrol, in the order asked: the undo token (it takes back a wrong tap), the
    cards, then the other tokens."""
    cards = [c.code for c in edition_copies(edition)]
    tokens = [f"color:{c}" for c in ("red", "yellow", "green", "blue")]
    tokens += list(ACTION_TOKENS) + [f"seat:{n}" for n in range(1, seats + 1)]
    return [UNDO] + cards + [f"token:{t}" for t in tokens if f"token:{t}" != UNDO]


def sheet(edition: str, seats: int) -> str:
    """The sorting sheet: every tag in the order ``enroll`` asks for it, to stack a deck in."""
    codes = wanted(edition, seats)
    lines = [f"uno-table enroll: {len(codes)} tags of {edition} with {seats} seat tokens, "
             "in the order asked.",
             "Stack the deck face down so the first card asked is on top. Copies of a card are",
             "interchangeable: any red five may be R5#1 or R5#2. A wrong tap: tap the undo",
             "token (the first tag) and the card is asked for again.", ""]
    for n, code in enumerate(codes, 1):
        lines.append(f"{n:4d}  [ ]  {code:<18} {prompt(code, edition, 'en')[1]}")
    return "\n".join(lines) + "\n"


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
        replace_durably(tmp, path)  # the folder synced: a cut keeps the new file
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
    """One deck's enrolment: the tags enrolled so far (the deck file's), and those to ask for."""

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
        self.order = [code for code in every if code not in skip]
        self.todo = [code for code in self.order if code not in have]
        self.total = len(self.entries) + len(self.todo)

    def run(self, taps: queue.SimpleQueue[Report | None], lang: str) -> None:
        """Ask for each tag in turn. A ``None`` in ``taps`` (Ctrl-C) raises :class:`Stopped`
        at a clean point: between two tags, the deck file whole."""
        print("waiting for the reader...", flush=True)
        _wait_live(taps)  # a tap before the port is open would be lost
        while self.todo:
            code = self.todo[0]
            said, shown = prompt(code, self.edition, lang)
            print(f"[{len(self.entries) + 1:3d}/{self.total}] {code}: tap {shown}", flush=True)
            self.say(said)
            self._one(code, said, shown, taps)

    def _one(self, code: str, said: Announcement, shown: str,
             taps: queue.SimpleQueue[Report | None]) -> None:
        """Wait for the tag of ``code``: enrol it, or take back the last one on the undo
        token."""
        while True:
            read = _next_tag(taps)
            taken = self.entries.get(read.uid)
            if taken == UNDO and code != UNDO:
                self.undo()
                return
            if taken is not None:
                print(f"      {read.uid} is already enrolled as {taken}: tap {shown}",
                      flush=True)
                self.say(Announcement("enroll-taken", said.params, 2))
                continue
            self.entries[read.uid] = code
            save(self.out, self.entries, self.edition)
            self.todo.remove(code)
            print(f"      {read.uid} = {code}", flush=True)
            return

    def undo(self) -> None:
        """Take back the tag enrolled last in the enrolment's order (the undo token stays)."""
        have = {code: uid for uid, code in self.entries.items()}
        done = [code for code in self.order if code in have and code != UNDO]
        if not done:
            print("      nothing to take back", flush=True)
            return
        code = done[-1]
        del self.entries[have[code]]
        save(self.out, self.entries, self.edition)
        self.todo = [c for c in self.order if c == code or c in self.todo]
        print(f"      taken back: {have[code]} is no longer {code}", flush=True)
        self.say(Announcement("enroll-undone", (), 2))


def _wait_live(taps: queue.SimpleQueue[Report | None]) -> None:
    while True:
        report = _next(taps)
        if isinstance(report, ReaderStatus) and report.state == "live":
            return


def _next_tag(taps: queue.SimpleQueue[Report | None]) -> TagRead:
    """The next tag placed on the reader (a lost reader is said, a lift skipped)."""
    while True:
        report = _next(taps)
        if isinstance(report, ReaderStatus) and report.state == "lost":
            print(f"      the reader is disconnected: {report.detail}", flush=True)
        if isinstance(report, TagRead):
            return report


class Verify:
    """``enroll --verify``: each tag tapped named aloud and on screen; the tags never tapped
    at the end."""

    def __init__(self, deck: Deck, say: Any) -> None:
        self.deck, self.say = deck, say
        self.seen: set[str] = set()

    def run(self, taps: queue.SimpleQueue[Report | None], lang: str) -> list[str]:
        """Name every tag tapped until the next-round token (or a ``None``: Ctrl-C); the codes
        of the deck's tags never tapped."""
        print("waiting for the reader...", flush=True)
        _wait_live(taps)
        print(f"tap any card or token; the {token_words('next-round', 'en')} token ends the "
              "check", flush=True)
        with contextlib.suppress(Stopped):
            while True:
                read = _next_tag(taps)
                tag = self.deck.lookup(read.uid)
                if tag is None:
                    print(f"      {read.uid}: not in this deck", flush=True)
                    self.say(Announcement("enroll-unknown", (), 2))
                    continue
                if tag.code == FINISH:
                    break
                self.seen.add(tag.code)
                said, shown = _named(tag.code, self.deck.edition, lang)
                print(f"      {tag.code}: {shown}", flush=True)
                self.say(said)
        every = [tag.code for tag in self.deck.tags.values()]
        return [code for code in sort_codes(every, self.deck.edition)
                if code not in self.seen and code != FINISH]


def _named(code: str, edition: str, lang: str) -> tuple[Announcement, str]:
    """What to say and print when the tag of ``code`` is tapped in a verify pass."""
    if code.startswith("token:"):
        words = token_words(code[6:], lang)
        return Announcement("enroll-named-token", (("token", words),), 2), f"the {words} token"
    said, shown = prompt(code, edition, lang)
    return Announcement("enroll-named", said.params, 2), shown


def sort_codes(codes: list[str], edition: str) -> list[str]:
    """``codes`` in the enrolment's order."""
    where = {code: n for n, code in enumerate(wanted(edition, MAX_SEATS))}
    return sorted(codes, key=lambda code: where.get(code, len(where)))


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
    """``uno-table enroll``: the enrolment, its sorting sheet (``--sheet``) or a verify pass
    (``--verify``)."""
    from table.commands.checks import given_path
    from table.runtime.daemon import check_names_said

    if args.sheet:
        return _print_sheet(args)
    out = Path(given_path("--out", args.out, "the deck file to write, to resume from or to "
                          "verify"))
    config: Config = load_config(args.config, need_deck=False)
    check_names_said(config)
    if args.verify:
        return _verify(config, out, args)
    edition = args.edition
    if edition is None and _started(out):
        try:
            edition = load_deck(out).edition
        except DeckError:
            edition = None
    edition = edition or config.options.deck
    seats = _seats(args.seats if args.seats is not None else len(config.players))
    spec = config.reader(args.reader)
    skip = frozenset(code.strip() for code in args.skip.split(",") if code.strip())
    enrolment = Enrolment(out, edition, seats, None, skip)
    if not enrolment.todo:
        print(f"{out}: all {enrolment.total} tags are enrolled already")
        return 0
    save(out, enrolment.entries, edition)  # a place it cannot be written is said now
    print(f"enrolling {enrolment.total} tags of {edition} on reader {spec.name} into {out}; "
          f"{len(enrolment.entries)} done already", flush=True)
    with _tapping(config, spec) as (taps, announcer):
        enrolment.say = announcer.announce
        try:
            enrolment.run(taps, config.language)
        except Stopped:
            done = len(enrolment.entries)
            print(f"\nstopped: {done} of {enrolment.total} enrolled in {out}; "
                  "run the same command again to go on", file=sys.stderr, flush=True)
            return 130
        announcer.announce(Announcement("enroll-done", (("count", enrolment.total),), 2))
    print(f"wrote {enrolment.total} tags to {out}: uno-table enroll --verify --out {out} "
          "to check them")
    return 0


def _seats(seats: int) -> int:
    if not 1 <= seats <= MAX_SEATS:
        raise TableError(f"--seats {seats}: allowed: 1 to {MAX_SEATS} seat tokens")
    return seats


def _print_sheet(args: argparse.Namespace) -> int:
    """``enroll --sheet``: needs no configuration (the edition and seats given or defaulted)."""
    seats = _seats(args.seats if args.seats is not None else 4)
    sys.stdout.write(sheet(args.edition or "classic-108", seats))
    return 0


def _verify(config: Config, out: Path, args: argparse.Namespace) -> int:
    """``enroll --verify``: exit 0 when every tag of the deck file was tapped, else 1."""
    deck = load_deck(out, args.edition or config.options.deck)
    spec = config.reader(args.reader)
    print(f"checking {len(deck.tags)} tags of {deck.edition} in {out} on reader {spec.name}",
          flush=True)
    with _tapping(config, spec) as (taps, announcer):
        verify = Verify(deck, announcer.announce)
        never = verify.run(taps, config.language)
        announcer.announce(Announcement("enroll-verified", (("count", len(never)),), 2))
    if never:
        print(f"{len(never)} tags never tapped: {' '.join(never)}")
        return 1
    print(f"every one of the {len(verify.seen)} tags was tapped")
    return 0


@contextlib.contextmanager
def _tapping(config: Config, spec: ReaderSpec) -> Iterator[
        tuple[queue.SimpleQueue[Report | None], Announcer]]:
    """The reader's taps in a queue (Ctrl-C and SIGTERM put a ``None``) and the voice, both
    closed after."""
    from table.runtime.daemon import backend_factory

    announcer = Announcer(backend_factory(config, prewarm=False), config.language)
    taps: queue.SimpleQueue[Report | None] = queue.SimpleQueue()  # put() is signal-safe
    reader = make_reader(spec, taps.put)

    def stop(signum: int, frame: object) -> None:
        taps.put(None)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    reader.start()
    try:
        yield taps, announcer
        announcer.idle(timeout=10.0)
    finally:
        reader.stop(timeout=2.0)
        announcer.close()
