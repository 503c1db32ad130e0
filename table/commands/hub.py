"""``uno-table hub``: the tournament hub in the foreground until SIGTERM, and its commands for
the evening: ``standings``, ``drop``, ``enter``.

    uno-table hub --mqtt HOST:PORT --store FILE [--config hub.toml] [--web PORT]
    uno-table hub standings --store FILE [--json | --csv]
    uno-table hub drop NAME --store FILE
    uno-table hub enter NAME --store FILE
"""

from __future__ import annotations

import argparse
import json
import logging
import signal
import sys
import threading
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from table.commands.checks import given_path
from table.errors import TableError
from table.hub.names import look_alike

if TYPE_CHECKING:
    from table.hub.config import HubPlan
    from table.hub.store import HubStore
    from table.mqtt.settings import MqttSettings


def _plan(args: argparse.Namespace) -> tuple[HubPlan, MqttSettings]:
    """The plan of --config, and the broker: --mqtt over the plan's [mqtt] host and port."""
    from table.hub.config import HubPlan, load_hub_config
    from table.mqtt.settings import MqttSettings, parse_address

    plan = HubPlan() if args.config is None else \
        load_hub_config(Path(given_path("--config", args.config, "the hub's TOML file")))
    settings = plan.mqtt
    if args.mqtt is not None:
        host, port = parse_address(args.mqtt)
        settings = MqttSettings(host, port) if settings is None else \
            replace(settings, host=host, port=port)
    if settings is None:
        raise TableError("hub: no broker: give --mqtt HOST:PORT or [mqtt] host in --config")
    return plan, settings


def _hub(args: argparse.Namespace) -> int:
    from table.hub.service import Hub
    from table.hub.store import HubStore

    if args.store is None:
        raise TableError("hub: --store FILE is required (the hub's SQLite store)")
    given_path("--store", args.store, "the hub's SQLite store file (made if missing)")
    plan, settings = _plan(args)
    page = None
    if args.web is not None:
        from table.hub.page import StandingsPage
        from table.web.listen import parse_listen
        from table.web.proxy import Proxies, parse_proxies

        try:
            proxies = Proxies(parse_proxies(args.trusted_proxy or ()))
        except ValueError as exc:
            raise TableError(f"--trusted-proxy: {exc}; allowed: an address or a network, "
                             "e.g. 127.0.0.1 or 10.0.0.0/24") from None
        # The address first: in use is one line.
        page = StandingsPage(*parse_listen(args.web), proxies=proxies)
    logging.basicConfig(level=getattr(logging, args.log_level.upper()),
                        format="%(levelname)s %(name)s: %(message)s", stream=sys.stderr)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    hub = Hub(settings, HubStore(args.store), plan)
    if page is not None:
        page.serve(hub)
        print(f"hub: standings at http://localhost:{page.port}/", flush=True)
    hub.start()
    print(f"hub: listening on {settings.host}:{settings.port} under {settings.prefix}/",
          flush=True)
    stop.wait()
    if page is not None:
        page.close()
    hub.close()
    return 0


def _store(args: argparse.Namespace) -> HubStore:
    from table.hub.store import HubStore

    return HubStore(given_path("--store", args.store, "the --store FILE of a hub that has run"),
                    create=False)


def _standings(args: argparse.Namespace) -> int:
    from table.hub.standings import as_csv, table_rows

    store = _store(args)
    results, problems = store.load()
    for problem in problems:  # kept by an older version, or a second result of a round
        print(f"hub standings: table {problem['table']}, result {problem['id']} "
              f"{problem['problem']}", file=sys.stderr)
    rows = table_rows(results)
    if args.json:
        print(json.dumps(rows, ensure_ascii=False))
    elif args.csv:
        sys.stdout.write(as_csv(rows))
    else:
        for row in rows:
            flag = "  (flagged)" if row["flagged"] else ""
            print(f"table {row['table']:>4}  {row['player']:<16} rounds {row['rounds']:>3}  "
                  f"wins {row['wins']:>3}  points {row['points']:>6}  "
                  f"matches {row['match_wins']}{flag}")
    return 0


def _drop(args: argparse.Namespace) -> int:
    store = _store(args)
    if not store.drop(args.name):
        known = ", ".join(store.players()) or "none"
        raise TableError(f"hub drop: no player {args.name!r}; allowed: {known}")
    print(f"{args.name} dropped: not seated from the next round on")
    return 0


def _enter(args: argparse.Namespace) -> int:
    if not args.name.strip():
        raise TableError(f"hub enter {args.name!r}: an empty name; allowed: a player's name")
    store = _store(args)
    twin = look_alike(args.name, store.players(active_only=False))
    if twin is not None:
        raise TableError(f"hub enter {args.name!r}: looks like the entered player {twin!r} on "
                         "a screen; allowed: a name a reader tells apart from every other")
    store.enter(args.name, store.current_round()[0] + 1)
    print(f"{args.name} entered: seated from the next round on")
    return 0


def add_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """The ``hub`` sub-command and its ``standings``, ``drop`` and ``enter``."""
    p = sub.add_parser("hub", help="the tournament hub: every table's results, seating, standings")
    p.add_argument("--mqtt", metavar="HOST:PORT", help="the broker (default: hub.toml's [mqtt])")
    p.add_argument("--store", metavar="FILE", help="the hub's SQLite store (made if missing)")
    p.add_argument("--config", metavar="HUB.TOML", help="the evening's plan and broker")
    p.add_argument("--web", metavar="PORT", help="serve the standings page on PORT (or HOST:PORT)")
    p.add_argument("--trusted-proxy", metavar="ADDRESS", action="append",
                   help="a reverse proxy in front of the page (repeatable): only its "
                        "forwarding headers name a client")
    p.add_argument("--log-level", choices=("debug", "info", "warning", "error"), default="info")
    p.set_defaults(run=_hub)
    hub_sub = p.add_subparsers(dest="hub_command", metavar="HUB-COMMAND")

    s = hub_sub.add_parser("standings", help="one row per player per table")
    s.add_argument("--store", metavar="FILE", required=True, help="the hub's store")
    form = s.add_mutually_exclusive_group()
    form.add_argument("--json", action="store_true", help="a JSON list of rows")
    form.add_argument("--csv", action="store_true", help="CSV with a header line")
    s.set_defaults(run=_standings)

    s = hub_sub.add_parser("drop", help="a player leaves: not seated from the next round on")
    s.add_argument("name")
    s.add_argument("--store", metavar="FILE", required=True, help="the hub's store")
    s.set_defaults(run=_drop)

    s = hub_sub.add_parser("enter", help="a late entry: seated from the next round on")
    s.add_argument("name")
    s.add_argument("--store", metavar="FILE", required=True, help="the hub's store")
    s.set_defaults(run=_enter)
