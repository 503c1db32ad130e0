"""The power-cut scenario's checker (bench/appliance_cuts_guest.py), run here on files a cut can
leave: after every boot in the guest it opens each file with the table's own code, and what does
not open, or an input that left the table and is not in its journal, is what the run counts.
(The cuts themselves take a guest and minutes: ``./uno appliance --only cuts``.)"""

from __future__ import annotations

import os
import random
import sys
from pathlib import Path

from test_journal import write_journal

from table.commands.enroll import save
from table.hub.store import HubStore

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from appliance_cuts import Tally, compare  # noqa: E402
from appliance_cuts_guest import check, damage, result  # noqa: E402

TAGS = {"0C0100A5": "R5#1", "0C0101A5": "G7#1", "0C0102A5": "B2#2"}


def evening(state: Path, inputs: int) -> None:
    """What the cut cycles leave in their folder: a journal, a deck file, a hub store."""
    write_journal(state / "journal.sqlite3", inputs)
    save(state / "deck.toml", TAGS, "classic-108")
    store = HubStore(state / "hub.sqlite3")
    for rnd in (1, 2):
        store.add_result(result("c3", rnd), rnd, None)
    store.close()


def test_every_file_opens_and_the_checker_says_what_each_holds(tmp_path: Path) -> None:
    evening(tmp_path, 30)
    found = check(tmp_path)
    assert found["unopenable"] == []
    assert list(found["journal"].values()) == [30]
    assert found["deck"] == sorted(TAGS)
    assert found["hub"] == ["2/c3/1", "2/c3/2"]
    assert found["repair"] is None  # no repair tried yet: no file to open


def test_a_damaged_journal_is_repaired_by_the_daemon_s_open_and_the_copy_counted(
        tmp_path: Path) -> None:
    write_journal(tmp_path / "journal.sqlite3", 60)
    damage(tmp_path)  # page 2 of a copy overwritten with noise, synced
    found = check(tmp_path)
    assert found["unopenable"] == []
    assert 0 < found["repair"] <= 61  # the match and what came before the damage
    assert list(found["journal"].values()) == [60]  # the evening's own journal untouched


def test_a_half_written_deck_or_a_store_of_noise_is_named_unopenable(tmp_path: Path) -> None:
    evening(tmp_path, 5)
    deck = (tmp_path / "deck.toml").read_bytes()
    (tmp_path / "deck.toml").write_bytes(deck[: len(deck) // 2])  # a write cut in its middle
    noise = random.Random(1).randbytes(8192)
    (tmp_path / "hub.sqlite3").write_bytes(noise)
    os.remove(tmp_path / "journal.sqlite3")  # no journal yet: nothing to open, nothing counted
    found = check(tmp_path)
    names = sorted(line.split(":")[0] for line in found["unopenable"])
    assert names == ["deck file", "hub store"]
    assert found["journal"] is None and found["deck"] is None and found["hub"] is None


def test_what_left_the_table_and_is_not_in_its_files_is_counted_lost(tmp_path: Path) -> None:
    evening(tmp_path, 12)
    tally = Tally(taps=[], acknowledged=set(range(1, 15)), enrolled={*TAGS, "0C0103A5"},
                  hub_acked={"2/c3/1", "2/c3/2", "2/c3/3"})
    compare(tally, check(tmp_path))
    assert tally.lost == {"input 13", "input 14", "tag 0C0103A5"}
    assert tally.hub_lost == {"2/c3/3"}
    assert tally.unopenable == set()
