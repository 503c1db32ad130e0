"""The message table (``messages.toml``): names, ids and payload layouts of both directions.

:func:`pack` and :func:`unpack` turn a message name and its fields into a :class:`Frame`
and back. Numbers are little-endian; a ``bytes`` field takes the rest of the payload.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from importlib import resources
from typing import Any

from firmware_bridge.codec import MAX_PAYLOAD, SYNC, Frame, FrameError

WIDTHS = {"u8": 1, "u16": 2, "u32": 4}
Value = int | bytes


@dataclass(frozen=True, slots=True)
class MessageType:
    """One row of the message table: name, id, sender, fields and what it means."""

    name: str
    msg_id: int
    sender: str  # board | host
    fields: tuple[tuple[str, str], ...]
    doc: str


@dataclass(frozen=True, slots=True)
class Message:
    """A message decoded: its name, field values and sequence number."""

    name: str
    fields: dict[str, Value]
    seq: int = 0

    def num(self, key: str) -> int:
        """The number in field ``key`` (a TypeError when it holds bytes)."""
        value = self.fields[key]
        if not isinstance(value, int):
            raise TypeError(f"{self.name}.{key} is not a number")
        return value

    def raw(self, key: str) -> bytes:
        """The bytes in field ``key`` (a TypeError when it holds a number)."""
        value = self.fields[key]
        if not isinstance(value, bytes):
            raise TypeError(f"{self.name}.{key} is not bytes")
        return value


def load_table() -> dict[str, Any]:
    """The message table, ``messages.toml``, as parsed TOML."""
    text = resources.files("firmware_bridge").joinpath("messages.toml").read_text("utf-8")
    return tomllib.loads(text)


TABLE = load_table()
PROTOCOL_VERSION: int = TABLE["protocol"]["version"]
MAX_READERS: int = TABLE["protocol"]["max_readers"]
ACK_STATUS: dict[str, int] = TABLE["ack_status"]
TYPES: dict[str, MessageType] = {
    m["name"]: MessageType(
        m["name"], m["id"], m["from"], tuple((f, t) for f, t in m["fields"]), m["doc"]
    )
    for m in TABLE["message"]
}
BY_ID: dict[int, MessageType] = {t.msg_id: t for t in TYPES.values()}
assert TABLE["protocol"]["sync"] == SYNC and TABLE["protocol"]["max_payload"] == MAX_PAYLOAD


def pack(name: str, seq: int = 0, **values: Value) -> Frame:
    """The frame of message ``name`` with these field values."""
    mtype = TYPES.get(name)
    if mtype is None:
        raise FrameError(f"unknown message {name!r}; known: {', '.join(TYPES)}")
    if set(values) != {f for f, _ in mtype.fields}:
        want = ", ".join(f for f, _ in mtype.fields) or "none"
        raise FrameError(f"message {name} takes the fields {want}; got {', '.join(values)}")
    out = bytearray()
    for field, kind in mtype.fields:
        value = values[field]
        if kind == "bytes":
            if not isinstance(value, bytes):
                raise FrameError(f"{name}.{field} must be bytes")
            out += value
        else:
            if not isinstance(value, int) or not 0 <= value < 1 << (8 * WIDTHS[kind]):
                raise FrameError(f"{name}.{field} must be a {kind}; got {value!r}")
            out += value.to_bytes(WIDTHS[kind], "little")
    return Frame(seq, mtype.msg_id, bytes(out))


def unpack(frame: Frame) -> Message | None:
    """The message in ``frame``; None for an unknown id or a payload of the wrong size."""
    mtype = BY_ID.get(frame.msg_id)
    if mtype is None:
        return None
    values: dict[str, Value] = {}
    pos, data = 0, frame.payload
    for field, kind in mtype.fields:
        if kind == "bytes":
            values[field] = data[pos:]
            pos = len(data)
        else:
            width = WIDTHS[kind]
            if pos + width > len(data):
                return None
            values[field] = int.from_bytes(data[pos : pos + width], "little")
            pos += width
    if pos != len(data):
        return None
    return Message(mtype.name, values, frame.seq)
