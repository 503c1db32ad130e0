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

Nothing a table sends is trusted (docs/tournament.md, "Security"): every message is checked
whole by :mod:`table.hub.messages` before anything of it is kept; one that fails is refused
in one log line (at most :data:`LOG_BURST` a table a minute) and the hub goes on. A result's id
is made from its topic's table and its match and round, so a round is counted once whatever
id a table writes, and a second result of a round with other content is set aside, flagged,
never counted. The round of the evening a result belongs to is the hub's to say, and so is who
may be in it: a result naming anyone who is not an entered player (when players are entered),
a name that looks like another player's (:mod:`table.hub.names`), or players other than those
the hub seated at that table in that round (when it seats) is set aside, flagged, never
counted, and ends no round: one table's login cannot credit or hurt a player of another.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any, Final

from table.hub.config import HubPlan
from table.hub.messages import MessageError, availability, read_result, topic_table
from table.hub.names import look_alike
from table.hub.scores import round_problem, totals_problem
from table.hub.seating import seat
from table.hub.standings import ranking, table_rows
from table.hub.store import HubStore
from table.mqtt.publisher import Message, Publisher
from table.mqtt.settings import MqttSettings

log = logging.getLogger(__name__)

MAX_TABLES: Final = 1000  # tables whose availability the hub keeps
LOG_BURST: Final = 5  # refused messages logged a table a minute; the rest are counted


class Hub:
    """The hub on ``settings``' broker, keeping what it hears in ``store``, seating by
    ``plan``."""

    def __init__(self, settings: MqttSettings, store: HubStore, plan: HubPlan) -> None:
        self.settings = settings
        self.store = store
        self.plan = plan
        self.lowest = plan.scoring == "lowest"
        self.online: dict[str, str] = {}
        self.results_kept = 0  # results kept
        self.listeners: list[Callable[[dict[str, Any]], None]] = []
        self._changed = threading.Condition()
        self._lock = threading.RLock()  # the results and the seating, one change at a time
        self.refused = 0  # messages refused
        self._quiet: dict[str, tuple[float, int]] = {}  # a table's minute of refusals logged
        # What the store holds, in the order heard, and what of it is not counted.
        self._results, self._problems = store.load()
        for problem in self._problems:
            log.warning("hub: table %s, result %s %s", problem["table"], problem["id"],
                        problem["problem"])
        self._matches: dict[tuple[str, str], list[dict[str, Any]]] = {}
        for r in self._results:
            self._matches.setdefault((r["table"], r["match"]), []).append(r)
        self._dirty = False  # results kept since the standings were last published
        self._wake = threading.Condition()
        self._stopping = False
        self._thread = threading.Thread(target=self._run, name="hub", daemon=True)
        self._thread.start()
        prefix = settings.prefix
        self.publisher = Publisher(
            settings, f"{prefix}-hub", availability=settings.topic("availability", "hub"),
            subscriptions=((f"{prefix}/+/+/result",) if plan.league else
                           (f"{prefix}/+/result", f"{prefix}/+/availability")),
            on_message=self._heard, persistent=True,
        )

    def start(self) -> None:
        """Enter the plan's players, connect, and seat round 1 or publish the round seated."""
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
        """Stop the hub's thread and leave the broker."""
        with self._wake:
            self._stopping = True
            self._wake.notify()
        self._thread.join(10)
        self.publisher.close()

    # --- what the hub shows -------------------------------------------------------------------

    def standings(self) -> dict[str, Any]:
        """What the page and ``PREFIX/hub/standings`` show."""
        with self._lock:
            results = list(self._results)
            problems = list(self._problems)
        number, tables, ends_at = self.store.current_round()
        return {
            "round": number,
            "tables": tables,
            "ends_at": ends_at,
            "ranking": ranking(results, self.lowest, self.store.players()),
            "rows": table_rows(results),
            "flags": [{"id": r["id"], "table": r["table"], "problem": r["flag"]}
                      for r in results if r.get("flag")] + problems,
            "online": dict(self.online),
            "results": len(results),
        }

    def wait_for(self, predicate: Callable[[], bool], timeout: float) -> bool:
        """Wait until ``predicate`` holds after a change (or ``timeout`` s); whether it does."""
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
        if topic == self.settings.topic("availability", "hub"):
            return  # the hub's own: not a table
        try:
            key, table, leaf = topic_table(topic, self.settings.prefix, self.plan.league)
            if leaf == "availability":
                self._available(key, availability(payload))
                return
            result = read_result(payload, key, table)
        except MessageError as exc:
            self._refuse(topic, str(exc))
            return
        with self._lock:
            kept = self._keep(key, result)
        if kept:
            with self._wake:
                self._dirty = True
                self._wake.notify()

    def _available(self, key: str, state: str) -> None:
        if key not in self.online and len(self.online) >= MAX_TABLES:
            raise MessageError(f"more than {MAX_TABLES} tables; allowed: {MAX_TABLES}")
        self.online[key] = state
        self._notify()

    def _refuse(self, topic: str, problem: str) -> None:
        """One line for a refused message, at most :data:`LOG_BURST` a topic a minute."""
        self.refused += 1
        if topic not in self._quiet and len(self._quiet) >= MAX_TABLES * 2:
            topic = "(other topics)"  # one burst for every topic beyond those counted
        now = time.monotonic()
        start, count = self._quiet.get(topic, (now, 0))
        if now - start >= 60:
            if count > LOG_BURST:
                log.warning("hub: %d more messages refused on %s", count - LOG_BURST, topic)
            start, count = now, 0
        self._quiet[topic] = (start, count + 1)
        if count < LOG_BURST:
            log.warning("hub: a message on %s refused: %s", topic[:120], problem)

    # --- the hub's thread ---------------------------------------------------------------------

    def _run(self) -> None:
        while True:
            with self._wake:
                self._wake.wait_for(lambda: self._dirty or self._stopping)
                dirty, self._dirty = self._dirty, False
                if not dirty:
                    return
            try:
                if self.plan.rounds:
                    with self._lock:
                        self._advance()
                # Made from a copy of the results: results go on being kept meanwhile.
                self._publish_standings()
                self._notify()
            except Exception:  # a bug must not end the standings for the evening
                log.exception("hub: the standings could not be published")

    def _keep(self, table: str, result: dict[str, Any]) -> bool:
        """Check ``result``'s points and keep it once; whether the standings changed (a new
        result, or a round's second result newly set aside)."""
        match = self._matches.get((table, result["match"]), [])
        hub_round = self._hub_round(table, result, match)
        wrong = self._not_theirs(table, result, hub_round)
        if wrong is not None:
            log.warning("hub: table %s, result %s: %s; not counted", table, result["id"], wrong)
            problem = {"id": result["id"], "table": table, "problem": f"not counted: {wrong}"}
            if problem in self._problems or len(self._problems) >= MAX_TABLES:
                return False
            self._problems.append(problem)
            return True  # the standings show it
        earlier = [r for r in match if r["round"] < result["round"]]
        flag = round_problem(result) or totals_problem(result, earlier)
        kept = self.store.add_result(result, hub_round, flag)
        if kept == "conflict":
            log.warning("hub: table %s, result %s: a second result for this round with other "
                        "content; not counted", table, result["id"])
            problem = {"id": result["id"], "table": table, "problem": "not counted: a second "
                       "result for this round, with other points or players than the first"}
            if problem not in self._problems:
                self._problems.append(problem)
                return True  # the standings show it
        if kept != "new":
            return False
        if flag:
            log.warning("hub: table %s, result %s does not add up: %s", table, result["id"],
                        flag)
        kept_result = {**result, "hub_round": hub_round, "flag": flag}
        self._results.append(kept_result)
        self._matches.setdefault((table, result["match"]), []).append(kept_result)
        self.results_kept += 1
        return True

    def _not_theirs(self, table: str, result: dict[str, Any], hub_round: int) -> str | None:
        """Why ``result`` is not one table ``table`` may report for round ``hub_round`` of the
        evening (module doc); ``None`` when it is."""
        players = result["players"]
        entered = self.store.players(active_only=False)
        if entered:
            for name in players:
                if name not in entered:
                    twin = look_alike(name, entered)
                    return (f"{name!r} is not an entered player" if twin is None else
                            f"{name!r} is not an entered player but looks like {twin!r}")
        else:
            known = dict.fromkeys(p for r in self._results for p in r["players"])
            for name in players:
                twin = look_alike(name, known)
                if twin is not None:
                    return f"{name!r} looks like {twin!r}, another player of the evening"
        seating = self.store.seating(hub_round) if hub_round else {}
        if seating and sorted(seating.get(table, [])) != sorted(players):
            seated = ", ".join(seating.get(table, [])) or "no one"
            return (f"{', '.join(players)} are not the players the hub seated at table {table} "
                    f"in round {hub_round} ({seated})")
        return None

    def _hub_round(self, table: str, result: dict[str, Any],
                   match: list[dict[str, Any]]) -> int:
        """The round of the evening ``result`` belongs to: its match's, when rounds of the
        match are kept; else the table's own word if the hub seated exactly these players at
        that table in that round; else the round now seated."""
        if match:
            return int(match[0]["hub_round"])
        current = self.store.current_round()[0]
        hint = result.get("hub_round")
        if isinstance(hint, int) and 1 <= hint <= current:
            seats = self.store.seating(hint).get(table)
            if seats is not None and sorted(seats) == sorted(result["players"]):
                return hint
        return current

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
