"""The Pi's side of a table made into a circuit: its MFRC522 readers on SPI, the seats'
buttons and LEDs, the buzzer, the audio and UART overlays. The configuration says which;
this module knows how each is wired."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from table.circuit import parts
from table.circuit.boards import BOARDS, SPI0_CE, SPI1_CE, held_pins
from table.circuit.model import Circuit, Net, Part, Pin, PinKind

PI = "J1"  # the Pi's header
SERIES_OHMS = 47  # at the Pi's SCK, MOSI and selects: chosen by simulation (spice.py, pi-sck)
SPI_LINES = {0: {"MISO": 9, "MOSI": 10, "SCK": 11}, 1: {"MISO": 19, "MOSI": 20, "SCK": 21}}


@dataclass(frozen=True, slots=True)
class SpiReader:
    """An MFRC522 reader on the Pi's SPI: ``where`` is its configuration key."""

    where: str
    bus: int
    device: int
    reset_pin: int
    cs_pin: int | None = None


@dataclass(frozen=True, slots=True)
class Control:
    """A button, LED or buzzer on a GPIO: ``where`` is its configuration key."""

    where: str
    kind: str  # "button", "led", "buzzer"
    pin: int


@dataclass(frozen=True)
class PiSetup:
    """What a configuration puts on the Pi's header."""

    board: str = "pi4"
    audio: str = "jack"
    uart: bool = False
    miso: str = "direct"  # several readers on one bus: "buffer" or "diode" per reader
    readers: tuple[SpiReader, ...] = ()
    controls: tuple[Control, ...] = ()
    serial_readers: tuple[str, ...] = field(default=())  # names of readers on USB


def select_pin(r: SpiReader) -> int:
    """The GPIO that selects reader ``r``: its own cs_pin, else the bus's chip enable."""
    if r.cs_pin is not None:
        return r.cs_pin
    return (SPI0_CE if r.bus == 0 else SPI1_CE)[min(r.device, 2 if r.bus else 1)]


def build(setup: PiSetup, name: str = "pi") -> Circuit:
    """The circuit of ``setup``."""
    board = BOARDS[setup.board]
    nets: list[Net] = []
    extra: list[Part] = []
    kinds: dict[int, tuple[PinKind, str | None]] = {}

    def gpio(bcm: int, kind: PinKind, pull: str | None = None) -> tuple[str, str]:
        kinds.setdefault(bcm, (kind, pull))
        return PI, f"GPIO{bcm}"

    enables: dict[str, tuple[str, str]] = {}  # a reader's MISO buffer, enabled by its select
    buses = sorted({r.bus for r in setup.readers})
    for bus in buses:
        on_bus = [r for r in setup.readers if r.bus == bus]
        owner = f"SPI{bus}"
        lines = SPI_LINES[bus]
        for line in ("SCK", "MOSI"):
            ends = [gpio(lines[line], PinKind.OUT)] + [(_ref(setup, r), line) for r in on_bus]
            nets.append(Net(f"SPI{bus} {line}", tuple(ends), f"SPI{bus} {line}", owner,
                            SERIES_OHMS))
        miso = [gpio(lines["MISO"], PinKind.IN)]
        for r in on_bus:
            ref = _ref(setup, r)
            if setup.miso == "direct" or len(on_bus) == 1:
                miso.append((ref, "MISO"))
                continue
            path = _miso_path(setup.miso, ref, r)
            extra.extend(path)
            first = path[0].ref
            if setup.miso == "buffer":
                nets.append(Net(f"{ref} MISO", ((ref, "MISO"), (first, "A")), r.where))
                enables[ref] = (first, "OE")
                miso.append((first, "Y"))
            else:
                nets.append(Net(f"{ref} MISO", ((ref, "MISO"), (first, "A")), r.where))
                miso.append((first, "K"))
        if setup.miso == "diode" and len(on_bus) > 1:
            pull = parts.resistor(f"R{bus}0", 1000, 0.0)
            extra.append(pull)
            miso.append((pull.ref, "2"))
        nets.append(Net(f"SPI{bus} MISO", tuple(miso), f"SPI{bus} MISO", owner))
    for r in setup.readers:
        ref = _ref(setup, r)
        cs = select_pin(r)
        oe = (enables[ref],) if ref in enables else ()
        nets.append(Net(f"{ref} SDA", (gpio(cs, PinKind.OUT), (ref, "SDA"), *oe),
                        f"{r.where}.cs_pin" if r.cs_pin is not None else r.where,
                        "" if r.cs_pin is not None else f"SPI{r.bus}", SERIES_OHMS))
    resets: dict[int, list[SpiReader]] = {}
    for r in setup.readers:
        resets.setdefault(r.reset_pin, []).append(r)
    for pin, readers in resets.items():
        ends = [gpio(pin, PinKind.OUT)] + [(_ref(setup, r), "RST") for r in readers]
        nets.append(Net(f"RST GPIO{pin}", tuple(ends), f"{readers[0].where}.reset_pin"))
    for part, more in (_control(i, c, gpio) for i, c in enumerate(setup.controls, start=1)):
        extra.append(part)
        nets.extend(more)
    modules = tuple(parts.mfrc522(_ref(setup, r), r.where) for r in setup.readers)
    if modules:
        nets.append(Net("3V3", ((PI, "3V3"), *((p.ref, "3.3V") for p in modules)), "3V3"))
    grounds = tuple((p.ref, q.name) for p in (*modules, *extra) for q in p.pins
                    if q.kind is PinKind.GROUND)
    if grounds:
        nets.append(Net("GND", ((PI, "GND"), *grounds), "GND"))
    pi = _pi_part(board.name, board.rail_ma, board.rail_source, kinds)
    held = held_pins({(r.bus, sum(1 for s in setup.readers if s.bus == r.bus))
                      for r in setup.readers}, setup.audio, setup.uart)
    return Circuit(name, (pi, *modules, *extra), _merge_5v(nets),
                   {(PI, f"GPIO{pin}"): what for pin, what in held.items()},
                   _title(name, board.name, setup))


def _control(i: int, c: Control, gpio: Callable[..., tuple[str, str]]
             ) -> tuple[Part, list[Net]]:
    """Control ``c`` (the ``i``-th) as a part and its nets."""
    part: Part
    if c.kind == "button":
        part = parts.button(f"SW{i}", c.where.rsplit(".", 2)[-2] + " " + c.where
                            .rsplit(".", 1)[-1])
        return part, [Net(c.where, (gpio(c.pin, PinKind.IN, "up"), (part.ref, "1")), c.where)]
    if c.kind == "led":
        part = parts.led(f"D{i}", c.where.rsplit(".", 2)[-2])
        return part, [Net(c.where, (gpio(c.pin, PinKind.OUT), (part.ref, "A")), c.where)]
    part = parts.buzzer_stage(f"Q{i}")
    return part, [Net(c.where, (gpio(c.pin, PinKind.OUT), (part.ref, "B")), c.where),
                  Net("5V", ((PI, "5V"), (part.ref, "5V")), "5V")]


def _title(name: str, board: str, setup: PiSetup) -> str:
    usb = f"; on USB: {', '.join(setup.serial_readers)}" if setup.serial_readers else ""
    return f"{name}: the {board}'s header{usb}"


def _ref(setup: PiSetup, r: SpiReader) -> str:
    return f"U{setup.readers.index(r) + 1}"


def _miso_path(how: str, ref: str, r: SpiReader) -> list[Part]:
    """One reader's way onto a shared MISO: a 74LVC1G125 enabled by its select line, or a
    Schottky diode (anode at the module, cathode to the bus)."""
    if how == "buffer":
        return [Part(f"{ref}B", "74LVC1G125 (3.3 V)", (
            Pin("A", PinKind.IN, vih=2.0, vmax=5.5), Pin("OE", PinKind.IN, vih=2.0, vmax=5.5),
            Pin("Y", PinKind.TRISTATE, volts=3.3, voh=2.9, source_ma=24),
        ), "74LVC1G125 datasheet", f"MISO of {r.where}, enabled while its SDA is low")]
    return [parts.schottky(f"{ref}D")]


def _pi_part(name: str, rail_ma: int, source: str,
             kinds: dict[int, tuple[PinKind, str | None]]) -> Part:
    pins = []
    for bcm in range(28):
        base = parts.pi_gpio_pin(bcm)
        kind, pull = kinds.get(bcm, (PinKind.PASSIVE, None))
        pins.append(Pin(base.name, kind, base.volts, base.voh, base.vih, base.vmax,
                        base.source_ma, pull=pull))
    pins.append(Pin("3V3", PinKind.POWER_OUT, volts=3.3, source_ma=rail_ma, note=source))
    pins.append(Pin("5V", PinKind.POWER_OUT, volts=5.0, source_ma=1000,
                    note="from the power supply, less what the Pi takes"))
    pins.append(Pin("GND", PinKind.GROUND))
    return Part(PI, name, tuple(pins), "Raspberry Pi documentation (GPIO, power)")


def _merge_5v(nets: list[Net]) -> tuple[Net, ...]:
    """Nets of the same name joined (the 5 V of several buzzer stages)."""
    merged: dict[str, Net] = {}
    for net in nets:
        if net.name in merged and net.name == "5V":
            old = merged[net.name]
            ends = old.ends + tuple(e for e in net.ends if e not in old.ends)
            merged[net.name] = Net(old.name, ends, old.where, old.owner)
        else:
            merged[f"{net.name}#{len(merged)}" if net.name in merged else net.name] = net
    return tuple(merged.values())
