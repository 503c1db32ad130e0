"""A table on a real Mosquitto: what it publishes, what it keeps to itself, its Home Assistant
device, its ``[mqtt]`` settings, and a publisher that never holds up the referee."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from mqtt_harness import Broker, Listener, broker  # noqa: F401  (the fixture)

from sim.tabletop.demo import DemoConfig, run_demo
from table.commands.cli import main
from table.mqtt.discovery import discovery_configs
from table.mqtt.publisher import Publisher
from table.mqtt.settings import MqttConfigError, MqttSettings, parse_mqtt

CARD = re.compile(r"^(R|Y|G|B)(\d|S|R|\+2)$|^W(\+4)?$")


def demo(port: int, table: str = "7", rounds: int = 2, names: str = "Aki,Ken,Mio",
         seed: int = 1) -> tuple[int, str]:
    """``uno-table demo --mqtt`` in a process of its own: its exit code and output."""
    done = subprocess.run(
        [sys.executable, "-m", "table.commands.cli", "demo", "--fast", "--rounds", str(rounds),
         "--seed", str(seed), "--mqtt", f"127.0.0.1:{port}", "--table", table, "--names", names],
        capture_output=True, text=True, timeout=300)
    return done.returncode, done.stdout + done.stderr


def test_a_table_publishes_state_events_results_and_says_offline_at_a_clean_stop(
        broker: Broker) -> None:  # noqa: F811
    listener = Listener(broker.port, ("uno-table/#",))
    code, out = demo(broker.port)
    assert code == 0
    assert "mqtt: table 7 on 127.0.0.1" in out and "2 results delivered" in out
    final = listener.wait_for(lambda h: h.topic == "uno-table/7/availability"
                              and h.payload == b"offline")
    seen = listener.drain()
    results = [h.json() for h in seen if h.topic == "uno-table/7/result"]
    ids = {r["id"] for r in results}
    assert len(ids) == 2 and all(i.startswith("7/") and i.endswith(("/1", "/2")) for i in ids)
    last = next(r for r in results if r["round"] == 2)
    board = re.search(r"scores: (.*)", out)
    assert board is not None
    assert ", ".join(f"{k} {v}" for k, v in last["totals"].items()) == board.group(1)
    kinds = {h.json()["type"] for h in seen if h.topic == "uno-table/7/event"}
    assert {"verdict", "state", "announcement"} <= kinds
    assert seen.index(final) == len(seen) - 1 or all(
        h.topic != "uno-table/7/availability" for h in seen[seen.index(final) + 1:])
    listener.close()

    # A newcomer gets the retained state and availability at once.
    late = Listener(broker.port, ("uno-table/7/state", "uno-table/7/availability"))
    state = late.wait_for(lambda h: h.topic == "uno-table/7/state")
    assert state.retain and state.json()["scores"] == last["totals"]
    assert set(state.json()["state"]) >= {"round", "turn", "top", "hands", "finished"}
    assert late.wait_for(lambda h: h.topic.endswith("availability")).payload == b"offline"
    late.close()


def _cards_in_lists(value: Any, found: list[str]) -> None:
    if isinstance(value, dict):
        for key, inner in value.items():
            if key == "hands":
                assert all(isinstance(n, int) for n in inner.values()), value
            _cards_in_lists(inner, found)
    elif isinstance(value, list):
        found.extend(v for v in value if isinstance(v, str) and CARD.match(v.split("#")[0]))
        for inner in value:
            _cards_in_lists(inner, found)


def test_no_hand_contents_leave_the_table(broker: Broker) -> None:  # noqa: F811
    """Seat pads and a draw shoe: the referee knows every hand, and none is published."""
    listener = Listener(broker.port, ("#",))
    settings = MqttSettings("127.0.0.1", broker.port, table="5")
    cfg = DemoConfig(players=4, seed=3, fast=True, rounds=2, hands="full", mqtt=settings)
    result = run_demo(cfg, None)
    listener.wait_for(lambda h: h.topic == "uno-table/5/availability" and h.payload == b"offline")
    seen = listener.drain()
    assert len(seen) > 100 and result.results == (2, 0)
    cards: list[str] = []
    for heard in seen:
        payload = heard.payload.decode()
        if payload in ("online", "offline"):
            continue
        _cards_in_lists(json.loads(payload), cards)
    assert cards == []  # a list of cards is a hand; none is ever published


def test_home_assistant_discovery_parses_as_home_assistant_does_and_comes_back(
        broker: Broker) -> None:  # noqa: F811
    listener = Listener(broker.port, ("homeassistant/#", "uno-table/#"))
    settings = MqttSettings("127.0.0.1", broker.port, table="3")
    feed_players = ["Aki", "Ken", "Mio"]
    configs = discovery_configs(settings, feed_players, ["pad"])
    from table.journal.outbox import Outbox
    from table.mqtt.broadcast import TableBroadcast

    feed = TableBroadcast(settings, feed_players, ["pad"], Outbox(":memory:"), 1)
    feed.start()
    for topic in configs:
        listener.wait_for(lambda h, t=topic: h.topic == t)  # type: ignore[misc]
    unique = set()
    for topic, _ in configs.items():
        heard = listener.wait_for(lambda h, t=topic: h.topic == t)  # type: ignore[misc]
        config = heard.json()
        # What Home Assistant's MQTT sensor schema requires and uses.
        assert re.fullmatch(r"homeassistant/sensor/[A-Za-z0-9_-]+/[A-Za-z0-9_-]+/config", topic)
        assert config["state_topic"] == "uno-table/3/state"
        assert config["availability_topic"] == "uno-table/3/availability"
        assert config["payload_available"] == "online"
        assert config["device"]["identifiers"] == ["uno-table_3".replace("-", "_")]
        assert "{{" in config["value_template"] and config["name"]
        unique.add(config["unique_id"])
    assert len(unique) == len(configs) == 5 + 3 + 1
    titles = {json.loads(json.dumps(c))["name"] for c in configs.values()}
    assert {"Turn", "Top card", "Round", "Leader", "Score Aki", "Reader pad"} <= titles

    # Home Assistant restarts: it says online, the table sends its device again.
    first = next(iter(configs))
    before = sum(1 for h in listener.drain() if h.topic == first)
    listener.client.publish("homeassistant/status", b"online")
    listener.wait_for(lambda h: h.topic == first and
                      sum(1 for x in listener.seen if x.topic == first) > before)
    feed.close()
    listener.close()


def test_the_publisher_never_waits_for_the_network() -> None:
    """Nothing takes the messages (the publisher's thread is not even running): the queue
    holds what it can and the rest are dropped and counted, and offer() returns each time."""
    from mqtt_harness import free_port

    settings = MqttSettings("127.0.0.1", free_port(), table="9")  # nobody listens there
    publisher = Publisher(settings, "t9", capacity=100)
    took = [publisher.offer("uno-table/9/event", {"n": i}) for i in range(5000)]
    assert took.count(True) == 100 and publisher.dropped == 4900
    publisher.close(timeout=0.1)  # a publisher never started closes without a fuss


@pytest.mark.parametrize(("section", "message"), [
    ({"host": "h", "table": "1", "port": 0}, "mqtt.port: 0 is not allowed; allowed: a whole "
     "number 1..65535"),
    ({"host": "h"}, "mqtt.table: missing; allowed: this table's id"),
    ({"host": "h", "table": "a/b"}, "mqtt.table: 'a/b' is not allowed"),
    ({"host": "h", "table": "1", "username": "t1"}, "mqtt.password_file: missing"),
    ({"host": "h", "table": "1", "username": "t1", "password_file": "nope"},
     "mqtt.password_file: "),
    ({"host": "h", "table": "1", "tls": "yes"}, "mqtt.tls: 'yes' is not allowed; allowed: true"),
    ({"host": "h", "table": "1", "qos": 2}, "mqtt.qos: unknown key; allowed: host, port"),
    ({"table": "1"}, "mqtt.host: missing"),
])
def test_mqtt_settings_refused_in_one_line(tmp_path: Path, section: dict[str, Any],
                                           message: str) -> None:
    with pytest.raises(MqttConfigError) as caught:
        parse_mqtt(section, tmp_path / "table.toml")
    text = str(caught.value)
    assert message in text and "\n" not in text and text.startswith(str(tmp_path))


def test_a_password_file_and_tls_default_port(tmp_path: Path) -> None:
    (tmp_path / "secret").write_text("s3cret\n", encoding="utf-8")
    got = parse_mqtt({"host": "h", "table": "t1", "username": "t1", "password_file": "secret",
                      "tls": True}, tmp_path / "table.toml")
    assert (got.password, got.port, got.prefix) == ("s3cret", 8883, "uno-table")


def test_demo_mqtt_options_refused_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--fast", "--mqtt", "127.0.0.1:1883"]) == 2
    assert capsys.readouterr().err.strip() == \
        "uno-table: --mqtt needs --table ID (this table's id on the broker)"
    assert main(["demo", "--fast", "--mqtt", "nowhere:99999", "--table", "1"]) == 2
    assert "write HOST:PORT" in capsys.readouterr().err
