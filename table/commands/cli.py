"""The ``uno-table`` command line. Bad input gives one line on stderr and exit code 2."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from table import __version__
from table.cards import EDITIONS
from table.commands.checks import given_path
from table.errors import TableError

if TYPE_CHECKING:
    from table.mqtt.settings import MqttSettings

EXIT_USAGE = 2



def _replay(args: argparse.Namespace) -> int:
    from table.referee.scenario import replay_file

    rp = replay_file(args.file, args.lang)
    if args.json:
        print(json.dumps(rp.result(), ensure_ascii=False))
        return 0
    for step in rp.steps:
        mark = {"accepted": " ", "rejected": "x", "penalty": "!"}[step.verdict]
        reason = f" ({step.reason})" if step.reason else ""
        print(f"{step.line:4d} {mark} {step.input}{reason}")
        for said in step.announcements:
            print(f"       > {said}")
    result = rp.result()
    if result["rounds"]:
        print("\nScores: " + ", ".join(f"{k} {v}" for k, v in result["scores"].items()))
    return 0


def _selfplay(args: argparse.Namespace) -> int:
    from table.analysis.policies import DEFAULT_POLICY, POLICIES
    from table.analysis.selfplay import selfplay
    from table.rules import make_options

    make_options(args.rules)  # an unknown preset is one clear line, before any play
    if args.policy is not None and args.policy not in POLICIES:
        raise TableError(f"unknown --policy {args.policy!r}: use one of {', '.join(POLICIES)}")
    if args.bots is not None:
        if args.policy is not None:
            raise TableError("--policy plays every seat and --bots one bot a seat: give one")
        return _selfplay_bots(args)
    players = 4 if args.players is None else args.players
    if args.games < 1 or not 2 <= players <= 10:
        raise TableError("--games must be at least 1 and --players from 2 to 10")
    policy = args.policy or DEFAULT_POLICY
    _settled()
    print(json.dumps(selfplay(args.games, players, args.seed, args.rules, policy), indent=2))
    return 0


def _settled() -> None:
    """Before a long run of play: the objects made while starting (modules, classes, tables)
    stay for the whole process, so the cyclic garbage collector need not look at them again
    (``gc.freeze``; what the play makes is still collected). Measured in docs/performance.md."""
    import gc

    gc.freeze()


def _selfplay_bots(args: argparse.Namespace) -> int:
    from sim.players.arena import bot_selfplay
    from sim.players.bots import parse_bots

    names = parse_bots(args.bots)
    if not 2 <= len(names) <= 10:
        raise TableError(f"--bots names one bot a seat, 2 to 10 of them, not {len(names)}")
    if args.players is not None and args.players != len(names):
        raise TableError(f"--players {args.players} but --bots names {len(names)} bots")
    if args.games < 1:
        raise TableError("--games must be at least 1")
    stats = bot_selfplay(names, args.games, args.seed, args.rules)
    out: dict[str, object] = {"rules": args.rules, "players": len(names), "seed": args.seed}
    out.update(stats.summary())
    print(json.dumps(out, indent=2))
    return 0


def _deck_virtual(args: argparse.Namespace) -> int:
    from table.referee.registry import deck_toml, virtual_deck

    given_path("--out", args.out, "the deck file to write, or - for stdout")
    deck = virtual_deck(args.edition)
    text = deck_toml(deck)
    if args.out == "-":
        sys.stdout.write(text)
        return 0
    try:
        with open(args.out, "w", encoding="utf-8") as f:
            f.write(text)
    except OSError as exc:
        raise TableError(f"{args.out}: cannot write the deck file: {exc.strerror}") from None
    print(f"wrote {len(deck.tags)} tags ({args.edition} and every control token) to {args.out}")
    return 0


def _deck_check(args: argparse.Namespace) -> int:
    from table.referee.registry import load_deck

    deck = load_deck(args.file, args.edition)
    missing = deck.missing()
    print(f"{args.file}: {len(deck.tags)} tags, edition {deck.edition}")
    if missing:
        print(f"missing {len(missing)}: {' '.join(missing)}")
        return 1
    print("complete: every card and token has a tag")
    return 0


def _say(args: argparse.Namespace) -> int:
    import subprocess

    from table.referee.announcements import CATALOGUE, PERSON_PARAMS, Announcement, render
    from table.voice.backends import audio_player, standard_voice
    from table.voice.espeak import wav_bytes_seconds

    if args.out is not None:
        given_path("--out", args.out, "the WAV file to write")
    readings = _readings(args.reading)
    names: list[str] = []
    if args.text in CATALOGUE:
        params: list[tuple[str, str | int]] = []
        for pair in args.params:
            key, eq, value = pair.partition("=")
            if not eq:
                raise TableError(f"{pair!r} is not key=value")
            number = value.removeprefix("-")
            params.append((key, int(value) if number.isascii() and number.isdigit() else value))
            if key in PERSON_PARAMS:
                names.append(value)
        ann = Announcement(args.text, tuple(params))
        try:
            text = render(ann, args.lang)
        except (KeyError, ValueError) as exc:
            raise TableError(f"phrase {args.text}: missing or bad parameter {exc}") from None
        spoken = render(ann, args.lang, _said_names(names, readings, args.lang))
    else:
        text = spoken = " ".join([args.text, *args.params])
        names = [text] if args.lang == "ja" and not args.params else []
    voice = standard_voice(args.lang)
    print(text)
    if args.lang == "ja":  # each name's reading, a likely wrong one with the line that fixes it
        from table.voice.names import name_readings

        for r in name_readings(list(dict.fromkeys(names)), readings, {}):
            print("\n".join(r.lines()))
    data = voice.render(spoken)
    seconds = wav_bytes_seconds(data)
    if args.out is not None:
        try:
            with open(args.out, "wb") as f:
                f.write(data)
        except OSError as exc:
            raise TableError(f"{args.out}: cannot write the WAV file: {exc.strerror}") from None
        print(f"wrote {args.out} ({seconds:.2f} s, {voice.name})")
        return 0
    player = audio_player()
    if player is not None:
        try:
            subprocess.run(player, input=data, check=True, capture_output=True, timeout=60)
            return 0
        except (OSError, subprocess.SubprocessError):
            pass
    print("no audio output found (aplay, paplay or pw-play): use --out FILE.wav", file=sys.stderr)
    return 1


def _readings(pairs: Sequence[str]) -> dict[str, str]:
    """``--reading NAME=KANA`` options, checked as the configuration's readings are."""
    from table.voice.names import is_reading

    readings: dict[str, str] = {}
    for pair in pairs:
        name, eq, reading = pair.partition("=")
        if not eq or not name or not is_reading(reading):
            raise TableError(f"--reading {pair!r}: allowed: NAME=READING, the reading in "
                             "hiragana or katakana")
        readings[name] = reading
    return readings


def _said_names(names: Sequence[str], readings: dict[str, str], lang: str) -> dict[str, str]:
    """How the names of a phrase are said: as ``uno-table run`` says them (and checked so)."""
    if lang != "ja":
        return {}
    from table.voice.names import check_names

    return check_names(names, readings, {}, where="--reading")


def _voices(args: argparse.Namespace) -> int:
    from table.voice.backends import BACKENDS, audio_player, make_backend
    from table.voice.espeak import phonemes
    from table.voice.openjtalk import japanese_status

    if args.sample is not None:
        given_path("--sample", args.sample, "a folder for the WAV files (made if missing)")
    for lang in ("en", "ja"):
        try:
            phonemes("test", lang)
            print(f"espeak-ng voice for {lang}: ok")
        except TableError as exc:
            print(f"espeak-ng voice for {lang}: {exc}")
    print(f"Japanese voice: {japanese_status()}")
    player = audio_player()
    print(f"audio output: {' '.join(player) if player else 'none found (captions only)'}")
    for name in BACKENDS:
        if name in ("wav", "captions"):
            print(f"backend {name}: usable (no sound card needed)")
            continue
        try:
            make_backend(name)
            print(f"backend {name}: usable" + ("" if player else " (renders only: no audio out)"))
        except TableError as exc:
            print(f"backend {name}: not usable: {exc}")
    if args.sample is not None:
        from table.voice.samples import write_samples

        for line in write_samples(args.sample):
            print(line)
    return 0


def _demo(args: argparse.Namespace) -> int:
    from sim.hardware.faults import Faults
    from sim.players.bots import parse_bots
    from sim.tabletop.demo import DemoConfig, main_demo, parse_overrides

    for option, path in (("--transcript", args.transcript), ("--journal", args.journal)):
        if path is not None:
            given_path(option, path, "a file's name")
    faults = Faults(args.drop_reads, args.duplicate_reads, args.noisy_serial, args.unplug)

    cfg = DemoConfig(
        players=args.players, preset=args.rules, overrides=parse_overrides(args.set),
        seed=args.seed, fast=args.fast, voice=args.voice, rounds=args.rounds, lang=args.lang,
        bots=parse_bots(args.bots), faults=faults, voice_detail=args.voice_detail,
        pace=args.pace, hands=args.hands, web=args.web, journal=args.journal, noise=args.noise,
        names=[n.strip() for n in args.names.split(",")] if args.names else [],
        mqtt=_demo_mqtt(args),
    )
    return main_demo(cfg, args.transcript)


def _demo_mqtt(args: argparse.Namespace) -> MqttSettings | None:
    from table.mqtt.settings import MqttSettings, check_table_id, parse_address

    if args.mqtt is None:
        if args.table is not None:
            raise TableError("--table needs --mqtt HOST:PORT")
        return None
    if args.table is None:
        raise TableError("--mqtt needs --table ID (this table's id on the broker)")
    host, port = parse_address(args.mqtt)
    return MqttSettings(host, port, table=check_table_id(args.table))


def _sim(args: argparse.Namespace) -> int:
    from sim.players.bots import parse_bots
    from sim.tabletop.demo import parse_overrides
    from sim.terminal.human import SimConfig, main_sim

    cfg = SimConfig(
        players=args.players, preset=args.rules, overrides=parse_overrides(args.set),
        seed=args.seed, fast=args.fast, voice=args.voice, lang=args.lang, name=args.name,
        bots=parse_bots(args.bots), rounds=args.rounds, hands=args.hands, web=args.web,
        people=args.people, noise=args.noise, voice_detail=args.voice_detail,
    )
    return main_sim(cfg)


def _table_args(p: argparse.ArgumentParser, players: int) -> None:
    """Options shared by ``demo`` and ``sim``."""
    p.add_argument("--players", type=int, default=players,
                   help=f"players at the table, 2 to 10 (default {players})")
    p.add_argument("--rules", default="official", help="any rules preset (default official)")
    p.add_argument("--set", action="append", metavar="OPTION=VALUE",
                   help="a rules option on top of the preset (repeatable)")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument("--fast", action="store_true", help="no pauses, no waiting for speech")
    p.add_argument("--voice", help="pyttsx3, espeak-ng, wav or captions "
                   "(default: a voice where audio works and not --fast, else captions)")
    p.add_argument("--voice-detail", choices=("turns", "plays", "everything"), default="turns",
                   help="how much the voice says: turns (the referee's announcements, the "
                        "default), plays (each card played, named), everything (draws and "
                        "counts too); the transcript and events are the same")
    p.add_argument("--rounds", type=int, default=0,
                   help="stop after this many rounds (default 0: play the whole match)")
    p.add_argument("--lang", choices=("en", "ja"), default="en", help="announcement language")
    p.add_argument("--hands", choices=("full", "counts"), default="full",
                   help="full: seat pads and a draw shoe (default); counts: only a play pad")
    p.add_argument("--web", metavar="PORT",
                   help="also serve the table on the web (PORT, or HOST:PORT; 0: any free "
                        "port): the table view, an overlay and a page per seat, whose links "
                        "are printed before play")
    p.add_argument("--noise", choices=("off", "realistic", "harsh"), default="off",
                   help="off: exact reads (default); realistic, harsh: every pad an MFRC522 "
                        "chip model with that much radio noise, polled by the real reader "
                        "backend, cards placed as people place them")


def _add_replay(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """``replay``: referee a scenario file."""
    p = sub.add_parser("replay", help="referee a scenario file and print what happens")
    p.add_argument("file", help="a .scn scenario file")
    p.add_argument("--json", action="store_true", help="print the replay JSON")
    p.add_argument("--lang", choices=("en", "ja"), default="en", help="announcement language")
    p.set_defaults(run=_replay)


def _add_selfplay(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """``selfplay``: rounds of bots or one policy, summarised as JSON."""
    p = sub.add_parser("selfplay", help="play random rounds and print a JSON summary")
    p.add_argument("--games", type=int, default=100, help="rounds to play (default 100)")
    p.add_argument("--players", type=int, default=None, help="players, 2 to 10 (default 4)")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument("--rules", default="official", help="rules preset (default official)")
    p.add_argument("--policy", metavar="POLICY",
                   help="how every seat plays: lively (default), play-first, random, expert")
    p.add_argument("--bots", metavar="BOT,BOT,...",
                   help="one bot a seat (random, heuristic, mix, expert, expert:N for N "
                        "playouts a decision): report win rates per seat and bot")
    p.set_defaults(run=_selfplay)


def _add_voice_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """``say`` and ``voices``: the table's voice on its own."""
    p = sub.add_parser("say", help="hear or render a phrase (a catalogue key or any text)")
    p.add_argument("text", help="a phrase key such as turn, or text to speak")
    p.add_argument("params", nargs="*", help="key=value parameters of a phrase key")
    p.add_argument("--lang", choices=("en", "ja"), default="en")
    p.add_argument("--reading", action="append", default=[], metavar="NAME=KANA",
                   help="how a name in the phrase is read in Japanese, as [table] readings")
    p.add_argument("--out", help="write a WAV file instead of playing it")
    p.set_defaults(run=_say)

    p = sub.add_parser("voices", help="list the speech backends and voices usable here")
    p.add_argument("--sample", metavar="DIR",
                   help="also write the same phrases as one WAV file per voice and language")
    p.set_defaults(run=_voices)


def _add_demo(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """``demo``: bots play on a simulated table, narrated."""
    p = sub.add_parser("demo", help="bots play a match on a simulated table, narrated")
    _table_args(p, 3)
    p.add_argument("--bots", default="heuristic",
                   help="bots by seat, cycled: random, heuristic, mix, expert, expert:N "
                        "(default heuristic)")
    p.add_argument("--pace", type=float, default=0.8,
                   help="seconds between moves without --fast (default 0.8)")
    p.add_argument("--transcript", metavar="FILE", help="also write the transcript to FILE")
    p.add_argument("--journal", metavar="FILE",
                   help="keep the match in a journal, as the daemon does (for status, "
                   "history and stats)")
    p.add_argument("--drop-reads", type=float, default=0.0, metavar="P",
                   help="lose each tag read with probability P (the player taps again)")
    p.add_argument("--duplicate-reads", type=float, default=0.0, metavar="P",
                   help="report each tag read twice with probability P")
    p.add_argument("--noisy-serial", action="store_true",
                   help="read the play pad through a real serial reader on a pty, with noise")
    p.add_argument("--unplug", type=float, default=0.0, metavar="P",
                   help="unplug and replug the play pad before a tap with probability P")
    p.add_argument("--names", metavar="NAME,NAME,...", help="the players' names, by seat")
    p.add_argument("--mqtt", metavar="HOST:PORT",
                   help="publish to this MQTT broker as a daemon with [mqtt] would")
    p.add_argument("--table", metavar="ID", help="this table's id on the broker (with --mqtt)")
    p.set_defaults(run=_demo)


def _add_sim(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """``sim``: people play seats against bots."""
    p = sub.add_parser("sim", help="play one seat at the terminal against bots")
    _table_args(p, 3)
    p.add_argument("--name", default="Sam", help="your name at the table (default Sam)")
    p.add_argument("--people", type=int, default=1,
                   help="people at the table, the first seats (default 1); more than one "
                        "needs --web: each plays from their own phone")
    p.add_argument("--bots", default="heuristic",
                   help="the other seats' bots, cycled: random, heuristic, mix, expert, expert:N "
                        "(default heuristic)")
    p.add_argument("--level", dest="bots", type=_level, metavar="easy|normal|hard",
                   help="instead of --bots: easy (random), normal (heuristic), hard (expert at "
                        "full budget)")
    p.set_defaults(run=_sim)


#: ``sim --level``: the bot each level seats (docs/simulator.md).
LEVELS = {"easy": "random", "normal": "heuristic", "hard": "expert"}


def _level(text: str) -> str:
    """A ``--level`` as the name of its bot."""
    if text not in LEVELS:
        raise argparse.ArgumentTypeError(f"{text!r}: use easy, normal or hard")
    return LEVELS[text]


def _add_deck(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """``deck virtual`` and ``deck check``."""
    deck = sub.add_parser("deck", help="deck files: tag UIDs to cards and tokens")
    deck_sub = deck.add_subparsers(dest="deck_command", required=True, metavar="DECK-COMMAND")
    p = deck_sub.add_parser("virtual", help="write the simulator's virtual deck")
    p.add_argument("--edition", choices=sorted(EDITIONS), default="classic-108")
    p.add_argument("--out", required=True, help="the deck file to write (- for stdout)")
    p.set_defaults(run=_deck_virtual)
    p = deck_sub.add_parser("check", help="check a deck file; list missing cards and tokens")
    p.add_argument("file")
    p.add_argument("--edition", choices=sorted(EDITIONS), default="classic-108",
                   help="the edition, unless the file names one")
    p.set_defaults(run=_deck_check)


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The ``uno-table`` command line: one sub-command a job (``only``: that command's alone,
    when this module or a light one holds it; every command otherwise)."""
    parser = argparse.ArgumentParser(
        prog="uno-table", description="An automatic referee for UNO played with RFID-tagged cards."
    )
    parser.add_argument("--version", action="version", version=f"uno-table {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    lean = _LEAN.get(only or "")
    if lean is not None:
        lean()(sub)
        return parser
    for add in (_add_replay, _add_selfplay, _add_voice_commands, _add_demo, _add_sim, _add_deck):
        add(sub)

    from table.commands import daemon, ladder, stats, wiring
    from table.commands.hub import add_commands as add_hub_commands

    daemon.add_commands(sub)
    add_hub_commands(sub)
    stats.add_commands(sub)
    wiring.add_commands(sub)
    ladder.add_commands(sub)
    return parser


Adder = Callable[["argparse._SubParsersAction[argparse.ArgumentParser]"], None]


def _ladder_adder() -> Adder:
    from table.commands.ladder import add_commands

    return add_commands


def _stats_adder() -> Adder:
    from table.commands.stats import add_commands

    return add_commands


#: The commands whose run builds only its own parser: the start of a run is part of its time
#: (``selfplay`` and ``study`` are timed as whole processes: docs/performance.md).
_LEAN: dict[str, Callable[[], Adder]] = {
    "replay": lambda: _add_replay, "selfplay": lambda: _add_selfplay,
    "say": lambda: _add_voice_commands, "voices": lambda: _add_voice_commands,
    "demo": lambda: _add_demo, "sim": lambda: _add_sim, "deck": lambda: _add_deck,
    "ladder": _ladder_adder, "stats": _stats_adder, "study": _stats_adder,
}


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; the exit code."""
    given = list(sys.argv[1:] if argv is None else argv)
    args = build_parser(given[0] if given else None).parse_args(given)
    try:
        code: int = args.run(args)
    except TableError as exc:
        print(f"uno-table: {exc}", file=sys.stderr)
        return int(getattr(exc, "exit_code", EXIT_USAGE))  # 2 unless a restart may mend it
    except BrokenPipeError:
        return 0
    return code


if __name__ == "__main__":
    sys.exit(main())
