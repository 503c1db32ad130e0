"""Reader backends chosen by name, in the style of gpiozero's pin factories.

A backend is registered under its config ``kind`` as ``"module:function"``; the module is
imported only when a reader of that kind is made, so hardware-free code never imports a
hardware library. Every builder takes a :class:`ReaderSpec` and the sink that receives the
reader's reports, and returns a :class:`Reader` (``start`` and ``stop``).

The ``sim`` kind is an in-process virtual pad: the simulator and the tests call
:meth:`SimReader.place` and :meth:`SimReader.remove`, and it reports through the same
debounce as a real reader.
"""

from __future__ import annotations

import importlib
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from table.errors import TableError
from table.inputs import ROLES as ROLES
from table.inputs import ReaderStatus
from table.readers.base import Debounce, Sink


class ReaderError(TableError, ValueError):
    """A reader that cannot be made from its configuration."""


@dataclass(frozen=True)
class ReaderSpec:
    """One ``[[readers]]`` entry of the configuration, validated for its kind by the builder."""

    name: str
    kind: str
    role: str = "play"
    seat: str | None = None
    port: str | None = None  # serial kinds and the bridge
    channel: int | None = None  # bridge: which reader of the board
    bus: int = 0  # mfrc522
    device: int = 0  # mfrc522: SPI chip select (CE0 = 0, CE1 = 1)
    reset_pin: int | None = None  # mfrc522: BCM number of the RST line
    extra: Mapping[str, Any] = field(default_factory=dict)  # other keys, kind-specific
    # The UIDs of the table's deck (given by the daemon, never by the file): a polling backend
    # takes any other UID for noise.
    known: Callable[[str], bool] | None = field(default=None, compare=False)


class Reader(Protocol):
    """What the table needs of a reader of any backend: a name, and to start and stop it."""

    name: str

    def start(self) -> None:
        """Begin reading: reports go to the reader's sink from now on."""

    def stop(self, timeout: float = 5.0) -> None:
        """Stop reading and let go of the device, waiting at most ``timeout`` seconds."""


Builder = Callable[[ReaderSpec, Sink], Reader]

KINDS: dict[str, str] = {
    "bridge": "table.readers.bridge:make_bridge_reader",
    "serial-line": "table.readers.factory:_serial",
    "rdm6300": "table.readers.factory:_serial",
    "sim": "table.readers.factory:_sim",
    "mfrc522": "table.readers.mfrc522_reader:build",
}


def register_kind(kind: str, target: str) -> None:
    """Register a backend: ``target`` is ``"package.module:builder"``."""
    KINDS[kind] = target


def make_reader(spec: ReaderSpec, sink: Sink) -> Reader:
    """Make (not start) the reader ``spec`` describes."""
    target = KINDS.get(spec.kind)
    if target is None:
        raise ReaderError(
            f"reader {spec.name}: unknown kind {spec.kind!r}; allowed: {', '.join(sorted(KINDS))}"
        )
    module, _, func = target.partition(":")
    builder: Builder = getattr(importlib.import_module(module), func)
    return builder(spec, sink)


def _serial(spec: ReaderSpec, sink: Sink) -> Reader:
    from table.readers.serial_reader import SerialReader

    if not spec.port:
        raise ReaderError(f"reader {spec.name}: kind {spec.kind} needs a port")
    return SerialReader(spec.name, spec.port, spec.kind, sink)


class SimReader:
    """A virtual pad: tags are placed and removed by calls, reported like a real reader's."""

    def __init__(
        self, name: str, sink: Sink, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.name, self.sink, self.clock = name, sink, clock
        self.debounce = Debounce(hold=float("inf"), misses=1)
        self._lock = threading.Lock()

    def start(self) -> None:
        """Say the simulated reader is live (it has no device to open)."""
        self.sink(ReaderStatus(self.name, "live", self.clock()))

    def stop(self, timeout: float = 5.0) -> None:
        """Nothing to let go of."""
        return None

    def place(self, uid: str) -> None:
        """A tag comes to rest on the pad (reported once until it is removed)."""
        with self._lock:
            for report in self.debounce.sighting(self.name, uid.upper(), self.clock()):
                self.sink(report)

    def remove(self) -> None:
        """The tag is taken off the pad (reported as a lift)."""
        with self._lock:
            for report in self.debounce.empty(self.name, self.clock()):
                self.sink(report)

    def tap(self, uid: str) -> None:
        """Place and lift at once: one read."""
        self.place(uid)
        self.remove()


def _sim(spec: ReaderSpec, sink: Sink) -> Reader:
    return SimReader(spec.name, sink)
