"""A one-line docstring on the public names of ``table/``, as python-chess has on every one:
read from the source with ``ast``, never by importing it.

What is counted: in every module of ``table/``, each function and class at module level whose
name does not start with ``_``, and each method (properties too) of such a class whose name
does not start with ``_``. A docstring that is empty counts as none.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TABLE = ROOT / "table"
SOURCES = (TABLE, ROOT / "sim")  # the program and its simulator, under the same rules

Definition = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef


def public(body: list[ast.stmt]) -> Iterator[Definition]:
    for node in body:
        if (isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
                and not node.name.startswith("_")):
            yield node


def public_names(source: str) -> Iterator[tuple[str, int, bool]]:
    """Each public name of a module's source: its dotted name, its line, and whether it has a
    docstring."""
    for node in public(ast.parse(source).body):
        yield node.name, node.lineno, bool(ast.get_docstring(node))
        if isinstance(node, ast.ClassDef):
            for method in public(node.body):
                if not isinstance(method, ast.ClassDef):
                    yield f"{node.name}.{method.name}", method.lineno, bool(
                        ast.get_docstring(method))


def census() -> tuple[int, list[str]]:
    """How many public names ``table/`` has, and ``path:line name`` of those without a
    docstring."""
    total, missing = 0, []
    for path in (p for root in SOURCES for p in sorted(root.rglob("*.py"))):
        for name, line, documented in public_names(path.read_text(encoding="utf-8")):
            total += 1
            if not documented:
                missing.append(f"{path.relative_to(ROOT)}:{line} {name}")
    return total, missing


def test_the_census_counts_what_a_reader_of_the_api_sees() -> None:
    source = '''
def shown(): """Shown."""
def bare(): pass
def _hidden(): pass
class Kept:
    """A class."""
    def method(self): pass
    @property
    def told(self):
        """Told."""
    def _own(self): pass
    def __init__(self): pass
    class Inner: pass
class _Private:
    def method(self): pass
def empty(): """"""
'''
    assert list(public_names(source)) == [
        ("shown", 2, True), ("bare", 3, False), ("Kept", 5, True),
        ("Kept.method", 7, False), ("Kept.told", 9, True), ("empty", 16, False)]


def test_every_public_name_has_a_docstring() -> None:
    """Every public name of table/ has one now, and keeps it."""
    missing = census()[1]
    assert missing == [], "public names of table/ without a docstring:\n" + "\n".join(missing)
