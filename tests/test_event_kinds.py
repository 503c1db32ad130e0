"""Event kinds: every kind is said in both languages or silent on purpose, an unknown kind is
refused, and a misspelt kind does not type-check."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from collections import defaultdict
from pathlib import Path

import pytest

from table.cards import Color, parse_card
from table.referee import said as said_module
from table.referee.announcements import CATALOGUE, Announcement, render
from table.referee.said import SAID, SILENT, Said, Telling, UnannouncedEvent, from_events
from table.referee.scenario import replay_file
from table.rules import Event, EventKind, make_options
from table.runtime.event_stream import StreamType

ROOT = Path(__file__).resolve().parent.parent
PLAYERS = ("Aki", "Ken", "Mio")


def full(kind: EventKind, reason: str = "none-such") -> Event:
    """An event of ``kind`` with every field filled in, as the most a phrase could need."""
    return Event(kind, player=0, target=1, card=parse_card("W"), color=Color.RED, count=2,
                 reason=reason)


def test_every_kind_is_said_or_silent_on_purpose_and_never_both() -> None:
    said, silent = set(SAID), set(SILENT)
    assert said & silent == set(), "a kind both said and silent"
    assert set(EventKind) - said - silent == set(), "kinds neither said nor silent on purpose"
    assert all(why.strip() for why in SILENT.values()), "a silent kind without its reason"


def test_every_phrase_a_kind_is_said_with_exists_in_english_and_japanese() -> None:
    missing = [(kind.value, key, lang) for kind, said in SAID.items() for key in said.phrases
               for lang in ("en", "ja") if not CATALOGUE.get(key, {}).get(lang)]
    assert missing == []
    assert all(said.phrases for said in SAID.values())


@pytest.mark.parametrize("kind", sorted(SAID), ids=str)
def test_each_said_kind_is_said_with_one_of_its_phrases_in_both_languages(
        kind: EventKind) -> None:
    anns = from_events([full(kind)], PLAYERS, make_options())
    assert [a.key for a in anns if a.key in SAID[kind].phrases] == [a.key for a in anns] != []
    for ann in anns:
        english, japanese = render(ann, "en"), render(ann, "ja")
        assert english and japanese and "{" not in english + japanese


@pytest.mark.parametrize("kind", sorted(SILENT), ids=str)
def test_a_silent_kind_says_nothing(kind: EventKind) -> None:
    assert from_events([full(kind)], PLAYERS, make_options()) == []


def test_the_scenarios_say_each_kind_only_with_its_own_phrases(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Every scenario replayed, each event's phrase noted: a kind is said only with a phrase it
    lists (the table of phrases is the truth the checks above rely on), and every kind the
    referee says is heard in some scenario."""
    heard: dict[EventKind, set[str]] = defaultdict(set)

    def noting(kind: EventKind, said: Said) -> Said:
        def say(e: Event, t: Telling) -> Announcement | None:
            ann = said.say(e, t)
            if ann is not None:
                heard[kind].add(ann.key)
            return ann
        return Said(said.phrases, say)

    monkeypatch.setattr(said_module, "SAID", {k: noting(k, v) for k, v in SAID.items()})
    for path in sorted((ROOT / "tests" / "scenarios").glob("*.scn")):
        replay_file(str(path), "en")
    strays = {kind: keys - set(SAID[kind].phrases) for kind, keys in heard.items()}
    assert {kind: keys for kind, keys in strays.items() if keys} == {}
    assert set(SAID) - set(heard) == set(), "kinds the referee says that no scenario hears"


def test_announcing_an_unknown_kind_fails_with_one_line() -> None:
    stray = Event("tunr", player=0)  # type: ignore[arg-type]  # what mypy refuses in code
    with pytest.raises(UnannouncedEvent) as caught:
        from_events([full(EventKind.TURN), stray], PLAYERS)
    message = str(caught.value)
    assert "\n" not in message
    assert "event kind 'tunr' has no announcement" in message
    assert isinstance(caught.value, LookupError)


def test_a_kind_dropped_from_the_phrases_is_refused_not_skipped(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A new kind added to EventKind and forgotten here fails when announced, never silently."""
    monkeypatch.setattr(said_module, "SAID",
                        {k: v for k, v in SAID.items() if k is not EventKind.UNO})
    with pytest.raises(UnannouncedEvent, match="event kind 'uno'"):
        from_events([full(EventKind.UNO)], PLAYERS)


def test_the_kinds_keep_the_words_of_the_event_stream_and_the_journal() -> None:
    """str values: an event kind reads, compares and serialises as the word it always was."""
    assert EventKind.ROUND_START == "round-start"
    assert f"{EventKind.PILES_EXHAUSTED}" == str(EventKind.PILES_EXHAUSTED) == "piles-exhausted"
    assert all(kind.value == kind.name.lower().replace("_", "-") for kind in EventKind)


def test_mypy_refuses_a_misspelt_kind(tmp_path: Path) -> None:
    probe = tmp_path / "probe.py"
    probe.write_text(textwrap.dedent("""
        from table.rules import Event, EventKind

        written = Event("trun", 1)
        named = Event(EventKind.TRUN, 1)
        right = Event(EventKind.TURN, 1)
    """))
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--cache-dir",
         str(tmp_path / "cache"), str(probe)],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    errors = [line for line in done.stdout.splitlines() if ": error:" in line]
    assert [line.split(":")[1] for line in errors] == ["4", "5"], done.stdout
    assert 'incompatible type "str"; expected "EventKind"' in errors[0]
    assert 'has no attribute "TRUN"' in errors[1]


def design_table(heading: str) -> list[list[str]]:
    """The body rows of the table in the section ``heading`` of docs/design.md."""
    lines = (ROOT / "docs" / "design.md").read_text(encoding="utf-8").splitlines()
    section = lines[lines.index(heading) + 1:]
    section = section[: next(i for i, line in enumerate(section) if line.startswith("#"))]
    rows = [line for line in section if line.startswith("|")][2:]
    return [[cell.strip() for cell in row.strip("|").split(" | ")] for row in rows]


def test_the_design_page_lists_every_kind_and_how_it_is_said() -> None:
    """The table is written from SAID and SILENT (table/referee/said.py): a phrase key added
    there fails here with the line to write in docs/design.md."""
    rows = design_table("#### Events")
    assert [row[0] for row in rows] == [f"`{kind.value}`" for kind in EventKind], \
        "docs/design.md, '#### Events': one row per EventKind, in its order"
    for row, kind in zip(rows, EventKind, strict=True):
        if kind in SILENT:
            want = f"silent: {SILENT[kind]}"
        elif kind is not EventKind.REJECTED:
            want = ", ".join(f"`{key}`" for key in SAID[kind].phrases)
        else:
            continue
        assert row[2] == want, f"docs/design.md, '#### Events', row `{kind}`: write {want}"


def test_the_design_page_lists_every_type_of_the_event_stream() -> None:
    rows = design_table("### Event stream")
    assert sorted(row[0] for row in rows) == sorted(f"`{t.value}`" for t in StreamType)
