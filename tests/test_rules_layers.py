"""The rules package is wired one way: no import cycles inside ``table/rules/``, and no module
reaches into another's private names. Read from the source with ``ast``.

An import inside a function counts (a lazy import is still a dependency); an import under
``if TYPE_CHECKING:`` does not, since it is never run (it only names a type for mypy).
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT / "table" / "rules"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {module_name(p): p for p in sorted(RULES.rglob("*.py"))}


def _type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def run_time_imports(tree: ast.AST) -> list[ast.Import | ast.ImportFrom]:
    out: list[ast.Import | ast.ImportFrom] = []

    def walk(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _type_checking(child):
                for other in child.orelse:
                    walk(other)
                continue
            if isinstance(child, ast.Import | ast.ImportFrom):
                out.append(child)
            walk(child)

    walk(tree)
    return out


def edges(name: str) -> dict[str, set[str]]:
    """The modules of table.rules that ``name`` imports, and the names it takes from each."""
    tree = ast.parse(MODULES[name].read_text(encoding="utf-8"))
    out: dict[str, set[str]] = {}
    for node in run_time_imports(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in MODULES:
                    out.setdefault(alias.name, set())
            continue
        base = node.module or ""
        for alias in node.names:
            target = f"{base}.{alias.name}"
            if target in MODULES:  # ``from table.rules import flow``: the module itself
                out.setdefault(target, set())
            elif base in MODULES:
                out.setdefault(base, set()).add(alias.name)
    return out


GRAPH = {name: edges(name) for name in MODULES}


def test_the_rules_package_has_no_import_cycle() -> None:
    done: set[str] = set()

    def visit(name: str, path: tuple[str, ...]) -> None:
        if name in path:
            cycle = " -> ".join((*path[path.index(name):], name))
            raise AssertionError(f"import cycle in table/rules: {cycle}")
        if name in done:
            return
        for target in GRAPH[name]:
            visit(target, (*path, name))
        done.add(name)

    for name in sorted(GRAPH):
        visit(name, ())


def test_no_rules_module_takes_another_ones_private_names() -> None:
    found = []
    for name, targets in GRAPH.items():
        for target, names in targets.items():
            found += [f"{name} imports {target}.{n}" for n in names if n.startswith("_")]
        tree = ast.parse(MODULES[name].read_text(encoding="utf-8"))
        aliases = {
            (alias.asname or alias.name.rsplit(".", 1)[-1])
            for node in run_time_imports(tree)
            for alias in node.names
            if f"{getattr(node, 'module', '') or ''}.{alias.name}".lstrip(".") in MODULES
            or alias.name in MODULES
        }
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id in aliases
                and node.attr.startswith("_")
                and not node.attr.startswith("__")
            ):
                found.append(f"{name}:{node.lineno} uses {node.value.id}.{node.attr}")
    assert not found, found


def test_the_engine_does_not_import_a_variant_module_but_their_package() -> None:
    """The engine picks the rules for the options (``variants.rules_for``); the play path,
    the flow and the listing know no variant, only the hooks."""
    for name in ("table.rules.play", "table.rules.flow", "table.rules.legal",
                 "table.rules.hooks", "table.rules.state", "table.rules.scoring"):
        reached = [t for t in GRAPH[name] if t.startswith("table.rules.variants")]
        assert not reached, f"{name} imports {reached}"


def test_the_graph_is_read() -> None:
    assert "table.rules.flow" in GRAPH["table.rules.play"]
    assert "table.rules.hooks" in GRAPH["table.rules.variants.base"]
    assert "table.rules.hooks" not in GRAPH["table.rules.state"]  # only for mypy
