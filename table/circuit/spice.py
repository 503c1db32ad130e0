"""The SPI lines over the table's cables, simulated with ngspice (a Debian package, run in
batch mode): a driver (its output resistance and edge), a series resistor at the driver, the
cable as a lossy transmission line (ngspice's LTRA), and the receiver's input capacitance.
From the waveforms: the series resistor for each line (the smallest that neither rings back
through the receiver's thresholds nor overshoots its input by more than 0.3 V) and the fastest
SPI clock whose half period holds twice the time a byte's bit takes to go out and come back
(docs/hardware.md#spi-signals). Figures no datasheet gives are marked assumed."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Final

# Cat5e: 100 ohm, velocity factor 0.64 (5.2 ns/m), 24 AWG: 0.188 ohm/m for the pair's loop
# (TIA-568 Cat5e figures).
CABLE: Final = {"r": 0.188, "l": 520e-9, "c": 52e-12}
SERIES: Final = (0, 10, 22, 33, 47, 68, 82, 100)
OVERSHOOT_V: Final = 0.3
READER_OUT_NS: Final = 30.0  # MFRC522's SCK-to-MISO delay: assumed (not in its SPI table)
SETUP_NS: Final = 10.0  # the master's MISO set-up time: assumed (ATmega328P, BCM2711)
MARGIN: Final = 2.0  # the half period holds twice the round trip


class SpiceError(RuntimeError):
    """ngspice is missing or failed."""


@dataclass(frozen=True, slots=True)
class Link:
    """One line of one cable: who drives it, how long it is, who reads it."""

    name: str
    title: str
    metres: float
    volts: float
    driver_ohms: float
    rise_ns: float
    load_pf: float
    vih: float
    vil: float
    buffer_ns: float  # the buffers the signal passes on the board (their datasheets)
    source: str


LINKS: Final = (
    Link("bridge-sck", "bridge: SCK, 74LVC245 to an MFRC522, 1 m of Cat5e", 1.0, 3.3, 15, 1.5,
         10, 2.31, 0.99, 4.0, "74LVC245A (about 15 ohm, 1.5 ns edges), MFRC522 VIH 0.7 VDD; "
         "the reader's 10 pF is assumed"),
    Link("bridge-miso", "bridge: MISO, an MFRC522 to the 74AHCT125, 1 m of Cat5e", 1.0, 3.3,
         100, 5.0, 4, 2.0, 0.8, 6.0, "MFRC522 (VDD - 0.4 V at 4 mA: about 100 ohm; 5 ns edges "
         "assumed), 74AHCT125 TTL inputs, 4 pF"),
    Link("pi-sck", "Pi: SCK, a GPIO to the play pad's MFRC522, 0.5 m of Cat5e", 0.5, 3.3, 40,
         2.0, 10, 2.31, 0.99, 0.0, "Pi GPIO at 8 mA drive (about 40 ohm, 2 ns edges: "
         "assumed), MFRC522 VIH 0.7 VDD"),
    Link("pi-miso", "Pi: MISO, the play pad's MFRC522 to a GPIO, 0.5 m of Cat5e", 0.5, 3.3, 100,
         5.0, 5, 1.6, 0.9, 0.0, "MFRC522 as above; Pi GPIO VIH 1.6 V (Raspberry Pi "
         "documentation), 5 pF assumed"),
)
PERIOD_NS: Final = 160.0  # the simulated clock: long enough for every edge to settle


def deck(link: Link, out: Path) -> str:
    """The ngspice deck of ``link``: one copy of the line per series resistor in ``SERIES``,
    all driven by the same edge, the load of each written to ``out``."""
    half = PERIOD_NS / 2
    lines = [f"* {link.title}",
             f"V1 src 0 PULSE(0 {link.volts} 5n {link.rise_ns}n {link.rise_ns}n {half}n "
             f"{PERIOD_NS}n)",
             f".model cable ltra r={CABLE['r']} l={CABLE['l']} g=0 c={CABLE['c']} "
             f"len={link.metres}"]
    for i, rs in enumerate(SERIES):
        lines += [f"Rd{i} src d{i} {link.driver_ohms}", f"Rs{i} d{i} a{i} {rs + 0.001}",
                  f"O{i} a{i} 0 load{i} 0 cable", f"C{i} load{i} 0 {link.load_pf}p"]
    loads = " ".join(f"v(load{i})" for i in range(len(SERIES)))
    lines += [".control", "set wr_singlescale", f"tran 0.1n {PERIOD_NS + 5}n",
              f"wrdata {out} {loads}", "quit", ".endc", ".end"]
    return "\n".join(lines) + "\n"


def simulate(link: Link) -> tuple[list[float], list[list[float]]]:
    """Run ngspice on ``link``'s deck: the times (ns) and, per series resistor, the load's
    voltage."""
    ngspice = shutil.which("ngspice")
    if ngspice is None:
        raise SpiceError("ngspice is not installed (Debian: apt-get install ngspice)")
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "out.txt"
        cir = Path(folder) / "deck.cir"
        cir.write_text(deck(link, out), encoding="ascii")
        run = subprocess.run([ngspice, "-b", str(cir)], capture_output=True, text=True,
                             timeout=120, check=False)
        if run.returncode != 0 or not out.exists():
            raise SpiceError(f"ngspice failed on {link.name}: {run.stderr.strip()[-200:]}")
        rows = [list(map(float, line.split())) for line in out.read_text().splitlines()
                if line.strip()]
    times = [r[0] * 1e9 for r in rows]
    return times, [[r[1 + i] for r in rows] for i in range(len(SERIES))]


@dataclass(frozen=True, slots=True)
class Edge:
    """What one series resistor gives at the receiver."""

    ohms: int
    overshoot: float  # volts above the rail (rising edge) or below ground (falling)
    rings_back: bool  # crosses back into the threshold band after crossing it
    arrive_ns: float  # from the driver's edge to the receiver's threshold


def measure(link: Link, times: list[float], volts: list[float], ohms: int) -> Edge:
    """The rising and falling edges of one waveform measured."""
    half = PERIOD_NS / 2
    start_fall = 5 + link.rise_ns + half
    rise = [(t, v) for t, v in zip(times, volts, strict=True) if t < start_fall]
    fall = [(t, v) for t, v in zip(times, volts, strict=True) if t >= start_fall]
    over = max(max(v for _, v in rise) - link.volts, -min(v for _, v in fall), 0.0)
    up = next(t for t, v in rise if v >= link.vih)
    down = next(t for t, v in fall if v <= link.vil)
    rings = (any(v < link.vih for t, v in rise if t > up)
             or any(v > link.vil for t, v in fall if t > down))
    return Edge(ohms, round(over, 3), rings, round(up - 5, 2))


@dataclass(frozen=True, slots=True)
class Choice:
    """A line's chosen series resistor and what it gives."""

    link: Link
    edge: Edge
    edges: tuple[Edge, ...]


def choose(link: Link) -> tuple[Choice, list[float], list[list[float]]]:
    """The smallest series resistor that neither rings back nor overshoots by more than
    ``OVERSHOOT_V``; with the waveforms it was chosen from."""
    times, waves = simulate(link)
    edges = tuple(measure(link, times, w, ohms) for ohms, w in zip(SERIES, waves, strict=True))
    good = [e for e in edges if not e.rings_back and e.overshoot <= OVERSHOOT_V]
    return Choice(link, (good or [edges[-1]])[0], edges), times, waves


def clock_khz(sck: Choice, miso: Choice, candidates: tuple[int, ...]) -> int:
    """The fastest clock in ``candidates`` whose half period holds ``MARGIN`` times the round
    trip: SCK out to the reader, the reader's answer, MISO back, the buffers and set-up."""
    trip = (sck.edge.arrive_ns + READER_OUT_NS + miso.edge.arrive_ns + sck.link.buffer_ns
            + miso.link.buffer_ns + SETUP_NS)
    for khz in sorted(candidates, reverse=True):
        if 1e6 / khz / 2 >= MARGIN * trip:
            return khz
    return min(candidates)


def round_trip_ns(sck: Choice, miso: Choice) -> float:
    """The round trip ``clock_khz`` holds against."""
    return round(sck.edge.arrive_ns + READER_OUT_NS + miso.edge.arrive_ns + sck.link.buffer_ns
                 + miso.link.buffer_ns + SETUP_NS, 1)


def plot_svg(choice: Choice, times: list[float], waves: list[list[float]]) -> str:
    """The receiver's waveform for every series resistor (grey) and the chosen one (blue),
    with the receiver's thresholds, as SVG."""
    link = choice.link
    w, h, left, top = 640, 340, 50, 44
    t_max, v_lo, v_hi = times[-1], -3.5, link.volts + 3.5

    def xy(t: float, v: float) -> str:
        x = left + (w - left - 10) * t / t_max
        y = top + (h - top - 30) * (v_hi - v) / (v_hi - v_lo)
        return f"{x:.1f},{y:.1f}"

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" '
           f'viewBox="0 0 {w} {h}" font-family="sans-serif" font-size="11">',
           f'<rect width="{w}" height="{h}" fill="white"/>',
           f'<text x="{left}" y="16" font-size="13">{link.title}</text>',
           f'<text x="{left}" y="32">ngspice: at the receiver, series {choice.edge.ohms} ohm '
           f"(blue) among {', '.join(map(str, SERIES))} ohm (grey)</text>"]
    for level, name in ((0.0, "0 V"), (link.volts, f"{link.volts:g} V"),
                        (link.vih, f"VIH {link.vih:g}"), (link.vil, f"VIL {link.vil:g}")):
        a, b = xy(0, level), xy(t_max, level)
        out.append(f'<polyline points="{a} {b}" stroke="#bbb" stroke-dasharray="4 3" '
                   'fill="none"/>')
        out.append(f'<text x="4" y="{b.split(",")[1]}">{name}</text>')
    step = max(1, len(times) // 400)
    for ohms, wave in zip(SERIES, waves, strict=True):
        chosen = ohms == choice.edge.ohms
        points = " ".join(xy(t, v) for t, v in zip(times[::step], wave[::step], strict=True))
        out.append(f'<polyline points="{points}" fill="none" stroke="'
                   f'{"#06c" if chosen else "#ccc"}" stroke-width="{2 if chosen else 1}"/>')
    out.append(f'<text x="{w - 10}" y="{h - 8}" text-anchor="end">time, 0 to '
               f"{t_max:.0f} ns</text>")
    out.append("</svg>")
    return "\n".join(out) + "\n"


BRIDGE_CLOCKS: Final = (8000, 4000, 2000, 1000, 500, 250, 125)  # 16 MHz halved (make SPI_KHZ)
PI_CLOCKS: Final = (8000, 4000, 2000, 1000, 500)  # spidev speed_hz / 1000


@dataclass(frozen=True)
class Study:
    """Every line's choice, its waveforms, and the clocks chosen for the bridge and the Pi."""

    choices: dict[str, Choice]
    waves: dict[str, tuple[list[float], list[list[float]]]]
    bridge_khz: int
    pi_khz: int


def study() -> Study:
    """Simulate every line of ``LINKS`` and choose the resistors and clocks."""
    choices, waves = {}, {}
    for link in LINKS:
        choice, times, wave = choose(link)
        choices[link.name], waves[link.name] = choice, (times, wave)
    bridge = clock_khz(choices["bridge-sck"], choices["bridge-miso"], BRIDGE_CLOCKS)
    pi = clock_khz(choices["pi-sck"], choices["pi-miso"], PI_CLOCKS)
    return Study(choices, waves, bridge, pi)


def table_md(s: Study) -> str:
    """The study as Markdown: each line's chosen resistor, then the clocks."""
    lines = ["| line | series chosen | overshoot with 0 Ω | with it | reaches the threshold | "
             "figures from |", "|---|---|---|---|---|---|"]
    for c in s.choices.values():
        bare = c.edges[0]
        lines.append(f"| [{c.link.title}](circuits/spi-{c.link.name}.svg) | {c.edge.ohms} Ω | "
                     f"{bare.overshoot:g} V{' (rings back)' if bare.rings_back else ''} | "
                     f"{c.edge.overshoot:g} V | {c.edge.arrive_ns:g} ns | {c.link.source} |")
    for who, (sck, miso), khz in (("bridge", ("bridge-sck", "bridge-miso"), s.bridge_khz),
                                  ("Pi", ("pi-sck", "pi-miso"), s.pi_khz)):
        trip = round_trip_ns(s.choices[sck], s.choices[miso])
        lines.append(f"\n{who}: a bit's round trip {trip:g} ns (SCK out, the reader's "
                     f"{READER_OUT_NS:g} ns, MISO back, buffers, {SETUP_NS:g} ns set-up); "
                     f"the fastest clock whose half period holds {MARGIN:g} times it: "
                     f"{khz} kHz.")
    return "\n".join(lines) + "\n"
