"""The ``uno-table`` command line. Bad input gives one line on stderr and exit code 2."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from table import __version__
from table.cards import EDITIONS
from table.errors import TableError

EXIT_USAGE = 2


def _replay(args: argparse.Namespace) -> int:
    from table.scenario import replay_file

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
    from table.selfplay import selfplay

    if args.games < 1 or not 2 <= args.players <= 10:
        raise TableError("--games must be at least 1 and --players from 2 to 10")
    print(json.dumps(selfplay(args.games, args.players, args.seed, args.rules), indent=2))
    return 0


def _deck_virtual(args: argparse.Namespace) -> int:
    from table.deck import deck_toml, virtual_deck

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
    from table.deck import load_deck

    deck = load_deck(args.file, args.edition)
    missing = deck.missing()
    print(f"{args.file}: {len(deck.tags)} tags, edition {deck.edition}")
    if missing:
        print(f"missing {len(missing)}: {' '.join(missing)}")
        return 1
    print("complete: every card and token has a tag")
    return 0


def _say(args: argparse.Namespace) -> int:
    import tempfile
    from pathlib import Path

    from table.announce import CATALOGUE, Announcement, render
    from table.voice.espeak import render_wav

    if args.text in CATALOGUE:
        params: list[tuple[str, str | int]] = []
        for pair in args.params:
            key, eq, value = pair.partition("=")
            if not eq:
                raise TableError(f"{pair!r} is not key=value")
            params.append((key, int(value) if value.lstrip("-").isdigit() else value))
        try:
            text = render(Announcement(args.text, tuple(params)), args.lang)
        except (KeyError, ValueError) as exc:
            raise TableError(f"phrase {args.text}: missing or bad parameter {exc}") from None
    else:
        text = " ".join([args.text, *args.params])
    print(text)
    if args.out:
        seconds = render_wav(text, args.lang, Path(args.out))
        print(f"wrote {args.out} ({seconds:.2f} s)")
        return 0
    import subprocess

    with tempfile.TemporaryDirectory() as tmp:
        wav = Path(tmp) / "say.wav"
        render_wav(text, args.lang, wav)
        for player in (["aplay", "-q"], ["paplay"], ["pw-play"]):
            try:
                subprocess.run([*player, str(wav)], check=True, capture_output=True, timeout=30)
                return 0
            except (OSError, subprocess.SubprocessError):
                continue
    print("no audio output found (aplay, paplay or pw-play): use --out FILE.wav", file=sys.stderr)
    return 1


def _voices(args: argparse.Namespace) -> int:
    from table.voice.backends import BACKENDS, audio_player, make_backend
    from table.voice.espeak import phonemes

    for lang in ("en", "ja"):
        try:
            phonemes("test", lang)
            print(f"espeak-ng voice for {lang}: ok")
        except TableError as exc:
            print(f"espeak-ng voice for {lang}: {exc}")
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
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="uno-table", description="An automatic referee for UNO played with RFID-tagged cards."
    )
    parser.add_argument("--version", action="version", version=f"uno-table {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("replay", help="referee a scenario file and print what happens")
    p.add_argument("file", help="a .scn scenario file")
    p.add_argument("--json", action="store_true", help="print the replay JSON")
    p.add_argument("--lang", choices=("en", "ja"), default="en", help="announcement language")
    p.set_defaults(run=_replay)

    p = sub.add_parser("selfplay", help="play random rounds and print a JSON summary")
    p.add_argument("--games", type=int, default=100, help="rounds to play (default 100)")
    p.add_argument("--players", type=int, default=4, help="players, 2 to 10 (default 4)")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument("--rules", default="official", help="rules preset (default official)")
    p.set_defaults(run=_selfplay)

    p = sub.add_parser("say", help="hear or render a phrase (a catalogue key or any text)")
    p.add_argument("text", help="a phrase key such as turn, or text to speak")
    p.add_argument("params", nargs="*", help="key=value parameters of a phrase key")
    p.add_argument("--lang", choices=("en", "ja"), default="en")
    p.add_argument("--out", help="write a WAV file instead of playing it")
    p.set_defaults(run=_say)

    p = sub.add_parser("voices", help="list the speech backends and voices usable here")
    p.set_defaults(run=_voices)

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

    from table.cli_daemon import add_commands

    add_commands(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        code: int = args.run(args)
    except TableError as exc:
        print(f"uno-table: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:
        return 0
    return code


if __name__ == "__main__":
    sys.exit(main())
