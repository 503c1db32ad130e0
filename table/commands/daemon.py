"""The daemon's commands: ``run``, ``status``, ``history``, ``enroll``, ``doctor``, ``check-table``,
``service``.

Registered on the main parser by :func:`add_commands`. Errors are :class:`TableError` and reach
the user as one line with exit code 2.
"""

from __future__ import annotations

import argparse
import json
import logging
import math
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

from table.cards import EDITIONS

if TYPE_CHECKING:
    from table.runtime.config import Config
    from table.runtime.daemon import Daemon
    from table.runtime.event_stream import Subscribe
    from table.web.server import WebServer

DEFAULT_CONFIG = "/etc/uno-table/config.toml"
MAX_TIMEOUT = 600  # doctor --timeout: a reader not live in ten minutes is not coming


def _logging(level: str) -> None:
    logging.basicConfig(
        level=getattr(logging, level.upper()),
        format="%(levelname)s %(name)s: %(message)s",
        stream=sys.stderr,
    )


def _run(args: argparse.Namespace) -> int:
    from table.runtime.config import load_config
    from table.runtime.daemon import check_names_said, run

    config = load_config(args.config)
    check_names_said(config)  # a name the voice cannot say: one line, exit 2, before any start
    _logging(args.log_level)
    attach = WebAttachment(config) if config.web_enabled else None
    if args.events is None:
        return run(config, None, args.new_match, attach)
    if args.events == "-":
        return run(config, sys.stdout, args.new_match, attach)
    from table.errors import TableError

    try:
        out = open(args.events, "a", encoding="utf-8")  # noqa: SIM115 (open all evening)
    except OSError as exc:
        raise TableError(f"{args.events}: cannot write the event stream: {exc.strerror}") from None
    with out:
        return run(config, out, args.new_match, attach)


class WebAttachment:
    """The web view of ``[web]``: its address taken when made (a port in use stops the daemon
    before it touches anything, and nothing of the web server is imported yet), served once
    the daemon has started (:meth:`__call__`, the ``attach`` of
    :func:`table.runtime.daemon.run`).
    The seat links go to the terminal when there is one, else they are on the admin page only
    (never in a log)."""

    def __init__(self, config: Config) -> None:
        from table.web.listen import listen

        self.config = config
        self.socket = listen(*config.web_listen)
        self._server: WebServer | None = None

    @property
    def server(self) -> WebServer:
        """The server, once :meth:`__call__` made it."""
        assert self._server is not None, "the web view is not served yet"
        return self._server

    def __call__(self, daemon: Daemon, subscribe: Subscribe | None = None
                 ) -> Callable[[], None]:
        """Serve the web view of ``daemon``, told of its events through ``subscribe`` (its
        stream's own by default); returns how to stop it."""
        from table.runtime.remote_control import DaemonRemote
        from table.web.app import WebTable
        from table.web.feed import Feed
        from table.web.proxy import Proxies, parse_proxies
        from table.web.server import WebServer

        config = self.config
        self._server = WebServer(*config.web_listen)
        self._server.bind(self.socket)
        web = WebTable(DaemonRemote(daemon), Feed(), api_key=config.web_api_key,
                       local_admin=config.web_local_admin, language=config.web_language,
                       hosts=config.web_hosts,
                       proxies=Proxies(parse_proxies(config.web_trusted_proxies)))
        web.hear(subscribe or daemon.stream.subscribe)
        if config.language == "ja":  # each name's reading on the admin page, before play
            from table.voice.names import name_readings

            web.name_readings = [line for r in name_readings(
                config.players, config.readings, config.pronunciations) for line in r.lines()]
        self.server.serve(web)
        if sys.stderr.isatty():
            self.server.print_seats(sys.stderr)
        return self.server.stop


def _status(args: argparse.Namespace) -> int:
    from table.commands.checks import given_path
    from table.journal.history import status, status_text

    data = status(given_path("--journal", args.journal, "the table's journal file"))
    print(json.dumps(data, ensure_ascii=False) if args.json else status_text(data))
    return 0


def _history(args: argparse.Namespace) -> int:
    from table.commands.checks import given_path
    from table.journal.history import history, history_csv, history_text

    matches = history(given_path("--journal", args.journal, "the table's journal file"))
    text = history_csv(matches) if args.csv else history_text(matches) + "\n"
    sys.stdout.write(text)
    return 0


def _enroll(args: argparse.Namespace) -> int:
    from table.commands.enroll import enroll_command

    return enroll_command(args)


def seconds(option: str, value: float) -> None:
    """Refuse a wait that is no number of seconds above 0, or one past :data:`MAX_TIMEOUT` (a
    deadline past the clock's end is an OverflowError at the first reader)."""
    from table.errors import TableError

    if not math.isfinite(value) or value <= 0:
        raise TableError(f"{option} {value}: use a number of seconds above 0")
    if value > MAX_TIMEOUT:
        raise TableError(f"{option} {value:g}: at most {MAX_TIMEOUT} seconds a reader")


def _doctor(args: argparse.Namespace) -> int:
    from table.commands.doctor import doctor
    from table.errors import TableError

    seconds("--timeout", args.timeout)
    if not math.isfinite(args.quiet) or not 0 <= args.quiet <= 600:
        raise TableError(f"--quiet {args.quiet}: use a number of seconds from 0 to 600")
    return doctor(args.config, timeout=args.timeout, quiet=args.quiet)


def _check_table(args: argparse.Namespace) -> int:
    from table.commands.buttons import check_buttons_command
    from table.commands.check_table import check_table_command

    for name in ("timeout", "settle"):
        seconds(f"--{name}", getattr(args, name))
    if args.buttons:
        return check_buttons_command(args.config, args.timeout)
    return check_table_command(args.config, args.timeout, args.settle)


def _service(args: argparse.Namespace) -> int:
    from table.commands.service import unit
    from table.runtime.config import load_config

    # A unit for a configuration that cannot run would fail each boot (unit() reads it too);
    # the deck may come later: the installer writes the unit before the enrolment.
    load_config(args.config, need_deck=False)
    sys.stdout.write(unit(args.config, args.user))
    return 0


def add_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """The daemon's sub-commands: ``run``, ``status``, ``history``, ``enroll``, ``doctor``,
    ``service``."""
    p = sub.add_parser("run", help="referee the table: readers, controls, voice and journal")
    p.add_argument("--config", required=True, help="the configuration file (TOML)")
    p.add_argument("--events", metavar="-|FILE",
                   help="write the JSON-lines event stream to stdout (-) or append it to FILE")
    p.add_argument("--new-match", action="store_true",
                   help="start a new match even when the journal holds one in progress")
    p.add_argument("--log-level", choices=("debug", "info", "warning", "error"), default="info")
    p.set_defaults(run=_run)

    p = sub.add_parser("status", help="the state of the newest match in a journal")
    p.add_argument("--journal", required=True, help="the journal file (SQLite)")
    p.add_argument("--json", action="store_true", help="print JSON in replay's shape")
    p.set_defaults(run=_status)

    p = sub.add_parser("history", help="every match's rounds and scores from a journal")
    p.add_argument("--journal", required=True, help="the journal file (SQLite)")
    p.add_argument("--csv", action="store_true", help="CSV, one row per player per round")
    p.set_defaults(run=_history)

    p = sub.add_parser("enroll", help="tag a deck: asks for each card, writes the deck file")
    p.add_argument("--out", help="the deck file to write (and to resume from); required but "
                   "with --sheet")
    p.add_argument("--edition", choices=sorted(EDITIONS), default=None,
                   help="the deck edition (default: the file's, else the config's rules.deck)")
    p.add_argument("--reader", help="the reader to tap cards on (default: the play pad)")
    p.add_argument("--config", default=DEFAULT_CONFIG,
                   help=f"the configuration naming the readers (default {DEFAULT_CONFIG})")
    p.add_argument("--seats", type=int, default=None,
                   help="seat tokens to enrol (default: the config's players)")
    p.add_argument("--skip", default="", metavar="CODE,...",
                   help="cards or tokens not to ask for (a lost card: R5#2,token:don)")
    p.add_argument("--sheet", action="store_true",
                   help="print the order the tags are asked in, to sort a deck (no reader)")
    p.add_argument("--verify", action="store_true",
                   help="tap any tag to hear it named; ends with the tags never tapped")
    p.set_defaults(run=_enroll)

    p = sub.add_parser("doctor", help="check the configuration, readers, permissions and audio")
    p.add_argument("--config", default=DEFAULT_CONFIG, help="the configuration file")
    p.add_argument("--timeout", type=float, default=3.0,
                   help="seconds to wait for each reader (default 3)")
    p.add_argument("--quiet", type=float, default=0.0,
                   help="seconds to watch each reader with no card placed: tags seen then "
                        "are cross-talk (default 0: not watched; 60 is a quiet minute)")
    p.set_defaults(run=_doctor)

    p = sub.add_parser("check-table", help="check the readers' wiring and radio, pad by pad, "
                       "with any tagged card (no deck needed)")
    p.add_argument("--config", default=DEFAULT_CONFIG, help="the configuration file")
    p.add_argument("--timeout", type=float, default=30.0,
                   help="seconds to wait for each reader and each card (default 30)")
    p.add_argument("--settle", type=float, default=1.0,
                   help="seconds a card rests before the other pads count as silent "
                   "(default 1)")
    p.add_argument("--buttons", action="store_true",
                   help="check the seat buttons instead: each press asked for in turn")
    p.set_defaults(run=_check_table)

    p = sub.add_parser("service", help="print a systemd unit that runs the daemon at boot")
    p.add_argument("--config", default=DEFAULT_CONFIG, help="the configuration file")
    p.add_argument("--user", default="uno-table", help="the user the service runs as")
    p.set_defaults(run=_service)
