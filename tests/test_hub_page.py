"""The hub's standings page (a real uvicorn on a free port) and the seating a table's daemon
says aloud."""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path

from daemon_harness import reap, start, write_config
from mqtt_harness import Broker, Listener, broker, free_port  # noqa: F401  (the fixture)

from sim.hardware.ptys import PtyReader
from table.hub.config import HubPlan
from table.hub.page import serve
from table.hub.service import Hub
from table.hub.store import HubStore
from table.mqtt.settings import MqttSettings


def test_the_page_and_its_event_stream_follow_the_results(tmp_path: Path) -> None:
    hub = Hub(MqttSettings("127.0.0.1", free_port()), HubStore(tmp_path / "hub.sqlite3"),
              HubPlan(scoring="japanese"))
    served = serve(hub, 0, "127.0.0.1")
    base = f"http://127.0.0.1:{served.port}"
    try:
        with urllib.request.urlopen(base + "/", timeout=30) as page:
            assert "Standings" in page.read().decode() and page.status == 200
        with urllib.request.urlopen(base + "/api/events", timeout=30) as stream:
            assert stream.headers["Content-Type"].startswith("text/event-stream")
            assert stream.readline() == b"id: 1\n"
            first = json.loads(stream.readline().removeprefix(b"data: "))
            assert first["results"] == 0 and first["ranking"] == []
            stream.readline()
            result = {"id": "2/7/1", "table": "2", "match": "7", "round": 1,
                      "players": ["Aki", "Ken"], "winner": "Aki", "points": {"Aki": 12,
                      "Ken": -12}, "totals": {"Aki": 12, "Ken": -12}, "scoring": "japanese"}
            hub._heard("uno-table/2/result", json.dumps(result).encode())
            assert stream.readline() == b"id: 2\n"
            second = json.loads(stream.readline().removeprefix(b"data: "))
        assert [(r["player"], r["points"]) for r in second["ranking"]] == \
            [("Aki", 12), ("Ken", -12)]
        with urllib.request.urlopen(base + "/api/standings", timeout=30) as api:
            assert json.loads(api.read())["ranking"] == second["ranking"]
    finally:
        served.close()


def test_a_daemon_says_its_table_of_the_hubs_seating(broker: Broker,  # noqa: F811
                                                    tmp_path: Path) -> None:
    mqtt = f'\n[mqtt]\nhost = "127.0.0.1"\nport = {broker.port}\ntable = "3"\n'
    config = write_config(tmp_path, ("Aki", "Ken", "Mio"), extra=mqtt)
    listener = Listener(broker.port, ("uno-table/#",))
    seating = {"round": 2, "tables": {"1": ["Rin", "Sou"], "3": ["Aki", "Ken", "Mio", "Sam"]},
               "ends_at": None}
    listener.client.publish("uno-table/hub/assign", json.dumps(seating), qos=1, retain=True)
    pad = PtyReader(tmp_path / "pad")
    try:
        daemon, _ = start(config, pad)
        def assignment(e: dict[str, object]) -> bool:
            return e["type"] == "announcement" and e["key"] == "table-assignment"

        said = next((e for e in daemon.seen if assignment(e)), None) or \
            daemon.wait_for(assignment)
        assert said["text"] == "Table 3: Aki, Ken, Mio and Sam."
        event = listener.wait_for(lambda h: h.topic == "uno-table/3/event"
                                  and h.json()["type"] == "assignment")
        assert event.json()["players"] == ["Aki", "Ken", "Mio", "Sam"]
        # The table's state is there from the start, before anyone taps.
        state = listener.wait_for(lambda h: h.topic == "uno-table/3/state").json()
        assert state["state"]["round"] == 1 and state["scores"] == {"Aki": 0, "Ken": 0, "Mio": 0}
        assert daemon.stop() == 0
    finally:
        reap()
        pad.close()
        listener.close()
