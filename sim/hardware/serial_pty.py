"""Serial readers simulated on real pseudo-terminals, with the faults real ones show.

:class:`SerialPty` stands in for a USB reader: a pty reachable by a stable symbolic link (as
``/dev/serial/by-id/...`` is), which can be unplugged (the device disappears: the reader's next
read fails) and plugged back (a new device under the same link). The functions below make the
byte streams of the faults: line noise, lines split across writes, lines cut short, RDM6300
frames with a bad checksum.
"""

from __future__ import annotations

import os
import random
from collections.abc import Iterable, Sequence
from pathlib import Path

from table.readers.formats import rdm6300_frame


class SerialPty:
    """A pseudo-terminal standing in for a USB reader, reachable by a stable link."""

    def __init__(self, link: Path) -> None:
        self.link = link
        self.master = self.slave = -1
        self.plug()

    @property
    def plugged(self) -> bool:
        """Whether the port is plugged in."""
        return self.master >= 0

    def plug(self) -> None:
        """Plug the reader (back) in: a new device under the same stable name."""
        if self.plugged:
            return
        self.master, self.slave = os.openpty()
        if self.link.is_symlink() or self.link.exists():
            self.link.unlink()
        self.link.symlink_to(os.ttyname(self.slave))

    def unplug(self) -> None:
        """Pull the reader out: the device goes away under the program reading it."""
        if not self.plugged:
            return
        os.close(self.master)
        os.close(self.slave)
        self.master = self.slave = -1

    def send(self, data: bytes) -> None:
        """Write all of ``data`` (blocking while the reading side catches up)."""
        view = memoryview(data)
        while view:
            view = view[os.write(self.master, view) :]

    def send_in_pieces(self, data: bytes, rng: random.Random, largest: int = 300) -> int:
        """Write ``data`` in pieces of random sizes (lines split across writes); returns how
        many pieces were written."""
        pieces = 0
        i = 0
        while i < len(data):
            n = rng.randint(1, largest)
            self.send(data[i : i + n])
            i += n
            pieces += 1
        return pieces

    def close(self) -> None:
        """Unplug the port and remove its link."""
        self.unplug()
        if self.link.is_symlink():
            self.link.unlink()


# ------------------------------------------------------------------------- faults


def noise(rng: random.Random, size: int) -> bytes:
    """``size`` random bytes: line ends, hex digits and binary garbage alike."""
    return rng.randbytes(size)


def truncated_line(line: str, rng: random.Random) -> bytes:
    """A UID line cut short and ended (a reader reset mid-line), on a line of its own. It is cut
    after its first to seventh hex digit: less than the four bytes of the shortest UID, so no
    UID can be read from it."""
    digits = [i for i, c in enumerate(line) if c in "0123456789ABCDEFabcdef"]
    if line.upper().startswith("UID"):
        digits = [i for i in digits if i > 2]  # the D of the prefix is not part of the UID
    cut = digits[rng.randrange(0, 7)] + 1
    return ("\n" + line[:cut] + "\n").encode()


def bad_rdm6300_frame(uid10: str) -> bytes:
    """An RDM6300 frame for ``uid10`` whose checksum is wrong."""
    frame = bytearray(rdm6300_frame(uid10))
    checksum = int(frame[11:13].decode(), 16) ^ 0x5A
    frame[11:13] = f"{checksum:02X}".encode()
    return bytes(frame)


def interleave(rng: random.Random, valid: Sequence[bytes], noise_bytes: int) -> bytes:
    """``valid`` records in order, with ``noise_bytes`` of noise spread before them."""
    share = noise_bytes // max(len(valid), 1)
    return b"".join(noise(rng, share) + record for record in valid)


def mixed(rng: random.Random, good: Iterable[bytes], bad: Iterable[bytes]) -> list[bytes]:
    """Bad records inserted at random places among the good ones (which keep their order)."""
    out = list(good)
    for record in bad:
        out.insert(rng.randrange(len(out) + 1), record)
    return out
