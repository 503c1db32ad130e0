"""No import cycle among the modules of ``table/``: read from the source with ``ast``, never by
importing it.

At module level (the imports a module runs when it is imported: at its top, in a ``try``, an
``if`` or a class body there too; not those in a function, nor those under
``if TYPE_CHECKING:``, types only, never run) there is none at all. Counting the imports in
functions too, as ``tests/test_layout.py`` does (a lazy import is still a dependency), there is
none but the ones listed in ``KNOWN`` (none today). ``from table.a import b`` is an
edge to ``table.a.b`` when that is a module, and to ``table.a``. ``table/rules/`` is left
out: its modules import one another by design (the variants, the hooks they override and the
engine that puts them together) and nothing outside it but the cards and the errors, so no
cycle can pass through it.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TABLE = ROOT / "table"
SIM = ROOT / "sim"  # the simulator, under the same rule
# The registry of bots (bots.py) makes the expert by name, lazily, and the expert builds on the
# heuristic bot of the same module: the design (docs/layout.md), not to be copied elsewhere.
KNOWN_SIM: frozenset[frozenset[str]] = frozenset({
    frozenset({"sim.players.bots", "sim.players.expert"}),
})

# Cycles through a lazy import, known today, each to be broken; none may be added. (The voice's,
# espeak.py -> kana.py -> openjtalk.py -> espeak.py, was broken: ``SpeechError`` lives in
# table/voice/errors.py and the generator of readings in make_readings.py.)
KNOWN: frozenset[frozenset[str]] = frozenset({
    # The expert is a policy self-play can seat (policies names it, lazily) and it plays out
    # through self-play's random table: a recursion of the idea, to be broken by handing the
    # random table its policy instead of a name.
    frozenset({"table.analysis.policies", "table.analysis.search", "table.analysis.selfplay"}),
})


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def imported(nodes: Iterable[ast.AST], module: str, package: bool, lazy: bool) -> Iterator[str]:
    """The modules ``module`` names in the imports among ``nodes``: those it runs when imported
    (anywhere but in a function or under ``if TYPE_CHECKING:``), with ``lazy`` those in its
    functions too."""
    for node in nodes:
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: from the package the module sits in
                base = module.split(".") if package else module.split(".")[:-1]
                base = base[:len(base) - node.level + 1]
                origin = ".".join(base + ([node.module] if node.module else []))
            else:
                origin = node.module or ""
            yield origin
            yield from (f"{origin}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.If) and is_type_checking(node.test):
            yield from imported(node.orelse, module, package, lazy)  # types only: never run
        elif not lazy and isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            continue
        else:
            yield from imported(ast.iter_child_nodes(node), module, package, lazy)


def graph(sources: Mapping[str, tuple[str, bool]], lazy: bool = False) -> dict[str, set[str]]:
    """Module -> the modules of ``sources`` it imports (see :func:`imported`). ``sources`` maps
    a module's name to its source and whether it is a package's ``__init__``."""
    edges: dict[str, set[str]] = {}
    for module, (source, package) in sources.items():
        named = set(imported(ast.parse(source).body, module, package, lazy))
        edges[module] = {m for m in named if m in sources and m != module}
    return edges


def cycles(edges: Mapping[str, set[str]]) -> list[frozenset[str]]:
    """The strongly connected parts of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[frozenset[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            part = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                part.add(w)
                if w == v:
                    break
            if len(part) > 1:
                found.append(frozenset(part))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def table_sources() -> dict[str, tuple[str, bool]]:
    return {module_name(path, TABLE): (path.read_text(encoding="utf-8"),
                                       path.name == "__init__.py")
            for path in sorted(TABLE.rglob("*.py"))
            if "rules" not in path.relative_to(TABLE).parts[:1]}


def sim_sources() -> dict[str, tuple[str, bool]]:
    return {module_name(path, SIM): (path.read_text(encoding="utf-8"),
                                     path.name == "__init__.py")
            for path in sorted(SIM.rglob("*.py"))}


def test_no_import_cycle_among_the_modules_of_sim_at_module_level() -> None:
    edges = graph(sim_sources())
    assert "sim.tabletop.virtual" in edges and "sim.tabletop.dealing" in edges
    found = cycles(edges)
    assert found == [], "modules of sim/ that import one another at module level:\n" + \
        rings(found)


def test_no_import_cycle_in_sim_through_a_lazy_import_but_the_known_ones() -> None:
    new = [c for c in cycles(graph(sim_sources(), lazy=True)) if c not in KNOWN_SIM]
    assert new == [], "modules of sim/ that import one another (lazy imports counted):\n" + \
        rings(new)


def test_a_cycle_is_found_and_a_lazy_or_typing_import_is_an_edge_only_when_asked() -> None:
    sources = {
        "pkg": ("", True),
        "pkg.a": ("from pkg import b\n", False),
        "pkg.b": ("try:\n    from .c import thing\nexcept ImportError:\n    pass\n", False),
        "pkg.c": ("import pkg.a\n", False),
        "pkg.d": ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg.a import t\n"
                  "def later():\n    from pkg import e\n", False),
        "pkg.e": ("from pkg.d import later\n", False),
    }
    edges = graph(sources)
    assert edges == {"pkg": set(), "pkg.a": {"pkg", "pkg.b"}, "pkg.b": {"pkg.c"},
                     "pkg.c": {"pkg.a"}, "pkg.d": set(), "pkg.e": {"pkg.d"}}
    assert cycles(edges) == [frozenset({"pkg.a", "pkg.b", "pkg.c"})]
    assert graph(sources, lazy=True)["pkg.d"] == {"pkg", "pkg.e"}  # not pkg.a: types only
    assert sorted(map(sorted, cycles(graph(sources, lazy=True)))) == [
        ["pkg.a", "pkg.b", "pkg.c"], ["pkg.d", "pkg.e"]]


def rings(found: list[frozenset[str]]) -> str:
    return "\n".join(" <-> ".join(sorted(c)) for c in found)


def test_no_import_cycle_among_the_modules_of_table_at_module_level() -> None:
    edges = graph(table_sources())
    assert "table.voice.espeak" in edges and not any(m.startswith("table.rules") for m in edges)
    found = cycles(edges)
    assert found == [], "modules of table/ that import one another at module level:\n" + \
        rings(found)


def test_no_import_cycle_through_a_lazy_import_but_the_known_ones() -> None:
    new = [c for c in cycles(graph(table_sources(), lazy=True)) if c not in KNOWN]
    assert new == [], "modules of table/ that import one another (lazy imports counted):\n" + \
        rings(new)
