"""A match as the journal keeps it: the set-up, then the table's inputs in order.

The referee is deterministic (chance comes in as inputs), so a match is rebuilt exactly by
making the referee from its :class:`MatchSetup` and feeding it the same inputs through
:func:`give`, the one function the live table's step (:class:`table.runtime.step.TableStep`)
uses too. The set-up carries the deck's UID table,
so a journal is read without the configuration or the deck file it was played with.
"""

from __future__ import annotations

import dataclasses
import enum
import hashlib
import io
import json
import logging
import pickle
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Final, NamedTuple

from table.errors import TableError
from table.inputs import (
    ADMIN_INPUTS,
    Admin,
    Input,
    JournaledInput,
    Press,
    ReaderRole,
    TagLifted,
    TagRead,
)
from table.referee.announcements import Announcement
from table.referee.referee import Outcome, Referee
from table.referee.registry import Deck, build_deck
from table.rules import COMPILED, Options, make_options

log = logging.getLogger(__name__)

UNDO_DEPTH: Final = 200  # how many inputs undo can go back (bounds memory over an evening)


class RowError(TableError, ValueError):
    """A journal row whose checksum is right but whose content this code cannot read (another
    version wrote it)."""


@dataclass(frozen=True)
class MatchSetup:
    """What a match is played with: players, options, dealer, reader roles, deck, reminder."""

    players: tuple[str, ...]
    options: Options
    dealer: int
    readers: tuple[ReaderRole, ...]
    deck: Deck
    color_reminder: float = 5.0

    def to_json(self) -> str:
        """Canonical JSON (sorted keys): equal set-ups give equal text."""
        return json.dumps(
            {
                "players": list(self.players),
                "options": self.options.as_dict(),
                "dealer": self.dealer,
                "readers": [[r.name, r.role, r.seat] for r in self.readers],
                "deck": {
                    "edition": self.deck.edition,
                    "uids": {uid: tag.code for uid, tag in sorted(self.deck.tags.items())},
                },
                "color_reminder": self.color_reminder,
            },
            sort_keys=True,
            separators=(",", ":"),
            ensure_ascii=False,
        )

    def digest(self) -> str:
        """A hash of :meth:`to_json`: equal set-ups, equal digests."""
        return hashlib.sha256(self.to_json().encode()).hexdigest()

    @classmethod
    def from_json(cls, text: str) -> MatchSetup:
        """The set-up of :meth:`to_json`'s text (:class:`RowError` if it is not one)."""
        try:
            data: dict[str, Any] = json.loads(text)
            options = dict(data["options"])
            preset = options.pop("preset")
            deck = data["deck"]
            return cls(
                players=tuple(str(p) for p in data["players"]),
                options=make_options(preset, **options),
                dealer=int(data["dealer"]),
                readers=tuple(ReaderRole(n, r, s) for n, r, s in data["readers"]),
                deck=build_deck(dict(deck["uids"]), deck["edition"], "journal"),
                color_reminder=float(data.get("color_reminder", 5.0)),
            )
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            raise RowError(f"a set-up that is not {_problem(exc)}") from None

    def create(self) -> tuple[Referee, list[Announcement]]:
        """A referee at the start of this match, and what it says first."""
        ref, said = Referee.create(self.options, self.players, self.deck, self.readers,
                                   self.dealer)
        ref.reminder_after = self.color_reminder
        return ref, said

    def referee(self) -> Referee:
        """A referee at the start of this match."""
        return self.create()[0]


def trim(ref: Referee) -> None:
    """Keep the undo history bounded. Called after every input, live and on replay alike."""
    if len(ref.history) > UNDO_DEPTH:
        del ref.history[: len(ref.history) - UNDO_DEPTH]


def feed_referee(ref: Referee, item: Input) -> Outcome:
    """One input into the referee: how the live table and the journal replay both do it."""
    out = ref.handle(item)
    trim(ref)
    return out


def rebuild(setup: MatchSetup, inputs: Iterable[JournaledInput]) -> Referee:
    """The referee after ``inputs``, exactly as the live table had it."""
    ref = setup.referee()
    ref.speaking = False  # announcements are for the table, not for a replay
    for item in inputs:
        feed_referee(ref, item)
    ref.speaking = True
    # Input times came from another run's clock: the reminder timer starts afresh.
    ref.now = 0.0
    ref.color_since = None
    return ref


class Snapshot(NamedTuple):
    """A frozen referee as the journal gives it back."""

    covered: int  # how many of the match's inputs it has taken
    data: bytes
    version: str  # the shape of every class in ``data`` when it was written


class StaleSnapshot(TableError, ValueError):
    """A snapshot written by code of another shape: it cannot be trusted."""


class _Freezer(pickle.Pickler):
    """Pickles and notes the class of everything it writes (a class written as such, itself)."""

    def __init__(self, out: io.BytesIO) -> None:
        super().__init__(out, protocol=5)
        self.named: dict[str, type] = {}

    def reducer_override(self, obj: Any) -> Any:
        kind = type(obj)
        _note(self.named, obj if isinstance(obj, type) else kind)
        params = getattr(kind, "__dataclass_params__", None)
        if params is not None and params.frozen and kind.__module__.startswith("table."):
            # Made again by its constructor, from its fields: a compiled class cannot be
            # filled field by field once frozen. Pure Python reads the same object back.
            return kind, tuple(getattr(obj, f.name) for f in dataclasses.fields(obj))
        return NotImplemented  # pickled as usual


class _Loader(pickle.Unpickler):
    """Unpickles and notes every class the data names."""

    def __init__(self, data: bytes) -> None:
        super().__init__(io.BytesIO(data))
        self.named: dict[str, type] = {}

    def find_class(self, module: str, name: str) -> Any:
        found = super().find_class(module, name)
        if isinstance(found, type):
            _note(self.named, found)
        return found


def _note(named: dict[str, type], cls: type) -> None:
    if cls.__module__ != "builtins":
        named[f"{cls.__module__}.{cls.__qualname__}"] = cls


def _shape(found: type) -> str:
    """What of a class decides how its pickled instances read back: a dataclass's fields in
    order with their types, an enum's members and values, a named tuple's or a slotted
    class's field names."""
    if isinstance(found, type) and dataclasses.is_dataclass(found):
        return ",".join(f"{f.name}:{f.type}" for f in dataclasses.fields(found))
    if isinstance(found, type) and issubclass(found, enum.Enum):
        return ",".join(f"{m.name}={m.value!r}" for m in found)
    fields = getattr(found, "_fields", None) or getattr(found, "__slots__", None)
    return ",".join(fields) if isinstance(fields, tuple) else ""


def _version(named: dict[str, type]) -> str:
    from table import __version__

    shape = "\n".join(f"{name}({_shape(found)})" for name, found in sorted(named.items()))
    return f"{__version__}:{hashlib.sha256(shape.encode()).hexdigest()[:16]}{_BUILD}"


# The compiled engine's objects are pickled otherwise: each build reads only its own snapshots
# (the other one's are replayed, checked before a byte is unpickled).
_BUILD: Final = ":compiled" if COMPILED else ""


def freeze(ref: Referee) -> tuple[bytes, str]:
    """The referee as bytes (the deck is left out: it is in the set-up), and the version of
    its shape: the shape of every class the bytes name, as this code has them."""
    out = io.BytesIO()
    freezer = _Freezer(out)
    freezer.dump(dataclasses.replace(ref, deck=Deck(ref.deck.edition, {})))
    return out.getvalue(), _version(freezer.named)


def thaw(data: bytes, version: str, setup: MatchSetup) -> Referee:
    """A referee frozen by :func:`freeze`, for ``setup``. The data comes from our own journal;
    :class:`StaleSnapshot` when a class it names has another shape now than when it was
    written (a field added to the options would shift every later one)."""
    if version.endswith(":compiled") != COMPILED:
        raise StaleSnapshot("the snapshot was written by the other build of the engine")
    loader = _Loader(data)
    try:
        ref = loader.load()
    except Exception as exc:  # a class of another shape now, which refuses what was written
        raise StaleSnapshot(f"the snapshot cannot be read back: {exc}") from exc
    if _version(loader.named) != version:
        raise StaleSnapshot("the snapshot was written by code of another shape")
    if not isinstance(ref, Referee) or ref.state.players != setup.players:
        raise ValueError("the snapshot is not of this match")
    ref.deck = setup.deck
    return ref


def resume(setup: MatchSetup, inputs: Sequence[JournaledInput],
           snapshot: Snapshot | None = None) -> Referee:
    """The referee after ``inputs``: from ``snapshot`` when it can be read and was written by
    code of the same shape, replaying only the inputs after it; else from the start."""
    if snapshot is not None:
        covered, data, version = snapshot
        try:
            ref = thaw(data, version, setup)
        except Exception as exc:  # a snapshot is a shortcut only: any doubt, replay everything
            log.info("the snapshot is not used (%s): the whole match is replayed", exc)
            return rebuild(setup, inputs)
        ref.speaking = False
        for item in inputs[covered:]:
            feed_referee(ref, item)
        ref.speaking = True
        ref.now, ref.color_since = 0.0, None
        return ref
    return rebuild(setup, inputs)


# The journal's row kinds of the reads (a press is "press", an admin page's action "admin").
INPUT_KINDS: dict[str, type[TagRead | TagLifted]] = {"tag": TagRead, "lift": TagLifted}
INPUT_ROWS: Final = frozenset({*INPUT_KINDS, "press", "admin"})  # the rows that hold an input


def input_json(item: JournaledInput, verdict_word: str) -> str:
    """An input as the journal stores it (compact JSON)."""
    body: dict[str, Any]
    if isinstance(item, TagRead | TagLifted):
        body = {"r": item.reader, "u": item.uid}
    elif isinstance(item, Admin):
        body = {"a": item.action}
    else:
        body = {"s": item.seat, "b": item.button}
    body["v"] = verdict_word
    return json.dumps(body, separators=(",", ":"), ensure_ascii=False)


def input_from_json(kind: str, text: str) -> JournaledInput:
    """An input of the journal from its row's kind and JSON (:class:`RowError` if it is not
    one)."""
    try:
        body = json.loads(text)
        if kind in INPUT_KINDS:
            return INPUT_KINDS[kind](str(body["r"]), str(body["u"]))
        if kind == "admin":
            action = str(body["a"])
            if action not in ADMIN_INPUTS:
                raise ValueError(f"no admin action {action!r}")
            return Admin(action)
        return Press(int(body["s"]), str(body["b"]))
    except (ValueError, KeyError, TypeError) as exc:
        raise RowError(f"an input that is not {_problem(exc)}") from None


def _problem(exc: Exception) -> str:
    """What is wrong with a journal row's JSON, in a few words."""
    if isinstance(exc, json.JSONDecodeError):
        return f"JSON ({exc.msg} at character {exc.pos})"
    if isinstance(exc, KeyError):
        return f"whole (no {exc.args[0]!r})"
    return f"as this version writes it ({exc})"


def input_kind(item: JournaledInput) -> str:
    """The journal's row kind of ``item``: ``tag``, ``lift``, ``press`` or ``admin``."""
    if isinstance(item, TagLifted):
        return "lift"
    if isinstance(item, Admin):
        return "admin"
    return "tag" if isinstance(item, TagRead) else "press"
