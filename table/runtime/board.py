"""``[board]`` of the configuration (which Pi, its audio, its UART, how several readers share
MISO) and the configuration's wiring checked by the electrical rules (table/circuit/): what
they refuse, the configuration check refuses, one line naming the pin, the rule and the fix."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Protocol

from table.circuit import check
from table.circuit.boards import AUDIO, BOARDS, MISO_PATHS
from table.circuit.model import Circuit, Finding
from table.circuit.pi_wiring import Control, PiSetup, SpiReader, build
from table.readers.factory import ReaderSpec

BOARD_KEYS: Final = ("model", "audio", "uart", "miso")
DEFAULT_RESET: Final = 25  # the mfrc522 backend's default reset pin


@dataclass(frozen=True, slots=True)
class BoardSettings:
    """``[board]``: the Pi model, where its sound goes, whether its UART is on, and how
    several readers on one SPI bus share MISO."""

    model: str = "pi4"
    audio: str = "jack"
    uart: bool = False
    miso: str = "direct"


def parse_board(c: Any, board: Mapping[str, Any]) -> BoardSettings:
    """``[board]`` checked by the configuration's checker ``c`` (one line a problem)."""
    c.keys("board", board, BOARD_KEYS)
    model = c.choice("board.model", board.get("model", "pi4"), tuple(BOARDS))
    default_audio = "jack" if BOARDS[model].audio_jack else "hdmi"
    audio = c.choice("board.audio", board.get("audio", default_audio), AUDIO)
    if audio == "jack" and not BOARDS[model].audio_jack:
        allowed = ", ".join(a for a in AUDIO if a != "jack")
        raise c.fail("board.audio", f"the {BOARDS[model].name} has no audio jack", allowed)
    uart = c.flag("board.uart", board.get("uart", False))
    miso = c.choice("board.miso", board.get("miso", "direct"), MISO_PATHS)
    return BoardSettings(model, audio, uart, miso)


class _Seat(Protocol):
    @property
    def seat(self) -> int: ...
    @property
    def buttons(self) -> Mapping[str, int]: ...
    @property
    def led(self) -> int | None: ...


def setup_of(readers: Sequence[ReaderSpec], seats: Sequence[_Seat], buzzer: int | None,
             players: Sequence[str], board: BoardSettings) -> PiSetup:
    """What a configuration's readers, seat controls, buzzer and ``[board]`` put on the Pi's
    header."""
    spi = []
    for i, r in enumerate(readers):
        if r.kind != "mfrc522":
            continue
        cs = r.extra.get("cs_pin")
        spi.append(SpiReader(f"readers[{i}] ({r.name})", r.bus or 0, r.device or 0,
                             DEFAULT_RESET if r.reset_pin is None else r.reset_pin,
                             cs if isinstance(cs, int) else None))
    controls: list[Control] = []
    if buzzer is not None:
        controls.append(Control("controls.buzzer", "buzzer", buzzer))
    for seat in seats:
        where = f"controls.seats.{players[seat.seat]}"
        controls += [Control(f"{where}.{b}", "button", pin) for b, pin in seat.buttons.items()]
        if seat.led is not None:
            controls.append(Control(f"{where}.led", "led", seat.led))
    serial = tuple(r.name for r in readers if r.kind != "mfrc522")
    return PiSetup(board.model, board.audio, board.uart, board.miso, tuple(spi),
                   tuple(controls), serial)


def wiring_of(name: str, setup: PiSetup) -> tuple[Circuit, list[Finding]]:
    """The circuit of ``setup`` and the rules' findings on it."""
    circuit = build(setup, name)
    return circuit, check(circuit)
