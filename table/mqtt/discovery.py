"""Home Assistant MQTT discovery: one device per table, its sensors read from the retained state.

Each sensor is a retained config at ``homeassistant/sensor/<node>/<object>/config``
(Home Assistant's discovery topic layout), with a unique id, the table's availability topic and
the device it belongs to, so a dashboard shows the table with no YAML written. Home Assistant
announces ``online`` on ``homeassistant/status`` when it starts; the table then publishes the
configs again.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, Final

from table import __version__
from table.mqtt.settings import MqttSettings

DISCOVERY_PREFIX: Final = "homeassistant"
STATUS_TOPIC: Final = f"{DISCOVERY_PREFIX}/status"


def node_id(settings: MqttSettings) -> str:
    """The table's node: ``uno_table_<table>``, letters, digits and _ only."""
    return re.sub(r"[^A-Za-z0-9_]", "_", f"{settings.prefix}_{settings.table}")


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9_]", "_", text.lower()) or "x"


def discovery_configs(settings: MqttSettings, players: Sequence[str],
                      readers: Sequence[str]) -> dict[str, dict[str, Any]]:
    """Topic to config of every sensor of the table."""
    node = node_id(settings)
    state = settings.topic("state")
    device = {
        "identifiers": [node],
        "name": f"UNO table {settings.table}",
        "manufacturer": "uno-table",
        "model": "RFID UNO referee",
        "sw_version": __version__,
    }
    sensors: list[tuple[str, str, str, dict[str, Any]]] = [
        ("turn", "Turn", "{{ value_json.state.turn or 'none' }}",
         {"icon": "mdi:account-arrow-right"}),
        ("top_card", "Top card", "{{ value_json.state.top or 'none' }}", {"icon": "mdi:cards"}),
        ("color", "Colour", "{{ value_json.state.color or 'none' }}", {"icon": "mdi:palette"}),
        ("round", "Round", "{{ value_json.state.round }}", {"icon": "mdi:counter"}),
        ("leader", "Leader", "{{ value_json.leader or 'none' }}", {"icon": "mdi:trophy"}),
    ]
    for i, name in enumerate(players):
        template = f"{{{{ value_json.scores[{name!r}] }}}}"
        sensors.append((f"score_{i + 1}_{_slug(name)}", f"Score {name}", template,
                        {"unit_of_measurement": "points", "state_class": "measurement",
                         "icon": "mdi:scoreboard"}))
    for name in readers:
        template = f"{{{{ value_json.readers.get({name!r}, 'unknown') }}}}"
        sensors.append((f"reader_{_slug(name)}", f"Reader {name}", template,
                        {"icon": "mdi:nfc-variant"}))
    configs: dict[str, dict[str, Any]] = {}
    for object_id, title, template, extra in sensors:
        configs[f"{DISCOVERY_PREFIX}/sensor/{node}/{object_id}/config"] = {
            "name": title,
            "unique_id": f"{node}_{object_id}",
            "object_id": f"{node}_{object_id}",
            "state_topic": state,
            "value_template": template,
            "availability_topic": settings.topic("availability"),
            "payload_available": "online",
            "payload_not_available": "offline",
            "device": device,
            **extra,
        }
    return configs
