"""The parts the table is built from, with the figures the rules use and the datasheet each
comes from. A figure no datasheet gives says "assumed" and why."""

from __future__ import annotations

from table.circuit.model import Part, Pin, PinKind

IN, OUT, TRI = PinKind.IN, PinKind.OUT, PinKind.TRISTATE
P_IN, P_OUT, GND = PinKind.POWER_IN, PinKind.POWER_OUT, PinKind.GROUND

# MFRC522 (NXP datasheet rev. 3.9, "Characteristics"): inputs take VDD + 0.5 V at most and read
# 0.7 x VDD as high; outputs give VDD - 0.4 V at 4 mA; the transmitter takes 100 mA at most
# with the field on (60 mA typical), the analog and digital parts about 17 mA more.
MFRC522_MA = 117.0
LED_MA = (3.3 - 2.0) / 220 * 1000  # a red or green LED (about 2.0 V) behind 220 ohm: 5.9 mA
BUZZER_MA = 30.0  # an active 3-5 V buzzer: 30 mA (typical of their datasheets)
BASE_MA = (3.3 - 0.7) / 1000 * 1000  # an NPN's base behind 1 kohm: 2.6 mA


def mfrc522(ref: str, note: str = "") -> Part:
    """An MFRC522 module (the blue RC522 boards): 3.3 V only, MISO that may hold the bus."""
    def logic(name: str) -> Pin:
        return Pin(name, IN, volts=3.3, vih=0.7 * 3.3, vmax=3.3 + 0.5)

    return Part(ref, "MFRC522 module", (
        logic("SDA"), logic("SCK"), logic("MOSI"),
        Pin("MISO", TRI, volts=3.3, voh=3.3 - 0.4, source_ma=4, holds=True),
        logic("RST"), Pin("3.3V", P_IN, volts=3.3, vmax=3.6, draw_ma=MFRC522_MA),
        Pin("GND", GND),
    ), "MFRC522 datasheet (NXP, rev. 3.9)", note)


def pi_gpio_pin(bcm: int) -> Pin:
    """A GPIO of the Pi's header, 3.3 V: reads 1.6 V as high, takes 3.3 V at most (never 5 V);
    16 mA a pin at most, 50 mA for all of them (Raspberry Pi documentation, GPIO)."""
    return Pin(f"GPIO{bcm}", PinKind.PASSIVE, volts=3.3, voh=3.0, vih=1.6, vmax=3.3 + 0.3,
               source_ma=16)


def button(ref: str, label: str) -> Part:
    """A push button to ground: pressed, it pulls its pin low; it needs a pull-up."""
    return Part(ref, f"button ({label})", (Pin("1", PinKind.PASSIVE), Pin("2", GND)),
                note="to ground; the Pi's internal pull-up (gpiozero's Button) holds it high")


def led(ref: str, label: str) -> Part:
    """An LED with its 220 ohm series resistor, from a GPIO to ground."""
    return Part(ref, f"LED + 220 ohm ({label})",
                (Pin("A", IN, vih=2.0, vmax=99, draw_ma=LED_MA), Pin("K", GND)),
                "LED forward voltage about 2.0 V (red, green)", f"{LED_MA:.1f} mA at 3.3 V")


def buzzer_stage(ref: str) -> Part:
    """An active buzzer switched by an NPN transistor (BC337 or 2N2222, 1 kohm on the base,
    a 1N4148 across the buzzer): the pin gives only the base current."""
    return Part(ref, "buzzer stage (NPN, 1 kohm)", (
        Pin("B", IN, vih=0.7, draw_ma=BASE_MA), Pin("5V", P_IN, volts=5.0, draw_ma=BUZZER_MA),
        Pin("GND", GND),
    ), "BC337 datasheet (VBE 0.7 V); buzzer 30 mA", "the buzzer on 5 V, the pin gives 2.6 mA")


def buzzer_direct(ref: str) -> Part:
    """An active buzzer straight on a pin (what the rules refuse)."""
    return Part(ref, "active buzzer", (Pin("+", IN, vih=2.0, draw_ma=BUZZER_MA), Pin("-", GND)),
                "buzzer 30 mA")


def resistor(ref: str, ohms: int, to_volts: float | None = None) -> Part:
    """A resistor; ``to_volts`` makes it a pull (up to that rail, or down at 0)."""
    return Part(ref, f"{ohms} ohm", (Pin("1", PinKind.PASSIVE, volts=to_volts or 0.0),
                                     Pin("2", PinKind.PASSIVE)))


def schottky(ref: str) -> Part:
    """A Schottky diode (1N5819 or BAT54): current flows from A to K only, so its K end can pull
    a bus up but never hold it low."""
    return Part(ref, "Schottky diode", (
        Pin("A", IN, vih=0.0), Pin("K", TRI, volts=3.3, voh=3.3 - 0.45, source_ma=4),
    ), "1N5819 datasheet (VF 0.45 V)")
