"""Every command that reads a file the user names, fed files that are wrong in every way a
file can be: missing, a folder, empty, binary, Latin-1, UTF-16, nested a thousand deep, endless,
unreadable. Each is one line on stderr naming the file, and exit code 2: never a traceback.

Empty files: an empty configuration or deck file is refused (nothing can run from it); so is an
empty scenario, like any scenario with no ``players`` line (there is no game to referee); an
empty ``enroll --out`` file is a fresh enrolment (it holds no tags to lose).

Unreadable files: this machine and CI run as root, which reads a file whatever its mode, so
those commands run as ``nobody`` (through ``setpriv`` or ``runuser``), in one process that runs
them all (tests/cli_driver.py); as any other user they run as that user.
"""

from __future__ import annotations

import json
import os
import pwd
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from cli_driver import run as run_here

from sim.hardware.ptys import sim_config

ROOT = Path(__file__).resolve().parent.parent
DEEP = 1000
PREFIX = {"uno-table": "uno-table: ", "sim.hardware.ptys": "python -m sim.hardware.ptys: "}


def _bytes(name: str, data: bytes) -> Callable[[Path], Path]:
    def make(folder: Path) -> Path:
        path = folder / name
        path.write_bytes(data)
        return path

    return make


def _folder(folder: Path) -> Path:
    path = folder / "a-folder"
    path.mkdir()
    return path


PLAYERS_TOML = '[table]\nplayers = ["Aki", "Ken"]\n'
HOSTILE: dict[str, Callable[[Path], Path]] = {
    "missing": lambda folder: folder / "missing",
    "a folder": _folder,
    "empty": _bytes("empty", b""),
    "binary": _bytes("binary", bytes(range(256)) * 8),
    "latin-1": _bytes("latin-1", 'title = "Zoë"\n'.encode("latin-1")),
    "utf-16": _bytes("utf-16", PLAYERS_TOML.encode("utf-16")),
    "utf-16 without a byte-order mark": _bytes("utf-16-le", PLAYERS_TOML.encode("utf-16-le")),
    "nested arrays": _bytes("arrays", f"a = {'[' * DEEP}{']' * DEEP}\n".encode()),
    "nested tables": _bytes("tables", ("a = " + "{b = " * DEEP + "1" + "}" * DEEP).encode()),
    "dotted keys, players": _bytes("players", f"table.players{'.x' * DEEP} = 1\n".encode()),
    "dotted keys, a tag": _bytes("tag", f"uids.04A1B2C3{'.x' * DEEP} = 1\n".encode()),
    "endless": lambda folder: Path("/dev/zero"),
}


def good_config(folder: Path, deck: str = "virtual", voice: Path | None = None) -> Path:
    """A configuration that runs, but for the deck file or voice folder it is given."""
    if not (folder / "pad").is_symlink():
        (folder / "pad").symlink_to("/dev/null")  # the reader's port: a character device
    text = sim_config(("Aki", "Ken", "Mio")).replace('"virtual"', json.dumps(deck))
    if voice is not None:
        wav = f"backend = \"wav\"\nfolder = {json.dumps(str(voice))}"
        text = text.replace('backend = "captions"', wav)
    name = "voice" if voice else "table" if deck == "virtual" else "deck"
    path = folder / f"{name}.toml"
    path.write_text(text, encoding="utf-8")
    path.chmod(0o644)
    return path


Argv = Callable[[Path, Path], list[str]]  # (the hostile file, a folder) -> the command line
# (name, program, argv, hostile files that are good input for it)
COMMANDS: list[tuple[str, str, Argv, frozenset[str]]] = [
    ("replay", "uno-table", lambda f, d: ["replay", str(f)], frozenset()),
    ("deck check", "uno-table", lambda f, d: ["deck", "check", str(f)], frozenset()),
    ("run --config", "uno-table", lambda f, d: ["run", "--config", str(f)], frozenset()),
    ("run, its deck file", "uno-table",
     lambda f, d: ["run", "--config", str(good_config(d, str(f)))], frozenset()),
    ("doctor --config", "uno-table", lambda f, d: ["doctor", "--config", str(f)], frozenset()),
    ("enroll --config", "uno-table",
     lambda f, d: ["enroll", "--config", str(f), "--out", str(d / "deck.toml")], frozenset()),
    ("enroll --out", "uno-table",
     lambda f, d: ["enroll", "--config", str(good_config(d)), "--out", str(f)],
     frozenset({"missing", "empty"})),  # a new enrolment
    ("service --config", "uno-table", lambda f, d: ["service", "--config", str(f)], frozenset()),
    ("sim.hardware.ptys --config", "sim.hardware.ptys", lambda f, d: ["--config", str(f)],
     frozenset()),
    ("sim.hardware.ptys, its deck file", "sim.hardware.ptys",
     lambda f, d: ["--config", str(good_config(d, str(f)))], frozenset()),
]
CASES = [
    pytest.param(prog, argv, hostile, id=f"{name}: {hostile}")
    for name, prog, argv, good in COMMANDS
    for hostile in HOSTILE
    if hostile not in good
]

Cli = Callable[[str, list[str]], dict[str, object]]


@pytest.fixture
def cli(monkeypatch: pytest.MonkeyPatch) -> Cli:
    """Runs a command in this process. A command that gets past the file it was given and
    starts refereeing, enrolling or opening readers fails the test instead of waiting."""

    def went_on(*args: object, **kwargs: object) -> None:
        raise AssertionError("the command went on past a bad file")

    monkeypatch.setattr("table.runtime.daemon.run", went_on)
    monkeypatch.setattr("table.commands.enroll.make_reader", went_on)
    monkeypatch.setattr("table.commands.doctor.check_reader", went_on)
    monkeypatch.setattr("sim.hardware.ptys.make_pads", went_on, raising=False)
    return run_here


def assert_one_line(result: dict[str, object], prog: str, *where: Path | str) -> None:
    err = str(result["err"])
    lines = err.splitlines()
    assert result["code"] == 2 and len(lines) == 1, err
    assert lines[0].startswith(PREFIX[prog]), err
    for part in where:
        assert str(part) in lines[0], err


@pytest.mark.parametrize(("prog", "argv", "hostile"), CASES)
def test_a_hostile_file_is_one_line_and_exit_2(
    tmp_path: Path, cli: Cli, prog: str, argv: Argv, hostile: str
) -> None:
    path = HOSTILE[hostile](tmp_path)
    assert_one_line(cli(prog, argv(path, tmp_path)), prog, path)


@pytest.mark.parametrize("hostile", list(HOSTILE))
def test_doctor_names_a_hostile_deck_file_in_one_fix_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
    hostile: str
) -> None:
    """doctor goes on past a deck file it cannot use (the wiring is checked before the deck is
    enrolled): the deck's one-line error is its one FIX line, exit 1, nothing on stderr."""
    from table.commands.cli import main

    monkeypatch.setattr("table.commands.doctor.check_reader", lambda spec, *more, **extra: [])
    monkeypatch.setattr("table.commands.doctor.check_voice", lambda config: [])
    path = HOSTILE[hostile](tmp_path)
    config = good_config(tmp_path, str(path))
    assert main(["doctor", "--config", str(config)]) == 1
    out, err = capsys.readouterr()
    fixes = [line for line in out.splitlines() if line.startswith("FIX")]
    assert err == "" and len(fixes) == 1 and str(path) in fixes[0], out + err


def test_the_messages_say_what_is_wrong(tmp_path: Path, cli: Cli) -> None:
    said = {name: str(cli("uno-table", ["deck", "check", str(make(tmp_path))])["err"])
            for name, make in HOSTILE.items()}
    assert "no such deck file" in said["missing"]
    assert "a folder, not a deck file" in said["a folder"]
    assert "the deck file is empty" in said["empty"]
    assert "not UTF-8 text (byte 0x80 on line 2)" in said["binary"]  # after the 0x0A
    assert "not UTF-8 text (byte 0xEB on line 1): save the deck file as UTF-8" in said["latin-1"]
    assert "UTF-16 text: save the deck file as UTF-8" in said["utf-16"]
    assert "a binary file (a NUL byte on line 1)" in said["utf-16 without a byte-order mark"]
    assert "nested too deeply" in said["nested arrays"] and "nested too deeply" in said[
        "nested tables"]
    assert "not a table" in said["dotted keys, a tag"]
    assert "larger than 16 MiB" in said["endless"]


def test_an_empty_scenario_is_refused_like_one_without_players(tmp_path: Path, cli: Cli) -> None:
    for name, text in (("empty.scn", ""), ("comments.scn", "# nothing yet\n\n")):
        path = tmp_path / name
        path.write_text(text)
        result = cli("uno-table", ["replay", str(path)])
        assert_one_line(result, "uno-table", f"{path}:1: no scenario lines")


def test_a_utf8_byte_order_mark_is_fine(tmp_path: Path, cli: Cli) -> None:
    """Some Windows editors start UTF-8 with a byte-order mark: it is text, and read as such."""
    scn = tmp_path / "bom.scn"
    scn.write_bytes(b"\xef\xbb\xbfplayers Aki Ken\nstart R5\n")
    assert cli("uno-table", ["replay", str(scn)]) == {"code": 0, "err": ""}
    config = good_config(tmp_path)
    config.write_bytes(b"\xef\xbb\xbf" + config.read_bytes())
    assert cli("uno-table", ["service", "--config", str(config)]) == {"code": 0, "err": ""}


def test_an_empty_enroll_out_file_is_a_new_enrolment(tmp_path: Path) -> None:
    from table.commands.enroll import Enrolment

    out = tmp_path / "deck.toml"
    out.touch()
    enrolment = Enrolment(out, "classic-108", 2, None)
    assert enrolment.entries == {} and enrolment.total == 108 + 4 + 7 + 2


# --- places to write ---------------------------------------------------------------------

def _under_a_file(folder: Path) -> Path:
    (folder / "file").write_text("")
    return folder / "file" / "out"


BAD_PLACES: dict[str, Callable[[Path], Path]] = {
    "a folder": _folder,
    "under a file": _under_a_file,
    "in a missing folder": lambda folder: folder / "missing" / "out",
}


@pytest.mark.parametrize("place", BAD_PLACES)
@pytest.mark.parametrize(
    "argv",
    [
        pytest.param(lambda f, d: ["say", "hello", "--out", str(f)], id="say --out"),
        pytest.param(lambda f, d: ["deck", "virtual", "--out", str(f)], id="deck virtual --out"),
        pytest.param(lambda f, d: ["enroll", "--config", str(good_config(d)), "--out", str(f)],
                     id="enroll --out"),
    ],
)
def test_writing_to_a_bad_place_is_one_line_and_exit_2(
    tmp_path: Path, cli: Cli, argv: Argv, place: str
) -> None:
    path = BAD_PLACES[place](tmp_path)
    assert_one_line(cli("uno-table", argv(path, tmp_path)), "uno-table", path)


@pytest.mark.parametrize("inside", [False, True], ids=["a file", "under a file"])
@pytest.mark.parametrize("command", ["run", "doctor", "service"])
def test_a_voice_folder_that_is_a_file(
    tmp_path: Path, cli: Cli, command: str, inside: bool
) -> None:
    file = tmp_path / "announcements"
    file.write_text("")
    config = good_config(tmp_path, voice=file / "round-1" if inside else file)
    result = cli("uno-table", [command, "--config", str(config)])
    assert_one_line(result, "uno-table", f"{config}: voice.folder: {file} is a file, not a folder")


# --- as a user who may not read or write ---------------------------------------------------

def _as_another_user() -> list[str]:
    """The command prefix that drops root, or nothing when the tests do not run as root."""
    if os.geteuid() != 0:
        return []
    nobody = pwd.getpwnam("nobody")
    if shutil.which("setpriv"):
        return ["setpriv", f"--reuid={nobody.pw_uid}", f"--regid={nobody.pw_gid}",
                "--clear-groups"]
    if shutil.which("runuser"):
        return ["runuser", "-u", "nobody", "--"]
    pytest.skip("root reads any file, and neither setpriv nor runuser is here to run as nobody")


@pytest.fixture
def shared() -> Iterator[Path]:
    """A folder the other user can reach (pytest's own are its owner's alone)."""
    folder = Path(tempfile.mkdtemp(prefix="uno-table-hostile-"))
    folder.chmod(0o755)
    yield folder
    if (folder / "locked").exists():
        (folder / "locked").chmod(0o755)  # its owner may empty it again
    shutil.rmtree(folder)


def test_unreadable_files_and_unwritable_places(shared: Path) -> None:
    prefix = _as_another_user()
    python = [*prefix, sys.executable]
    probe = subprocess.run([*python, "-c", "import table.commands.cli, sim.hardware.ptys"],
                           cwd=ROOT, capture_output=True, text=True, timeout=120)
    if probe.returncode != 0:
        pytest.skip(f"the other user cannot run this checkout's Python: {probe.stderr[-200:]}")

    secret = shared / "secret.toml"  # a good configuration, but no one may read it
    secret.write_text(sim_config(("Aki", "Ken")), encoding="utf-8")
    secret.chmod(0)
    locked = shared / "locked"  # a folder no one may write in
    locked.mkdir()
    locked.chmod(0o555)
    voice = good_config(shared, voice=locked / "announcements")
    config = good_config(shared)
    cases: list[tuple[str, list[str], object]] = []
    for name, prog, argv, _ in COMMANDS:
        cases.append((prog, argv(secret, shared), secret))
        if name == "run, its deck file":
            cases.append((prog, ["run", "--config", str(voice)], locked))
    out = locked / "out"
    cases += [
        ("uno-table", ["say", "hello", "--out", str(out)], out),
        ("uno-table", ["deck", "virtual", "--out", str(out)], out),
        ("uno-table", ["enroll", "--config", str(config), "--out", str(out)], out),
    ]
    batch = [[prog, argv] for prog, argv, _ in cases]
    done = subprocess.run([*python, str(ROOT / "tests" / "cli_driver.py")], cwd=ROOT,
                          input=json.dumps(batch), capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    results = json.loads(done.stdout)
    for (prog, argv, where), result in zip(cases, results, strict=True):
        assert_one_line(result, prog, str(where))
        assert "Permission denied" in str(result["err"]) or "no permission" in str(
            result["err"]), (argv, result)
