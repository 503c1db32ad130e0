"""The golden scenario format: a ``.scn`` file with its expected outcomes in special comments.

- ``#? VERDICT [REASON]`` at the end of a game line: that line's verdict (and reason). A game
  line without it must be ``accepted``.
- ``#= PATH VALUE`` on a line of its own: after the lines above it, the replay JSON at PATH
  (dots between keys: ``state.turn``, ``scores.Aki``, ``rounds.0.winner``) equals VALUE (read
  as JSON when it parses, else as a string; ``null`` for none). After the file's last line, a
  set-up read last has started its round, as in ``replay``.
- ``#~ TEXT`` on a line of its own: the previous step's announcements include TEXT.
- ``#! KIND`` on a line of its own: the rules must hold (``conserved``: every card in one place).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from table.referee.scenario import Replay, parse


def _lookup(data: Any, path: str) -> Any:
    for key in path.split("."):
        if isinstance(data, list):
            data = data[int(key)]
        else:
            if key not in data:
                raise AssertionError(f"no key {key!r} in {path} (have {sorted(data)})")
            data = data[key]
    return data


def _value(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def check(path: Path) -> Replay:
    text = path.read_text(encoding="utf-8")
    lines = {line.number: line for line in parse(text, str(path))}
    rp = Replay(str(path))
    last = max(lines, default=0)
    for number, raw in enumerate(text.splitlines(), start=1):
        where = f"{path.name}:{number}"
        stripped = raw.strip()
        if number > last:
            rp.finish()  # the file has no more lines: a set-up read last is complete
        if stripped.startswith("#="):
            key, _, value = stripped[2:].strip().partition(" ")
            got = _lookup(rp.result(), key)
            assert got == _value(value.strip()), f"{where}: {key} is {got!r}, want {value.strip()}"
            continue
        if stripped.startswith("#~"):
            want = stripped[2:].strip()
            said = rp.steps[-1].announcements if rp.steps else []
            assert any(want in s for s in said), f"{where}: {want!r} not in {said}"
            continue
        if stripped.startswith("#!"):
            assert rp.state is not None, f"{where}: no game yet"
            rp.state.check_conservation()
            continue
        line = lines.get(number)
        if line is None:
            continue
        before = len(rp.steps)
        rp.run_line(line)
        if line.player is None and line.word not in ("undo", "next-round", "tap", "press"):
            continue
        assert len(rp.steps) == before + 1, f"{where}: no step recorded"
        step = rp.steps[-1]
        expect = ["accepted"]
        if "#?" in raw:
            expect = raw.split("#?", 1)[1].split()
        got = [step.verdict] + ([step.reason] if len(expect) > 1 else [])
        assert got == expect[:2], f"{where}: {line.text!r} gave {step.verdict} {step.reason}"
    return rp
