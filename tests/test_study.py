"""``uno-table study``: the same figures for a seed whatever the number of processes,
intervals that narrow as rounds grow, a longer variant measured longer, and reports that open
in a real browser with every plot drawn."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path
from typing import Any

import pytest
import report_browser as browser

from table.analysis.study import wilson
from table.commands.cli import main
from table.commands.stats import Progress


def study(out: Path, *args: str) -> dict[str, Any]:
    assert main(["study", "--out", str(out), "--no-plots", *args]) == 0
    data: dict[str, Any] = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    return data


def test_one_process_and_two_write_the_same_summary(tmp_path: Path) -> None:
    args = ("--rules", "official,official+stacking=any", "--players", "3", "--rounds", "300",
            "--seed", "11", "--policy", "play-first")
    study(tmp_path / "one", *args, "--jobs", "1")
    study(tmp_path / "two", *args, "--jobs", "2")
    one = (tmp_path / "one" / "summary.json").read_bytes()
    assert one == (tmp_path / "two" / "summary.json").read_bytes()
    # ... and another seed plays other rounds.
    study(tmp_path / "other", *args[:-4], "--seed", "12", "--policy", "play-first")
    assert (tmp_path / "other" / "summary.json").read_bytes() != one


def width(rate: dict[str, float]) -> float:
    return rate["high"] - rate["low"]


def test_intervals_narrow_as_the_rounds_grow(tmp_path: Path) -> None:
    few = study(tmp_path / "few", "--rounds", "100", "--rules", "official",
                "--policy", "play-first", "--jobs", "1")["variants"][0]["cells"][0]
    many = study(tmp_path / "many", "--rounds", "800", "--rules", "official",
                 "--policy", "play-first", "--jobs", "1")["variants"][0]["cells"][0]
    assert width(many["first_seat"]) < width(few["first_seat"]) / 2
    assert width(many["dealer_left"]) < width(few["dealer_left"]) / 2
    turns_few = few["turns"]["mean_high"] - few["turns"]["mean_low"]
    assert many["turns"]["mean_high"] - many["turns"]["mean_low"] < turns_few / 2
    # The interval holds its rate, and Wilson's formula gives what the books give.
    assert many["first_seat"]["low"] <= many["first_seat"]["rate"] <= many["first_seat"]["high"]
    low, high = wilson(25, 100)
    assert (round(low, 4), round(high, 4)) == (0.1755, 0.3430)


def test_a_variant_with_bigger_hands_has_longer_rounds(tmp_path: Path) -> None:
    # Stacking "any" lengthens rounds by half a turn in 20,000 (docs/study.md): too little to
    # see in a test's few hundred rounds. Ten cards a hand against seven is beyond doubt.
    data = study(tmp_path, "--rules", "official,official+hand_size=10", "--rounds", "400",
                 "--players", "4", "--policy", "play-first", "--jobs", "2")
    seven, ten = (v["cells"][0]["turns"] for v in data["variants"])
    assert ten["mean_low"] > seven["mean_high"]  # longer beyond doubt


def test_musician_rounds_end_by_don_or_chin(tmp_path: Path) -> None:
    data = study(tmp_path, "--rules", "official,musician", "--rounds", "100", "--jobs", "1")
    official, musician = (v["cells"][0] for v in data["variants"])
    assert official["finishes"] == {"plain": 100, "chin": 0, "don": 0}
    assert musician["finishes"]["plain"] == 0
    assert musician["finishes"]["chin"] + musician["finishes"]["don"] == 100
    assert official["penalties_per_round"] > 0  # the heuristic player forgets UNO now and then


@pytest.mark.parametrize(("args", "says"), [
    (["--rules", "official,nonsense"], "variant 'nonsense'"),
    (["--rules", "official+stacking=sideways"], "variant 'official+stacking=sideways'"),
    (["--rules", "official,,house"], "an empty variant"),
    (["--set", "stacking"], "'stacking': write OPTION=VALUE"),
    (["--players", "1-4"], "player counts go from 2 to 10"),
    (["--players", "four"], "--players 'four': write N, A-B or N,M"),
    (["--rounds", "0"], "--rounds 0: play at least one round"),
    (["--jobs", "0"], "--jobs 0: at least one process"),
    # Refused before anything is counted out: these ran until MemoryError.
    (["--players", "2-999999999"], "--players '2-999999999': player counts go from 2 to 10"),
    (["--rounds", "1000000000000"], "--rounds 1000000000000: at most 1,000,000 rounds"),
    (["--players", "4,5-3"], "(A-B with A at most B)"),  # was 4 alone, 5-3 left out unsaid
    (["--set", "hand_size=²"], "option hand_size = '²' is not allowed"),  # was a traceback
    (["--out", ""], "--out '': an empty path"),  # was the current folder
])
def test_bad_input_is_one_line_and_exit_2(tmp_path: Path, args: list[str], says: str,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["study", "--out", str(tmp_path), "--rounds", "5", *args]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("uno-table: ") and says in err, err


def test_the_processes_are_no_more_than_the_chunks_and_the_cores(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """``--jobs 200`` forked 200 processes for four chunks of eight rounds."""
    import concurrent.futures

    pools: list[int] = []
    real = concurrent.futures.ProcessPoolExecutor  # imported by the study when it needs a pool

    def pool(max_workers: int) -> Any:
        pools.append(max_workers)
        return real(max_workers=max_workers)

    monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor", pool)
    used = min(4, len(os.sched_getaffinity(0)))
    study(tmp_path / "four", "--rules", "official,japanese,house,musician", "--rounds", "8",
          "--jobs", "200", "--policy", "play-first")
    assert pools == ([used] if used > 1 else [])  # one process plays in this one, no pool
    assert said_processes(capsys) == f"32 rounds, {used} process{'es' if used > 1 else ''}"
    study(tmp_path / "one", "--rules", "official", "--rounds", "8", "--jobs", "200",
          "--policy", "play-first")
    assert pools == ([used] if used > 1 else [])  # a single chunk: no pool at all
    assert said_processes(capsys) == "8 rounds, 1 process"


def said_processes(capsys: pytest.CaptureFixture[str]) -> str:
    """``N rounds, P processes`` as the study's last line of figures says them."""
    line = next(x for x in capsys.readouterr().out.splitlines() if " rounds in " in x)
    return f"{line.split()[0]} rounds, {line.rsplit(', ', 1)[1].rstrip(')')}"


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_progress_bar_shows_rounds_per_second_and_time_left_on_a_terminal() -> None:
    tty = Terminal()
    now = [100.0]
    bar = Progress(1000, tty, lambda: now[0])
    now[0] += 10.0  # the first 250 rounds take ten seconds
    bar(250)
    line = tty.getvalue()
    assert line.startswith("\r[#######.......................] 250/1000 rounds, ")
    assert "25 rounds/s" in line and "0m30s left" in line
    bar.close()
    assert tty.getvalue().endswith("\n")
    piped = io.StringIO()
    quiet = Progress(1000, piped)
    quiet(250)
    quiet.close()
    assert piped.getvalue() == ""  # a log file gets no bar


def test_the_study_report_opens_in_chromium_with_every_plot_drawn(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    assert main(["study", "--out", str(tmp_path), "--rules", "official,musician",
                 "--players", "2-3", "--rounds", "40", "--jobs", "1"]) == 0
    drawn = browser.rendered_plots(tmp_path / "report.html")
    assert len(drawn) == 8  # six figures over the players, a histogram per player count
    blank = [caption for caption, colours in drawn.items() if colours < 10]
    assert blank == []


@pytest.mark.parametrize("draw", ["redraw", "zero"])
def test_a_dealer_drawn_card_by_card_has_the_chances_of_one_cut_from_a_shuffled_deck(
        draw: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A study draws each round's dealer by the dealer-draw rule, taking each card at random
    from the deck as it is drawn (not shuffling the whole deck first): every seat deals a
    fair share of the rounds, as when the deck is shuffled whole, and no card is drawn twice."""
    from collections import Counter

    from table.analysis import selfplay
    from table.cards import edition_cards
    from table.rules import make_options

    options = make_options("official", dealer_draw_actions=draw)
    rounds = 8000
    table, whole = selfplay.RandomTable(options, 4, 7), selfplay.RandomTable(options, 4, 7)
    drawn = Counter(table.drawn_dealer() for _ in range(rounds))
    cut = Counter(whole.dealer() for _ in range(rounds))
    for counts in (drawn, cut):  # 2,000 each, give or take four standard deviations (39)
        assert set(counts) == {0, 1, 2, 3}
        assert all(abs(n - rounds / 4) < 4 * (rounds * 3 / 16) ** 0.5 for n in counts.values())

    deck = edition_cards(options.deck)
    taken: list[object] = []

    def every_card(n: int, take: Any, options: object) -> int:
        taken.extend(take(0) for _ in deck)  # as many draws as the deck has cards
        return 0

    monkeypatch.setattr(selfplay, "choose_dealer", every_card)
    selfplay.RandomTable(options, 4, 7).drawn_dealer()
    assert sorted(map(str, taken)) == sorted(map(str, deck))  # each card once
