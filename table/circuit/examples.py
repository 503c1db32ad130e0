"""The example tables' hardware, described once: which Pi, where its sound goes, which readers
(on the Pi's SPI or on the bridge board) and which controls each seat has. Their pins are not
written here but placed: the SPI readers on SPI0's chip enables, each with its own reset line
(BCM 25, 24, ... so that ``uno-table doctor`` can hold one in reset while it reads another),
the controls on the free pins by :mod:`table.circuit.plan`, the SPI clock from the simulation
(spice.py); a third reader on SPI0 its own chip select on the first free pin.
``python -m table.commands.circuit_files`` writes the result between the ``# made:hardware``
markers of each example's file (``examples/NAME.toml``, and ``hw_tests/example-table.toml``
for the real-table tests); a test fails when one is edited out of step."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from table.circuit.boards import SPI0_CE, free_pins, held_pins
from table.circuit.plan import BOARD_PULLED, controls_plan
from table.readers.pi_header import BCM_TO_BOARD

FIRST_RESET: Final = 25  # the mfrc522 backend's default reset pin; more readers count down
START = "# made:hardware"
END = "# /made:hardware"
_COLUMN = 34  # where a line's comment starts, as in the hand-written parts of the examples


@dataclass(frozen=True, slots=True)
class SpiPad:
    """An MFRC522 reader on the Pi's SPI0."""

    name: str
    role: str
    seat: str = ""


@dataclass(frozen=True, slots=True)
class BridgePad:
    """A reader on the bridge board's channel (its place in :attr:`Example.bridge`)."""

    name: str
    seat: str


@dataclass(frozen=True, slots=True)
class Example:
    """One example table's hardware; ``path`` is its file's, from the checkout's root, and
    ``drawn`` whether docs/hardware.md and docs/circuits/ show its wiring."""

    name: str
    path: str
    board: str
    audio: str
    players: tuple[str, ...]
    spi: tuple[SpiPad, ...] = ()
    bridge: tuple[BridgePad, ...] = ()
    bridge_port: str = ""
    buttons: tuple[str, ...] = ()  # each seat's buttons
    leds: bool = False
    buzzer: bool = False
    miso: str = "direct"  # [board] miso: how several SPI readers share MISO
    drawn: bool = True


PLAYERS = ("Aki", "Ken", "Mio", "Yui")
# A Pi 4's top USB 2 socket, by path: a CH340 Nano has no serial number for a by-id name.
PI4_USB = "/dev/serial/by-path/platform-fd500000.pcie-pci-0000:01:00.0-usb-0:1.3:1.0-port0"
EXAMPLES: Final[dict[str, Example]] = {
    "spi-pad": Example("spi-pad", "examples/spi-pad.toml", "pi4", "jack", PLAYERS,
                       spi=(SpiPad("pad", "play"),)),
    "bridge-four-seats": Example(
        "bridge-four-seats", "examples/bridge-four-seats.toml", "pi4", "jack", PLAYERS,
        spi=(SpiPad("pad", "play"),),
        bridge=tuple(BridgePad(f"{p.lower()}-pad", p) for p in PLAYERS), bridge_port=PI4_USB,
        buttons=("uno", "draw", "pass"), leds=True, buzzer=True),
    "example-table": Example(
        "example-table", "hw_tests/example-table.toml", "pi4", "jack", PLAYERS[:3],
        spi=(SpiPad("pad", "play"), SpiPad("shoe", "draw"), SpiPad("Aki", "seat", "Aki")),
        buttons=("uno", "draw"), leds=True, buzzer=True, miso="diode", drawn=False),
}


def resets(example: Example) -> tuple[int, ...]:
    """Each SPI reader's reset pin: one a reader."""
    return tuple(FIRST_RESET - i for i in range(len(example.spi)))


def pins(example: Example) -> dict[str, int]:
    """Configuration key to BCM pin: the SPI readers' reset lines and chip selects beyond
    SPI0's two, and every control."""
    out = {f"readers[{i}].reset_pin": pin for i, pin in enumerate(resets(example))}
    buses = [(0, len(example.spi))] if example.spi else []
    held = set(held_pins(buses, example.audio, False)) | set(resets(example))
    for i in range(len(SPI0_CE), len(example.spi)):  # an output: not on BCM 2 or 3
        out[f"readers[{i}].cs_pin"] = pin = next(
            p for p in free_pins(held) if p not in BOARD_PULLED)
        held.add(pin)
    if example.buttons or example.leds or example.buzzer:
        out.update(controls_plan(example.players, example.buttons, example.leds,
                                 example.buzzer, sorted(held)))
    return out


def _line(key: str, value: object, comment: str = "") -> str:
    text = f"{key} = {value!r}".replace("'", '"')
    return f"{text:<{_COLUMN - 1}} # {comment}" if comment else text


def hardware_toml(example: Example, pi_khz: int) -> str:
    """The ``[board]``, ``[[readers]]`` and ``[controls]`` of ``example``, as TOML."""
    placed = pins(example)
    out = [START + ": written by python -m table.commands.circuit_files from",
           "# table/circuit/examples.py (pins from the GPIO budget, SPI clock from the "
           "simulation)", "[board]",
           _line("model", example.board, "pi3, pi4, pi5 or zero2w: uno-table wiring checks "
                 "the pins"), _line("audio", example.audio)]
    if example.miso != "direct":
        out.append(_line("miso", example.miso, "each reader its own path onto MISO "
                         "(docs/hardware.md#wiring)"))
    for i, pad in enumerate(example.spi):
        reset, cs = placed[f"readers[{i}].reset_pin"], placed.get(f"readers[{i}].cs_pin")
        out += ["", "[[readers]]", _line("name", pad.name), _line("role", pad.role)]
        out += [_line("seat", pad.seat)] if pad.seat else []
        out += [_line("kind", "mfrc522"), _line("bus", 0)]
        if cs is None:
            out.append(_line("device", i, f"CE{i} (header pin {BCM_TO_BOARD[SPI0_CE[i]]})"))
        else:
            out += [_line("device", 0, "the node whose transfers it borrows"),
                    _line("cs_pin", cs, f"its own chip select: BCM {cs} (header pin "
                          f"{BCM_TO_BOARD[cs]}), 10 kohm to 3.3 V")]
        out += [_line("reset_pin", reset, f"its own reset: BCM {reset} (header pin "
                      f"{BCM_TO_BOARD[reset]})"),
                _line("speed_hz", pi_khz * 1000, "0.5 m of Cat5e, 47 ohm series "
                      "(docs/hardware.md#spi-signals)")]
    for channel, seat_pad in enumerate(example.bridge):
        out += ["", "[[readers]]", _line("name", seat_pad.name), _line("role", "seat"),
                _line("seat", seat_pad.seat), _line("kind", "bridge"),
                _line("port", example.bridge_port), _line("channel", channel)]
    controls = {k: v for k, v in placed.items() if k.startswith("controls.")}
    if "controls.buzzer" in controls:
        out += ["", "[controls]", _line("buzzer", controls["controls.buzzer"])]
    for seat in example.players:
        keys = [*example.buttons, *(["led"] if example.leds else [])]
        if keys:
            out += ["", f"[controls.seats.{seat}]"]
            out += [_line(k, controls[f"controls.seats.{seat}.{k}"]) for k in keys]
    return "\n".join([*out, END]) + "\n"


def with_hardware(text: str, example: Example, pi_khz: int) -> str:
    """``text`` (an example file) with its made block written anew."""
    first = text.find(START)
    last = text.find(END + "\n", first)
    if first < 0 or last < 0:
        raise ValueError(f"{example.path}: no {START} ... {END} block")
    return text[:first] + hardware_toml(example, pi_khz) + text[last + len(END) + 1:]
