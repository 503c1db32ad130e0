"""The seats' secrets: one unguessable token per seat and match, the press ids already taken,
and a rate limit per seat.

A token is 128 random bits from :mod:`secrets` (22 URL-safe characters). It is the only thing
a seat page holds: whoever has the link plays that seat, so the link is shown only on the
terminal that started the table and on the admin page. Tokens are new for every match, so a
link from last week's party plays nothing tonight.
"""

from __future__ import annotations

import hmac
import math
import re
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Final, Literal

TOKEN_BYTES: Final = 16
TOKEN_SHAPE: Final = re.compile(r"[A-Za-z0-9_-]{16,64}")
PRESS_ID_SHAPE: Final = re.compile(r"[A-Za-z0-9_.:-]{1,64}")
REMEMBERED: Final = 64  # press ids kept per seat, to answer a retry without a second press
RATE: Final = 4.0  # presses a second a seat may keep up...
BURST: Final = 6.0  # ...after a burst of this many

Admission = Literal["new", "repeat", "too-fast"]


class Seats:
    """Tokens, press ids and rate limits of the seats of one match (any thread)."""

    def __init__(
        self,
        players: Sequence[str],
        rate: float = RATE,
        burst: float = BURST,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.players = tuple(players)
        self.rate, self.burst, self.clock = rate, burst, clock
        self._lock = threading.Lock()
        self.renew()

    def renew(self) -> None:
        """New tokens for a new match: every earlier link stops working."""
        with self._lock:
            self.tokens = tuple(secrets.token_urlsafe(TOKEN_BYTES) for _ in self.players)
            self._seen: list[OrderedDict[str, None]] = [OrderedDict() for _ in self.players]
            now = self.clock()
            self._buckets = [(self.burst, now) for _ in self.players]

    def seat_of(self, token: object) -> int | None:
        """The seat whose token this is; ``None`` for anything else. Every seat's token is
        compared in constant time, so the answer's timing tells nothing of a near miss."""
        if not isinstance(token, str) or not TOKEN_SHAPE.fullmatch(token):
            return None
        given = token.encode()
        found = None
        for seat, mine in enumerate(self.tokens):
            if hmac.compare_digest(given, mine.encode()):
                found = seat
        return found

    def admit(self, seat: int, press_id: str) -> Admission:
        """Whether a press is new, the retry of one already taken, or one too many."""
        with self._lock:
            seen = self._seen[seat]
            if press_id in seen:
                seen.move_to_end(press_id)
                return "repeat"
            tokens, since = self._buckets[seat]
            now = self.clock()
            tokens = min(self.burst, tokens + (now - since) * self.rate)
            if tokens < 1.0:
                self._buckets[seat] = (tokens, now)
                return "too-fast"
            self._buckets[seat] = (tokens - 1.0, now)
            seen[press_id] = None
            if len(seen) > REMEMBERED:
                seen.popitem(last=False)
            return "new"

    def retry_after(self, seat: int) -> int:
        """Whole seconds until ``seat`` may press again (at least 1: what ``Retry-After``
        says to a press refused as too fast)."""
        with self._lock:
            tokens, since = self._buckets[seat]
            tokens = min(self.burst, tokens + (self.clock() - since) * self.rate)
        return max(1, math.ceil((1.0 - tokens) / self.rate))

    def forget(self, seat: int, press_id: str) -> None:
        """A press the table refused to take: its retry is a new press."""
        with self._lock:
            self._seen[seat].pop(press_id, None)
