"""A command run on its own builds only its own parser (its start is part of its time): the same
options, defaults and errors as in the whole command line."""

from __future__ import annotations

import argparse

import pytest

from table.commands.cli import _LEAN, build_parser, main


def _sub(parser: argparse.ArgumentParser, name: str) -> argparse.ArgumentParser:
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return action.choices[name]


def _options(parser: argparse.ArgumentParser) -> dict[str, object]:
    return {s: (a.dest, a.default, a.choices) for a in parser._actions for s in a.option_strings}


@pytest.mark.parametrize("name", sorted(_LEAN))
def test_a_lean_command_has_the_options_of_the_whole_command_line(name: str) -> None:
    assert _options(_sub(build_parser(name), name)) == _options(_sub(build_parser(), name))


def test_selfplay_alone_refuses_as_the_whole_command_line_does(
        capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["selfplay", "--games", "lots"])
    assert stop.value.code == 2
    assert "uno-table selfplay: error: argument --games: invalid int value: 'lots'" in \
        capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["--help"])
    listed = capsys.readouterr().out
    assert all(name in listed for name in ("selfplay", "ladder", "study", "run", "hub"))
