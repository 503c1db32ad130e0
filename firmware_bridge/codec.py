"""The bridge's frame codec: pure bytes in, frames out, no I/O (the transport lives elsewhere).

A frame is ``SYNC LEN SEQ ID PAYLOAD[LEN] CRC_LO CRC_HI``. The CRC is CRC-16/CCITT-FALSE
(polynomial 0x1021, initial value 0xFFFF, no reflection, no final XOR) over LEN, SEQ, ID and
the payload, sent low byte first. The decoder resynchronises after garbage or a damaged frame:
it drops one byte and looks for the next sync byte, so a frame that follows the damage intact
is never lost. A stray sync byte followed by a plausible length makes the decoder wait for a
frame that never comes; the frames behind it come out with the next bytes, or at once when
the transport reports the line quiet (:meth:`Decoder.idle`): a board sends each frame in one
burst, so a partial frame on a quiet line is garbage.
"""

from __future__ import annotations

import binascii
from dataclasses import dataclass

from firmware_bridge.errors import BridgeError

SYNC = 0xA5
MAX_PAYLOAD = 32
HEADER = 4  # sync, len, seq, id
OVERHEAD = HEADER + 2


class FrameError(BridgeError, ValueError):
    """A frame that cannot be encoded (payload too long, a field out of range)."""


@dataclass(frozen=True, slots=True)
class Frame:
    """One frame on the line: its sequence number, message id and payload."""

    seq: int
    msg_id: int
    payload: bytes = b""


def crc16(data: bytes, crc: int = 0xFFFF) -> int:
    """CRC-16/CCITT-FALSE of ``data`` (``crc16(b"123456789") == 0x29B1``)."""
    return binascii.crc_hqx(data, crc)


def encode(frame: Frame) -> bytes:
    """The bytes on the wire for ``frame``."""
    if len(frame.payload) > MAX_PAYLOAD:
        raise FrameError(f"payload of {len(frame.payload)} bytes; at most {MAX_PAYLOAD} allowed")
    if not (0 <= frame.seq <= 0xFF and 0 <= frame.msg_id <= 0xFF):
        raise FrameError(f"seq {frame.seq} and id {frame.msg_id} must be 0..255")
    body = bytes((len(frame.payload), frame.seq, frame.msg_id)) + frame.payload
    return bytes((SYNC,)) + body + crc16(body).to_bytes(2, "little")


class Decoder:
    """Turns a byte stream into frames, skipping garbage and damaged frames.

    ``dropped`` counts the bytes skipped while looking for a frame and ``crc_errors`` the
    candidate frames whose CRC did not match: a link that is getting worse shows there first.
    """

    def __init__(self) -> None:
        self._buf = bytearray()
        self.dropped = 0
        self.crc_errors = 0

    def idle(self) -> list[Frame]:
        """The line has been quiet: drop what cannot be the start of a frame; return the frames
        that were waiting behind it."""
        frames: list[Frame] = []
        while self._buf:
            del self._buf[:1]
            self.dropped += 1
            frames += self.feed(b"")
        return frames

    def feed(self, data: bytes) -> list[Frame]:
        """Take more bytes; return the frames they complete, in order."""
        buf = self._buf
        buf += data
        frames: list[Frame] = []
        while buf:
            if buf[0] != SYNC:
                start = buf.find(SYNC)
                skip = len(buf) if start < 0 else start
                del buf[:skip]
                self.dropped += skip
                continue
            if len(buf) < 2:
                break
            size = buf[1]
            if size > MAX_PAYLOAD:
                del buf[:1]
                self.dropped += 1
                continue
            end = HEADER + size + 2
            if len(buf) < end:
                break
            body = bytes(buf[1 : HEADER + size])
            if crc16(body) != int.from_bytes(buf[end - 2 : end], "little"):
                self.crc_errors += 1
                del buf[:1]
                self.dropped += 1
                continue
            frames.append(Frame(body[1], body[2], body[3:]))
            del buf[:end]
        return frames
