"""A simulated table on an MQTT broker: ``uno-table demo --mqtt HOST:PORT --table ID`` publishes
what a daemon with that ``[mqtt]`` would (its events, state, results and Home Assistant device).

The simulated table takes the daemon's step and emits the daemon's events on its own event
stream; the broadcast subscribes to it as a daemon's does. A demo keeps no journal, so its outbox
lives in memory: the demo waits for the broker to acknowledge every result before it ends.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from sim.tabletop.pads import PAD
from table.journal.outbox import Outbox
from table.mqtt.broadcast import TableBroadcast
from table.mqtt.settings import MqttSettings
from table.runtime.event_stream import EventStream

ONLINE_WAIT = 30.0  # seconds a demo waits for its sender to reach the broker, at most


class DemoBroadcast:
    """The MQTT broadcast of one simulated table, subscribed to its stream by :meth:`attach`."""

    def __init__(self, settings: MqttSettings, names: Sequence[str], scoring: str) -> None:
        self.outbox = Outbox(":memory:")
        self.broadcast = TableBroadcast(settings, names, [PAD], self.outbox,
                              match=f"demo{int(time.time() * 1000)}", scoring=scoring)
        self._detach: Callable[[], None] | None = None

    def attach(self, stream: EventStream) -> None:
        """Publish what the table's ``stream`` tells."""
        self._detach = stream.subscribe(self.broadcast.on_event)

    def __enter__(self) -> DemoBroadcast:
        self.broadcast.start()
        # Play starts once the table is online (or the broker is known to be away), as a
        # daemon's once its readers are: a fast demo's first events are not published into
        # a connection still being made, where they would be lost.
        self.broadcast.publisher.answered.wait(ONLINE_WAIT)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._detach is not None:
            self._detach()
        self.broadcast.close(timeout=30)

    def delivered(self) -> tuple[int, int]:
        """Results (acknowledged by the broker, still waiting)."""
        return self.outbox.counts()
