"""Serial readers (``serial-line`` and ``rdm6300``) on pyserial, surviving unplug and replug.

The port is opened by its stable path (``/dev/serial/by-id/...``), so a replugged reader is
found again under the same name. States: connecting -> live -> lost -> connecting..., with a
backoff between attempts (``waiting`` while nothing is at the path: a reader not plugged in
yet); every change is reported to the sink, which announces it.
"""

from __future__ import annotations

import errno
import fcntl
import logging
import os
import time
from collections.abc import Callable

from table.readers.base import Debounce, ReaderThread, Sink
from table.readers.formats import LineDecoder, Rdm6300Decoder

log = logging.getLogger(__name__)

DECODERS: dict[str, Callable[[], LineDecoder | Rdm6300Decoder]] = {
    "serial-line": LineDecoder,
    "rdm6300": Rdm6300Decoder,
}
BAUD = {"serial-line": 115200, "rdm6300": 9600}
# What opening a port another program holds fails with: its lock (pyserial's exclusive=True
# takes one too) or the terminal's exclusive mode (TIOCEXCL).
IN_USE = (errno.EAGAIN, errno.EWOULDBLOCK, errno.EBUSY)


def in_use(port: str) -> bool:
    """Whether another program holds the serial ``port`` (False when it cannot be opened at
    all). Opened without waiting for a carrier and closed at once."""
    try:
        fd = os.open(port, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
    except OSError as exc:
        return exc.errno in IN_USE
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as exc:
        return exc.errno in IN_USE
    finally:
        os.close(fd)
    return False


class SerialReader(ReaderThread):
    """A reader whose UIDs arrive as lines or frames on a serial port (a UID module)."""
    def __init__(
        self,
        name: str,
        port: str,
        kind: str,
        sink: Sink,
        *,
        backoff: tuple[float, ...] = (0.2, 0.5, 1.0, 2.0),
        hold: float = 1.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if kind not in DECODERS:
            raise ValueError(f"unknown serial reader kind {kind!r}: use {', '.join(DECODERS)}")
        super().__init__(name, sink, clock)
        self.port, self.kind = port, kind
        self.backoff = backoff
        self.debounce = Debounce(hold=hold)

    def _run(self) -> None:
        import serial

        attempt = 0
        held = False  # the port is another program's: said once, until it is ours
        while not self._stop.is_set():
            self._status(self._trying())
            try:
                # Exclusive: a second program on the port would take some of its bytes.
                port = serial.Serial(self.port, BAUD[self.kind], timeout=0.1, exclusive=True)
            except (serial.SerialException, OSError) as exc:
                wait = self.backoff[min(attempt, len(self.backoff) - 1)]
                attempt += 1
                if exc.errno in IN_USE and not held:
                    log.warning("reader %s: %s is in use by another program; waiting for it",
                                self.name, self.port)
                held = exc.errno in IN_USE
                log.debug("reader %s: cannot open %s (%s)", self.name, self.port, exc)
                self._not_opened(self.port)
                self._stop.wait(wait)
                continue
            attempt, held = 0, False
            self._status("live")
            decoder = DECODERS[self.kind]()
            try:
                while not self._stop.is_set():
                    # What is waiting, or one byte: a read returns as soon as a line comes.
                    data = port.read(max(1, port.in_waiting))
                    for uid in decoder.feed(data):
                        for report in self.debounce.sighting(self.name, uid, self.clock()):
                            self.sink(report)
            except (serial.SerialException, OSError) as exc:
                log.warning("reader %s lost: %s", self.name, exc)
                self._status("lost", str(exc))
            finally:
                port.close()
