"""A simulated table on an MQTT broker: ``uno-table demo --mqtt HOST:PORT --table ID`` publishes
what a daemon with that ``[mqtt]`` would (its events, state, results and Home Assistant device).

The daemon's events come from its event stream; here the same events are made from the simulated
table's referee, in its thread, and go to the same feed. A demo keeps no journal, so its outbox
lives in memory: the demo waits for the broker to acknowledge every result before it ends.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from sim.table.virtual import PAD
from table.journal.outbox import Outbox
from table.journal.records import verdict
from table.mqtt.feed import TableFeed
from table.mqtt.settings import MqttSettings
from table.readers.base import TagRead
from table.referee.announcements import render
from table.referee.referee import Outcome, Press, Referee
from table.referee.views import state_event_json
from table.runtime.events import EventStream, StreamType
from table.runtime.loop import Input

ONLINE_WAIT = 30.0  # seconds a demo waits for its sender to reach the broker, at most


class DemoFeed:
    """The feed of one simulated table; :meth:`watch` is the table's ``watch``."""

    def __init__(self, settings: MqttSettings, names: Sequence[str], scoring: str,
                 lang: str = "en") -> None:
        self.outbox = Outbox(":memory:")
        self.feed = TableFeed(settings, names, [PAD], self.outbox,
                              match=f"demo{int(time.time() * 1000)}", scoring=scoring)
        self.stream = EventStream(None, tap=self.feed.event)
        self.names = list(names)
        self.lang = lang
        self.inputs = 0

    def __enter__(self) -> DemoFeed:
        self.feed.start()
        # Play starts once the table is online (or the broker is known to be away), as a
        # daemon's once its readers are: a fast demo's first events are not published into
        # a connection still being made, where they would be lost.
        self.feed.publisher.answered.wait(ONLINE_WAIT)
        return self

    def __exit__(self, *exc: object) -> None:
        self.feed.close(timeout=30)

    def watch(self, item: Input, out: Outcome, referee: Referee) -> None:
        if not isinstance(item, TagRead | Press):
            return
        self.inputs += 1
        word = verdict(out)
        if isinstance(item, TagRead):
            self.stream.emit(StreamType.TAG, reader=item.reader)
            where: dict[str, str] = {"input": "tag", "reader": item.reader}
        else:
            self.stream.emit(StreamType.PRESS, seat=self.names[item.seat], button=item.button)
            where = {"input": "press", "seat": self.names[item.seat]}
        self.stream.emit(StreamType.VERDICT, n=self.inputs, verdict=word, reason=out.reason,
                         **where)
        if word != "rejected":
            self.stream.emit(StreamType.STATE, n=self.inputs, **state_event_json(referee.state))
            self.feed.after(referee.state)
        for ann in out.announcements:
            self.stream.emit(StreamType.ANNOUNCEMENT, key=ann.key, text=render(ann, self.lang))
        self.feed.flush()

    def delivered(self) -> tuple[int, int]:
        """Results (acknowledged by the broker, still waiting)."""
        return self.outbox.counts()
