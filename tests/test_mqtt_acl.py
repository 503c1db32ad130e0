"""The documented Mosquitto set-up (examples/tournament/): with its password file and ACL on a
real broker, a table publishes under its own topics and the hub hears it; a table publishing
under another table's topic is refused by the broker, and the hub's standings do not move."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import paho.mqtt.client as mqtt
from mqtt_harness import Broker, Listener

from sim.tabletop.demo import DemoConfig, run_demo
from table.hub.store import HubStore
from table.mqtt.settings import MqttSettings

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "tournament"
CLI = [sys.executable, "-m", "table.commands.cli"]
USERS = {"hub": "hub-secret", "1": "table-1-secret", "2": "table-2-secret"}


def test_a_table_cannot_publish_under_another_tables_topic(tmp_path: Path) -> None:
    passwd = tmp_path / "uno-table.passwd"
    for i, (user, password) in enumerate(USERS.items()):
        subprocess.run(["mosquitto_passwd", *(["-c"] if i == 0 else []), "-b", str(passwd),
                        user, password], check=True, capture_output=True, timeout=30)
    acl = tmp_path / "uno-table.acl"
    shutil.copy(EXAMPLES / "uno-table.acl", acl)
    broker = Broker(tmp_path, f"password_file {passwd}\nacl_file {acl}")
    broker.start()
    (tmp_path / "hub-password").write_text(USERS["hub"] + "\n", encoding="utf-8")
    hub_toml = (EXAMPLES / "hub.toml").read_text(encoding="utf-8")
    hub_toml = hub_toml.replace('host = "localhost"', f'host = "127.0.0.1"\nport = {broker.port}')
    hub_toml = hub_toml.replace("rounds = 4", "rounds = 0")  # collect only: no seating here
    (tmp_path / "hub.toml").write_text(hub_toml, encoding="utf-8")
    store = tmp_path / "hub.sqlite3"
    listener = Listener(broker.port, ("uno-table/#",), "hub", USERS["hub"])
    hub = subprocess.Popen([*CLI, "hub", "--config", str(tmp_path / "hub.toml"), "--store",
                            str(store)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        listener.wait_for(lambda h: h.topic == "uno-table/hub/standings")

        # Table 1 forges a result of table 2: the broker says no (MQTT 5's reason code).
        answered = threading.Event()
        reasons: list[str] = []
        forger = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5)
        forger.username_pw_set("1", USERS["1"])

        def acked(client: mqtt.Client, userdata: object, mid: int, reason: object,
                  properties: object) -> None:
            reasons.append(str(reason))
            answered.set()

        forger.on_publish = acked
        forger.connect("127.0.0.1", broker.port)
        forger.loop_start()
        forged = {"id": "2/1/1", "table": "2", "match": "1", "round": 1, "players": ["X", "Y"],
                  "winner": "X", "points": {"X": 500, "Y": 0}, "totals": {"X": 500, "Y": 0},
                  "scoring": "international", "match_over": True, "match_winner": "X"}
        forger.publish("uno-table/2/result", json.dumps(forged), qos=1)
        assert answered.wait(30)
        forger.disconnect()
        forger.loop_stop()
        assert reasons == ["Not authorized"]

        # Table 1 under its own topics, logged in as 1: heard.
        settings = MqttSettings("127.0.0.1", broker.port, table="1", username="1",
                                password=USERS["1"])
        run_demo(DemoConfig(players=3, seed=2, fast=True, rounds=1, mqtt=settings), None)
        listener.wait_for(lambda h: h.topic == "uno-table/hub/standings"
                          and h.json()["results"] == 1)
    finally:
        hub.terminate()
        hub.wait(30)
        listener.close()
        broker.stop()
    kept = HubStore(store).results()
    assert [r["table"] for r in kept] == ["1"]
    assert not any(h.topic.startswith("uno-table/2/") for h in listener.seen)
    denied = [line for line in broker.log if "Denied PUBLISH" in line]
    assert len(denied) == 1 and "'uno-table/2/result'" in denied[0]
    # Everything the table itself sent went through: its state, results, Home Assistant device.
    sent = "".join(line for line in broker.log if "Received PUBLISH from uno-table-1" in line)
    assert "homeassistant/sensor/uno_table_1/turn/config" in sent
    assert "'uno-table/1/result'" in sent
