"""A command run on its own builds only its own parser (its start is part of its time): the same
options, defaults and errors as in the whole command line."""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import pytest

from table.commands.cli import _LEAN, build_parser, main

ROOT = Path(__file__).resolve().parent.parent


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


def test_a_study_in_one_process_starts_without_the_pool_or_the_journal(tmp_path: Path) -> None:
    """``uno-table study --jobs 1`` imports neither the process pool (multiprocessing) nor the
    journal's readers (the evening report's): both were a tenth of a second of its start,
    which a short study, timed as a whole process against the engine's loop, pays in full."""
    program = ("import sys; from table.commands.cli import main; code = main(sys.argv[1:]); "
               "print(sorted(m for m in ('concurrent.futures.process', 'multiprocessing', "
               "'table.journal.reading', 'table.analysis.evening') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", program, "study", "--rules", "official",
                           "--rounds", "4", "--players", "2", "--jobs", "1", "--policy",
                           "play-first", "--out", str(tmp_path), "--no-plots"],
                          capture_output=True, text=True, check=True, cwd=ROOT)
    assert done.stdout.splitlines()[-1] == "[]"
    assert (tmp_path / "summary.json").is_file()
