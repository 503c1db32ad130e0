"""ISO/IEC 14443-3 type A framing, without any I/O: CRC_A, the BCC check byte and the
cascade levels a reader walks to learn a 4-, 7- or 10-byte UID.

Shared by the ``mfrc522`` backend and the simulated tags of ``sim/``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

REQA: Final = 0x26  # request, answered by tags in IDLE (7-bit short frame)
WUPA: Final = 0x52  # wake-up, answered by tags in IDLE and HALT (7-bit short frame)
HLTA: Final = (0x50, 0x00)  # halt, followed by its CRC_A; never answered
SEL: Final = (0x93, 0x95, 0x97)  # the select code of cascade levels 1, 2 and 3
NVB_ANTICOLL: Final = 0x20  # "send me your whole UID part of this level"
NVB_SELECT: Final = 0x70  # "the whole UID part of this level follows"
CT: Final = 0x88  # cascade tag: more UID bytes follow at the next level
SAK_CASCADE: Final = 0x04  # SAK bit: the UID is not complete yet


def crc_a(data: Iterable[int]) -> bytes:
    """CRC_A of ``data`` (preset 0x6363), low byte first, as sent after a frame."""
    crc = 0x6363
    for value in data:
        b = (value ^ crc) & 0xFF
        b = (b ^ (b << 4)) & 0xFF
        crc = (crc >> 8) ^ (b << 8) ^ (b << 3) ^ (b >> 4)
    return bytes((crc & 0xFF, crc >> 8))


def bcc(data: Iterable[int]) -> int:
    """The check byte that follows a UID part: XOR of its four bytes."""
    out = 0
    for value in data:
        out ^= value
    return out


def cascade_parts(uid: bytes) -> list[bytes]:
    """The four-byte UID part a tag sends at each cascade level (CT first when more follow)."""
    if len(uid) == 4:
        return [uid]
    if len(uid) == 7:
        return [bytes((CT, *uid[:3])), uid[3:]]
    if len(uid) == 10:
        return [bytes((CT, *uid[:3])), bytes((CT, *uid[3:6])), uid[6:]]
    raise ValueError(f"an ISO 14443A UID has 4, 7 or 10 bytes, not {len(uid)}")
