"""The journal on real SQLite files: damaged tails cut back to the last intact input, a full
disk that does not stop the game, and status and history read back from a journal."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from sim.players.scripted import scripted_taps
from table.commands.cli import main
from table.inputs import Admin, JournaledInput, ReaderRole, TagRead
from table.journal.records import (
    MatchSetup,
    RowError,
    feed_referee,
    input_from_json,
    input_json,
    rebuild,
    resume,
)
from table.journal.store import Journal, read_journal
from table.referee.registry import virtual_deck
from table.rules import make_options

PLAYERS = ("Aki", "Ken", "Mio")


def table_setup() -> MatchSetup:
    return MatchSetup(PLAYERS, make_options(target=0), 0, (ReaderRole("pad", "play"),),
                      virtual_deck())


def played(count: int, seed: int = 5) -> tuple[list[JournaledInput], list[str]]:
    """``count`` inputs of a scripted match and the verdicts the referee gave them."""
    ref = table_setup().referee()
    inputs: list[JournaledInput] = [TagRead(r, u) for r, u in scripted_taps(PLAYERS, count, seed)]
    return inputs, [feed_referee(ref, item).journal_word for item in inputs]


def write_journal(path: Path, count: int) -> list[JournaledInput]:
    inputs, verdicts = played(count)
    journal = Journal(path)
    journal.begin(table_setup())
    for item, word in zip(inputs, verdicts, strict=True):
        assert journal.append(item, word)
    journal.close()
    return inputs


def resumed_inputs(path: Path) -> tuple[Journal, list[JournaledInput]]:
    journal = Journal(path)
    record = journal.last_match()
    assert record is not None
    return journal, record.inputs


def test_a_garbled_last_input_is_cut_off(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite3"
    inputs = write_journal(path, 60)
    _, verdicts = played(60)
    # Change one hex digit of the last UID in the file: still valid SQLite, still valid JSON.
    data = bytearray(path.read_bytes())
    body = input_json(inputs[-1], verdicts[-1]).encode()
    at = data.rfind(body)
    assert at > 0
    digit = at + body.index(b'"u":"') + 8
    data[digit] = ord("A") if data[digit] != ord("A") else ord("B")
    path.write_bytes(bytes(data))

    journal, got = resumed_inputs(path)
    assert journal.repair is not None and journal.repair.dropped == 1
    assert got == inputs[:-1]
    # The journal goes on from there, and opens clean the next time.
    journal.carry_on(journal.last_match())  # type: ignore[arg-type]
    assert journal.append(inputs[-1], verdicts[-1])
    journal.close()
    journal, got = resumed_inputs(path)
    assert journal.repair is None and got == inputs
    journal.close()


WRITER = """
import json, os, sys
from pathlib import Path
sys.path.insert(0, {tests!r})
from test_journal import played, table_setup
from table.journal.store import Journal
inputs, verdicts = played({count})
journal = Journal(Path({path!r}))
journal.begin(table_setup())
for item, word in zip(inputs, verdicts):
    journal.append(item, word)
os._exit(0)  # a crash: no close, no checkpoint, the inputs are in the WAL
"""


def crashed_writer(path: Path, count: int) -> None:
    code = WRITER.format(tests=str(Path(__file__).parent), count=count, path=str(path))
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)
    assert Path(str(path) + "-wal").stat().st_size > 0


def last_frame(wal: bytes) -> int:
    """Where the last frame written since the WAL was last restarted starts (the frames of
    this WAL generation carry the header's salt; older ones further on are stale)."""
    page_size = int.from_bytes(wal[8:12], "big")
    salt = wal[16:24]
    frame = 24 + page_size
    at, last = 32, None
    while at + frame <= len(wal) and wal[at + 8:at + 16] == salt:
        last = at
        at += frame
    assert last is not None
    return last


@pytest.mark.parametrize("damage", ["cut", "garble"])
def test_a_torn_wal_tail_resumes_at_the_last_intact_input(tmp_path: Path, damage: str) -> None:
    path = tmp_path / "journal.sqlite3"
    crashed_writer(path, 40)
    wal = Path(str(path) + "-wal")
    data = bytearray(wal.read_bytes())
    start = last_frame(bytes(data))
    if damage == "cut":
        data = data[:start + 100]  # the last write only half done
    else:
        for i in range(start + 200, start + 300):
            data[i] ^= 0x5A
    wal.write_bytes(bytes(data))
    inputs, _ = played(40)
    journal, got = resumed_inputs(path)
    assert got == inputs[:-1]
    journal.close()


@pytest.mark.parametrize("damage", ["cut-bytes", "cut-page", "garble"])
def test_a_damaged_database_file_is_salvaged_up_to_the_damage(tmp_path: Path, damage: str
                                                              ) -> None:
    """SQLite refuses such a file outright ("database disk image is malformed"); the rows are
    read back page by page and kept as far as their checksums chain."""
    path = tmp_path / "journal.sqlite3"
    inputs = write_journal(path, 300)
    data = bytearray(path.read_bytes())
    if damage == "cut-bytes":
        data = data[:-700]
    elif damage == "cut-page":
        data = data[:-4096]
    else:
        for i in range(len(data) - 900, len(data) - 100, 7):
            data[i] ^= 0xA5
    path.write_bytes(bytes(data))
    journal, got = resumed_inputs(path)
    assert journal.repair is not None and journal.repair.moved_to is not None
    assert journal.repair.moved_to.exists()
    assert oct(path.stat().st_mode & 0o777) == oct(0o600)  # the repaired file is private too
    assert 0 < len(got) < len(inputs)
    assert got == inputs[: len(got)]
    journal.close()
    assert read_journal(path)[-1].inputs == got


def test_status_and_history_read_a_journal(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                           ) -> None:
    path = tmp_path / "journal.sqlite3"
    inputs = write_journal(path, 400)
    state = rebuild(table_setup(), inputs).state
    assert len(state.results) >= 3
    assert main(["status", "--journal", str(path), "--json"]) == 0
    status = json.loads(capsys.readouterr().out)
    assert status["scores"] == dict(zip(PLAYERS, state.scores, strict=True))
    assert status["state"]["round"] == state.round
    assert len(status["rounds"]) == len(state.results)
    assert set(status) >= {"state", "rounds", "scores", "match_over"}

    assert main(["status", "--journal", str(path)]) == 0
    text = capsys.readouterr().out
    assert f"round {state.round}" in text
    assert "scores: " + ", ".join(f"{p} {n}" for p, n in zip(PLAYERS, state.scores, strict=True)) \
        in text

    assert main(["history", "--journal", str(path), "--csv"]) == 0
    rows = capsys.readouterr().out.splitlines()
    assert rows[0] == "match,started,round,winner,player,points,total"
    assert len(rows) == 1 + len(state.results) * len(PLAYERS)
    last = {r.split(",")[4]: int(r.split(",")[6]) for r in rows[-len(PLAYERS):]}
    assert last == dict(zip(PLAYERS, state.scores, strict=True))

    assert main(["history", "--journal", str(path)]) == 0
    text = capsys.readouterr().out
    assert "match 1" in text and "total" in text


def test_status_of_a_missing_journal_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["status", "--journal", str(tmp_path / "none.sqlite3"), "--json"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no such journal file" in err[0]


def test_a_journal_that_cannot_be_opened_is_not_mistaken_for_damage(tmp_path: Path) -> None:
    from table.journal.store import JournalError

    folder = tmp_path / "journal.sqlite3"
    folder.mkdir()  # no permission, read-only, a folder: repairing would not help
    with pytest.raises(JournalError, match="a folder, not a journal file"):
        Journal(folder)
    assert folder.is_dir() and not list(tmp_path.glob("*.damaged-*"))


def test_inputs_kept_in_memory_are_written_when_room_comes_back(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite3"
    inputs, verdicts = played(200)
    journal = Journal(path, preallocate=False)
    journal.begin(table_setup())
    pages = journal.db.execute("PRAGMA page_count").fetchone()[0]
    journal.db.execute(f"PRAGMA max_page_count={pages}")  # SQLITE_FULL, like a full disk
    written = [journal.append(item, word) for item, word in zip(inputs, verdicts, strict=True)]
    assert written[0] and not written[-1] and not journal.healthy
    assert len(journal.waiting) == written.count(False)
    journal.db.execute("PRAGMA max_page_count=100000")
    assert journal.flush() and journal.healthy and not journal.waiting
    journal.close()
    assert read_journal(path)[-1].inputs == inputs


def test_the_configuration_given_as_the_journal_is_refused_and_left_alone(tmp_path: Path
                                                                         ) -> None:
    from daemon_harness import refusal, refused, write_config

    from sim.hardware.ptys import PtyReader

    pad = PtyReader(tmp_path / "pad")
    config = write_config(tmp_path, PLAYERS)
    config.write_text(config.read_text().replace('path = "journal.sqlite3"',
                                                 'path = "table.toml"'), encoding="utf-8")
    text = config.read_bytes()
    try:
        done = refused(config)
    finally:
        pad.close()
    assert refusal(done.returncode, done.stderr) == (
        f"uno-table: {config}: not an uno-table journal (not an SQLite database); a journal is a"
        " new or empty file, or one uno-table wrote")
    assert config.read_bytes() == text
    assert [p.name for p in tmp_path.iterdir()] == ["table.toml"]  # nothing made beside it


def test_a_journal_made_before_journals_were_marked_is_kept(tmp_path: Path) -> None:
    """Known by its entries table, read as before, and marked when the daemon opens it."""
    import sqlite3

    from table.journal.store import APPLICATION_ID

    path = tmp_path / "journal.sqlite3"
    inputs = write_journal(path, 40)
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA application_id = 0")
    db.execute("PRAGMA user_version = 0")
    db.execute("DROP TABLE snapshots")  # older still: made before snapshots
    db.close()
    assert read_journal(path)[-1].inputs == inputs
    journal, got = resumed_inputs(path)
    assert got == inputs and journal.repair is None
    journal.close()
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    db.close()


def mode(path: Path) -> str:
    import stat

    return oct(stat.S_IMODE(path.stat().st_mode))


@pytest.mark.parametrize("shared", [False, True])
def test_the_journal_and_its_files_are_private(tmp_path: Path, shared: bool) -> None:
    """Readable by their owner only; in a set-group-ID folder, by its group too."""
    folder = tmp_path / "state"
    folder.mkdir()
    if shared:
        folder.chmod(0o2770)
    path = folder / "journal.sqlite3"
    inputs, verdicts = played(30)
    journal = Journal(path)
    journal.begin(table_setup())
    for item, word in zip(inputs, verdicts, strict=True):
        journal.append(item, word)
    names = ["journal.sqlite3", *(f"journal.sqlite3{s}" for s in ("-wal", "-shm", ".lock",
                                                                  ".reserve"))]
    want = oct(0o640 if shared else 0o600)
    assert {name: mode(folder / name) for name in names} == dict.fromkeys(names, want)
    journal.close()


def test_a_journal_readable_by_every_user_is_made_private(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite3"
    write_journal(path, 10)
    for name in ("journal.sqlite3", "journal.sqlite3.lock"):
        (tmp_path / name).chmod(0o644)
    Journal(path).close()
    assert mode(path) == mode(tmp_path / "journal.sqlite3.lock") == oct(0o640)


def test_status_reads_a_journal_in_a_folder_it_cannot_write(tmp_path: Path) -> None:
    """A reader who may read the journal but not write in its folder (where SQLite would make
    its -shm): status reads it all the same."""
    from unprivileged import check_held, unprivileged

    check_held(tmp_path)
    folder = tmp_path / "state #1?"  # characters a SQLite URI would take for its own
    folder.mkdir()
    path = folder / "journal.sqlite3"
    write_journal(path, 30)
    folder.chmod(0o555)
    try:
        done = subprocess.run(unprivileged([sys.executable, "-m", "table.commands.cli", "status",
                                            "--journal", str(path), "--json"]),
                              capture_output=True, text=True, timeout=60)
    finally:
        folder.chmod(0o755)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["inputs"] == 30


def test_in_use_tells_whether_an_uno_table_holds_the_journal(tmp_path: Path) -> None:
    from table.journal.store import in_use

    path = tmp_path / "journal.sqlite3"
    assert not in_use(path)
    assert not (tmp_path / "journal.sqlite3.lock").exists()  # asking creates nothing
    journal = Journal(path, preallocate=False)
    assert in_use(path)
    journal.close()
    assert not in_use(path)
    Journal(path, preallocate=False).close()  # asking took no lock a daemon would meet


def test_an_admin_undo_is_journaled_as_itself_and_replayed_on_resume(tmp_path: Path) -> None:
    """The admin page's undo and next round are rows of their own, read back as what they are
    and taken again when the match is resumed; a row naming no admin action is not an input."""
    path = tmp_path / "journal.sqlite3"
    inputs, verdicts = played(30)
    ref = table_setup().referee()
    for item in inputs:
        feed_referee(ref, item)
    before = ref.history[-1].state
    admin = [Admin("undo"), Admin("next-round")]
    words = [feed_referee(ref, item).journal_word for item in admin]
    assert words == ["accepted", "rejected"] and ref.state == before
    journal = Journal(path)
    journal.begin(table_setup())
    for item, word in zip([*inputs, *admin], [*verdicts, *words], strict=True):
        assert journal.append(item, word)
    journal.close()
    record = read_journal(path)[-1]
    assert record.inputs[-2:] == admin
    assert resume(record.setup, record.inputs).state == before
    with pytest.raises(RowError):
        input_from_json("admin", '{"a":"shuffle","v":"accepted"}')
