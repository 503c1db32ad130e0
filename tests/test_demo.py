"""``uno-table demo``: a whole match through the referee's own loop and virtual readers."""

from __future__ import annotations

import itertools
import re
import subprocess
import sys
from pathlib import Path

import pytest

from sim.hardware.faults import Faults
from sim.tabletop.demo import DemoConfig, DemoResult, run_demo
from table.cards import parse_card
from table.errors import TableError
from table.rules import PRESETS

CARD = re.compile(r"\b(?:[RYGB](?:\d|S|R|\+2)|W\+4|WSH|WC|W)\b")


def demo(**kw: object) -> DemoResult:
    cfg = DemoConfig(fast=True, voice="captions", **kw)  # type: ignore[arg-type]
    return run_demo(cfg)


def test_the_fast_demo_plays_a_whole_match() -> None:
    result = demo(seed=2)
    assert result.match_over
    assert max(result.scores) >= 500  # official: the first to 500 wins
    assert result.leader == result.players[result.scores.index(max(result.scores))]
    assert any("wins the match!" in line for line in result.transcript)


def test_the_same_seed_gives_the_same_transcript() -> None:
    a, b, c = demo(seed=5, rounds=2), demo(seed=5, rounds=2), demo(seed=6, rounds=2)
    assert a.transcript == b.transcript
    assert a.transcript != c.transcript


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_every_registered_preset_plays(preset: str) -> None:
    result = demo(seed=3, preset=preset, players=4, rounds=2)
    assert len(result.winners) == 2
    assert any("wins the round!" in line for line in result.transcript)


PLAYS = re.compile(r"^(\w+) plays [RYGB](S|R|\+2|\d)$")


@pytest.mark.parametrize(("seed", "hands"), [(10, "full"), (4, "full"), (2, "counts"),
                                             (11, "counts")])
def test_a_card_joining_the_play_before_it_replays_as_one_play(seed: int, hands: str) -> None:
    """House rules, two players: a same-rank card right after one's own play joins it, and the
    replay of the accepted actions holds one play of both cards, not the first one twice."""
    result = demo(seed=seed, preset="house", players=2, rounds=2, hands=hands)
    plays = [m.groups() for line in result.transcript if (m := PLAYS.match(line))]
    assert any(a == b for a, b in itertools.pairwise(plays)), "no same-rank play followed one"
    assert len(result.winners) == 2  # and the replay agreed with the referee's scores


def test_the_2018_deck_with_its_wilds_plays() -> None:
    """Shuffle Hands redeals every hand (named again on the seat pads) and Wild Customizable
    makes everyone draw: the table top and the referee stay in step."""
    result = demo(seed=9, players=3, overrides={"deck": "2018-112",
                                                "customizable_effect": "others-draw-one"})
    assert result.match_over


def test_the_transcript_never_names_a_hidden_card() -> None:
    """Cards are named only when they are shown face up (played, turned up); a draw, a deal or
    a penalty names no card."""
    result = demo(seed=4, rounds=2, lang="en")
    for line in result.transcript:
        if CARD.search(line.replace("UNO", "")):
            assert re.search(r" plays | turns up |first card is|goes back in the pile", line), line
        if "draws" in line or "takes" in line or "deals" in line:
            assert not CARD.search(line), line


def test_japanese_narration() -> None:
    result = demo(seed=4, rounds=1, lang="ja")
    assert any("さんの番です。" in line for line in result.transcript)  # the referee
    assert any(re.match(r"(Aki|Ken|Mio): \S+を出す$", line) for line in result.transcript)


def _moves(result: DemoResult) -> list[str]:
    """The transcript without what only faults cause (retries, ignored reads, reader news)."""
    skip = ("  (", "  > The pad reader")
    return [line for line in result.transcript if not line.startswith(skip)]


def test_dropped_and_doubled_reads_and_unplugs_change_nothing() -> None:
    """Lost reads are tapped again, doubled ones ignored, an unplugged pad is announced: the
    match is the very one played without faults (run_demo also checks, after every round, that
    every card is in one place, and that the scores equal a fault-free replay of the accepted
    actions)."""
    clean = demo(seed=8)
    faulty = demo(seed=8, faults=Faults(drop=0.2, duplicate=0.2, unplug=0.05))
    assert faulty.faults["reads_dropped"] > 20 and faulty.faults["reads_doubled"] > 20
    assert faulty.faults["unplugs"] > 2
    assert faulty.scores == clean.scores and faulty.winners == clean.winners
    assert _moves(faulty) == _moves(clean)
    said = "\n".join(faulty.transcript)
    assert "The pad reader is disconnected." in said and "The pad reader is back." in said
    assert "(read ignored: still-on-pad)" in said and "taps again)" in said


def test_a_noisy_serial_play_pad_on_a_real_pty() -> None:
    """The play pad is a real SerialReader on a pty fed UID lines in three formats between
    noise lines, and unplugged (the pty closed) and plugged back now and then."""
    clean = demo(seed=12, rounds=1)
    noisy = demo(seed=12, rounds=1, faults=Faults(noisy_serial=True, unplug=0.03, drop=0.05))
    assert noisy.faults["noise_lines"] > 20 and noisy.faults["unplugs"] >= 1
    assert noisy.scores == clean.scores and _moves(noisy) == _moves(clean)


def test_a_wav_voice_renders_the_announcements_with_espeak(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    run_demo(DemoConfig(seed=1, rounds=1, voice="wav", pace=0.0))
    wavs = sorted((tmp_path / "announcements").glob("*.wav"))
    assert len(wavs) > 20
    assert wavs[0].read_bytes()[:4] == b"RIFF"


def test_bad_settings_are_one_clear_error() -> None:
    with pytest.raises(TableError, match="unknown rules preset 'nope'"):
        demo(preset="nope")
    bad_drop = re.escape("--drop-reads 1.5: use a probability from 0 to 0.9")
    with pytest.raises(TableError, match=bad_drop):
        Faults(drop=1.5)
    with pytest.raises(TableError, match="--players 11"):
        demo(players=11)
    assert parse_card("W+4").is_wild  # the card pattern above reads real codes


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "table.commands.cli", *args],
                          capture_output=True, text=True, timeout=120)


def test_the_demo_command(tmp_path: Path) -> None:
    path = tmp_path / "t.txt"
    out = run_cli("demo", "--fast", "--rounds", "1", "--seed", "1", "--transcript", str(path))
    assert out.returncode == 0, out.stderr
    assert "1 round played; scores:" in out.stdout
    assert "the scores equal a fault-free replay" in out.stdout
    assert path.read_text().splitlines()[0].startswith("  > Round 1.")


def test_the_demo_in_japanese_speaks_japanese_from_its_first_line_to_its_last() -> None:
    out = run_cli("demo", "--fast", "--rounds", "1", "--seed", "1", "--lang", "ja")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].startswith("uno-table デモ: ") and "公式ルール" in lines[0]
    assert "1ラウンド終了。得点: " in out.stdout
    assert "確認済み: 各ラウンドの後、どのカードもちょうど1か所にあり" in out.stdout
    assert "第1ラウンド | 場 " in out.stdout
    for english in ("round played", "scores:", "checked:", "rules ", "to play"):
        assert english not in out.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--rules", "nope"], "uno-table: unknown rules preset 'nope': use one of"),
        (["--set", "uno_penalty"], "uno-table: --set 'uno_penalty': write OPTION=VALUE"),
        (["--set", "uno_penalty=99"], "uno-table: option uno_penalty = '99' is not allowed"),
        (["--voice", "loud"], "uno-table: --voice 'loud': use one of"),
        (["--drop-reads", "2"], "uno-table: --drop-reads 2.0: use a probability from 0 to 0.9"),
        (["--bots", "genius"], "uno-table: unknown bot 'genius' in --bots"),
        (["--pace", "-1"], "uno-table: --pace -1.0: use seconds from 0 up"),
        (["--players", "1"], "uno-table: --players 1: use 2 to 10"),
    ],
)
def test_demo_bad_input_exit_code_2(args: list[str], message: str) -> None:
    out = run_cli("demo", "--fast", *args)
    assert out.returncode == 2
    assert out.stderr.startswith(message) and out.stderr.count("\n") == 1, out.stderr


def test_the_table_view_shows_counts_never_the_cards_in_hand() -> None:
    from sim.terminal.view import table_lines
    from table.cards import parse_cards
    from table.rules import Deal, make_options, new_game

    hands = [(parse_cards(["G1", "G2", "Y7"]), 0), (parse_cards(["B3", "B4", "Y9", "G8"]), 0)]
    s, _ = new_game(make_options(), ["Aki", "Ken"], 1,
                    Deal(hands=hands, start=parse_cards(["R5"])))
    text = "\n".join(table_lines(s))
    assert "top R5 (red) | clockwise | Aki to play" in text
    assert "*Aki 3 [0]" in text and " Ken 4 [0]" in text
    assert not any(code in text for code in ["G1", "G2", "Y7", "B3", "B4", "Y9", "G8"])
    ja = "\n".join(table_lines(s, lang="ja"))
    assert "第1ラウンド | 場 R5 (赤) | 時計回り | Akiの番" in ja  # kanji, as the announcements
    assert not any(code in ja for code in ["G1", "G2", "Y7", "B3", "B4", "Y9", "G8"])


def test_the_voice_is_chosen_by_what_the_machine_can_do(monkeypatch: pytest.MonkeyPatch) -> None:
    import sim.tabletop.demo

    monkeypatch.setattr(sim.tabletop.demo, "audio_player", lambda: None)
    assert sim.tabletop.demo.choose_voice(None, fast=False) == "captions"  # no sound card
    with pytest.raises(TableError, match="--voice espeak-ng needs an audio output"):
        sim.tabletop.demo.choose_voice("espeak-ng", fast=False)
    monkeypatch.setattr(sim.tabletop.demo, "audio_player", lambda: ["aplay", "-q", "-"])
    assert sim.tabletop.demo.choose_voice(None, fast=False) == "pyttsx3"
    # --fast never waits to speak
    assert sim.tabletop.demo.choose_voice(None, fast=True) == "captions"
    assert sim.tabletop.demo.choose_voice("wav", fast=True) == "wav"


def test_a_table_with_only_a_play_pad() -> None:
    """Hand tracking "counts": the deal is taken as done, draws are button presses, and a hand
    is shown card by card on the play pad for a challenge and for the score. With reads lost
    and doubled the match is the same one."""
    clean = demo(seed=2, hands="counts")
    faulty = demo(seed=2, hands="counts", faults=Faults(drop=0.1, duplicate=0.1, unplug=0.02))
    assert clean.match_over
    said = "\n".join(clean.transcript)
    assert "shows the hand on the play pad" in said and "draws a card (shoe)" not in said
    assert faulty.scores == clean.scores and _moves(faulty) == _moves(clean)


@pytest.mark.parametrize("hands", ["full", "counts"])
def test_seven_o_swaps_hands_by_seat_token(hands: str) -> None:
    """Seven-O on the simulated table: the player of a 7 taps the seat token of whose hand they
    take, a 0 passes every hand on, and the referee and the table top stay in step."""
    result = demo(seed=4, players=3, rounds=3, hands=hands, overrides={"seven_o": "true"})
    assert any("swaps hands with" in line for line in result.transcript)
    assert any("(seat token)" in line for line in result.transcript)
    assert len(result.winners) == 3  # each round checked: every card in one place, same scores
