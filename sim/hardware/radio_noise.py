"""What real tables do to reads, injected into the MFRC522 model at a rate each.

A :class:`RadioNoise` is attached to one or more :class:`~sim.hardware.mfrc522_model.Mfrc522Model`
chips (``chip.noise``); the chip asks it, at each request (REQA or WUPA, the start of a poll),
what its field holds for that poll, and, for each frame, what reaches the reader. Effects, with
the rates of :data:`LEVELS` (docs/hardware.md cites the sources of the realistic ones):

- ``flap``: a card resting in the field (there for :data:`RESTING` seconds or more) misses a
  poll: it is silent to it (a halted card is silent anyway; a reader that counts on a resting
  card answering every poll sees it come and go);
- ``drop``: one answer of a tag lost on the air (the poll fails part way);
- ``duplicate``: a resting tag's supply dips without a missed poll: a halted tag answers again;
- ``corrupt``: a tag answers one poll with one UID bit flipped, its BCC good or bad;
- ``crosstalk``: a tag resting on a neighbouring pad answers this reader for one poll,
  sometimes with its UID shifted by a byte or corrupted, its BCC good or bad; four times less
  often while the neighbour's field is off (fields taken in turn);
- ``detune``: past ``stack_limit`` tags in one field, a poll fails or a bit of an answer flips;
- ``lockup``: the chip hangs (no interrupt, no timer) until its RST line is pulsed;
- a counterfeit chip (VersionReg 0x12, :data:`COUNTERFEIT`) flaps three times and locks up four
  times as often (shorter range, #428); a chip with ``holds_miso`` holds the bus's MISO line low
  while it is not selected (:class:`~sim.hardware.rpi_fakes.SimBoard` models the bus).

Rates per second (``crosstalk``, ``lockup``) are turned into a chance per poll from the time since
the chip's previous request, so they do not depend on how fast a reader polls. The noise draws
from its own :class:`random.Random`, never from the game's.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sim.hardware.mfrc522_model import Mfrc522Model, VirtualTag

COUNTERFEIT = 0x12  # VersionReg of the clone chips (genuine: 0x91, 0x92)
RESTING = 0.3  # seconds in the field after which a card is resting (and may flap)
EFFECTS = ("flap", "drop", "duplicate", "corrupt", "crosstalk", "detune", "lockup")


@dataclass(frozen=True, slots=True)
class NoiseRates:
    """The rate of each effect; per poll (a chance from 0 to 1) unless it says per second."""

    flap: float = 0.0  # per poll, per resting card
    drop: float = 0.0  # per answer
    duplicate: float = 0.0  # per poll, per halted tag
    corrupt: float = 0.0  # per poll, per tag read
    crosstalk: float = 0.0  # per second, per reader with a tag on a neighbouring pad
    stack_limit: int = 99  # tags in one field before detuning starts
    detune_fail: float = 0.0  # per poll past the stack limit: the field reads nothing
    detune_flip: float = 0.0  # per answer past the stack limit: one bit flipped
    lockup: float = 0.0  # per second, per chip
    shift: float = 0.5  # share of cross-talk ghosts with their UID shifted by a byte
    garble: float = 0.25  # share of cross-talk ghosts with one UID bit flipped
    bad_bcc: float = 0.5  # share of corrupted or shifted UIDs sent with a wrong BCC


LEVELS: dict[str, NoiseRates] = {
    "off": NoiseRates(),
    # From the sources of docs/hardware.md: about 100 false or duplicated reads an hour on three
    # readers 80 mm apart (#589): 0.01 ghost/s a reader; one hang a chip an hour (#428); stacks
    # iffy at 3 cards; a resting card losing a poll now and then (#188, #437).
    "realistic": NoiseRates(
        flap=0.05, drop=0.002, duplicate=0.001, corrupt=0.0001, crosstalk=0.01,
        stack_limit=3, detune_fail=0.03, detune_flip=0.002, lockup=1 / 3600,
    ),
    # At least ten times those: a resting card missing one poll in two, one corrupted UID in a
    # thousand reads, a lock-up every two minutes, and (three readers beside pads with cards on
    # them) more than a ghost a second.
    "harsh": NoiseRates(
        flap=0.5, drop=0.02, duplicate=0.01, corrupt=0.001, crosstalk=0.4,
        stack_limit=2, detune_fail=0.1, detune_flip=0.02, lockup=1 / 120,
    ),
}  # fmt: skip


class RadioNoise:
    """The noise of one table's radio: its rates, its own random stream, and a count of every
    effect it injected (``counts``)."""

    def __init__(self, rates: NoiseRates | str = "realistic", seed: int = 0) -> None:
        self.rates = LEVELS[rates] if isinstance(rates, str) else rates
        self.rng = random.Random(f"radio-noise-{seed}")
        self.counts: Counter[str] = Counter()

    # ------------------------------------------------------------------ hooks of the chip

    def on_request(self, chip: Mfrc522Model, now: float) -> None:
        """The start of a poll of ``chip``: decide what its field holds until the next one."""
        dt = max(0.0, now - chip.last_request) if chip.last_request is not None else 0.02
        chip.last_request = now
        chip.ghosts.clear()
        chip.muted.clear()
        r, rng, fake = self.rates, self.rng, chip.version == COUNTERFEIT
        if not chip.locked and rng.random() < _per_poll(r.lockup * (4 if fake else 1), dt):
            chip.locked = True
            self.counts["lockup"] += 1
            return
        flap = min(1.0, r.flap * (3 if fake else 1))
        for tag in chip.tags:
            if now - tag.placed_at >= RESTING and rng.random() < flap:
                chip.muted.append(tag)  # a resting card misses this poll
                self.counts["flap"] += 1
            elif tag.state == "HALT" and rng.random() < r.duplicate:
                tag.power_off()  # its supply dips: it answers again as if new
                self.counts["duplicate"] += 1
            elif tag.state == "IDLE" and rng.random() < r.corrupt:
                chip.muted.append(tag)
                chip.ghosts.append(self._garbled(tag, shift=False))
                self.counts["corrupt"] += 1
        if len(chip.tags) > r.stack_limit and rng.random() < r.detune_fail:
            chip.muted.extend(chip.tags)
            self.counts["detune"] += 1
        self._crosstalk(chip, dt)

    def on_answers(self, chip: Mfrc522Model, answers: list[bytes]) -> list[bytes]:
        """What reaches the reader of the answers the tags sent to one frame."""
        r, rng = self.rates, self.rng
        out = []
        for answer in answers:
            if rng.random() < r.drop:
                self.counts["drop"] += 1
                continue
            if len(chip.tags) > r.stack_limit and rng.random() < r.detune_flip:
                flipped = bytearray(answer)
                flipped[rng.randrange(len(flipped))] ^= 1 << rng.randrange(8)
                answer = bytes(flipped)
                self.counts["detune"] += 1
            out.append(answer)
        return out

    # ------------------------------------------------------------------ effects

    def _crosstalk(self, chip: Mfrc522Model, dt: float) -> None:
        near = [(n, t) for n in chip.neighbours for t in n.tags]
        if not near:
            return
        neighbour, tag = self.rng.choice(near)
        rate = self.rates.crosstalk * (1.0 if neighbour.antenna_on else 0.25)
        if self.rng.random() < _per_poll(rate, dt):
            self.counts["crosstalk"] += 1
            roll = self.rng.random()
            if roll < self.rates.shift:
                chip.ghosts.append(self._garbled(tag, shift=True))
            elif roll < self.rates.shift + self.rates.garble:
                chip.ghosts.append(self._garbled(tag, shift=False))
            else:
                chip.ghosts.append(replace_tag(tag, tag.uid, bad_bcc=False))

    def _garbled(self, tag: VirtualTag, *, shift: bool) -> VirtualTag:
        uid = bytearray(tag.uid)
        if shift:
            uid = uid[1:] + uid[:1]
        else:
            uid[self.rng.randrange(len(uid))] ^= 1 << self.rng.randrange(8)
        if len(uid) > 4 and uid[0] == 0x88:  # a UID never starts with the cascade tag
            uid[0] = 0x08
        return replace_tag(tag, bytes(uid), bad_bcc=self.rng.random() < self.rates.bad_bcc)


def replace_tag(tag: VirtualTag, uid: bytes, *, bad_bcc: bool) -> VirtualTag:
    """A one-poll stand-in for ``tag`` answering as ``uid``, powered up in IDLE."""
    return replace(tag, uid=uid, state="IDLE", level=0, woken=False, bad_bcc=bad_bcc)


def _per_poll(rate: float, dt: float) -> float:
    """The chance of at least one event of a Poisson process of ``rate`` in ``dt`` seconds."""
    return 1.0 - math.exp(-rate * dt) if rate > 0 else 0.0


def level(name: str) -> NoiseRates:
    """The rates of a noise level by name (``off``, ``realistic``, ``harsh``)."""
    try:
        return LEVELS[name]
    except KeyError:
        raise ValueError(f"noise level {name!r}: use one of {', '.join(LEVELS)}") from None


__all__ = ["COUNTERFEIT", "EFFECTS", "LEVELS", "NoiseRates", "RadioNoise", "level"]
