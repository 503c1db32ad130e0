"""Cards put on a noisy table as people put them, and what the readers made of it.

A placement is one of: a card played onto the pile and left there (the pile is cleared now and
then, as when the discard pile is turned into a new shoe); a card slid across a seat's pad on its
way to the pile; a tap on a seat's pad or the shoe (the card held there for a human dwell, then
taken away). :func:`run` places cards one after another on a :class:`NoisyTable` and checks every
confirmed read against the placements: how long each real placement took to become a read
(confirmation included), real placements never read, and reads that were no placement (ghosts,
a resting card read twice) -- the reads that would have become a verdict.
"""

from __future__ import annotations

import random
import statistics
from dataclasses import dataclass

from sim.hardware.mfrc522_model import VirtualTag
from sim.hardware.noisy_table import NoisyTable, Pad
from sim.hardware.radio_noise import EFFECTS, RadioNoise

TABLE = [
    Pad("pile", role="play", near=("Aki", "Ken")),
    Pad("shoe", role="draw", near=("Aki",)),
    Pad("Aki", role="seat"),
    Pad("Ken", role="seat"),
]
PILE_CLEARED_EVERY = 15  # cards on the pile before it is turned over
TAP_DWELL = (0.2, 0.6)  # seconds a tapped card stays on a pad
SLIDE_OVER = (0.02, 0.05)  # seconds a slid card spends over the pad it crosses
GAP = (0.1, 0.4)  # seconds between two placements
POLL = 0.015  # seconds from one round of polls to the next (the backend's default)


def deck(seed: int, size: int = 108) -> list[str]:
    """UIDs of a deck's stickers and cards: 7-byte NTAG stickers and 4-byte cards, mixed."""
    rng = random.Random(f"deck-{seed}")
    uids: set[str] = set()
    while len(uids) < size:
        length = rng.choice((4, 7))
        first = rng.choice([b for b in range(256) if b != 0x88])
        uids.add(bytes([first, *(rng.randrange(256) for _ in range(length - 1))]).hex().upper())
    return sorted(uids)


@dataclass
class Placement:
    """A card put on a pad at ``t``, and when its read came (``None``: never)."""

    pad: str
    uid: str
    t: float
    read_at: float | None = None


def run(level: str, placements: int, seed: int = 1) -> dict[str, object]:
    """Place ``placements`` cards on a table with ``level`` noise; the figures of the run."""
    cards = deck(seed)
    rng = random.Random(f"hands-{seed}")  # the people; the noise has its own stream
    noise = RadioNoise(level, seed=seed)
    done: list[Placement] = []
    with NoisyTable(TABLE, noise, poll=POLL, known=set(cards).__contains__) as table:
        table.run(0.2)
        pile: list[VirtualTag] = []
        for i in range(placements):
            uid = cards[i % len(cards)]
            kind = rng.choices(("play", "slide", "tap"), (0.4, 0.1, 0.5))[0]
            if kind == "tap":
                pad = rng.choice(("Aki", "Ken", "shoe"))
                tag = table.place(pad, uid)
                done.append(Placement(pad, uid, table.clock.now))
                table.run(rng.uniform(*TAP_DWELL))
                table.remove(pad, tag)
            else:
                if kind == "slide":
                    over = rng.choice(("Aki", "Ken"))
                    tag = table.place(over, uid)
                    table.run(rng.uniform(*SLIDE_OVER))
                    table.remove(over, tag)
                pile.append(table.place("pile", uid))
                done.append(Placement("pile", uid, table.clock.now))
                if len(pile) >= PILE_CLEARED_EVERY:
                    table.run(0.6)
                    for resting in pile:
                        table.remove("pile", resting)
                    pile.clear()
            table.run(rng.uniform(*GAP))
        table.run(1.0)
        ghosts = _match(done, table)
        resets = sum(s.lockups_reset for s in table.state.values())
        lost = sum(1 for s in table.statuses if s.state == "lost")
        sim_s = table.clock.now
    latencies = sorted(p.read_at - p.t for p in done if p.read_at is not None)
    missed = sum(1 for p in done if p.read_at is None)
    return {
        "noise": level,
        "placements": placements,
        "simulated_s": round(sim_s, 1),
        "verdict_p50_ms": round(1000 * statistics.median(latencies), 1),
        "verdict_p99_ms": round(1000 * latencies[int(0.99 * (len(latencies) - 1))], 1),
        "verdict_max_ms": round(1000 * latencies[-1], 1),
        "missed": missed,
        "ghost_verdicts": ghosts,
        "lockups_reset": resets,
        "readers_lost": lost,
        "injected": {name: noise.counts[name] for name in EFFECTS},
    }


def _match(done: list[Placement], table: NoisyTable) -> int:
    """Pair each confirmed read with the placement it reports; count the reads left over."""
    waiting: dict[tuple[str, str], list[Placement]] = {}
    for p in done:
        waiting.setdefault((p.pad, p.uid), []).append(p)
    ghosts = 0
    for read in table.reads:
        candidates = [p for p in waiting.get((read.reader, read.uid), []) if p.read_at is None]
        earlier = [p for p in candidates if p.t <= read.t]
        if earlier:
            earlier[-1].read_at = read.t
        else:
            ghosts += 1
    return ghosts
