"""What the host knows of one board, kept up to date from its messages. Pure: no I/O, no clock.

The board repeats the tag on each reader after every heartbeat, numbered by placement, so a
frame lost on the line delays a read but never loses it, and a repeat is never a new read.
A board that restarts (a ``boot`` message; when the boot message itself was lost, sequence
numbers that start again or an uptime that goes backwards) forgets its placements; a tag that
rested on a reader through the restart is then not reported again, and one placed during or
after it is.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from firmware_bridge.messages import MAX_READERS, Message

# A tag still on its reader is found by the first polls after a restart; a heartbeat this long
# after boot that shows the reader empty means the tag left during the restart.
SETTLE_MS = 500
# The board numbers its frames from 0 at boot, 0 to 255 and round again. A number that went
# backwards (is behind the last one by up to half the round) and is among a run's first ones
# is a restart: the line cannot lose that many frames without the heartbeat timing out first.
FRESH_SEQ = 64


@dataclass(frozen=True, slots=True)
class Read:
    """A tag newly placed on a channel."""

    channel: int
    uid: str


@dataclass(frozen=True, slots=True)
class Removed:
    """The tag on a channel has left it."""

    channel: int
    uid: str


@dataclass(frozen=True, slots=True)
class BoardUp:
    """The board identified itself (``boot`` or ``info``); ``restarted`` when it had reset."""

    fw_version: str
    protocol: int
    chips: tuple[int, ...]  # VersionReg of each channel's chip, 0 when none answered
    restarted: bool


@dataclass(frozen=True, slots=True)
class Reply:
    """The board's answer to a command (``pong``, ``ack``, or ``info`` when asked)."""

    message: Message


Event = Read | Removed | BoardUp | Reply


class BoardState:
    """What the host knows of one board; :meth:`handle` turns each message into events."""

    def __init__(self) -> None:
        self.identified = False
        self.uptime_ms: int | None = None
        self.chips: tuple[int, ...] = ()
        self.placement: list[int | None] = [None] * MAX_READERS
        self.present: list[str | None] = [None] * MAX_READERS
        self.carried: list[str | None] = [None] * MAX_READERS
        self.last_seq: int | None = None
        self.missed_frames = 0
        self.restarts = 0
        self.poll_us = 0  # the board's last full poll of its readers, in its own microseconds
        self.poll_ms = 0  # the board's poll interval
        self.heartbeats = 0
        # What each message of an identified board does, by name (as Klipper's
        # ``register_response`` keeps a handler per message); an unknown name does nothing.
        self._handlers: dict[str, Callable[[Message], list[Event]]] = {
            "heartbeat": self._on_heartbeat,
            "tag": self._on_tag,
            "removed": self._on_removed,
        }

    def connected(self) -> None:
        """A new connection: nothing from the board counts until it identifies itself."""
        self.identified = False
        self.last_seq = None

    def _restarted(self) -> None:
        self.restarts += 1
        for ch in range(MAX_READERS):
            if self.present[ch] is not None:
                self.carried[ch] = self.present[ch]
            self.present[ch] = None
            self.placement[ch] = None
        self.uptime_ms = None

    def _track_seq(self, msg: Message) -> bool:
        """Count the frames lost before ``msg``; True when its number says the board restarted."""
        last, self.last_seq = self.last_seq, msg.seq
        if last is None or msg.name == "boot":
            return False
        gap = (msg.seq - last - 1) % 256
        if gap >= 128 and msg.seq < FRESH_SEQ:
            self.missed_frames += msg.seq  # the new run's first frames, its boot among them
            return True
        self.missed_frames += gap
        return False

    def handle(self, msg: Message) -> list[Event]:
        """The events one message from the board gives."""
        restarted = self._track_seq(msg)
        if restarted:
            self._restarted()  # the boot message was lost
        if msg.name in ("boot", "info"):
            return self._on_identity(msg, restarted)
        if msg.name in ("pong", "ack"):
            return [Reply(msg)]
        handler = self._handlers.get(msg.name)
        if handler is None or not self.identified:
            return []
        return handler(msg)

    def _on_identity(self, msg: Message, restarted: bool) -> list[Event]:
        """``boot`` or ``info``: the board says what it is (and, by its uptime, if it reset)."""
        uptime = msg.num("uptime_ms")
        if msg.name == "boot" or (self.uptime_ms is not None and uptime < self.uptime_ms):
            self._restarted()
            restarted = True
        self.identified = True
        self.uptime_ms = uptime
        self.chips = tuple(msg.raw("chips"))
        major, minor = msg.num("fw_major"), msg.num("fw_minor")
        up = BoardUp(f"{major}.{minor}", msg.num("protocol"), self.chips, restarted)
        return [up, Reply(msg)] if msg.name == "info" else [up]

    def _on_heartbeat(self, msg: Message) -> list[Event]:
        """The board's pulse: its uptime, poll timings, and which readers still hold a tag."""
        uptime = msg.num("uptime_ms")
        if self.uptime_ms is not None and uptime < self.uptime_ms:
            self._restarted()  # the boot message was lost
        self.uptime_ms = uptime
        self.poll_us = msg.num("poll_us")
        self.poll_ms = msg.num("poll_ms")
        self.heartbeats += 1
        if uptime >= SETTLE_MS:
            present = msg.num("present")
            for ch in range(MAX_READERS):
                if not present & (1 << ch):
                    self.carried[ch] = None
        return []

    def _on_tag(self, msg: Message) -> list[Event]:
        """A tag on a reader: a Read the first time its placement is heard, else nothing."""
        ch, placement = msg.num("reader"), msg.num("placement")
        uid = msg.raw("uid").hex().upper()
        if ch >= MAX_READERS or len(uid) < 8:
            return []
        if placement == self.placement[ch] and uid == self.present[ch]:
            return []  # the repeat of a placement already reported
        self.placement[ch], self.present[ch] = placement, uid
        carried, self.carried[ch] = self.carried[ch], None
        return [] if carried == uid else [Read(ch, uid)]

    def _on_removed(self, msg: Message) -> list[Event]:
        """A tag left a reader (after its Read, when the tag frame itself was lost)."""
        ch, placement = msg.num("reader"), msg.num("placement")
        uid = msg.raw("uid").hex().upper()
        if ch >= MAX_READERS:
            return []
        events: list[Event] = []
        if placement != self.placement[ch] and uid != self.carried[ch]:
            events.append(Read(ch, uid))  # a quick tap whose tag frame was lost
        self.placement[ch] = placement
        self.present[ch] = self.carried[ch] = None
        return [*events, Removed(ch, uid)]
