"""Every message the hub reads, checked before anything of it is kept: a result on
``PREFIX/TABLE/result`` and an availability on ``PREFIX/TABLE/availability`` (in a league,
``PREFIX/VENUE/TABLE/...``), and a result row of the hub's own store written by an older version.

Pure functions, no I/O. A message that fails is refused whole with a :class:`MessageError`
whose ``str()`` is one line: what is wrong, where, and what is allowed. What passes is a new
dict holding only the known keys, each of its type and in its range, so that nothing a table
sends beyond them reaches the store, the standings or a page. A result's id is never taken from
the table: it is made from the topic's table and the result's match and round.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Final

from table.errors import TableError
from table.hub.names import look_alike
from table.mqtt.settings import LEVEL

MAX_RESULT_BYTES: Final = 16 * 1024  # a result of 10 players with long names is under 2 KiB
MAX_AVAILABILITY_BYTES: Final = 16  # "online" or "offline"
AVAILABILITY: Final = ("online", "offline")
SCORINGS: Final = ("international", "japanese", "lowest", "musician")
MAX_PLAYERS: Final = 10
MAX_NAME: Final = 100  # characters of a player's name
MAX_ROUND: Final = 100_000
MAX_POINTS: Final = 1_000_000  # one round's points, either sign
MAX_TOTAL: Final = 100_000_000  # a player's total in a match, either sign
RESERVED: Final = "hub"  # the hub's own topic level: never a table


class MessageError(TableError, ValueError):
    """A message the hub refuses; ``str()`` is one line: what, and what is allowed."""


def _refuse_constant(name: str) -> Any:
    raise MessageError(f"{name} is not a number the hub takes; allowed: finite integers")


def parse_json(payload: bytes, limit: int) -> Any:
    """``payload`` as JSON, at most ``limit`` bytes, UTF-8, no ``NaN`` or ``Infinity``."""
    if len(payload) > limit:
        raise MessageError(f"{len(payload)} bytes; allowed: at most {limit}")
    try:
        return json.loads(payload.decode("utf-8"), parse_constant=_refuse_constant)
    except UnicodeDecodeError:
        raise MessageError("not UTF-8; allowed: a JSON object in UTF-8") from None
    except (json.JSONDecodeError, RecursionError) as exc:
        raise MessageError(f"not JSON ({str(exc)[:60]}); allowed: a JSON object") from None
    except ValueError as exc:  # an integer of more digits than Python converts
        raise MessageError(f"not JSON ({str(exc)[:60]}); allowed: a JSON object") from None


def topic_table(topic: str, prefix: str, league: bool) -> tuple[str, str, str]:
    """``(key, table, leaf)`` of a topic the hub subscribes to: the table as the hub keeps it
    (``VENUE/TABLE`` in a league), the table's own id, and ``result`` or ``availability``."""
    rest = topic[len(prefix) + 1:].split("/") if topic.startswith(prefix + "/") else []
    levels = 3 if league else 2
    if len(rest) != levels or rest[-1] not in ("result", "availability"):
        raise MessageError(f"topic {topic[:80]!r} is not one the hub reads; allowed: "
                           f"{prefix}/{'VENUE/' if league else ''}TABLE/result or .../availability")
    *names, leaf = rest
    for name in names:
        if not LEVEL.match(name) or name == RESERVED:
            raise MessageError(f"topic {topic[:80]!r}: {name[:40]!r} is not a table or venue id; "
                               f"allowed: 1 to 64 letters, digits, - or _, not {RESERVED!r}")
    return "/".join(names), names[-1], leaf


def availability(payload: bytes) -> str:
    """``online`` or ``offline``; anything else is refused."""
    text = payload[:MAX_AVAILABILITY_BYTES + 1].decode("utf-8", errors="replace").strip()
    if len(payload) > MAX_AVAILABILITY_BYTES or text not in AVAILABILITY:
        raise MessageError(f"availability {text[:20]!r} ({len(payload)} bytes); allowed: "
                           + " or ".join(AVAILABILITY))
    return text


def _integer(value: Any, key: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        shown = repr(value)[:40]
        raise MessageError(f"{key}: {shown} is not allowed; allowed: an integer {low}..{high}")
    return value


def _name(value: Any, key: str) -> str:
    ok = isinstance(value, str) and 0 < len(value) <= MAX_NAME and value == value.strip() \
        and value.isprintable()
    if not ok:
        raise MessageError(f"{key}: {repr(value)[:40]} is not allowed; allowed: a name of 1 to "
                           f"{MAX_NAME} printable characters")
    return str(value)


def _scores(value: Any, key: str, players: list[str], bound: int) -> dict[str, int]:
    if not isinstance(value, dict) or sorted(value) != sorted(players):
        raise MessageError(f"{key}: {repr(value)[:60]} is not allowed; allowed: an object with "
                           "one integer for each of the players")
    return {p: _integer(value[p], f"{key}.{p}", -bound, bound) for p in players}


def check_result(data: Any, key: str, table: str) -> dict[str, Any]:
    """The result ``data`` heard on the topic of table ``table`` (kept as ``key``), checked
    whole; a new dict of the known keys, with ``id`` made from ``key``, match and round."""
    if not isinstance(data, dict):
        raise MessageError(f"a {type(data).__name__}; allowed: a JSON object")
    for need in ("table", "match", "round", "players", "winner", "points", "totals", "scoring"):
        if need not in data:
            raise MessageError(f"{need}: missing; allowed: a result as a table publishes it")
    if data["table"] != table:
        raise MessageError(f"table: {repr(data['table'])[:40]} on the topic of table {table!r}; "
                           "allowed: the topic's own table")
    match = data["match"]
    if not isinstance(match, str) or not LEVEL.match(match):
        raise MessageError(f"match: {repr(match)[:40]} is not allowed; allowed: 1 to 64 "
                           "letters, digits, - or _")
    round_no = _integer(data["round"], "round", 1, MAX_ROUND)
    players = data["players"]
    if not isinstance(players, list) or not 2 <= len(players) <= MAX_PLAYERS:
        raise MessageError(f"players: {repr(players)[:60]} is not allowed; allowed: a list of "
                           f"2 to {MAX_PLAYERS} names")
    players = [_name(p, "players") for p in players]
    if len(set(players)) != len(players):
        raise MessageError(f"players: {players!r} names someone twice; allowed: different names")
    for i, name in enumerate(players):
        twin = look_alike(name, players[:i])
        if twin is not None:
            raise MessageError(f"players: {name[:40]!r} looks like {twin[:40]!r}; allowed: names "
                               "a reader tells apart")
    if data["winner"] not in players:
        raise MessageError(f"winner: {repr(data['winner'])[:40]} is not at the table; "
                           "allowed: one of the players")
    if data["scoring"] not in SCORINGS:
        raise MessageError(f"scoring: {repr(data['scoring'])[:40]} is not allowed; allowed: "
                           + ", ".join(SCORINGS))
    over = data.get("match_over", False)
    if not isinstance(over, bool):
        raise MessageError(f"match_over: {repr(over)[:20]} is not allowed; allowed: true, false")
    match_winner = data.get("match_winner")
    if (match_winner not in players) if over else match_winner is not None:
        raise MessageError(f"match_winner: {repr(match_winner)[:40]} is not allowed; allowed: "
                           "one of the players when match_over, else null")
    hint = data.get("hub_round")
    return {
        "id": f"{key}/{match}/{round_no}", "table": key, "match": match, "round": round_no,
        "players": players, "winner": data["winner"],
        "points": _scores(data["points"], "points", players, MAX_POINTS),
        "totals": _scores(data["totals"], "totals", players, MAX_TOTAL),
        "scoring": data["scoring"], "match_over": over, "match_winner": match_winner,
        "hub_round": None if hint is None else _integer(hint, "hub_round", 0, MAX_ROUND),
    }


def read_result(payload: bytes, key: str, table: str) -> dict[str, Any]:
    """A result as heard on the broker: capped, parsed strictly, checked."""
    return check_result(parse_json(payload, MAX_RESULT_BYTES), key, table)


def same_result(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    """Whether two checked results of one table, match and round say the same (the table's
    ``hub_round`` hint aside: it is the hub's to decide)."""
    return all(a[k] == b[k] for k in a if k != "hub_round") and set(a) == set(b)


def stored_result(body: object, key: str) -> dict[str, Any]:
    """A result row of the store (``body`` as written, ``key`` its table column), checked as a
    result heard; a row an older version kept without checking is refused like a message."""
    if not isinstance(body, str):
        raise MessageError(f"a stored {type(body).__name__}; allowed: a JSON object as text")
    data = parse_json(body.encode("utf-8", errors="replace"), MAX_RESULT_BYTES)
    table = key.rsplit("/", 1)[-1]
    if isinstance(data, dict) and data.get("table") == key:
        data = {**data, "table": table}  # written with the hub's key (league rows)
    checked = check_result(data, key, table)
    if isinstance(data, dict) and data.get("id") != checked["id"]:
        raise MessageError(f"id: {repr(data.get('id'))[:40]} is not its table, match and round "
                           f"{checked['id']!r}")
    return checked
