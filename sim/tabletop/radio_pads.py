"""The simulated table's pads as real radio: each an MFRC522 chip model with radio noise, polled
by the real reader backend on a simulated clock (:class:`~sim.hardware.noisy_table.NoisyTable`),
and the cards put on them as people put them.

With ``--noise realistic`` or ``harsh``, :class:`~sim.tabletop.virtual.SimTable` taps no exact
reads: a card is held on a seat's pad or the shoe for a human dwell and taken away, played onto
the pile and left resting there (now and then slid across the player's own pad on its way), a
token tapped on the play pad; the pile is turned over once it is high. Whatever the readers
confirm is what the referee gets; a placement no reader confirmed is made again, as a person
taps again when the table says nothing. A card put back on the pad it left is held off that pad
for the readers' forget time first (a reader cannot tell a card lifted and put back at once
from one resting there). The noise and the hands draw from random streams of their own, never
from the game's, so a seed plays the same game whatever the noise.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from sim.hardware import rpi_fakes
from sim.hardware.mfrc522_model import VirtualTag
from sim.hardware.noisy_table import RST_PINS, NoisyTable, Pad
from sim.hardware.radio_noise import EFFECTS, LEVELS, RadioNoise
from table.errors import TableError
from table.inputs import ReaderStatus, Report, TagRead
from table.readers.guard import ROLE_CONFIRMATION

NOISE_LEVELS = tuple(LEVELS)
MAX_PADS = len(RST_PINS)  # one reset line each
TAP_DWELL = (0.25, 0.6)  # seconds a tapped card is held on a pad
REST = 0.35  # seconds the table is watched after a card is let go on the pile
SLIDE_OVER = (0.02, 0.05)  # seconds a card slid to the pile spends over the player's own pad
SLIDES = 0.15  # share of plays slid across the player's own pad
PILE_TURNED_AT = 12  # cards resting on the pile before it is turned over
# What runs the real driver where the base install has only its stand-in (``./uno demo`` does
# it): the driver alone, RPi.GPIO and spidev being simulated.
DRIVER_FIX = "pip install --no-deps mfrc522==0.0.7"
STANDIN_NOTE = ("driver: the simulator's stand-in for the mfrc522 package, which is not "
                f"installed ({DRIVER_FIX} runs the real driver on the same simulated chips)")
FORGET = max(rule.forget for rule in ROLE_CONFIRMATION.values()) + 0.2

# What each effect of :data:`~sim.hardware.radio_noise.EFFECTS` is, in the summary's words.
INJECTED = {
    "flap": "missed polls of resting cards",
    "drop": "answers lost",
    "duplicate": "supply dips",
    "corrupt": "corrupted UIDs",
    "crosstalk": "cross-talk ghosts",
    "detune": "detuned polls",
    "lockup": "lock-ups",
}


class NoiseError(TableError, ValueError):
    """A noise level or table the radio cannot stand for."""


def check_noise(level: str, pads: int) -> None:
    """A clear error for a level not known or a table with more pads than reset lines."""
    if level not in NOISE_LEVELS:
        raise NoiseError(f"--noise {level!r}: use one of {', '.join(NOISE_LEVELS)}")
    if level != "off" and pads > MAX_PADS:
        raise NoiseError(f"--noise {level} simulates at most {MAX_PADS} MFRC522 pads and this "
                         f"table has {pads}: use fewer players or --hands counts")


@dataclass
class RadioPads:
    """The pads of a simulated table on a noisy radio, and the hands that put cards on them."""

    roles: Sequence[tuple[str, str]]  # (pad, role): the play pad first
    level: str
    seed: int
    known: Callable[[str], bool]
    retaps: int = 0  # placements no reader confirmed, made again
    strays: int = 0  # confirmed reads that were no placement (reads noise made a verdict of)
    resting: dict[str, tuple[str, VirtualTag]] = field(default_factory=dict)  # uid: pad, tag
    lifted: dict[tuple[str, str], float] = field(default_factory=dict)  # (pad, uid): when

    def __post_init__(self) -> None:
        check_noise(self.level, len(self.roles))
        self.noise = RadioNoise(self.level, seed=self.seed)
        self.rng = random.Random(f"radio-hands-{self.seed}")
        play = self.roles[0][0]
        others = tuple(name for name, _ in self.roles[1:])
        pads = [Pad(play, "play", near=others), *(Pad(n, r) for n, r in self.roles[1:])]
        self.play = play
        self.table = NoisyTable(pads, self.noise, known=self.known)

    def __enter__(self) -> RadioPads:
        self.table.__enter__()
        self.table.run(0.2)
        for report in self.table.reports:  # each reader's first "live"
            if not isinstance(report, ReaderStatus):
                raise NoiseError(f"a pad read {report} before any card was placed")
        self.table.reports.clear()
        return self

    def __exit__(self, *exc: object) -> None:
        self.table.__exit__(None, None, None)

    def put(self, pad: str, uid: str, rest: bool, over: str | None = None) -> list[Report]:
        """Put the card ``uid`` on ``pad`` as a person does (left resting on the pile when
        ``rest``, slid across the pad ``over`` now and then); what the readers reported."""
        t = self.table
        start = len(t.reports)
        self.lift(uid)
        since = self.lifted.get((pad, uid))
        if since is not None and t.clock.now - since < FORGET:
            t.run(since + FORGET - t.clock.now)
        if rest and len(self._pile()) >= PILE_TURNED_AT:
            for on_pile in self._pile():
                self.lift(on_pile)
            t.run(0.3)
        if rest and over in t.state and self.rng.random() < SLIDES:
            slid = t.place(over, uid)
            t.run(self.rng.uniform(*SLIDE_OVER))
            t.remove(over, slid)
            self.lifted[(over, uid)] = t.clock.now
        tag = t.place(pad, uid)
        if rest:
            self.resting[uid] = (pad, tag)
            t.run(REST)
        else:
            t.run(self.rng.uniform(*TAP_DWELL))
            t.remove(pad, tag)
            self.lifted[(pad, uid)] = t.clock.now
        reports = t.reports[start:]
        del t.reports[start:]
        got = [r for r in reports if isinstance(r, TagRead)]
        self.strays += sum(1 for r in got if (r.reader, r.uid) != (pad, uid))
        if not any((r.reader, r.uid) == (pad, uid) for r in got):
            self.retaps += 1
            self.lift(uid)
        return reports

    def lift(self, uid: str) -> None:
        """Take the card ``uid`` off the pad it rests on (if it rests anywhere)."""
        found = self.resting.pop(uid, None)
        if found is not None:
            pad, tag = found
            self.table.remove(pad, tag)
            self.lifted[(pad, uid)] = self.table.clock.now

    def _pile(self) -> list[str]:
        return [uid for uid, (pad, _) in self.resting.items() if pad == self.play]

    def summary(self) -> str:
        """One line: each effect injected, and what the readers made of it."""
        injected = ", ".join(f"{self.noise.counts[name]} {INJECTED[name]}" for name in EFFECTS
                             if name in self.active())
        guards: Counter[str] = Counter()
        for reader in self.table.readers():
            guards.update(reader.guard.counts)
        resets = sum(s.lockups_reset for s in self.table.state.values())
        lost = sum(1 for s in self.table.statuses if s.state == "lost")
        return (
            f"noise: {self.level}, {self.table.clock.now:.0f} s of polls: {injected}; "
            f"{guards['noise']} bad or unknown UIDs ignored, {max(guards['pending'], 0)} "
            f"unconfirmed sightings ignored (ghosts, slides), {guards['known']} sightings of "
            f"resting cards recognised, {resets} lock-ups reset ({lost} readers reported "
            f"lost), {self.retaps} placements made again, {self.strays} reads that were no "
            f"placement" + ("" if rpi_fakes.driver_installed() else f"\n{STANDIN_NOTE}")
        )

    def active(self) -> tuple[str, ...]:
        """The effects this level injects (a rate above zero)."""
        r = self.noise.rates
        rates = {"flap": r.flap, "drop": r.drop, "duplicate": r.duplicate, "corrupt": r.corrupt,
                 "crosstalk": r.crosstalk, "detune": r.detune_fail + r.detune_flip,
                 "lockup": r.lockup}
        return tuple(name for name in EFFECTS if rates[name] > 0)
