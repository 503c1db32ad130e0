"""The running hub: hears every table's results and availability on the broker, keeps each
result once, checks it, publishes the standings (``PREFIX/hub/standings``, retained) and seats
each round (``PREFIX/hub/assign``, retained), the next as soon as every table of the current
one has finished its match.

Messages arrive in paho's thread, which checks each result and writes it into the store before
paho acknowledges it to the broker (so a hub that dies loses nothing the broker let go of);
the hub's own thread then publishes the standings once for every result kept since it last
did: a burst of results costs one standings update, not one each. Whoever shows the
standings (the web page, a test) waits on :meth:`Hub.wait_for` or adds a listener, never
polls.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from table.hub.config import HubPlan
from table.hub.scores import round_problem, totals_problem
from table.hub.seating import seat
from table.hub.standings import ranking, table_rows
from table.hub.store import HubStore
from table.mqtt.publisher import Message, Publisher
from table.mqtt.settings import MqttSettings

log = logging.getLogger(__name__)

RESULT_KEYS = ("id", "table", "match", "round", "players", "winner", "points", "totals")


class Hub:
    def __init__(self, settings: MqttSettings, store: HubStore, plan: HubPlan) -> None:
        self.settings = settings
        self.store = store
        self.plan = plan
        self.lowest = plan.scoring == "lowest"
        self.online: dict[str, str] = {}
        self.heard = 0  # results kept
        self.listeners: list[Callable[[dict[str, Any]], None]] = []
        self._changed = threading.Condition()
        self._lock = threading.RLock()  # the results and the seating, one change at a time
        self._results = store.results()  # what the store holds, in the order heard
        self._dirty = False  # results kept since the standings were last published
        self._wake = threading.Condition()
        self._stopping = False
        self._thread = threading.Thread(target=self._run, name="hub", daemon=True)
        self._thread.start()
        prefix = settings.prefix
        self.publisher = Publisher(
            settings, f"{prefix}-hub", availability=settings.topic("availability", "hub"),
            subscriptions=(f"{prefix}/+/result", f"{prefix}/+/availability"),
            on_message=self._heard, persistent=True,
        )

    def start(self) -> None:
        known = set(self.store.players(active_only=False))
        for name in self.plan.players:
            if name not in known:
                self.store.enter(name, 1)
        self.publisher.start()
        with self._lock:
            number, tables, _ = self.store.current_round()
            if number == 0 and self.plan.rounds and self.plan.tables:
                self.seat_next()
            elif number:
                self._publish_assign(number, tables, self.store.current_round()[2])
            self._publish_standings()

    def close(self) -> None:
        with self._wake:
            self._stopping = True
            self._wake.notify()
        self._thread.join(10)
        self.publisher.close()

    # --- what the hub shows -------------------------------------------------------------------

    def standings(self) -> dict[str, Any]:
        with self._lock:
            results = list(self._results)
        number, tables, ends_at = self.store.current_round()
        return {
            "round": number,
            "tables": tables,
            "ends_at": ends_at,
            "ranking": ranking(results, self.lowest, self.store.players()),
            "rows": table_rows(results),
            "flags": [{"id": r["id"], "table": r["table"], "problem": r["flag"]}
                      for r in results if r.get("flag")],
            "online": dict(self.online),
            "results": len(results),
        }

    def wait_for(self, predicate: Callable[[], bool], timeout: float) -> bool:
        with self._changed:
            return self._changed.wait_for(predicate, timeout)

    # --- seating ------------------------------------------------------------------------------

    def seat_next(self) -> int:
        """Seat the next round and publish it; its number."""
        number = self.store.current_round()[0] + 1
        players = self.store.players()
        met = {frozenset((a, b)) for tables in self.store.seatings()
               for seats in tables.values() for a in seats for b in seats if a != b}
        ranked = [row["player"] for row in ranking(self._results, self.lowest, players)]
        groups = seat(self.plan.format_of(number), players, number, self.plan.table_size, met,
                      ranked, self.plan.seed)
        ids = list(self.plan.tables) + [str(i + 1) for i in range(len(self.plan.tables),
                                                                   len(groups))]
        tables = {ids[i]: group for i, group in enumerate(groups)}
        ends_at = time.time() + self.plan.round_minutes * 60 if self.plan.round_minutes else None
        self.store.seat(number, tables, ends_at)
        self._publish_assign(number, tables, ends_at)
        log.info("hub: round %d seated: %s", number, tables)
        return number

    def _publish_assign(self, number: int, tables: dict[str, list[str]],
                        ends_at: float | None) -> None:
        payload = {"round": number, "tables": tables, "ends_at": ends_at}
        self.publisher.remember(Message(self.settings.topic("assign", "hub"), payload,
                                        1, True))

    def _advance(self) -> None:
        number, tables, _ = self.store.current_round()
        if not number or number >= self.plan.rounds or not tables:
            return
        done = {str(r["table"]) for r in self._results
                if r["hub_round"] == number and r.get("match_over")}
        if set(tables) <= done:
            self.seat_next()

    # --- paho's thread ------------------------------------------------------------------------

    def _heard(self, topic: str, payload: bytes) -> None:
        parts = topic.split("/")
        table, leaf = parts[-2], parts[-1]
        if leaf == "availability":
            self.online[table] = payload.decode(errors="replace")
            self._notify()
            return
        try:
            result = json.loads(payload)
            missing = [k for k in RESULT_KEYS if k not in result]
            if missing or str(result["table"]) != table:
                raise ValueError(f"missing {missing}" if missing else "another table's id")
        except ValueError as exc:
            log.warning("hub: a result on %s that cannot be read (%s): %.80r", topic, exc,
                        payload)
            return
        with self._lock:
            kept = self._keep(table, result)
        if kept:
            with self._wake:
                self._dirty = True
                self._wake.notify()

    # --- the hub's thread ---------------------------------------------------------------------

    def _run(self) -> None:
        while True:
            with self._wake:
                self._wake.wait_for(lambda: self._dirty or self._stopping)
                dirty, self._dirty = self._dirty, False
                if not dirty:
                    return
            if self.plan.rounds:
                with self._lock:
                    self._advance()
            # Made from a copy of the results: results go on being kept meanwhile.
            self._publish_standings()
            self._notify()

    def _keep(self, table: str, result: dict[str, Any]) -> bool:
        """Check ``result`` and keep it once; whether it was new."""
        hub_round = int(result.get("hub_round") or self.store.current_round()[0])
        earlier = [r for r in self._results if str(r["table"]) == table
                   and str(r["match"]) == str(result["match"]) and r["round"] < result["round"]]
        flag = round_problem(result) or totals_problem(result, earlier)
        if not self.store.add_result(result, hub_round, flag):
            return False
        if flag:
            log.warning("hub: table %s, result %s does not add up: %s", table, result["id"],
                        flag)
        self._results.append({**result, "hub_round": hub_round, "flag": flag})
        self.heard += 1
        return True

    def _publish_standings(self) -> None:
        self.publisher.remember(Message(self.settings.topic("standings", "hub"),
                                        self.standings(), 0, True))

    def _notify(self) -> None:
        with self._changed:
            self._changed.notify_all()
        if self.listeners:
            view = self.standings()
            for listener in list(self.listeners):
                listener(view)
