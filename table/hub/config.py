"""``hub.toml``: the evening's plan and the broker, checked in full with one-line errors.

```toml
[hub]
players = ["Aki", "Ken", "Mio", "Sam"]
tables = ["1", "2"]         # the tables' ids ([mqtt] table of each Pi)
format = "random"           # round-robin | random | swiss
swiss_from = 3              # from this round on, Swiss by standing (0: never)
table_size = 4
rounds = 4                  # rounds of the evening (0: seat only by hand, hub next)
round_minutes = 40          # the round timer (0: none)
scoring = "international"   # how the ranking reads points: lowest ranks the lowest first
seed = 1
league = false              # true: a league hub, reading PREFIX/VENUE/TABLE/result

[mqtt]
host = "localhost"
```
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from table.errors import TableError
from table.files.text import read_toml
from table.hub.messages import SCORINGS
from table.hub.names import look_alike
from table.hub.seating import FORMATS
from table.mqtt.settings import MqttConfigError, MqttSettings, parse_mqtt

HUB_KEYS: Final = ("players", "tables", "format", "swiss_from", "table_size", "rounds",
                   "round_minutes", "scoring", "seed", "league")


class HubConfigError(TableError, ValueError):
    """A hub.toml that cannot run. ``str()`` is ``FILE: key: what; allowed: ...``."""


@dataclass(frozen=True)
class HubPlan:
    """A tournament as hub.toml describes it: who plays, at which tables, how seated and scored."""
    players: tuple[str, ...] = ()
    tables: tuple[str, ...] = ()
    format: str = "random"
    swiss_from: int = 0
    table_size: int = 4
    rounds: int = 0
    round_minutes: float = 0.0
    scoring: str = "international"
    seed: int = 0
    league: bool = False  # results of every venue's tables: PREFIX/VENUE/TABLE/result
    mqtt: MqttSettings | None = field(default=None)

    def format_of(self, round_no: int) -> str:
        """The seating format of round ``round_no``: Swiss from ``swiss_from`` on."""
        if self.swiss_from and round_no >= self.swiss_from:
            return "swiss"
        return self.format


def load_hub_config(path: Path) -> HubPlan:
    """Read and check the hub.toml at ``path``. Raises :class:`HubConfigError`."""
    data = read_toml(path, "hub configuration", HubConfigError)
    return parse_hub_config(data, path)


def parse_hub_config(data: Mapping[str, Any], path: Path) -> HubPlan:
    """Check a hub.toml already read (``path`` only names it in errors) and make its plan."""
    def fail(key: str, what: str, allowed: str) -> HubConfigError:
        return HubConfigError(f"{path}: {key}: {what}; allowed: {allowed}")

    for key in data:
        if key not in ("hub", "mqtt"):
            raise fail(key, "unknown section", "[hub], [mqtt]")
    hub = data.get("hub", {})
    if not isinstance(hub, dict):
        raise fail("hub", "not a table", "a [hub] table")
    for key in hub:
        if key not in HUB_KEYS:
            raise fail(f"hub.{key}", "unknown key", ", ".join(HUB_KEYS))
    values: dict[str, Any] = {}
    for key in ("players", "tables"):
        if key in hub:
            names = hub[key]
            ok = isinstance(names, list) and all(isinstance(n, str) and n.strip() for n in names)
            if not ok or len(set(names)) != len(names):
                raise fail(f"hub.{key}", f"{names!r} is not allowed", "a list of different names")
            twins = [(n, look_alike(n, names[:i])) for i, n in enumerate(names)]
            if key == "players" and any(twin for _, twin in twins):
                name, twin = next((n, t) for n, t in twins if t)
                raise fail("hub.players", f"{name!r} looks like {twin!r}",
                           "names a reader tells apart")
            values[key] = tuple(names)
    if "format" in hub:
        if hub["format"] not in FORMATS:
            raise fail("hub.format", f"{hub['format']!r} is not allowed", ", ".join(FORMATS))
        values["format"] = hub["format"]
    if "scoring" in hub:
        if hub["scoring"] not in SCORINGS:
            raise fail("hub.scoring", f"{hub['scoring']!r} is not allowed", ", ".join(SCORINGS))
        values["scoring"] = hub["scoring"]
    for key, low, high in (("swiss_from", 0, 1000), ("table_size", 2, 10), ("rounds", 0, 1000),
                           ("seed", 0, 2**31), ("round_minutes", 0, 24 * 60)):
        if key in hub:
            value = hub[key]
            number = isinstance(value, int | float) if key == "round_minutes" else \
                isinstance(value, int)
            if isinstance(value, bool) or not number or not low <= value <= high:
                raise fail(f"hub.{key}", f"{value!r} is not allowed", f"a number {low}..{high}")
            values[key] = value
    if "league" in hub:
        if not isinstance(hub["league"], bool):
            raise fail("hub.league", f"{hub['league']!r} is not allowed", "true, false")
        values["league"] = hub["league"]
    if "mqtt" in data:
        if not isinstance(data["mqtt"], dict):
            raise fail("mqtt", "not a table", "an [mqtt] table")
        try:
            values["mqtt"] = parse_mqtt(data["mqtt"], path, need_table=False)
        except MqttConfigError as exc:
            raise HubConfigError(str(exc)) from None
    return HubPlan(**values)
