"""What serial readers send, decoded without any I/O.

``serial-line``: one UID per line in hex, with or without separators or a prefix
(``04A1B2C3``, ``04 A1 B2 C3``, ``UID: 04:A1:B2:C3``). ``rdm6300``: 125 kHz modules sending
0x02, ten hex digits, two checksum hex digits (XOR of the five data bytes), 0x03.
Both decoders take arbitrary noise without raising and never report a tag they did not see.
"""

from __future__ import annotations

import re
from typing import Final

_PREFIX: Final = re.compile(r"^\s*(?:[A-Za-z][A-Za-z ]*[:=]\s*)?(?P<uid>[0-9A-Fa-f:\- ]+?)\s*$")
_HEX_PAIR: Final = re.compile(r"^[0-9A-F]+$")


def parse_uid_line(line: str) -> str | None:
    """The UID on one line, upper-case hex without separators, or ``None`` if the line holds no
    whole UID (4 to 10 bytes)."""
    m = _PREFIX.match(line)
    if m is None:
        return None
    text = m.group("uid")
    parts = re.split(r"[:\- ]+", text.strip())
    if len(parts) > 1 and any(len(p) != 2 for p in parts):
        return None  # separated, but not byte by byte: a torn or garbled line
    uid = "".join(parts).upper()
    if not _HEX_PAIR.match(uid) or len(uid) % 2 or not 8 <= len(uid) <= 20:
        return None
    return uid


class LineDecoder:
    """Bytes in, UIDs out: reassembles lines split across reads, drops garbage lines."""

    MAX_LINE: Final = 128

    def __init__(self) -> None:
        self._buffer = bytearray()
        self._skipping = False  # inside an over-long line: noise until the next line end

    def feed(self, data: bytes) -> list[str]:
        """The UIDs of the lines completed by ``data`` (over-long lines skipped as noise)."""
        out: list[str] = []
        for byte in data:
            if byte in (0x0A, 0x0D):
                if self._buffer and not self._skipping:
                    uid = parse_uid_line(self._buffer.decode("ascii", errors="replace"))
                    if uid is not None:
                        out.append(uid)
                self._buffer.clear()
                self._skipping = False
            elif self._skipping:
                continue
            elif len(self._buffer) < self.MAX_LINE:
                self._buffer.append(byte)
            else:
                self._buffer.clear()
                self._skipping = True
        return out


class Rdm6300Decoder:
    """Bytes in, UIDs (ten hex digits) out; frames with a bad checksum are dropped."""

    def __init__(self) -> None:
        self._frame: bytearray | None = None
        self.bad_frames = 0

    def feed(self, data: bytes) -> list[str]:
        """The UIDs of the frames completed by ``data`` (a bad checksum counted, not read)."""
        out: list[str] = []
        for byte in data:
            if byte == 0x02:
                self._frame = bytearray()
            elif self._frame is None:
                continue
            elif byte == 0x03:
                uid = self._check(bytes(self._frame))
                if uid is not None:
                    out.append(uid)
                self._frame = None
            elif len(self._frame) < 12:
                self._frame.append(byte)
            else:
                self._frame = None
                self.bad_frames += 1
        return out

    def _check(self, frame: bytes) -> str | None:
        try:
            text = frame.decode("ascii").upper()
            values = bytes.fromhex(text)
        except (UnicodeDecodeError, ValueError):
            self.bad_frames += 1
            return None
        if len(values) != 6:
            self.bad_frames += 1
            return None
        checksum = 0
        for v in values[:5]:
            checksum ^= v
        if checksum != values[5]:
            self.bad_frames += 1
            return None
        return text[:10]


def rdm6300_frame(uid10: str) -> bytes:
    """The frame an RDM6300 sends for a ten-hex-digit tag (for simulators and tests)."""
    data = bytes.fromhex(uid10)
    checksum = 0
    for v in data:
        checksum ^= v
    return b"\x02" + (uid10.upper() + f"{checksum:02X}").encode() + b"\x03"
