"""The bridge board: an Arduino Nano (ATmega328P at 5 V) driving four MFRC522 readers at
3.3 V over their cables. Its pins here are the firmware's (``firmware/pins.h`` is written from
them); the buffers and the regulator are what the rules ask for:

- U1, U2 (74LVC245A at 3.3 V, DIR to 3.3 V: A to B, OE to ground): the Nano's 5 V SCK, MOSI,
  selects and reset made 3.3 V, one output a cable for each line so that each cable has its own
  driver and series resistor;
- U3 (74AHCT125 at 5 V): each reader's MISO read at TTL levels and put on the Nano's MISO only
  while that reader is selected (its OE is the reader's select line): a module that holds MISO
  holds only its own cable;
- U4 (AMS1117-3.3): the readers' 3.3 V, from the 5 V of J2 (a wire from the Pi's 5 V and
  ground, header pins 2 and 6), not through the Nano: four fields at the datasheet's maximum ask
  about 476 mA, more than the USB port leaves the Nano (500 mA less its own 25), and the
  Nano's own 3.3 V pin gives 50 mA at most on an FT232RL Nano, next to nothing on a CH340 one.
"""

from __future__ import annotations

from typing import Final

from table.circuit import parts
from table.circuit.model import Circuit, Net, Part, Pin, PinKind

IN, OUT, TRI = PinKind.IN, PinKind.OUT, PinKind.TRISTATE
READERS: Final = 4
# The Nano's pins the firmware uses: name, AVR port and bit.
NANO_PINS: Final[dict[str, tuple[str, str, int]]] = {
    "SCK": ("D13", "B", 5), "MOSI": ("D11", "B", 3), "MISO": ("D12", "B", 4),
    "SS0": ("D10", "B", 2), "SS1": ("D9", "B", 1), "SS2": ("D8", "B", 0), "SS3": ("D7", "D", 7),
    "RST": ("D6", "D", 6),
}
USB_MA: Final = 500  # USB 2.0 port (USB 2.0 specification)
NANO_OWN_MA: Final = 25  # ATmega328P at 16 MHz and 5 V plus the USB chip (their datasheets)
PI_5V_SPARE_MA: Final = 1000
SERIES_OHMS: Final = 82  # at U1's and U2's outputs: chosen by simulation (spice.py, bridge-sck)



def _nano() -> Part:
    pins = [Pin(pin, IN, vih=3.0, vmax=5.5) if name == "MISO" else
            Pin(pin, OUT, volts=5.0, voh=4.2, vmax=5.5, source_ma=20)
            for name, (pin, _, _) in NANO_PINS.items()]
    pins += [Pin("5V", PinKind.POWER_OUT, volts=5.0, source_ma=USB_MA - NANO_OWN_MA,
                 note=f"USB's {USB_MA} mA less the Nano's own {NANO_OWN_MA} mA"),
             Pin("3V3", PinKind.POWER_OUT, volts=3.3, source_ma=50,
                 note="FT232RL datasheet: 3V3OUT 50 mA at most"), Pin("GND", PinKind.GROUND)]
    return Part("M1", "Arduino Nano (ATmega328P, 5 V)", tuple(pins),
                "ATmega328P datasheet: VIH 0.6 x VCC, VOH 4.2 V at 20 mA")


def _lvc245(ref: str) -> Part:
    a = [Pin(f"A{i}", IN, vih=2.0, vmax=5.5) for i in range(1, 9)]
    b = [Pin(f"B{i}", OUT, volts=3.3, voh=2.9, source_ma=24) for i in range(1, 9)]
    return Part(ref, "74LVC245A (3.3 V)", (*a, *b, Pin("DIR", IN, vih=2.0, vmax=5.5),
                                           Pin("OE", IN, vih=2.0, vmax=5.5),
                                           Pin("VCC", PinKind.POWER_IN, volts=3.3, draw_ma=1),
                                           Pin("GND", PinKind.GROUND)),
                "74LVC245A datasheet: inputs 5.5 V tolerant, VOH 2.9 V at 12 mA", "DIR high")


def _ahct125() -> Part:
    pins = []
    for i in range(1, READERS + 1):
        pins += [Pin(f"{i}A", IN, vih=2.0, vmax=5.5), Pin(f"{i}OE", IN, vih=2.0, vmax=5.5),
                 Pin(f"{i}Y", TRI, volts=5.0, voh=4.4, source_ma=8)]
    pins += [Pin("VCC", PinKind.POWER_IN, volts=5.0, draw_ma=1), Pin("GND", PinKind.GROUND)]
    return Part("U3", "74AHCT125 (5 V)", tuple(pins),
                "74AHCT125 datasheet: TTL inputs (VIH 2.0 V), OE active low")


def _regulator(load_ma: float) -> Part:
    return Part("U4", "AMS1117-3.3", (
        Pin("IN", PinKind.POWER_IN, volts=5.0, draw_ma=load_ma + 5),
        Pin("OUT", PinKind.POWER_OUT, volts=3.3, source_ma=1000, note="AMS1117 datasheet: 1 A"),
        Pin("GND", PinKind.GROUND),
    ), "AMS1117 datasheet (1 A; 5 mA quiescent)")


def _supply() -> Part:
    return Part("J2", "5 V in (the Pi's header, pins 2 and 6)", (
        Pin("5V", PinKind.POWER_OUT, volts=5.0, source_ma=PI_5V_SPARE_MA,
            note="assumed: what a 3 A supply leaves a Pi 4 or 5 busy with the table"),
        Pin("GND", PinKind.GROUND)), "assumed; not measured on real hardware")


def build() -> Circuit:
    """The bridge board with its four readers, as built."""
    readers = [parts.mfrc522(f"R{n}", f"reader {n}") for n in range(READERS)]
    u1, u2, u3 = _lvc245("U1"), _lvc245("U2"), _ahct125()
    load = sum(r.pin("3.3V").draw_ma for r in readers) + 2
    nets: list[Net] = [
        Net("SCK 5V", (("M1", "D13"), *(("U1", f"A{n + 1}") for n in range(READERS)))),
        Net("MOSI 5V", (("M1", "D11"), *(("U1", f"A{n + 5}") for n in range(READERS)))),
        Net("RST 5V", (("M1", "D6"), *(("U2", f"A{n + 5}") for n in range(READERS)))),
        Net("MISO 5V", (("M1", "D12"), *(("U3", f"{n + 1}Y") for n in range(READERS)))),
        Net("5V", (("M1", "5V"), ("U3", "VCC"))),
        Net("5V IN", (("J2", "5V"), ("U4", "IN"))),
        Net("3V3", (("U4", "OUT"), ("U1", "VCC"), ("U2", "VCC"), ("U1", "DIR"),
                    ("U2", "DIR"), *((r.ref, "3.3V") for r in readers))),
        Net("GND", (("M1", "GND"), ("J2", "GND"), ("U1", "OE"), ("U2", "OE"), ("U1", "GND"),
                    ("U2", "GND"), ("U3", "GND"), ("U4", "GND"),
                    *((r.ref, "GND") for r in readers))),
    ]
    for n in range(READERS):
        ss, _, _ = NANO_PINS[f"SS{n}"]
        cable = f"cable {n}"
        nets += [
            Net(f"SS{n} 5V", (("M1", ss), ("U2", f"A{n + 1}"), ("U3", f"{n + 1}OE"))),
            Net(f"SCK{n}", (("U1", f"B{n + 1}"), (f"R{n}", "SCK")), cable, series=SERIES_OHMS),
            Net(f"MOSI{n}", (("U1", f"B{n + 5}"), (f"R{n}", "MOSI")), cable, series=SERIES_OHMS),
            Net(f"SDA{n}", (("U2", f"B{n + 1}"), (f"R{n}", "SDA")), cable, series=SERIES_OHMS),
            Net(f"RST{n}", (("U2", f"B{n + 5}"), (f"R{n}", "RST")), cable, series=SERIES_OHMS),
            Net(f"MISO{n}", ((f"R{n}", "MISO"), ("U3", f"{n + 1}A")), cable),
        ]
    return Circuit("bridge", (_nano(), _supply(), u1, u2, u3, _regulator(load), *readers),
                   tuple(nets),
                   title="The bridge board: an Arduino Nano and four MFRC522 readers")


def pins_header() -> str:
    """``firmware_bridge/firmware/pins.h``: the firmware's pins, written from this model (the
    simulated board, sim/hardware/avr_board.c, watches the same pins: ``*_LETTER``, ``*_BIT``)."""
    lines = ["/* The bridge board's pins, written by `python -m table.commands.circuit_files` from",
             " * table/circuit/bridge_board.py: edit that model, not this file. */",
             "#ifndef BRIDGE_PINS_H", "#define BRIDGE_PINS_H", ""]
    for name, (pin, port, bit) in NANO_PINS.items():
        lines += [f"/* {name}: {pin} (P{port}{bit}) */",
                  f"#define {name}_PORT PORT{port}", f"#define {name}_DDR DDR{port}",
                  f"#define {name}_BIT {bit}", f"#define {name}_LETTER '{port}'"]
    lines += ["", "#endif", ""]
    return "\n".join(lines)
