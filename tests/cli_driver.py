"""Runs commands in this one process and reports how each ended, so that a batch of them can
run as another user (``setpriv``) for the price of one interpreter start.

Reads a JSON list of ``[PROG, ARGV]`` on standard input (PROG ``uno-table`` or
``sim.hardware.ptys``) and prints a JSON list of ``{"code": N, "err": TEXT}``; an exception
that escapes a command is reported as ``{"code": null, "err": "Traceback: TYPE: MESSAGE"}``.
"""

from __future__ import annotations

import contextlib
import io
import json
import sys
from collections.abc import Callable, Sequence


def entry(prog: str) -> Callable[[Sequence[str]], int]:
    if prog == "sim.hardware.ptys":
        from sim.hardware.ptys import main as ptys_main

        return lambda argv: ptys_main(list(argv))
    from table.commands.cli import main

    return main


def run(prog: str, argv: Sequence[str]) -> dict[str, object]:
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            code: int | None = entry(prog)(argv)
        except BaseException as exc:
            code = None
            err.write(f"Traceback: {type(exc).__name__}: {exc}\n")
    return {"code": code, "err": err.getvalue()}


if __name__ == "__main__":
    cases = json.load(sys.stdin)
    json.dump([run(prog, argv) for prog, argv in cases], sys.stdout)
