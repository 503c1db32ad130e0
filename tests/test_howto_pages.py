"""The worked examples of docs/adding-a-reader-kind.md and docs/adding-a-face.md, run as they
are written: a reader kind registered by name and made by the factory, and a face told of a
simulated table's events."""

from __future__ import annotations

import importlib
import re
import threading
from pathlib import Path
from types import ModuleType

import pytest

from sim.tabletop.virtual import SimTable
from table.inputs import ReaderStatus, Report, TagLifted, TagRead
from table.readers.factory import KINDS, ReaderError, ReaderSpec, make_reader, register_kind
from table.rules import make_options

DOCS = Path(__file__).resolve().parent.parent / "docs"


def example(page: str, name: str, folder: Path, monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    """The page's Python block, as the module ``name``."""
    text = (DOCS / page).read_text(encoding="utf-8")
    (code,) = re.findall(r"```python\n(.*?)```", text, re.S)
    (folder / f"{name}.py").write_text(code, encoding="utf-8")
    monkeypatch.syspath_prepend(str(folder))
    return importlib.import_module(name)


def test_the_keyboard_wedge_reader_of_the_how_to(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    example("adding-a-reader-kind.md", "wedge_reader", tmp_path, monkeypatch)
    monkeypatch.setitem(KINDS, "wedge", "")  # the registry as it was, after the test
    register_kind("wedge", "wedge_reader:build")
    stream = tmp_path / "typed"
    stream.write_text("04a1b2c3d4\nhello world\n04A1B2C3D4\n", encoding="ascii")
    got: list[Report] = []
    ended = threading.Event()

    def sink(report: Report) -> None:
        got.append(report)
        if isinstance(report, ReaderStatus) and report.state == "lost":
            ended.set()

    reader = make_reader(ReaderSpec("pad", "wedge", port=str(stream)), sink)
    reader.start()
    assert ended.wait(10)
    reader.stop()
    kinds = [(type(r).__name__, getattr(r, "uid", getattr(r, "state", ""))) for r in got]
    assert kinds == [("ReaderStatus", "live"), ("TagRead", "04A1B2C3D4"),
                     ("TagLifted", "04A1B2C3D4"), ("TagRead", "04A1B2C3D4"),
                     ("TagLifted", "04A1B2C3D4"), ("ReaderStatus", "lost")]
    assert all(isinstance(r, TagRead | TagLifted | ReaderStatus) for r in got)
    with pytest.raises(ReaderError, match="kind wedge needs a port"):
        make_reader(ReaderSpec("pad", "wedge"), sink)


def test_the_chat_face_of_the_how_to(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    chat = example("adding-a-face.md", "chat_face", tmp_path, monkeypatch)
    posts: list[str] = []

    def broken(message: str) -> None:
        raise ConnectionError("the chat is down")

    with SimTable(make_options("official"), ["Aki", "Ken", "Mio"], 3) as table:
        face = chat.ChatFace(posts.append)
        down = chat.ChatFace(broken)
        table.stream.subscribe(face)
        table.stream.subscribe(down)
        table.deal()
        turn = table.state.turn
        face.close()
        down.close()
    assert posts, "nothing was posted"
    assert posts[-1].endswith(f"{table.players[turn]}'s turn.")
    said = " ".join(line[4:] for line in table.transcript if line.startswith("  > "))
    assert all(post in said for post in posts)  # the words as the table rendered them
