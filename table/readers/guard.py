"""What a polling reader makes of its sightings: a read noise could explain is never a play.

Pure bookkeeping, no I/O: a backend tells a :class:`ReadGuard` each UID it read in a poll, and
the guard answers what to do with the tag and what to report.

- **Checked**: a UID must have 4, 7 or 10 bytes, must not start with the cascade tag, and (when
  the reader knows the deck) must be a card of the deck; anything else is ``noise``: a
  corrupted or shifted UID (the BCC was checked while it was read).
- **Confirmed**: a new UID becomes a :class:`TagRead` only once read in ``need`` polls, none
  more than ``gap`` seconds after the one before (a card missing a poll or two still counts; a
  longer silence starts the count again); until then the tag is left un-halted (``pending``)
  so that the next poll reads it again; on a seat's pad and the shoe the reads must also span
  ``dwell`` seconds. Cross-talk from a neighbouring pad is seen
  at single polls and never gets there; a card slid across a pad on its way to another is not
  over it long enough.
- **Remembered**: a card read on this reader is ``known`` while it keeps being sighted: a card
  resting on the pad that loses power for a poll, or the whole pile woken by a field reset (a
  soft or hard reset, a field switched off), answers again as if new, and is halted without a
  word. It is a new placement again only after ``forget`` seconds without a sighting (then a
  :class:`TagLifted` comes before its read, as a reader that cannot see a card leave reports it);
  the reader makes the cards resting on its pad answer now and then (:attr:`remembered`).
- **One pad at a time**: a card is not confirmed on a reader while another reader of the table
  has just read it as its own card (within ``gap`` seconds): the card just played on the pile
  leaking into the next seat's pad, a slide's last sightings topped up by that leak.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from table.inputs import Report, TagLifted, TagRead
from table.readers.iso14443 import CT

PENDING, CONFIRMED, KNOWN, NOISE = "pending", "confirmed", "known", "noise"
# The cards confirmed or recognised on some reader of this process: UID -> (reader, time).
TABLE: dict[str, tuple[str, float]] = {}


@dataclass(frozen=True, slots=True)
class Confirmation:
    """How a reader of one role confirms a placement."""

    need: int = 4  # polls that must read the UID...
    gap: float = 0.12  # ...none more than this many seconds after the one before...
    window: float = 0.3  # ...the ones counted within this many seconds...
    dwell: float = 0.0  # ...and from the first of them to the last, at least this long
    forget: float = 5.0  # seconds without a sighting before a card read is new again


ROLE_CONFIRMATION: dict[str, Confirmation] = {
    # A tap is about a fifth of a second: four polls fit in it. The reader calls the roll of
    # the cards resting on its pad every two seconds; one missing from two roll calls has left
    # (a pile under detuning misses a call now and then).
    # A card slid across a seat's pad or the shoe on its way to the pile is over it for a few
    # hundredths of a second: those pads want the card there for 60 ms even when polled fast.
    "play": Confirmation(need=3),
    "seat": Confirmation(dwell=0.06),
    "draw": Confirmation(dwell=0.06),
}


def plausible_uid(uid: bytes) -> bool:
    """A UID an ISO 14443A tag could have: 4, 7 or 10 bytes, not starting with the cascade
    tag (a reader that stopped a level short reads ``88 xx xx xx``)."""
    return len(uid) in (4, 7, 10) and uid[0] != CT


class ReadGuard:
    """The sightings of one reader, turned into reads (see the module's docstring)."""

    def __init__(
        self,
        reader: str,
        rule: Confirmation | None = None,
        known: Callable[[str], bool] | None = None,
        table: dict[str, tuple[str, float]] | None = None,
    ) -> None:
        self.reader, self.rule, self.known = reader, rule or Confirmation(), known
        self.table = TABLE if table is None else table
        self._pending: dict[str, list[float]] = {}
        self._last_seen: dict[str, float] = {}
        self._unlifted: str | None = None
        self.counts: Counter[str] = Counter()  # sightings by outcome (pending: of a UID not
        # confirmed, or not yet), for doctor and the demo

    def sighting(self, uid: bytes, t: float) -> tuple[str, list[Report]]:
        """One poll read ``uid`` at ``t``: the outcome (``pending``: leave the tag un-halted;
        otherwise halt it) and what to report."""
        hexuid = uid.hex().upper()
        if not plausible_uid(uid) or (self.known is not None and not self.known(hexuid)):
            self.counts[NOISE] += 1
            return NOISE, []
        last = self._last_seen.get(hexuid)
        if last is not None and t - last <= self.rule.forget:
            self._last_seen[hexuid] = t
            self.table[hexuid] = (self.reader, t)
            self.counts[KNOWN] += 1
            return KNOWN, []
        elsewhere = self.table.get(hexuid)
        held = elsewhere is not None and elsewhere[0] != self.reader
        held = held and elsewhere is not None and 0 <= t - elsewhere[1] <= self.rule.gap
        times = self._pending.get(hexuid, [])
        if times and t - times[-1] > self.rule.gap:
            times = []  # missed for too long: start again
        times = [s for s in times if t - s <= self.rule.window] + [t]
        if len(times) < self.rule.need or t - times[0] < self.rule.dwell or held:
            self._pending[hexuid] = times
            self.counts[PENDING] += 1
            return PENDING, []
        self._pending.pop(hexuid, None)
        self._last_seen[hexuid] = t
        self.table[hexuid] = (self.reader, t)
        self.counts[CONFIRMED] += 1
        self.counts[PENDING] -= len(times) - 1  # those sightings were this card after all
        read = TagRead(self.reader, hexuid, t)
        again, self._unlifted = self._unlifted == hexuid, hexuid
        return CONFIRMED, ([TagLifted(self.reader, hexuid, t), read] if again else [read])

    def end_poll(self, t: float) -> None:
        """A poll is over: sightings too old to matter are forgotten (the memory stays small)."""
        keep = max(self.rule.window, self.rule.forget)
        self._pending = {u: ts for u, ts in self._pending.items() if t - ts[-1] <= self.rule.gap}
        self._last_seen = {u: s for u, s in self._last_seen.items() if t - s <= keep}

    @property
    def pending(self) -> list[bytes]:
        """The UIDs waiting for confirmation."""
        return [bytes.fromhex(u) for u in self._pending]

    @property
    def remembered(self) -> bool:
        """Some card read here may still rest on the pad."""
        return bool(self._last_seen)

    @property
    def unconfirmed(self) -> int:
        """Sightings that never became a read: noise, or placements still pending."""
        return self.counts[NOISE] + self.counts[PENDING]
