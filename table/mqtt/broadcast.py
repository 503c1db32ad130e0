"""What one table publishes as it plays: its public events, its state (retained), its results
(through the outbox) and its Home Assistant device; and the hub's table assignments it hears.

The broadcast subscribes to the table's event stream: :meth:`TableBroadcast.on_event` is told of
every event in the referee's thread and never waits for the network.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from table.journal.outbox import Outbox
from table.mqtt.discovery import STATUS_TOPIC, discovery_configs
from table.mqtt.payloads import PUBLIC_EVENTS, round_results
from table.mqtt.publisher import Message
from table.mqtt.sender_link import RemotePublisher
from table.mqtt.settings import MqttSettings
from table.rules import State

log = logging.getLogger(__name__)

HUB_ASSIGN = "hub/assign"
HUB_AVAILABILITY = "hub/availability"
Assigned = Callable[[int, list[str]], None]  # the hub's round, the players of this table


class TableBroadcast:
    """One table's public face on the broker, told of its events by :meth:`on_event`."""

    def __init__(
        self,
        settings: MqttSettings,
        players: Sequence[str],
        readers: Sequence[str],
        outbox: Outbox,
        match: str | int,
        on_assign: Assigned | None = None,
        scoring: str = "international",
    ) -> None:
        self.settings = settings
        self.players = list(players)
        self.outbox = outbox
        self.match = str(match)
        self.on_assign = on_assign
        self.lowest = scoring == "lowest"
        self.hub_round: int | None = None
        self.readers: dict[str, str] = dict.fromkeys(readers, "unknown")
        self._lock = threading.Lock()
        self._state: dict[str, Any] | None = None
        self._done = 0  # results of this match already in the outbox
        self.publisher = RemotePublisher(
            settings, f"{settings.prefix}-{settings.table}",
            availability=settings.topic("availability"), outbox=outbox,
            subscriptions=(STATUS_TOPIC, f"{settings.prefix}/{HUB_ASSIGN}",
                           f"{settings.prefix}/{HUB_AVAILABILITY}"),
            on_message=self._heard,
        )
        for topic, config in discovery_configs(settings, self.players, list(readers)).items():
            self.publisher.remember(Message(topic, config, 1, True))

    def start(self) -> None:
        """Start the sender process."""
        self.publisher.start()

    def close(self, timeout: float = 5.0) -> None:
        """Stop the sender once it has sent what it can within ``timeout`` seconds."""
        self.publisher.close(timeout)

    # --- the referee's thread -----------------------------------------------------------------

    def on_event(self, obj: Mapping[str, Any]) -> None:
        """One event of the table's stream (a subscriber of
        :class:`table.runtime.event_stream.EventStream`): public ones are published; a ``state``
        event's game state (its ``extra``) keeps each round newly finished as a result; a new
        match's id names the next results; ``settled`` sends what the input queued."""
        kind = obj.get("type")
        extra: Mapping[str, Any] = getattr(obj, "extra", {})
        if kind == "settled":  # table.runtime.event_stream.SETTLED
            self._flush()
        elif kind == "new-match" and "match" in extra:
            self.new_match(extra["match"])
        if kind not in PUBLIC_EVENTS:
            return
        self._event(obj)
        if kind == "state" and "state" in extra:
            self._after(extra["state"])

    def _event(self, obj: Mapping[str, Any]) -> None:
        kind = obj.get("type")
        with self._lock:
            if kind == "reader":
                self.readers[str(obj["reader"])] = str(obj["state"])
            if kind in ("state", "resumed"):
                self._state = {k: obj[k] for k in ("state", "scores", "match_over") if k in obj}
                self._state["leader"] = _leader(obj, self.lowest)
            if kind in ("state", "resumed", "reader") and self._state is not None:
                state = {**self._state, "readers": dict(self.readers), "table": self.settings.table}
                self.publisher.remember(Message(self.settings.topic("state"), state, 0, True),
                                        wake=False)
        # The kind as a plain str: the sender's pipe carries pickles, and a plain str pickles
        # in a fraction of the time of the stream's enum member.
        self.publisher.offer(self.settings.topic("event"), {**obj, "type": str(kind)}, wake=False)

    def _flush(self) -> None:
        """Publish the events queued so far (once a tap's verdict, state and announcements are
        out: the stream's ``settled``)."""
        self.publisher.wake()

    def _after(self, s: State) -> None:
        """After a verdict: each round newly finished goes into the outbox, then is sent (the
        publisher's thread writes it there; the journal already holds the round, and a start
        keeps the results of the match it resumes again)."""
        if len(s.results) <= self._done:
            return
        self.publisher.kick(round_results(self.settings.table, self.match, s, self.hub_round,
                                          start=self._done))
        self._done = len(s.results)

    def new_match(self, match: str | int, s: State | None = None) -> None:
        """A match begins (or is resumed: ``s``, whose finished rounds are kept again, which
        does nothing for those already kept)."""
        self.match = str(match)
        self._done = 0
        if s is not None:
            self._after(s)

    # --- paho's thread ------------------------------------------------------------------------

    def _heard(self, topic: str, payload: bytes) -> None:
        if topic == STATUS_TOPIC:
            if payload.strip() == b"online":
                self.publisher.republish()
            return
        if topic.endswith(HUB_AVAILABILITY):
            # A hub that (re)starts may have missed results sent before it first connected:
            # this match's results go again (it counts each id once).
            if payload.strip() == b"online":
                self.publisher.send_again(f"{self.settings.table}/{self.match}/")
            return
        try:
            assign = json.loads(payload)
            round_no = int(assign["round"])
            seats = assign["tables"].get(self.settings.table)
        except (ValueError, KeyError, TypeError, AttributeError):
            log.warning("mqtt: a table assignment that cannot be read: %.80r", payload)
            return
        if seats is None or round_no == self.hub_round:
            return
        self.hub_round = round_no
        if self.on_assign is not None:
            self.on_assign(round_no, [str(p) for p in seats])


def _leader(obj: Mapping[str, Any], lowest: bool) -> str | None:
    """First by score (lowest first under ``lowest`` scoring); None before anyone scored."""
    scores: dict[str, int] = obj.get("scores") or {}
    if not any(scores.values()):
        return None
    return min(scores, key=lambda name: scores[name] if lowest else -scores[name])
