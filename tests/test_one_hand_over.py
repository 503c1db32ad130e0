"""The turn moves in one place: ``table.rules.flow.move_turn``, which asks the variants'
``handing_over`` hook before it says the hand-over. A rule that acts when the turn comes to a
seat (the skip-a-turn UNO penalty, ``MissedUnoLosesTurn``) is then one hook, and no path of
the rules can give the turn to a seat behind its back.

Checked from the source: nothing in ``table/`` or ``sim/`` but ``move_turn`` assigns the
state's ``turn`` (an attribute assignment, ``setattr`` or ``dataclasses.replace(turn=...)``);
a failure names the file and line to change and what to call instead.
"""

from __future__ import annotations

import ast
from pathlib import Path

from table.rules import flow
from table.rules.hooks import Rules

ROOT = Path(__file__).resolve().parent.parent
FLOW = ROOT / "table" / "rules" / "flow.py"
THE_ONE = "move_turn"


def _sources() -> list[Path]:
    return sorted(p for top in ("table", "sim") for p in (ROOT / top).rglob("*.py"))


def _targets(node: ast.AST) -> list[ast.expr]:
    if isinstance(node, ast.Assign):
        found: list[ast.expr] = []
        for target in node.targets:
            found += list(target.elts) if isinstance(target, (ast.Tuple, ast.List)) else [target]
        return found
    if isinstance(node, (ast.AugAssign, ast.AnnAssign)):
        return [node.target]
    return []


def _moves_the_turn(node: ast.AST) -> bool:
    if any(isinstance(t, ast.Attribute) and t.attr == "turn" for t in _targets(node)):
        return True
    if not isinstance(node, ast.Call):
        return False
    name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
    if name == "setattr" and len(node.args) > 1:
        return isinstance(node.args[1], ast.Constant) and node.args[1].value == "turn"
    return name == "replace" and any(k.arg == "turn" for k in node.keywords)


def _moves_outside_the_one(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    allowed: set[int] = set()
    if path == FLOW:
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef) and node.name == THE_ONE:
                allowed |= {id(n) for n in ast.walk(node)}
    return [
        f"{path.relative_to(ROOT)}:{node.lineno}: the turn moves here; call "
        f"table.rules.flow.{THE_ONE}(s, seat, events) instead (without events when the "
        "hand-over is said later by announce_turn)"
        for node in ast.walk(tree)
        if _moves_the_turn(node) and id(node) not in allowed
    ]


def test_only_move_turn_assigns_the_turn() -> None:
    """Every change of ``s.turn`` in the code goes through ``flow.move_turn``."""
    assert hasattr(flow, THE_ONE), f"table/rules/flow.py has no {THE_ONE}"
    found = [line for path in _sources() for line in _moves_outside_the_one(path)]
    assert not found, "\n".join(found)


def test_the_check_finds_a_move_elsewhere(tmp_path: Path) -> None:
    """The check is not blind: each way of moving the turn is found, with its line."""
    ways = [
        "s.turn = 3",
        "s.turn += 1",
        "s.turn: int = 2",
        "s.turn, s.direction = 1, -1",
        "setattr(s, 'turn', 1)",
        "s = dataclasses.replace(s, turn=2)",
    ]
    for i, way in enumerate(ways):
        path = tmp_path / f"way{i}.py"
        path.write_text(f"def f(s):\n    {way}\n", encoding="utf-8")
        tree = ast.parse(path.read_text(encoding="utf-8"))
        assert any(_moves_the_turn(node) for node in ast.walk(tree)), way
    assert not any(_moves_the_turn(n) for n in ast.walk(ast.parse("x = s.turn\nt = turn")))


def test_move_turn_is_where_the_hook_is_asked() -> None:
    """The one mover asks ``handing_over`` (so a variant sees every hand-over it says)."""
    tree = ast.parse(FLOW.read_text(encoding="utf-8"))
    mover = next(
        n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == THE_ONE
    )
    asked = {
        n.func.attr
        for n in ast.walk(mover)
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
    }
    assert "handing_over" in asked
    assert hasattr(Rules, "handing_over")
