"""The optional compiled build of the rules engine (docs/performance.md, "Compiled build").

Everything else about the package is in pyproject.toml. Installed as usual (``pip install .``,
``pip install -e .``), uno-table is pure Python. With ``UNO_TABLE_COMPILE=1`` in the environment,
the modules of :data:`COMPILED` are also compiled to C extension modules by mypyc (which comes
with mypy), as black and mypy ship themselves: the same typed source, checked by the same tests,
never a second copy of the rules. Python then imports the compiled module of each of them; the
source stays next to it, and removing the ``.so`` files (or installing again without the
variable) gives the pure-Python package back.

A compiled build needs a C compiler and Python's headers (Debian: ``gcc``, ``python3-dev``).
mypy is asked for only when compiling (``setup_requires``: pip fetches it into the isolated
build environment); ``--no-build-isolation`` uses the mypy already installed (and needs the
``wheel`` package with a setuptools older than 70.1).
"""

from __future__ import annotations

import os

from setuptools import setup

#: The modules compiled: the rules engine's hot path (the cards, the actions, the state, the
#: flow, the play, the listing, the engine, the hooks) and self-play's chance and policies.
#: The variants stay Python (put together at run time by multiple inheritance, which compiled
#: classes refuse), and so do the options (not on the hot path).
COMPILED = [
    "table/cards.py",
    "table/rules/actions.py",
    "table/rules/events.py",
    "table/rules/variant_state.py",
    "table/rules/state.py",
    "table/rules/matching.py",
    "table/rules/scoring.py",
    "table/rules/hooks.py",
    "table/rules/flow.py",
    "table/rules/play.py",
    "table/rules/legal.py",
    "table/rules/engine.py",
    "table/analysis/policies.py",
    "table/analysis/selfplay.py",
]
MYPY = "mypy>=2.4"  # the mypyc this build was tested with


def wanted() -> bool:
    return os.environ.get("UNO_TABLE_COMPILE", "") not in ("", "0")


def ext_modules() -> list[object]:
    if not wanted():
        return []
    try:
        from mypyc.build import mypycify
    except ImportError:  # pip asks first what the build needs (setup_requires), then builds
        return []
    return list(mypycify(COMPILED, opt_level="3"))


setup(ext_modules=ext_modules(), setup_requires=[MYPY] if wanted() else [])
