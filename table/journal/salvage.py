"""Reading journal rows out of a damaged SQLite file, page by page.

When SQLite refuses a file (a cut or garbled page makes every query fail with "database disk
image is malformed"), the rows are still in the table's leaf pages. This reads the file format
directly (https://www.sqlite.org/fileformat2.html): every page image of the database file and of
its WAL is scanned for table-leaf cells, overflow chains are followed, and each cell's record is
decoded. Rows are then kept only where the journal's chained checksums agree, so whatever comes
back is exactly what was written.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from pathlib import Path

Row = tuple[int, float, str, str, int]  # id, t, kind, body, crc
LEAF_TABLE = 0x0D
WAL_HEADER = 32
WAL_FRAME_HEADER = 24


def _varint(buf: bytes, at: int) -> tuple[int, int]:
    value = 0
    for i in range(8):
        byte = buf[at + i]
        value = (value << 7) | (byte & 0x7F)
        if byte < 0x80:
            return value, at + i + 1
    return (value << 8) | buf[at + 8], at + 9


def _page_size(data: bytes) -> int:
    if len(data) >= 100 and data.startswith(b"SQLite format 3\x00"):
        size = struct.unpack(">H", data[16:18])[0]
        size = 65536 if size == 1 else size
        if size >= 512 and size & (size - 1) == 0:
            return size
    return 4096


def _record(payload: bytes) -> list[object]:
    header_size, at = _varint(payload, 0)
    types = []
    while at < header_size:
        serial, at = _varint(payload, at)
        types.append(serial)
    values: list[object] = []
    pos = header_size
    for serial in types:
        if serial == 0:
            values.append(None)
        elif serial in (8, 9):
            values.append(serial - 8)
        elif 1 <= serial <= 6:
            width = (1, 2, 3, 4, 6, 8)[serial - 1]
            values.append(int.from_bytes(payload[pos:pos + width], "big", signed=True))
            pos += width
        elif serial == 7:
            values.append(struct.unpack(">d", payload[pos:pos + 8])[0])
            pos += 8
        elif serial >= 12:
            width = (serial - 12) // 2
            raw = payload[pos:pos + width]
            if len(raw) != width:
                raise ValueError("record runs past its payload")
            values.append(raw.decode("utf-8") if serial % 2 else raw)
            pos += width
        else:
            raise ValueError(f"serial type {serial}")
    return values


class _Pages:
    def __init__(self, data: bytes, size: int) -> None:
        self.data, self.size = data, size

    def page(self, number: int) -> bytes:
        start = (number - 1) * self.size
        page = self.data[start:start + self.size]
        if len(page) != self.size:
            raise ValueError(f"page {number} is past the end of the file")
        return page


def _cells(page: bytes, first: bool, pages: _Pages, usable: int) -> Iterator[Row]:
    head = 100 if first else 0
    if page[head] != LEAF_TABLE:
        return
    count = struct.unpack(">H", page[head + 3:head + 5])[0]
    for i in range(count):
        try:
            ptr = struct.unpack(">H", page[head + 8 + 2 * i:head + 10 + 2 * i])[0]
            size, at = _varint(page, ptr)
            rowid, at = _varint(page, at)
            payload = _payload(page, at, size, pages, usable)
            values = _record(payload)
            if len(values) != 5:
                continue
            _, t, kind, body, crc = values
            if isinstance(t, int):
                t = float(t)
            if isinstance(t, float) and isinstance(kind, str) and isinstance(body, str) \
                    and isinstance(crc, int):
                yield rowid, t, kind, body, crc
        except (ValueError, IndexError, struct.error, UnicodeDecodeError):
            continue


def _payload(page: bytes, at: int, size: int, pages: _Pages, usable: int) -> bytes:
    most = usable - 35
    if size <= most:
        return page[at:at + size]
    least = ((usable - 12) * 32 // 255) - 23
    local = least + (size - least) % (usable - 4)
    if local > most:
        local = least
    out = bytearray(page[at:at + local])
    nxt = struct.unpack(">I", page[at + local:at + local + 4])[0]
    seen = set()
    while len(out) < size:
        if nxt == 0 or nxt in seen:
            raise ValueError("overflow chain broken")
        seen.add(nxt)
        over = pages.page(nxt)
        nxt = struct.unpack(">I", over[:4])[0]
        out += over[4:usable]
    return bytes(out[:size])


def page_rows(path: Path) -> dict[int, list[Row]]:
    """Every row found in any page image of ``path`` and its WAL, by id (a row may appear in
    several images; an id may have stale versions from freed pages)."""
    data = path.read_bytes() if path.exists() else b""
    size = _page_size(data)
    reserved = data[20] if len(data) >= 100 and data.startswith(b"SQLite format 3") else 0
    usable = size - reserved
    pages = _Pages(data, size)
    found: dict[int, list[Row]] = {}

    def add(row: Row) -> None:
        versions = found.setdefault(row[0], [])
        if row not in versions:
            versions.append(row)

    for number in range(1, len(data) // size + 1):
        for row in _cells(pages.page(number), number == 1, pages, usable):
            add(row)
    wal = Path(str(path) + "-wal")
    if wal.exists():
        raw = wal.read_bytes()
        frame = WAL_FRAME_HEADER + size
        for start in range(WAL_HEADER, len(raw) - frame + 1, frame):
            image = raw[start + WAL_FRAME_HEADER:start + frame]
            number = struct.unpack(">I", raw[start:start + 4])[0]
            for row in _cells(image, number == 1, pages, usable):
                add(row)
    return found
