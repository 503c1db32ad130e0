"""docs/adding-a-rule-option.md as a newcomer follows it: every command it gives names a
program, module and file this repository has; the tests its Check block runs are the tests it
explains, and among them every test that reads the option table; and its table of the replay
JSON's keys is what ``uno-table replay --json`` prints (run here on a scenario).
"""

from __future__ import annotations

import importlib.util
import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GUIDE = ROOT / "docs" / "adding-a-rule-option.md"
TEXT = GUIDE.read_text(encoding="utf-8")
# The programs of .venv/bin the guide runs: the interpreter and the tools of the test extra.
PROGRAMS = {"python", "ruff", "mypy", "uno-table"}
REPO_PATH = re.compile(r"(tests|table|sim|bench|docs)(/|$)")


def commands() -> list[list[str]]:
    """Every command of the guide: the lines of its ``sh`` blocks (a trailing backslash
    continues a line) and the inline ones that start with ``.venv/bin/`` or ``./uno``."""
    found: list[str] = []
    for block in re.findall(r"```sh\n(.*?)```", TEXT, flags=re.S):
        found += block.replace("\\\n", " ").splitlines()
    inline = re.findall(r"`((?:\.venv/bin/|\./uno )[^`]+)`", TEXT.replace("\n", " "))
    found += [line for line in inline if "..." not in line]  # not the prose's .venv/bin/...
    out = []
    for line in found:
        line = line.split("#", 1)[0].strip()
        for part in line.split("&&"):
            if part.strip():
                out.append(shlex.split(part))
    return out


def test_every_command_names_what_the_repository_has() -> None:
    """Each program is one the venv makes, each ``-m`` module is importable, each path a file or
    folder of the repository."""
    problems = []
    cmds = commands()
    assert len(cmds) >= 6, cmds
    for words in cmds:
        program = words[0]
        if program == "./uno":
            if not (ROOT / "uno").is_file():
                problems.append(f"{words}: no ./uno")
            continue
        if program == "git":
            continue
        if not program.startswith(".venv/bin/") or program[10:] not in PROGRAMS:
            problems.append(f"{words}: not a program of .venv/bin ({', '.join(sorted(PROGRAMS))})")
        for i, word in enumerate(words[1:], 1):
            if words[i - 1] == "-m" and importlib.util.find_spec(word) is None:
                problems.append(f"{words}: no module {word}")
            elif REPO_PATH.match(word) and not (ROOT / word).exists():
                problems.append(f"{words}: no {word} in the repository")
    assert not problems, "\n".join(problems)


def _check_block_tests() -> set[str]:
    check = TEXT[TEXT.index("## Check"):]
    run = re.search(r"```sh\n(.*?)```", check, flags=re.S)
    assert run is not None, "the Check section has no commands"
    return set(re.findall(r"tests/(test_\w+\.py)", run.group(1)))


def test_the_check_block_runs_the_tests_it_explains() -> None:
    """The Check block's tests and its list of what each checks name the same files; each
    file exists; the tests that read the option table are there."""
    check = TEXT[TEXT.index("## Check"):]
    explained = set(re.findall(r"`(test_\w+\.py)`", check))
    run = _check_block_tests()
    assert run == explained, (
        f"run, not explained: {run - explained}; explained, not run: {explained - run}"
    )
    assert all((ROOT / "tests" / name).is_file() for name in run)
    reads_the_table = {
        path.name for path in (ROOT / "tests").glob("test_*.py")
        if re.search(r"^from table\.rules(\.options)? import .*\bSPECS\b",
                     path.read_text(encoding="utf-8"), flags=re.M)
        and path.name not in {"test_guide_adding_an_option.py"}
    }
    assert reads_the_table <= run, (
        f"tests that read the option table, not in the Check: {reads_the_table - run}"
    )


def _table_row(key: str) -> str:
    row = re.search(rf"^\| `{key}` \| (.*) \|$", TEXT, flags=re.M)
    assert row is not None, f"the guide's replay JSON table has no row for {key}"
    return row.group(1)


def test_the_replay_json_keys_are_the_ones_printed() -> None:
    """``uno-table replay --json`` on a scenario prints the keys the guide's table shows, and
    the keys of a step and of the state are the ones its rows list."""
    scenario = ROOT / "tests" / "scenarios" / "score_doubling.scn"
    done = subprocess.run(
        [sys.executable, "-m", "table.commands.cli", "replay", "--json", str(scenario)],
        capture_output=True, text=True, timeout=120, check=True,
    )
    printed = json.loads(done.stdout)
    table = re.findall(r"^\| `(\w+)` \|", TEXT, flags=re.M)
    assert table == list(printed), f"the guide lists {table}, the replay prints {list(printed)}"
    for key, sample in (("steps", printed["steps"][0]), ("state", printed["state"])):
        listed = re.findall(r"`(\w+)`", _table_row(key))
        assert set(sample) <= set(listed), f"{key}: not in the guide: {set(sample) - set(listed)}"
