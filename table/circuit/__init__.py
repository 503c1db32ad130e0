"""The circuits around the referee, as one typed description: parts with their pins (logic
levels, currents), the nets between them, and the board's GPIO taken by its overlays.

Made from it: the wiring tables of the docs, the schematics (SVG), the cable harness between
the pads, the bridge firmware's pin header, the pins of the example configurations; the
electrical rules check it (``rules``), and ``spice`` simulates the SPI lines over the cables
with ngspice. A small model of our own rather than a netlist library: it must run on the Pi
inside the configuration check, with nothing to install (docs/hardware.md#the-circuit-model).
"""

from table.circuit.model import Circuit, CircuitError, Finding, Net, Part, Pin, PinKind
from table.circuit.rules import check

__all__ = ["Circuit", "CircuitError", "Finding", "Net", "Part", "Pin", "PinKind", "check"]
