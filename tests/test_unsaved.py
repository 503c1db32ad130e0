"""Inputs a stop cannot write into the journal are kept beside it, on a disk that is really
full: the room set aside when the journal opened takes them."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

FULL_DISK = """
import json, os, subprocess, sys
from pathlib import Path
sys.path.insert(0, {tests!r})
root = Path({root!r})
subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(root)], check=True)
from test_journal import played, table_setup
from table.journal.store import Journal, read_journal
inputs, verdicts = played(200)
journals = {{}}
for name in ("kept", "no-room"):
    journal = Journal(root / name, preallocate=False)
    journal.begin(table_setup())
    journals[name] = journal
(root / "no-room.reserve").unlink()  # as if no room could be set aside
with open(root / "filler", "wb", buffering=0) as filler:  # the disk full, to the last block
    for size in (65536, 4096, 1):
        try:
            while True:
                filler.write(b"x" * size)
        except OSError:
            pass
out = {{}}
for name, journal in journals.items():
    written = [journal.append(i, v) for i, v in zip(inputs, verdicts)]
    waiting = len(journal.waiting)
    where, kept = journal.keep_unsaved()
    journal.close()
    out[name] = {{"written": written.count(True), "waiting": waiting, "kept": kept,
                 "file": where.exists()}}
(root / "filler").unlink()  # room again: the next start writes them back
journal = Journal(root / "kept")
out["restored"] = journal.restored
journal.close()
out["read"] = read_journal(root / "kept")[-1].inputs == inputs
print(json.dumps(out))
"""


def test_a_stop_on_a_full_disk_keeps_the_inputs_in_the_room_set_aside(tmp_path: Path) -> None:
    unshare = shutil.which("unshare")
    if unshare is None or subprocess.run([unshare, "-rm", "true"]).returncode != 0:
        pytest.skip("no user and mount namespaces here to mount a small file system in")
    root = tmp_path / "disk"
    root.mkdir()
    code = FULL_DISK.format(tests=str(Path(__file__).parent), root=str(root))
    done = subprocess.run([unshare, "-rm", sys.executable, "-c", code], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    kept, lost = out["kept"], out["no-room"]
    assert kept["written"] < 200 and kept["waiting"] == 200 - kept["written"]
    assert kept["kept"] == kept["waiting"] and kept["file"]
    assert out["restored"] == kept["kept"] and out["read"]
    # Without the room set aside, a full disk has none for them: the stop says they are lost.
    assert lost["waiting"] > 0 and lost["kept"] == 0 and not lost["file"]
