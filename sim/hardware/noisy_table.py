"""A table of MFRC522 pads on a simulated clock, each a chip model with radio noise, each polled
by the real reader backend (:class:`~table.readers.mfrc522_reader.Mfrc522Reader` on the real
``mfrc522`` package), for the tests, ``bench/readers.py`` and a simulated table.

Time is simulated: an SPI transfer takes :data:`TRANSFER_S`, a wait of the backend takes what it
asks for, and between rounds of polls the clock jumps to the next round. So an evening of polls
runs in seconds, and a run is the same for the same seed whatever the machine's load.

    with NoisyTable([Pad("pile"), Pad("Aki", role="seat")], RadioNoise("harsh", seed=1)) as t:
        tag = t.place("pile", "04A1B2C3")
        t.run(0.3)
        t.remove("pile", tag)
        t.reads  # the confirmed reads, as the referee would get them
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any

from sim.hardware.mfrc522_model import Mfrc522Model, VirtualTag
from sim.hardware.radio_noise import COUNTERFEIT, RadioNoise
from sim.hardware.rpi_fakes import SimBoard, simulated_pi
from table.inputs import ReaderStatus, Report, TagLifted, TagRead

TRANSFER_S = 50e-6  # one 2-byte register access on a Pi at 1 MHz, system call included
RST_PINS = (25, 24, 23, 22, 27, 4, 6, 13, 26, 12)  # BCM: none of SPI0's or SPI1's pins
CS_PINS = (5, 2, 3, 14, 15, 0, 1)  # GPIO chip selects of the pads after the fourth


@dataclass(frozen=True)
class Pad:
    """One pad of the table: its reader's name and role, and the pads it sits close to."""

    name: str
    role: str = "play"
    near: tuple[str, ...] = ()  # pads close enough for cross-talk (both ways)
    counterfeit: bool = False
    holds_miso: bool = False


@dataclass
class SimClock:
    """Simulated seconds."""

    now: float = 0.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        """Move on by ``seconds`` (never back)."""
        self.now += max(0.0, seconds)


@dataclass
class PadState:
    """One pad's chip and the reader polling it."""

    pad: Pad
    chip: Mfrc522Model
    reader: Any  # Mfrc522Reader (imported once the simulated Pi is in place)
    lockups_reset: int = 0


@dataclass
class NoisyTable:
    """Pads on SPI buses: the first two on SPI0's CE0 and CE1, the next two on SPI1's, the
    others on GPIO chip selects of SPI0; each with its own reset line."""

    pads: Sequence[Pad]
    noise: RadioNoise | None = None
    poll: float = 0.015
    fields: str = "always"
    known: Callable[[str], bool] | None = None
    confirm: int | None = None
    clock: SimClock = field(default_factory=SimClock)
    reports: list[Report] = field(default_factory=list)
    state: dict[str, PadState] = field(default_factory=dict)
    seen: dict[str, tuple[str, float]] = field(default_factory=dict)  # the readers' cards
    _stack: ExitStack = field(default_factory=ExitStack)

    def __enter__(self) -> NoisyTable:
        clock = self.clock
        nodes = ((0, 0), (0, 1), (1, 0), (1, 1))
        board = SimBoard(nodes, clock=clock, on_transfer=lambda: clock.advance(TRANSFER_S))
        self.board = board
        self._stack.enter_context(simulated_pi(board))
        from table.readers.mfrc522_reader import Mfrc522Reader

        for i, pad in enumerate(self.pads):
            rst = RST_PINS[i]
            bus, ce, cs = (i // 2, i % 2, None) if i < 4 else (0, None, CS_PINS[i - 4])
            version = COUNTERFEIT if pad.counterfeit else 0x92
            chip = board.add_chip(bus=bus, ce=ce, cs_pin=cs, reset_pin=rst, version=version)
            chip.noise = self.noise
            chip.holds_miso = pad.holds_miso
            reader = Mfrc522Reader(
                pad.name, self.reports.append, bus=bus, device=ce or 0, cs_pin=cs, reset_pin=rst,
                poll=self.poll, role=pad.role, confirm=self.confirm, fields=self.fields,
                known=self.known, table=self.seen, clock=clock, pause=clock.advance,
            )  # fmt: skip
            self.state[pad.name] = PadState(pad, chip, reader)
        for pad in self.pads:
            for other in pad.near:
                a, b = self.state[pad.name].chip, self.state[other].chip
                a.neighbours.append(b)
                b.neighbours.append(a)
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        for state in self.state.values():
            state.reader.port.close()
        self._stack.close()

    # ------------------------------------------------------------------ hands

    def chip(self, pad: str) -> Mfrc522Model:
        """The chip model under a pad."""
        return self.state[pad].chip

    def place(self, pad: str, uid: str) -> VirtualTag:
        """Put a card on a pad (it stays until removed)."""
        return self.state[pad].chip.place(VirtualTag.of(uid))

    def remove(self, pad: str, tag: VirtualTag) -> None:
        """Take a card off a pad."""
        self.state[pad].chip.remove(tag)

    # ------------------------------------------------------------------ time

    def run(self, seconds: float) -> None:
        """Poll every pad in turn, a round every ``poll`` seconds, for ``seconds``."""
        end = self.clock.now + seconds
        while self.clock.now < end:
            start = self.clock.now
            for state in self.state.values():
                self._poll(state)
            self.clock.advance(start + self.poll - self.clock.now)

    def run_until(self, done: Callable[[], bool], limit: float) -> bool:
        """Poll in rounds until ``done()`` or ``limit`` seconds have passed."""
        end = self.clock.now + limit
        while self.clock.now < end:
            if done():
                return True
            self.run(self.poll)
        return done()

    def _poll(self, state: PadState) -> None:
        from table.readers.mfrc522_reader import ChipHung

        reader = state.reader
        try:
            reader.poll_once()
        except ChipHung as exc:
            reader._hung(exc)
            state.lockups_reset += 1
        except OSError as exc:
            if reader.state == "live":
                reader._status("lost", str(exc))

    # ------------------------------------------------------------------ what came out

    @property
    def reads(self) -> list[TagRead]:
        """The confirmed reads of every pad, in order."""
        return [r for r in self.reports if isinstance(r, TagRead)]

    def reads_on(self, pad: str) -> list[str]:
        """The UIDs confirmed on one pad, in order."""
        return [r.uid for r in self.reads if r.reader == pad]

    @property
    def lifts(self) -> list[TagLifted]:
        """The lifts reported."""
        return [r for r in self.reports if isinstance(r, TagLifted)]

    @property
    def statuses(self) -> list[ReaderStatus]:
        """The readers' changes of state."""
        return [r for r in self.reports if isinstance(r, ReaderStatus)]

    def readers(self) -> Iterator[Any]:
        """The readers, in the order of the pads."""
        return (s.reader for s in self.state.values())

