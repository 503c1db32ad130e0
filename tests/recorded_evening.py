"""A recorded evening at a daemon, to check that the table's step never changes what it says.

The evening is a simulated match's journal (``uno-table demo --fast --set target=150
--duplicate-reads 0.1 --seed 7 --journal J``: tag reads, lifts and presses, doubled reads among
them), with what a live table adds around it: the readers coming up, time passing (a colour
reminder), an unknown reader, an undo and the card tapped again, and the next-round token
after the match is over (a new match) with a first tap in it. :data:`FIXTURE` holds the inputs,
every journal row and every event the daemon wrote for them.

``python tests/recorded_evening.py JOURNAL`` records it again from a demo's journal: only when a
change of the event stream is meant, and said so in the commit.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from table.inputs import Press, ReaderStatus, TagLifted, TagRead, Tick
from table.journal.records import MatchSetup, input_json, input_kind
from table.journal.store import Journal
from table.referee.registry import Token
from table.runtime.config import Config, load_config
from table.runtime.daemon import Daemon
from table.voice.backends import CaptionsBackend

FIXTURE = Path(__file__).with_name("recorded_evening.jsonl")  # one JSON object a line
Item = TagRead | TagLifted | Press | Tick | ReaderStatus
UNSTABLE = ("t", "seconds", "version")  # when, how long a start took, which release


def item_json(item: Item) -> list[Any]:
    """An input as the fixture keeps it (times included)."""
    if isinstance(item, TagRead | TagLifted):
        return [input_kind(item), item.reader, item.uid, item.t]
    if isinstance(item, Press):
        return ["press", item.seat, item.button, item.t]
    if isinstance(item, Tick):
        return ["tick", item.t]
    return ["status", item.reader, item.state, item.t, item.detail]


def item_from_json(row: list[Any]) -> Item:
    """An input of the fixture."""
    kind, *rest = row
    if kind == "tag":
        return TagRead(*rest)
    if kind == "lift":
        return TagLifted(*rest)
    if kind == "press":
        return Press(*rest)
    if kind == "tick":
        return Tick(*rest)
    return ReaderStatus(*rest)


def config_for(setup: MatchSetup, folder: Path, extra: str = "") -> Config:
    """A daemon's configuration whose set-up is ``setup`` (virtual deck, captions, readers on
    ports that are links to /dev/null in ``folder``: the readers are never started), and
    ``extra`` lines."""
    lines = [
        "[table]", f"players = {json.dumps(list(setup.players))}", 'language = "en"',
        f"dealer = {json.dumps(setup.players[setup.dealer])}",
        "[rules]", f'preset = "{setup.options.preset}"',
        *(f"{k} = {json.dumps(v)}" for k, v in setup.options.as_dict().items()
          if k != "preset"),
        "[deck]", 'file = "virtual"', "[voice]", 'backend = "captions"',
        "[journal]", 'path = "journal.sqlite3"',
    ]
    for role in setup.readers:
        port = folder / f"port-{role.name}"
        if not port.is_symlink():
            port.symlink_to("/dev/null")  # a character device
        lines += ["[[readers]]", f'name = "{role.name}"', f'role = "{role.role}"',
                  'kind = "serial-line"', f'port = "port-{role.name}"']
        if role.seat is not None:
            lines.append(f'seat = "{setup.players[role.seat]}"')
    path = folder / "table.toml"
    path.write_text("\n".join(lines) + "\n" + extra, encoding="utf-8")
    config = load_config(path)
    assert config.roles() == list(setup.readers)
    return config


class Lines:
    """The daemon's event stream, kept."""

    def __init__(self) -> None:
        self.events: list[dict[str, Any]] = []

    def write(self, text: str) -> int:
        self.events += [json.loads(line) for line in text.splitlines()]
        return len(text)

    def flush(self) -> None:
        return None


def play(folder: Path, setup: MatchSetup, items: list[Item]
         ) -> tuple[list[list[str]], list[dict[str, Any]]]:
    """The daemon's journal rows and events (without their clock fields) for ``items``, each
    taken in the referee's thread's turn, one after another."""
    config = config_for(setup, folder)
    stream = Lines()
    journal = Journal(config.journal_path)
    rows = rows_of(journal)
    daemon = Daemon(config, stream, journal=journal,  # type: ignore[arg-type]
                    backend=CaptionsBackend)
    try:
        for item in items:
            take(daemon, item)
    finally:
        daemon.announcer.close()
        journal.close()
    events = [{k: _here(v, folder) for k, v in e.items() if k not in UNSTABLE}
              for e in stream.events]
    return rows, events


def rows_of(journal: Journal) -> list[list[str]]:
    """The rows ``journal`` is given from now on, as the fixture keeps them."""
    rows: list[list[str]] = []
    append = journal.append

    def kept(item: TagRead | TagLifted | Press, word: str) -> bool:
        rows.append([input_kind(item), input_json(item, word)])
        return append(item, word)

    journal.append = kept  # type: ignore[method-assign]
    return rows


def _here(value: Any, folder: Path) -> Any:
    """A path in ``folder`` as one relative to it (the folder is made afresh each time)."""
    return value.replace(str(folder), ".") if isinstance(value, str) else value


def take(daemon: Daemon, item: Item) -> None:
    """One input, as the referee's thread takes it."""
    daemon.loop.take(item)


def evening(setup: MatchSetup, inputs: list[TagRead | TagLifted | Press]) -> list[Item]:
    """The demo's inputs with what a live table adds around them (see the module's text)."""
    pad = next(r.name for r in setup.readers if r.role == "play")
    token = {name: uid for uid, tag in setup.deck.tags.items()
             for name in ("undo", "next-round") if tag == Token(name)}
    items: list[Item] = [ReaderStatus(r.name, "connecting", 0.0) for r in setup.readers]
    items += [ReaderStatus(r.name, "live", 0.5) for r in setup.readers]
    items.append(TagRead("nowhere", "04AABBCCDD", 0.6))
    for i, item in enumerate(inputs):
        t = float(i + 1)
        items.append(_timed(item, t))
        if i % 40 == 39:
            items.append(Tick(t + 6.0))  # time passes: a colour owed is asked for again
        if i == 120:
            items += [TagRead(pad, token["undo"], t + 0.1), TagLifted(pad, token["undo"], t + 0.2)]
            if isinstance(item, TagRead) and item.reader == pad:
                # The card undone, lifted and tapped again.
                items += [TagLifted(pad, item.uid, t + 0.3), TagRead(pad, item.uid, t + 0.4)]
    end = float(len(inputs) + 10)
    items += [ReaderStatus(pad, "lost", end, "unplugged"), ReaderStatus(pad, "live", end + 1)]
    items += [TagRead(pad, token["next-round"], end + 2), TagLifted(pad, token["next-round"],
                                                                    end + 3)]
    first = next(i for i in inputs if isinstance(i, TagRead) and i.reader == pad)
    items.append(TagRead(pad, first.uid, end + 4))
    return items


def _timed(item: Item, t: float) -> Item:
    if isinstance(item, Press):
        return Press(item.seat, item.button, t)
    assert isinstance(item, TagRead | TagLifted)
    return type(item)(item.reader, item.uid, t)


def record(journal: Path, folder: Path) -> None:
    """Write :data:`FIXTURE` from a demo's journal."""
    match = Journal(journal).last_match()
    assert match is not None
    items = evening(match.setup, list(match.inputs))
    rows, events = play(folder, match.setup, items)
    lines = [{"setup": match.setup.to_json()}, *({"input": item_json(i)} for i in items),
             *({"journal": row} for row in rows), *({"event": e} for e in events)]
    FIXTURE.write_text("".join(json.dumps(line, ensure_ascii=False, separators=(",", ":"))
                               + "\n" for line in lines), encoding="utf-8")


def load() -> tuple[MatchSetup, list[Item], list[list[str]], list[dict[str, Any]]]:
    """The recorded evening: its set-up, inputs, journal rows and events."""
    found: dict[str, list[Any]] = {"setup": [], "input": [], "journal": [], "event": []}
    for line in FIXTURE.read_text(encoding="utf-8").splitlines():
        ((key, value),) = json.loads(line).items()
        found[key].append(value)
    return (MatchSetup.from_json(found["setup"][0]), [item_from_json(i) for i in found["input"]],
            found["journal"], found["event"])


if __name__ == "__main__":
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        record(Path(sys.argv[1]), Path(tmp))
