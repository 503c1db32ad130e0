"""The layout keeps its layers: read from the source with ``ast``, never by importing it.

``table/`` is a set of rooms. Each room may use the rooms below it and never one above, so a
newcomer who finds a piece by its folder also knows what it can lean on. An import inside a
function counts as much as one at the top of a module: a lazy import is still a dependency.
"""

from __future__ import annotations

import ast
import functools
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TABLE = ROOT / "table"

# Who may import whom inside table/: a room uses itself, the package root (``__version__``) and
# the rooms listed here. inputs (what readers and buttons report) at the bottom with errors;
# cards/errors/files <- rules <- referee <- journal <- runtime <- commands;
# readers sit beside rules (the hardware side), voice above the referee (it says its
# announcements), analysis on the bare rules and, for an evening's figures, the journal;
# mqtt (publishing a table) beside the runtime, the hub on mqtt and web, web beside runtime
# (it reads the journal and serves the evening's report of analysis at /stats).
ALLOWED: dict[str, frozenset[str]] = {
    "errors": frozenset(),
    "cards": frozenset({"errors"}),
    "files": frozenset({"errors"}),
    "inputs": frozenset(),
    "rules": frozenset({"cards", "errors"}),
    "readers": frozenset({"errors", "inputs"}),
    "circuit": frozenset({"errors", "readers"}),
    "referee": frozenset({"cards", "errors", "files", "inputs", "rules", "readers"}),
    "voice": frozenset({"cards", "errors", "files", "referee"}),
    "journal": frozenset({"cards", "errors", "files", "inputs", "rules", "readers", "referee"}),
    "analysis": frozenset({"cards", "errors", "files", "inputs", "rules", "readers", "referee",
                           "journal"}),
    "mqtt": frozenset({"cards", "errors", "files", "inputs", "rules", "readers", "referee",
                       "journal"}),
    "runtime": frozenset({"cards", "errors", "files", "inputs", "rules", "readers", "referee",
                          "voice", "journal", "mqtt", "circuit"}),
    # web sits beside runtime: the daemon, the demo and the simulator start it; it knows
    # neither (they offer it what it needs), and nothing below it knows it. It reads the
    # journal the table writes (read only) and builds the evening's report from it (/stats).
    "web": frozenset({"cards", "errors", "rules", "referee", "voice", "journal", "analysis"}),
    "hub": frozenset({"cards", "errors", "files", "inputs", "rules", "readers", "referee",
                      "journal", "mqtt", "web"}),
    "commands": frozenset({"cards", "errors", "files", "inputs", "rules", "readers", "referee",
                           "voice", "journal", "analysis", "runtime", "mqtt", "hub", "web",
                           "circuit"}),
}
FLAT = {"__init__.py", "cards.py", "errors.py"}  # the only modules directly in table/


class Import:
    def __init__(self, module: str, names: tuple[str, ...], line: int, in_function: bool) -> None:
        self.module, self.names, self.line, self.in_function = module, names, line, in_function


@functools.cache  # each test here reads every source: each is parsed once
def parsed(path: Path) -> ast.Module:
    """The syntax tree of ``path`` (never changed by the walks below)."""
    return ast.parse(path.read_text(encoding="utf-8"), str(path))


def imports(path: Path) -> Iterator[Import]:
    """Every import of ``path``, its line, and whether it sits inside a function."""
    tree = parsed(path)

    def walk(node: ast.AST, in_function: bool) -> Iterator[Import]:
        for child in ast.iter_child_nodes(node):
            inner = in_function or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef)
            if isinstance(child, ast.Import):
                for alias in child.names:
                    yield Import(alias.name, (), child.lineno, in_function)
            elif isinstance(child, ast.ImportFrom):
                assert child.level == 0, f"{path}:{child.lineno}: a relative import"
                names = tuple(alias.name for alias in child.names)
                yield Import(child.module or "", names, child.lineno, in_function)
            yield from walk(child, inner)

    yield from walk(tree, False)


def sources(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*.py") if "__pycache__" not in p.parts)


def where(path: Path, imp: Import) -> str:
    return f"{path.relative_to(ROOT)}:{imp.line}: {imp.module}"


def rooms_of(imp: Import) -> set[str]:
    """The rooms of table/ an import reaches ("table" for the package root itself)."""
    parts = imp.module.split(".")
    if parts[0] != "table":
        return set()
    if len(parts) > 1:
        return {parts[1]}
    # ``from table import X``: X is a room, or a name of the package root.
    return {name if name in ALLOWED else "table" for name in imp.names} or {"table"}


def room_of(path: Path) -> str:
    rel = path.relative_to(TABLE).parts
    return rel[0] if len(rel) > 1 else rel[0].removesuffix(".py")


def test_table_holds_rooms_and_only_the_cards_and_errors_lie_flat() -> None:
    flat = {p.name for p in TABLE.glob("*.py")}
    assert flat == FLAT, f"flat modules in table/ besides {sorted(FLAT)}: {sorted(flat - FLAT)}"
    rooms = {p.name for p in TABLE.iterdir() if (p / "__init__.py").exists()}
    assert rooms == set(ALLOWED) - {"errors", "cards"}, "a room of table/ the layout does not know"


def test_the_allowed_directions_have_no_cycle() -> None:
    done: set[str] = set()

    def visit(room: str, path: tuple[str, ...]) -> None:
        assert room not in path, f"a cycle in ALLOWED: {' -> '.join((*path, room))}"
        if room not in done:
            for below in ALLOWED[room]:
                visit(below, (*path, room))
            done.add(room)

    for room in ALLOWED:
        visit(room, ())


def test_rooms_import_only_the_rooms_below_them() -> None:
    wrong = []
    for path in sources(TABLE):
        room = room_of(path)
        if room == "__init__":
            continue
        for imp in imports(path):
            for used in rooms_of(imp) - {room, "table"}:
                if used not in ALLOWED[room]:
                    wrong.append(f"{where(path, imp)} ({room} may not use {used})")
    assert wrong == []


def test_the_rules_engine_uses_only_the_cards_and_the_errors() -> None:
    wrong = [where(path, imp) for path in sources(TABLE / "rules") for imp in imports(path)
             if rooms_of(imp) - {"rules", "cards", "errors"}]
    assert wrong == []


def test_table_imports_the_simulator_only_in_the_command_that_runs_it() -> None:
    wrong = []
    for path in sources(TABLE):
        for imp in imports(path):
            if imp.module.split(".")[0] != "sim":
                continue
            if not imp.in_function or room_of(path) != "commands":
                wrong.append(where(path, imp))
    assert wrong == []


def test_the_bridge_codec_names_neither_the_table_nor_the_simulator() -> None:
    wrong = [where(path, imp) for path in sources(ROOT / "firmware_bridge")
             for imp in imports(path) if imp.module.split(".")[0] in ("table", "sim")]
    assert wrong == []


BLOCKED_RUN = textwrap.dedent("""
    import importlib, pkgutil, sys

    class Blocker:
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in ("table", "sim"):
                raise ImportError(f"{name} is out of reach here")
            return None

    sys.meta_path.insert(0, Blocker())
    import firmware_bridge
    for mod in pkgutil.iter_modules(firmware_bridge.__path__):
        importlib.import_module(f"firmware_bridge.{mod.name}")
    from firmware_bridge.codec import Decoder, encode
    from firmware_bridge.errors import BridgeError
    from firmware_bridge.messages import pack, unpack
    frames = Decoder().feed(encode(pack("ping", seq=7, token=b"hi")))
    assert [unpack(f).name for f in frames] == ["ping"]
    try:
        pack("set_poll", interval_ms=70000)
    except BridgeError as exc:
        print("refused:", exc)
    assert not [m for m in sys.modules if m.split(".")[0] in ("table", "sim")]
""")


def test_the_bridge_codec_works_with_the_table_and_the_simulator_out_of_reach() -> None:
    done = subprocess.run([sys.executable, "-c", BLOCKED_RUN], cwd=ROOT, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("refused: set_poll.interval_ms must be a u16")


def test_every_room_says_what_it_holds() -> None:
    silent = [room for room in sorted(ALLOWED) if (TABLE / room).is_dir()
              and not ast.get_docstring(ast.parse((TABLE / room / "__init__.py").read_text()))]
    assert silent == []


def input_names() -> frozenset[str]:
    """The names ``table.inputs`` offers (its ``__all__``, read from the source)."""
    tree = ast.parse((TABLE / "inputs" / "__init__.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            return frozenset(ast.literal_eval(node.value))
    raise AssertionError("table/inputs/__init__.py has no __all__")


@functools.cache  # asked once for every import of the module, in every file
def defined(module: str) -> frozenset[str]:
    """The names a module of the repository defines itself, at its top level."""
    base = ROOT.joinpath(*module.split("."))
    path = base / "__init__.py" if base.is_dir() else base.with_suffix(".py")
    if not path.is_file():
        return frozenset()
    found: set[str] = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            found.add(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            found |= {t.id for t in targets if isinstance(t, ast.Name)}
    return frozenset(found)


def test_the_inputs_are_imported_from_their_one_home() -> None:
    """Every input type (a tag read, a press, the reader roles...) comes from ``table.inputs``,
    never through a module that imports it and names it again (the readers, the referee...)."""
    names = input_names()
    assert {"TagRead", "Press", "ROLES", "ReaderRole", "Input", "JournaledInput"} <= names
    wrong = []
    for folder in ("table", "sim", "tests", "bench", "hw_tests"):
        for path in sources(ROOT / folder):
            if path.is_relative_to(TABLE / "inputs"):
                continue
            for imp in imports(path):
                if not imp.module.startswith("table.") or imp.module == "table.inputs":
                    continue
                own = defined(imp.module)  # a name of its own that is spelt the same
                wrong += [f"{where(path, imp)} {n}" for n in imp.names
                          if n in names and n not in own]
    assert wrong == []
