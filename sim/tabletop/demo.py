"""``uno-table demo``: bots play a whole match on a simulated table, refereed and narrated.

Bot moves become tag reads on the virtual readers and button presses (see
:mod:`sim.tabletop.virtual`); the referee is the daemon's own, taking the daemon's step in its
own loop. The terminal shows the table as
anyone standing at it sees it (top card, colour, direction, whose turn, hand counts, scores)
and every announcement; the voice says them where audio works.
"""

from __future__ import annotations

import contextlib
import importlib.util
import logging
import math
import signal
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO, cast

from sim.hardware.faults import Faults
from sim.players.bots import make_bot, seat_rng
from sim.tabletop.broadcast import DemoBroadcast
from sim.tabletop.errors import SimError
from sim.tabletop.match import Seat, play_match
from sim.tabletop.virtual import SimTable
from sim.tabletop.web_people import start_web
from sim.terminal.view import demo_line, table_lines
from table.errors import TableError
from table.journal.store import Journal
from table.mqtt.settings import MqttSettings
from table.rules import Options, Phase, State, make_options, standings
from table.voice.announcer import Announcer, Backend
from table.voice.backends import BACKENDS, audio_player, make_backend
from table.voice.names import spoken_names
from table.web.server import WebServer

NAMES = ("Aki", "Ken", "Mio", "Rin", "Sou", "Yui", "Emi", "Jun", "Kai", "Nao")

log = logging.getLogger(__name__)


@dataclass
class DemoResult:
    """What a demo did: the transcript, the scores, the faults and the results delivered."""

    transcript: list[str]
    players: list[str]
    scores: list[int]
    winners: list[str]  # each round's winner
    match_over: bool
    leader: str  # first in the standings
    actions: int  # accepted actions replayed on the pure engine
    faults: dict[str, int] = field(default_factory=dict)
    results: tuple[int, int] | None = None  # with --mqtt: results delivered, still waiting
    web: WebServer | None = None  # still serving the finished match (stop it when done)
    noise: str = ""  # with --noise: the radio's summary line (``noise: ...``)


def parse_overrides(pairs: list[str] | None) -> dict[str, str]:
    """``["uno_penalty=4"]`` -> ``{"uno_penalty": "4"}``; each checked by the rules later."""
    out: dict[str, str] = {}
    for pair in pairs or []:
        key, eq, value = pair.partition("=")
        if not eq or not key:
            raise TableError(f"--set {pair!r}: write OPTION=VALUE, e.g. --set uno_penalty=4")
        out[key.strip()] = value.strip()
    return out


def table_options(preset: str, overrides: dict[str, str]) -> Options:
    """The rules of any registered preset, with ``--set`` overrides (clear errors)."""
    return make_options(preset, **overrides)


def choose_voice(requested: str | None, fast: bool) -> str:
    """The speech backend: the one asked for, else pyttsx3 (or espeak-ng) where this machine
    can play audio and the demo is not in a hurry, else captions only."""
    if requested is not None:
        if requested not in BACKENDS:
            raise TableError(f"--voice {requested!r}: use one of {', '.join(BACKENDS)}")
        if requested in ("pyttsx3", "espeak-ng") and audio_player() is None:
            log.warning("no audio output found: %s renders but nothing is heard", requested)
            if requested == "espeak-ng":
                raise TableError(
                    "--voice espeak-ng needs an audio output (aplay, paplay or pw-play): "
                    "use --voice captions or --voice wav"
                )
        return requested
    if fast or audio_player() is None:
        return "captions"
    if importlib.util.find_spec("pyttsx3") is not None:
        return "pyttsx3"
    return "espeak-ng"


def make_announcer(voice: str, lang: str, names: Sequence[str] = (),
                   detail: str = "turns") -> Announcer | None:
    """The voice; in Japanese it says the names in romaji as kana (Aki: アキ); ``detail``:
    how much it says (``--voice-detail``)."""
    if voice == "captions":
        return None
    said = spoken_names(names, {}, {}) if lang == "ja" else {}
    return Announcer(lambda: cast(Backend, make_backend(voice)), lang, spoken_names=said,
                     detail=detail)


@dataclass
class TableConfig:
    """What ``demo`` and ``sim`` share: the table, the rules, the voice, the pace."""

    players: int = 3
    preset: str = "official"
    overrides: dict[str, str] = field(default_factory=dict)
    seed: int = 0
    fast: bool = False
    voice: str | None = None
    voice_detail: str = "turns"  # --voice-detail: turns, plays or everything
    rounds: int = 0  # 0: the whole match
    lang: str = "en"
    bots: list[str] = field(default_factory=lambda: ["heuristic"])
    pace: float = 0.8  # seconds between moves when not --fast
    hands: str = "full"  # full: seat pads and a draw shoe; counts: only the play pad
    web: str | None = None  # --web PORT or HOST:PORT: the table on the web too
    journal: str | None = None  # --journal FILE: the match kept there as the daemon keeps it
    noise: str = "off"  # --noise: off (exact reads), realistic or harsh (chip models, radio)


@dataclass
class DemoConfig(TableConfig):
    """How ``uno-table demo`` plays: the players, rules, seed, voice, faults and faces."""

    faults: Faults = field(default_factory=Faults)
    names: list[str] = field(default_factory=list)  # the players' names (default: NAMES)
    mqtt: MqttSettings | None = None  # publish as a daemon with this [mqtt] would


def run_demo(
    cfg: DemoConfig,
    out: TextIO | None = None,
    live: bool | None = None,
    before_play: Callable[[], None] | None = None,
) -> DemoResult:
    """Play the demo match. ``out`` receives the transcript and the table view (None: quiet);
    ``live`` redraws the view in place (default: when ``out`` is a terminal and not fast).
    With ``cfg.web`` the seat links are written to ``out`` before ``before_play`` and play, and
    the result holds the web server, still serving the finished match."""
    names = _checked_names(cfg)
    options = table_options(cfg.preset, cfg.overrides)
    voice = choose_voice(cfg.voice, cfg.fast)
    announcer = make_announcer(voice, cfg.lang, names, cfg.voice_detail)
    live = (not cfg.fast and out is not None and out.isatty()) if live is None else live
    screen = _Screen(out, live)
    seats: list[Seat] = [
        make_bot(cfg.bots[i % len(cfg.bots)], seat_rng(cfg.seed, i)) for i in range(cfg.players)
    ]
    screen.header = demo_line(
        "header", cfg.lang, seats=", ".join(f"{n} ({s.name})" for n, s in zip(names, seats,
                                                                              strict=True)),
        rules=cfg.preset, hands=cfg.hands, voice=voice, seed=cfg.seed)
    screen.header += (f" | noise: {cfg.noise}" if cfg.noise != "off" else "") + (
        f" | faults: {cfg.faults.describe()}" if cfg.faults.any else "")
    screen.write(screen.header)
    publish = DemoBroadcast(cfg.mqtt, names, options.scoring) if cfg.mqtt else None
    journal = Journal(Path(cfg.journal)) if cfg.journal is not None else None
    table = SimTable(
        options, names, cfg.seed, cfg.lang, cfg.faults,
        say=announcer.announce if announcer else None, hands=cfg.hands,
        journal=journal, noise=cfg.noise,
    )
    if announcer is not None:
        table.stream.subscribe(announcer.follow)  # --voice-detail: the plays, draws and counts
    if publish is not None:
        publish.attach(table.stream)
    server = remote = None
    if cfg.web is not None:
        server, remote = start_web(table, cfg.web, plays_cards=False)
        if out is not None:
            server.print_seats(out)
        screen.header += "".join(f"\n{line}" for line in server.seat_lines())
    table.show = screen.line  # the table's first words after the seat links
    for text in table.transcript:
        screen.line(text)

    def after_move(t: SimTable) -> None:
        screen.view(table_lines(t.state, lang=cfg.lang))
        if not cfg.fast and announcer is not None:
            announcer.idle(timeout=30)
        if remote is not None:  # the pages' presses, done between two moves
            remote.serve(0.0 if cfg.fast else cfg.pace)
        elif not cfg.fast:
            time.sleep(cfg.pace)

    def after_round(t: SimTable) -> None:
        screen.view(table_lines(t.state, lang=cfg.lang), force=True)

    try:
        with contextlib.ExitStack() as stack:
            if publish is not None:
                stack.enter_context(publish)
            with table:
                if before_play is not None:
                    before_play()
                play_match(table, seats, cfg.rounds, after_move, after_round)
                replay = table.replayed()
    except BaseException:
        if server is not None:
            server.stop()
        raise
    finally:
        if remote is not None:
            remote.over = True
        if announcer is not None:
            announcer.close(timeout=30 if not cfg.fast else 0.1)
        if journal is not None:
            journal.close()
    return _result(table, names, replay, publish, server)


def _checked_names(cfg: DemoConfig) -> list[str]:
    """The players' names, once the demo's numbers are checked (a clear error otherwise)."""
    if not 2 <= cfg.players <= len(NAMES):
        raise TableError(f"--players {cfg.players}: use 2 to {len(NAMES)}")
    if cfg.rounds < 0:
        raise TableError("--rounds must be 0 (the whole match) or more")
    if not math.isfinite(cfg.pace) or cfg.pace < 0:
        raise TableError(f"--pace {cfg.pace}: use seconds from 0 up")
    if not cfg.names:
        return list(NAMES[: cfg.players])
    if len(cfg.names) != cfg.players or len(set(cfg.names)) != len(cfg.names):
        raise TableError(f"--names {','.join(cfg.names)}: name each of the "
                         f"{cfg.players} players once")
    return list(cfg.names)


def _result(table: SimTable, names: list[str], replay: State,
            publish: DemoBroadcast | None, server: WebServer | None) -> DemoResult:
    """What the demo did, once the referee's scores are checked against the replay."""
    s = table.state
    if replay.scores != s.scores or replay.results != s.results:
        raise SimError(
            f"the referee's scores {s.scores} differ from a replay of its accepted actions "
            f"{replay.scores}"
        )
    return DemoResult(
        transcript=table.transcript,
        players=names,
        scores=list(s.scores),
        winners=[names[r.winner] for r in s.results],
        match_over=s.phase is Phase.MATCH_OVER,
        leader=names[standings(s)[0]],
        actions=sum(1 for a in table.log if a is not None),
        faults={
            "reads_dropped": table.sink.dropped,
            "reads_doubled": table.sink.doubled,
            "noise_lines": table.pty_noise,
            "unplugs": table.unplugs,
        },
        results=publish.delivered() if publish else None,
        web=server,
        noise=table.radio.summary() if table.radio is not None else "",
    )


class _Screen:
    """The terminal: transcript lines as they come, and the table view (redrawn in place on a
    terminal when live)."""

    def __init__(self, out: TextIO | None, live: bool) -> None:
        self.out = out
        self.live = live
        self.header = ""
        self.recent: list[str] = []
        self._last_view: list[str] = []

    def write(self, text: str) -> None:
        if self.out is not None:
            self.out.write(text + "\n")
            self.out.flush()

    def line(self, text: str) -> None:
        self.recent = [*self.recent[-17:], text]
        if not self.live:
            self.write(text)

    def view(self, lines: list[str], force: bool = False) -> None:
        if self.out is None:
            return
        if self.live:
            self.out.write("\x1b[H\x1b[2J" + self.header + "\n" + "\n".join(lines) + "\n")
            self.out.write("\n".join(self.recent) + "\n")
            self.out.flush()
        elif force or lines[1:] != self._last_view[1:]:
            for text in lines[1:3]:
                self.write(text)
        self._last_view = lines


def main_demo(cfg: DemoConfig, transcript: str | None, out: TextIO = sys.stdout) -> int:
    """The command: play, then say how it ended and what was checked."""
    try:
        result = run_demo(cfg, out, before_play=_ready_prompt(cfg, out))
    except KeyboardInterrupt:
        out.write("\nstopped.\n")
        return 130
    board = ", ".join(f"{n} {p}" for n, p in zip(result.players, result.scores, strict=True))
    lang = cfg.lang
    out.write("\n" + demo_line("played", lang, rounds=len(result.winners), board=board) + "\n")
    if result.match_over:
        out.write(demo_line("match-over", lang, leader=result.leader) + "\n")
    out.write(demo_line("checked", lang, actions=result.actions) + "\n")
    if cfg.faults.any:
        f = result.faults
        out.write(
            f"faults: {f['reads_dropped']} reads dropped (tapped again), "
            f"{f['reads_doubled']} doubled (ignored), {f['noise_lines']} noise lines, "
            f"{f['unplugs']} unplugs\n"
        )
    if cfg.mqtt is not None and result.results is not None:
        sent, waiting = result.results
        out.write(f"mqtt: table {cfg.mqtt.table} on {cfg.mqtt.host}:{cfg.mqtt.port}: {sent} "
                  f"results delivered" + (f", {waiting} NOT delivered" if waiting else "") + "\n")
    if transcript:
        _write(transcript, result.transcript)
        out.write(f"transcript written to {transcript}\n")
    if result.noise:
        out.write(result.noise + "\n")
    if result.web is not None:
        hold_web(result.web, out)
    return 0


def _ready_prompt(cfg: TableConfig, out: TextIO) -> Callable[[], None] | None:
    """At a terminal with the web on: time to scan the codes, until Enter."""
    if cfg.web is None or not (sys.stdin.isatty() and out.isatty()):
        return None

    def wait() -> None:
        out.write("scan a seat's code with a phone, then press Enter to deal: ")
        out.flush()
        sys.stdin.readline()

    return wait


def hold_web(server: WebServer, out: TextIO) -> None:
    """Keep the finished match on the web until Ctrl-C (or SIGTERM)."""
    out.write(f"the web view stays up at {server.base_url()}/ : Ctrl-C to stop\n")
    out.flush()
    stop = threading.Event()
    previous = signal.signal(signal.SIGTERM, lambda *_: stop.set())
    try:
        while not stop.wait(0.5):
            pass
    except KeyboardInterrupt:
        out.write("\nstopped.\n")
    finally:
        signal.signal(signal.SIGTERM, previous)
        server.stop()


def _write(path: str, lines: list[str]) -> None:
    try:
        with open(path, "w", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")
    except OSError as exc:
        raise TableError(f"{path}: cannot write the transcript: {exc.strerror}") from None

