"""``uno-table stats``: an evening's figures from a real journal, checked against a scripted
match whose every figure was worked out by hand (tests/known_evening.py)."""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

import known_evening as K
import pytest
import report_browser as browser

from table.commands.cli import main

ROOT = Path(__file__).resolve().parent.parent


def stats(tmp_path: Path, *extra: str, journal: Path | None = None) -> dict[str, Any]:
    out = tmp_path / "out"
    assert main(["stats", "--journal", str(journal or tmp_path / "j.sqlite3"),
                 "--out", str(out), *extra]) == 0
    data: dict[str, Any] = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    return data


@pytest.fixture
def journal(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "j.sqlite3"
    verdicts = K.write(path, monkeypatch)
    assert verdicts.count("penalty") == 3  # the failed challenge, the catch, the false catch
    return path


def test_the_report_gives_the_scripted_match_s_every_figure(
        journal: Path, tmp_path: Path) -> None:
    data = stats(tmp_path, "--no-plots")
    match = data["matches"][0]
    players = match["players"]
    assert list(players) == list(K.PLAYERS)
    assert match["over"] and match["winner"] == "美緒"
    assert {n: p["points"] for n, p in players.items()} == K.SCORES
    assert {n: p["rounds_won"] for n, p in players.items()} == K.ROUNDS_WON
    assert {n: p["points_paid"] for n, p in players.items()} == K.POINTS_PAID
    assert match["penalties"] == K.PENALTIES
    assert {n: p["penalty_cards"] for n, p in players.items()} == K.PENALTY_CARDS
    assert {n: p["catches"] for n, p in players.items()} == K.CATCHES
    assert {n: p["turn_seconds"] for n, p in players.items()} == K.TURNS
    for name, seconds in K.TURNS.items():
        assert players[name]["seconds_per_turn"] == round(statistics.fmean(seconds), 2)
        assert players[name]["median_seconds_per_turn"] == statistics.median(seconds)
    assert [r["seconds"] for r in match["rounds"]] == K.ROUND_SECONDS
    assert [r["turns"] for r in match["rounds"]] == K.ROUND_TURNS
    assert match["cumulative"] == {"Aki": [0, 31, 31], "美緒": [0, 0, 71], "Ken": [0, 0, 0]}
    assert match["colours"] == K.COLOURS and match["most_played_colour"] == "blue"
    assert match["longest_round"] == {"match": 1, "round": 1, "seconds": 52, "turns": 9}
    evening = data["evening"]
    assert evening["matches"] == 1 and evening["rounds"] == 2
    assert evening["penalties"] == K.PENALTIES
    assert {n: p["points"] for n, p in evening["players"].items()} == K.SCORES


def test_the_tables_are_printed_with_the_figures(journal: Path, tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    stats(tmp_path, "--no-plots")
    out = capsys.readouterr().out
    assert "match 1, " in out and "over, won by 美緒" in out
    assert "longest round: match 1, round 1, 52 s over 9 turns" in out
    assert "most played colour: blue (red 2, yellow 3, green 4, blue 5, wild 1)" in out


def test_an_undone_play_counts_for_nothing(tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    # Ken plays a red 8 by mistake, and it is undone before his red 2.
    script = [*K.SCRIPT[:2], (5, "R8#1"), (6, "undo"), *K.SCRIPT[2:]]
    verdicts = K.write(tmp_path / "j.sqlite3", monkeypatch, script)
    assert verdicts[2:4] == ["accepted", "accepted"]
    match = stats(tmp_path, "--no-plots")["matches"][0]
    assert match["colours"] == K.COLOURS
    assert {n: p["turn_seconds"] for n, p in match["players"].items()} == K.TURNS
    assert {n: p["points"] for n, p in match["players"].items()} == K.SCORES


def test_match_and_since_choose_the_matches(tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "j.sqlite3"
    K.write(path, monkeypatch, start=K.START)
    K.write(path, monkeypatch, start=K.START + 3 * 86400)
    both = stats(tmp_path, "--no-plots")
    assert [m["match"] for m in both["matches"]] == [1, 2]
    assert both["evening"]["players"]["美緒"]["points"] == 2 * K.SCORES["美緒"]
    assert both["evening"]["players"]["美緒"]["matches_won"] == 2
    assert [m["match"] for m in stats(tmp_path, "--no-plots", "--match", "2")["matches"]] == [2]
    day = __import__("datetime").datetime.fromtimestamp(K.START + 86400).date().isoformat()
    assert [m["match"] for m in stats(tmp_path, "--no-plots", "--since", day)["matches"]] == [2]


@pytest.mark.parametrize(("args", "says"), [
    (["--journal", "{tmp}/none.sqlite3"], "no such journal file"),
    (["--since", "last tuesday"], "--since 'last tuesday': not a date"),
    (["--since", "2099-01-01"], "no match of"),
    (["--match", "3"], "--match 3: the journal holds matches 1 to 1"),
    (["--match", "1", "--since", "2020-01-01"], "give one of them"),
    # A date that parses but that the clock cannot hold was a traceback.
    (["--since", "0001-01-01"], "--since '0001-01-01': a date the clock cannot hold"),
    (["--journal", ""], "--journal '': an empty path"),
])
def test_bad_input_is_one_line_and_exit_2(journal: Path, tmp_path: Path, args: list[str],
                                          says: str, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["stats", "--journal", str(journal), "--out", str(tmp_path / "out")]
    argv += [a.replace("{tmp}", str(tmp_path)) for a in args]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("uno-table: ") and says in err, err


def test_an_empty_out_writes_nothing_into_the_current_folder(
        journal: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """``--out ""`` wrote report.html and summary.json into the folder the command ran in."""
    here = tmp_path / "here"
    here.mkdir()
    monkeypatch.chdir(here)
    assert main(["stats", "--journal", str(journal), "--out", "", "--no-plots"]) == 2
    err = capsys.readouterr().err
    assert err == ("uno-table: --out '': an empty path; allowed: a folder for the report "
                   "(made if missing)\n")
    assert list(here.iterdir()) == []


NO_MATPLOTLIB = """
import sys
class Blocker:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] == "matplotlib":
            raise ImportError("matplotlib is not installed here")
sys.meta_path.insert(0, Blocker())
from table.commands.cli import main
code = main(sys.argv[1:])
assert "matplotlib" not in sys.modules
sys.exit(code)
"""

NO_IMPORT = """
import sys
from table.commands.cli import main
code = main(sys.argv[1:])
assert "matplotlib" not in sys.modules, "matplotlib imported"
sys.exit(code)
"""


def test_without_matplotlib_the_tables_are_printed_and_it_says_how_to_get_plots(
        journal: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    done = subprocess.run([sys.executable, "-c", NO_MATPLOTLIB, "stats", "--journal",
                           str(journal), "--out", str(out)], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "most played colour: blue" in done.stdout
    assert "pip install 'uno-table[stats]'" in done.stderr
    report = (out / "report.html").read_text(encoding="utf-8")
    assert "pip install" in report and "<svg" not in report
    assert json.loads((out / "summary.json").read_text(encoding="utf-8"))["matches"]


def test_no_plots_imports_no_matplotlib(journal: Path, tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-c", NO_IMPORT, "stats", "--journal", str(journal),
                           "--out", str(tmp_path / "out"), "--no-plots"], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr


def test_the_report_inlines_every_plot_and_names_in_japanese_have_a_font(
        journal: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("matplotlib")
    stats(tmp_path)
    out = tmp_path / "out"
    assert "no CJK font" not in capsys.readouterr().err
    names = ["scores-match-1", "rounds-won", "points-paid", "penalties", "turn-times", "colours"]
    for name in names:
        assert (out / f"{name}.png").read_bytes().startswith(b"\x89PNG")
        assert (out / f"{name}.svg").read_text(encoding="utf-8").startswith("<svg")
    report = (out / "report.html").read_text(encoding="utf-8")
    assert report.count("<svg") == len(names)
    for outside in ("src=", "<link", "<script", "@import", "url(http"):
        assert outside not in report  # nothing is loaded from elsewhere


def test_the_evening_report_opens_in_chromium_with_every_plot_drawn(
        journal: Path, tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    stats(tmp_path)
    drawn = browser.rendered_plots(tmp_path / "out" / "report.html")
    assert len(drawn) == 6
    blank = [caption for caption, colours in drawn.items() if colours < 10]
    assert blank == []


def test_a_demo_kept_in_a_journal_reads_back_in_status_history_and_stats(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from sim.tabletop.demo import DemoConfig, run_demo

    path = tmp_path / "j.sqlite3"
    result = run_demo(DemoConfig(fast=True, voice="captions", seed=4, rounds=2,
                                 hands="counts", journal=str(path)))
    data = stats(tmp_path, "--no-plots", journal=path)
    match = data["matches"][0]
    assert [match["players"][n]["points"] for n in result.players] == result.scores
    assert [r["winner"] for r in match["rounds"]] == result.winners
    capsys.readouterr()
    assert main(["status", "--journal", str(path), "--json"]) == 0
    status = json.loads(capsys.readouterr().out)
    assert list(status["scores"].values()) == result.scores
    assert main(["history", "--journal", str(path)]) == 0


def test_the_report_in_japanese_says_the_same_figures_in_japanese(
        journal: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--lang ja: the tables, headings and sentences in Japanese, the figures as in English,
    summary.json unchanged."""
    english = stats(tmp_path / "en", "--no-plots", journal=journal)
    capsys.readouterr()
    japanese = stats(tmp_path / "ja", "--no-plots", "--lang", "ja", journal=journal)
    assert japanese == english
    out = capsys.readouterr().out
    assert "試合1、" in out and "美緒さんの勝ち" in out
    assert "いちばん長いラウンド: 試合1のラウンド1、52秒、9手番" in out
    assert "いちばん多く出た色: 青 (赤 2, 黄 3, 緑 4, 青 5, ワイルド 1)" in out
    assert "ウノ忘れ" in out and "払った点" in out
    report = (tmp_path / "ja" / "out" / "report.html").read_text(encoding="utf-8")
    assert '<html lang="ja">' in report and "<title>今夜のUNO</title>" in report
    for english_word in ("points paid", "longest round", "most played", "UNO not called",
                         "The evening", "won by"):
        assert english_word not in report and english_word not in out


def test_a_fast_demo_s_longest_round_is_told_by_turns_not_as_0_s(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    journal = tmp_path / "fast.sqlite3"
    demo = subprocess.run([sys.executable, "-m", "table.commands.cli", "demo", "--fast",
                           "--rounds", "1", "--seed", "1", "--voice", "captions", "--journal",
                           str(journal)], cwd=ROOT, capture_output=True, text=True, timeout=300,
                          check=False)
    assert demo.returncode == 0, demo.stderr
    stats(tmp_path, "--no-plots", journal=journal)
    out = capsys.readouterr().out
    longest = next(line for line in out.splitlines() if line.startswith("longest round"))
    assert " 0 s " not in longest
    assert longest.endswith("turns (played in under a second: a fast demo)")
    page = (tmp_path / "out" / "report.html").read_text(encoding="utf-8")
    assert " 0 s over" not in page and "(played in under a second" in page
