"""The README's two commands on a fresh machine: nothing but sh (no make, no python3 even),
so ``./uno`` installs what each step needs, and only that, before running it.

The machine is faked at its edges: ``dpkg`` and ``apt-get`` keep a list of installed packages
(installing ``python3`` puts a ``python3`` on PATH), and that ``python3`` makes a ``.venv``
whose programs log how they were called. PATH holds the fakes and the few real tools the
scripts use, and no ``make``.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
REAL_TOOLS = ("sh", "dirname", "grep", "touch", "env", "cp", "chmod", "mkdir", "nproc", "nice")

FAKE_DPKG = r"""#!/bin/sh
[ "$1" = -s ] || exit 2
grep -qx "$2" "$STATE/installed" || exit 1
echo "Package: $2"
echo "Status: install ok installed"
"""
FAKE_APT = r"""#!/bin/sh
echo "apt-get $*" >> "$STATE/log"
last=""
for word in "$@"; do
    case $word in
    -*|install|update) ;;
    *) [ "$last" = -o ] || echo "$word" >> "$STATE/installed" ;;
    esac
    last=$word
done
if grep -qx python3 "$STATE/installed"; then cp "$STATE/python3" "$BIN/python3"; fi
"""
FAKE_ID = """#!/bin/sh
echo "$FAKE_UID"
"""
# The interpreter: a version check passes; -m venv makes .venv/bin/python, a copy of itself;
# -m pip install puts the programs of what it installs beside it; pytest-xdist is there when
# FAKE_XDIST is set.
FAKE_PYTHON = r"""#!/bin/sh
here=$(dirname "$0")
echo "python $*" >> "$STATE/log"
case $1 in
-c) case $2 in *xdist*) [ -n "${FAKE_XDIST:-}" ] || exit 1 ;; esac; exit 0 ;;
-m)
    case $2 in
    venv) mkdir -p "$3/bin"; cp "$0" "$3/bin/python" ;;
    pip)
        case $* in *"[japanese]"*) [ -z "${NO_WHEEL:-}" ] || exit 1 ;; esac
        programs="uno-table"
        case $* in *"[test]"*) programs="uno-table ruff mypy" ;; esac
        for p in $programs; do
            printf '#!/bin/sh\necho "%s $*" >> "$STATE/log"\n' "$p" > "$here/$p"
            chmod +x "$here/$p"
        done ;;
    pytest) ;;
    esac ;;
esac
"""


class Machine:
    """A fresh Debian, faked: its PATH, its installed packages and a log of what ran."""

    def __init__(self, tmp: Path, installed: tuple[str, ...] = (), uid: int = 0) -> None:
        self.checkout = tmp / "uno-table"
        (self.checkout / ".ci").mkdir(parents=True)
        for name in ("uno", ".ci/sysdeps.sh", ".ci/run", "pyproject.toml"):
            shutil.copy2(ROOT / name, self.checkout / name)
        self.state, self.bin = tmp / "state", tmp / "bin"
        self.state.mkdir()
        self.bin.mkdir()
        (self.state / "installed").write_text("".join(f"{p}\n" for p in installed))
        (self.state / "log").write_text("")
        for tool in REAL_TOOLS:
            found = shutil.which(tool)
            assert found, tool
            (self.bin / tool).symlink_to(found)
        for name, text in (("dpkg", FAKE_DPKG), ("apt-get", FAKE_APT), ("id", FAKE_ID)):
            self._script(self.bin / name, text)
        self._script(self.state / "python3", FAKE_PYTHON)  # on PATH once apt installs it
        if "python3" in installed:
            shutil.copy2(self.state / "python3", self.bin / "python3")
        self.env = {"PATH": str(self.bin), "STATE": str(self.state), "BIN": str(self.bin),
                    "FAKE_UID": str(uid), "HOME": str(tmp)}

    @staticmethod
    def _script(path: Path, text: str) -> None:
        path.write_text(text)
        path.chmod(0o755)

    def run(self, command: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["sh", "-c", command], cwd=self.checkout, env=self.env,
                              stdin=subprocess.DEVNULL, capture_output=True, text=True,
                              timeout=60)

    def log(self) -> list[str]:
        return (self.state / "log").read_text().splitlines()

    def installs(self) -> list[str]:
        """The packages apt-get was asked to install, in order."""
        return [word for line in self.log() if line.startswith("apt-get ") and " install " in line
                for word in line.split()[line.split().index("install") + 1:]
                if not word.startswith("-")]


def package_set(step: str) -> list[str]:
    out = subprocess.run(["sh", str(ROOT / ".ci/sysdeps.sh"), "--list", step],
                         capture_output=True, text=True, check=True).stdout
    return out.split()


def readme_commands() -> list[str]:
    """The lines of the README's first code block."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(r"^```\n(.*?)^```$", text, re.S | re.M)
    assert block is not None
    return block.group(1).splitlines()


def test_the_readme_opens_with_the_demo_and_the_test_command() -> None:
    assert readme_commands() == ["./uno demo", "./uno test"]
    ci = (ROOT / ".ci/run").read_text(encoding="utf-8")
    commands = [line.strip() for line in ci.splitlines() if line and not line.startswith("#")]
    assert commands.index("./uno test") < commands.index("exec ./uno appliance")
    assert os.access(ROOT / "uno", os.X_OK)


def test_the_demo_on_a_machine_with_only_sh_installs_only_what_it_needs(tmp_path: Path) -> None:
    machine = Machine(tmp_path)
    assert shutil.which("make", path=machine.env["PATH"]) is None
    done = machine.run("./uno demo")
    assert done.returncode == 0, done.stderr
    assert machine.installs() == ["python3", "python3-venv", "espeak-ng"]
    log = machine.log()
    assert "python -m venv .venv" in log
    assert "python -m pip install --quiet --disable-pip-version-check -e ." in log  # no extra
    assert log[-1] == "uno-table demo --players 3 --rounds 1 --seed 1"
    assert not (machine.checkout / ".venv/bin/mypy").exists()

    again = machine.run("./uno demo --fast")  # set up already: straight to the demo
    assert again.returncode == 0, again.stderr
    ran = [line for line in machine.log()[len(log):] if not line.startswith("python -c")]
    assert ran == ["uno-table demo --players 3 --rounds 1 --seed 1 --fast"]


def test_the_demo_in_japanese_brings_open_jtalk_and_its_dictionary(tmp_path: Path) -> None:
    machine = Machine(tmp_path, installed=("python3", "python3-venv", "espeak-ng"))
    done = machine.run("./uno demo --lang ja")
    assert done.returncode == 0, done.stderr
    assert machine.installs() == ["open-jtalk-mecab-naist-jdic"]
    log = machine.log()
    assert "python -m pip install --quiet --disable-pip-version-check -e .[japanese]" in log
    assert log[-1] == "uno-table demo --players 3 --rounds 1 --seed 1 --lang ja"


def test_without_a_wheel_of_open_jtalk_the_demo_speaks_japanese_with_espeak_ng(
    tmp_path: Path,
) -> None:
    machine = Machine(tmp_path, installed=("python3", "python3-venv", "espeak-ng"))
    machine.env["NO_WHEEL"] = "1"  # 32-bit Raspberry Pi OS: pyopenjtalk-ndy has no wheel
    done = machine.run("./uno demo --lang=ja")
    assert done.returncode == 0, done.stderr
    assert ("uno: pyopenjtalk-ndy cannot be installed here: espeak-ng speaks Japanese"
            in done.stderr.splitlines())
    log = machine.log()
    assert "python -m pip install --quiet --disable-pip-version-check -e ." in log
    assert log[-1] == "uno-table demo --players 3 --rounds 1 --seed 1 --lang=ja"


def test_the_tests_install_everything_then_lint_typecheck_and_run_pytest(
    tmp_path: Path,
) -> None:
    machine = Machine(tmp_path, installed=("python3", "python3-venv", "espeak-ng"))
    done = machine.run("./uno test -x")
    assert done.returncode == 0, done.stderr
    expected = [p for p in package_set("test") if p not in package_set("demo")]
    assert machine.installs() == expected
    assert {"gcc-avr", "simavr", "make", "systemd", "open-jtalk-mecab-naist-jdic"} <= set(expected)
    log = machine.log()
    assert "python -m pip install --quiet --disable-pip-version-check -e .[test]" in log
    checks = [line.strip() for line in log if line.split()[0] in ("ruff", "mypy")
              or line.startswith("python -m pytest")]
    assert checks == ["ruff check", "mypy", "python -m pytest --durations=15 -x"]


def test_the_tests_run_in_a_process_per_core_and_options_given_come_last(
    tmp_path: Path,
) -> None:
    """With pytest-xdist (the test extra has it) one worker per core this machine gives the
    command; an option after ``./uno test`` (``-n 0``: one process) comes after and wins."""
    machine = Machine(tmp_path, installed=tuple(package_set("test")))
    machine.env["FAKE_XDIST"] = "1"
    done = machine.run("./uno test -n 0")
    assert done.returncode == 0, done.stderr
    cores = len(os.sched_getaffinity(0))
    assert machine.log()[-1] == (
        f"python -m pytest --durations=15 -n {cores} --dist worksteal -n 0")


def test_ci_runs_the_readme_test_command_then_the_appliance(tmp_path: Path) -> None:
    """CI: the README's test command, then ``./uno appliance`` with its packages installed
    first (the guest's tools), as root."""
    machine = Machine(tmp_path, installed=tuple(package_set("test")))
    done = machine.run(".ci/run")
    assert done.returncode == 0, done.stderr
    log = machine.log()
    assert log[-1] == "python bench/appliance.py"
    tested = log.index("python -m pytest --durations=15")
    assert set(package_set("appliance")) - set(package_set("test")) <= set(
        word for line in log[tested:] if line.startswith("apt-get ") for word in line.split())


def test_without_root_or_sudo_it_says_exactly_what_to_install(tmp_path: Path) -> None:
    machine = Machine(tmp_path, installed=("python3",), uid=1000)
    done = machine.run("./uno demo")
    assert done.returncode == 1
    assert ("su -c 'apt-get update && apt-get install -y --no-install-recommends "
            "python3-venv espeak-ng'") in done.stderr
    assert machine.log() == []  # nothing installed, nothing run


@pytest.mark.parametrize("command", ["./uno", "./uno dmeo"])
def test_a_wrong_step_is_one_usage_line(tmp_path: Path, command: str) -> None:
    done = Machine(tmp_path).run(command)
    assert done.returncode == 2
    assert done.stderr == ("usage: ./uno demo [DEMO OPTIONS] | ./uno test [PYTEST OPTIONS] "
                           "| ./uno venv | ./uno install [EXAMPLE] | ./uno appliance\n")
