"""Tests of the real table: skipped unless ``--hw`` is given.

Every test runs against a ``rig``: the simulated table by default (virtual tags on simulated
MFRC522 chips, gpiozero's mock pins), or with ``--hw`` the real one described by
``--hw-config`` (the table's configuration file), with a person following the prompts.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from rig import Rig, load_rig, simulated_rig


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("uno-table hardware")
    group.addoption(
        "--hw", action="store_true", help="run against the real table, prompting an operator"
    )
    group.addoption(
        "--hw-config",
        metavar="FILE",
        help="with --hw: the table's configuration file ([table] players, [[readers]], "
        "[controls])",
    )


def pytest_configure(config: pytest.Config) -> None:
    if not config.getoption("--hw", default=False):
        return
    option = config.getoption("--hw-config")
    if not option:
        pytest.exit("--hw needs --hw-config FILE: the table's TOML configuration", 2)
    if not Path(option).is_file():
        pytest.exit(f"--hw-config {option}: no such file (the table's TOML configuration)", 2)


@pytest.fixture(params=["sim", pytest.param("hw", marks=pytest.mark.hw)])
def rig(request: pytest.FixtureRequest) -> Iterator[Rig]:
    hw = request.config.getoption("--hw")
    if request.param == "hw":
        if not hw:
            pytest.skip("needs the real table: run with --hw")
        path = Path(request.config.getoption("--hw-config"))
        yield load_rig(path, request.config.pluginmanager.getplugin("capturemanager"))
        return
    if hw:
        pytest.skip("--hw given: the real table is tested instead of the simulated one")
    with simulated_rig() as simulated:
        yield simulated
