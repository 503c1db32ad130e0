"""``demo --noise``: a table whose pads are MFRC522 chip models on a noisy radio, polled by the
real reader backend, plays the very game a table of exact reads plays with the same seed."""

from __future__ import annotations

import csv
import io
import re
import subprocess
import sys
from pathlib import Path

import pytest

from sim.hardware.radio_noise import EFFECTS
from sim.tabletop.demo import DemoConfig, DemoResult, run_demo
from sim.tabletop.radio_pads import INJECTED, NoiseError
from table.errors import TableError

READER_LINE = re.compile(r"reader|no read", re.IGNORECASE)  # lines about the readers


def demo(**kw: object) -> DemoResult:
    cfg = DemoConfig(fast=True, voice="captions", rounds=1, **kw)  # type: ignore[arg-type]
    return run_demo(cfg)


def game(result: DemoResult) -> list[str]:
    """The transcript without the lines about readers (status, a placement made again)."""
    return [line for line in result.transcript if not READER_LINE.search(line)]


@pytest.mark.parametrize(
    ("seed", "preset", "players", "hands"),
    [
        (1, "official", 2, "full"),
        (2, "house", 3, "counts"),
        (3, "musician", 6, "full"),
        (4, "official", 5, "counts"),
        (5, "house", 4, "full"),
        (6, "musician", 2, "counts"),
    ],
)
def test_a_harsh_radio_plays_the_same_game(seed: int, preset: str, players: int,
                                           hands: str) -> None:
    clean = demo(seed=seed, preset=preset, players=players, hands=hands)
    noisy = demo(seed=seed, preset=preset, players=players, hands=hands, noise="harsh")
    assert noisy.noise.startswith("noise: harsh") and not clean.noise
    assert game(noisy) == game(clean)  # every move, every announcement
    assert noisy.actions == clean.actions and noisy.scores == clean.scores
    assert noisy.winners == clean.winners
    assert noisy.noise.endswith(", 0 reads that were no placement")


def _counts(line: str) -> dict[str, int]:
    return {name: int(m.group(1)) for name, words in INJECTED.items()
            if (m := re.search(rf"(\d+) {words}", line))}


def test_the_command_keeps_its_contract(tmp_path: Path) -> None:
    """Same seed with and without ``--noise harsh``: the same announcements apart from
    readers, the same history rows; the last lines count every effect of the level."""
    runs = {}
    for noise in ("off", "harsh"):
        transcript, journal = tmp_path / f"{noise}.txt", tmp_path / f"{noise}.db"
        args = ["demo", "--fast", "--seed", "4", "--players", "3", "--rules", "house",
                "--rounds", "2", "--transcript", str(transcript), "--journal", str(journal)]
        if noise != "off":
            args += ["--noise", noise]
        out = _cli(*args)
        said = [line for line in transcript.read_text().splitlines()
                if line.startswith("  > ") and not READER_LINE.search(line)]
        rows = list(csv.reader(io.StringIO(_cli("history", "--journal", str(journal), "--csv"))))
        runs[noise] = (out, said, [row[:1] + row[2:] for row in rows])  # not the date played
    assert runs["harsh"][1] == runs["off"][1] and len(runs["off"][1]) > 50
    assert runs["harsh"][2] == runs["off"][2] and len(runs["off"][2]) > 3
    last = runs["harsh"][0].splitlines()[-3:]
    line = next(text for text in last if text.startswith("noise:"))
    counts = _counts(line)
    assert set(counts) == set(EFFECTS)
    assert all(counts.values()), line
    assert "lock-ups reset" in line and not any(
        text.startswith("noise:") for text in runs["off"][0].splitlines())


def test_realistic_noise_is_summed_up_too() -> None:
    result = demo(seed=3, players=2, noise="realistic")
    counts = _counts(result.noise)
    assert counts["flap"] > 0 and set(counts) == set(EFFECTS)
    assert result.noise.startswith("noise: realistic")


def test_a_table_with_more_pads_than_reset_lines_is_refused() -> None:
    with pytest.raises(NoiseError, match="at most 10 MFRC522 pads"):
        demo(players=9, noise="harsh")
    with pytest.raises(TableError, match="--noise 'loud'"):
        demo(noise="loud")


def test_an_unknown_level_is_a_one_line_error() -> None:
    done = subprocess.run([sys.executable, "-m", "table.commands.cli", "demo", "--fast",
                           "--noise", "loud"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "--noise" in done.stderr and "harsh" in done.stderr


def _cli(*args: str) -> str:
    done = subprocess.run([sys.executable, "-m", "table.commands.cli", *args],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout
