"""The frames on the pipes between a table and its sender process (:mod:`table.mqtt.sender`):
a 4-byte length, then a pickle. Both ends are the same program; nothing else writes there.
"""

from __future__ import annotations

import pickle
import struct
from typing import IO, Any, Final

HEADER: Final = struct.Struct(">I")


def frame(obj: Any) -> bytes:
    """One object as a frame: its pickle's length in 4 bytes, then the pickle."""
    body = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    return HEADER.pack(len(body)) + body


def read_frame(stream: IO[bytes]) -> Any:
    """The next object on ``stream``; None when the other end has closed it."""
    header = stream.read(HEADER.size)
    if len(header) < HEADER.size:
        return None
    (size,) = HEADER.unpack(header)
    body = stream.read(size)
    if len(body) < size:
        return None
    return pickle.loads(body)
