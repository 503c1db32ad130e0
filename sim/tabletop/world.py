"""The physical cards of a simulated table: which copy lies where.

This is the table top, not the referee: the draw pile, the discard pile and the cards in each
player's hand, as tagged copies. The simulator moves copies here and then shows them to the
referee's readers, exactly as people move cards and tap them; the referee's own bookkeeping is
then checked against it.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from table.cards import Card, CardCopy, edition_copies


class WorldError(AssertionError):
    """The table top and the referee disagree (a bug, never a player's mistake)."""


@dataclass
class TableTop:
    """The table top: the pile, the discard, each hand's physical copies."""

    edition: str
    players: int
    rng: random.Random
    pile: list[CardCopy] = field(default_factory=list)  # top last
    discard: list[CardCopy] = field(default_factory=list)  # top last
    hands: list[list[CardCopy]] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not self.hands:
            self.hands = [[] for _ in range(self.players)]
        if not self.pile and not self.discard:
            self.pile = list(edition_copies(self.edition))
            self.rng.shuffle(self.pile)

    def gather(self) -> None:
        """Every card back into one shuffled pile (before a deal)."""
        self.pile += self.discard + [c for hand in self.hands for c in hand]
        self.discard = []
        self.hands = [[] for _ in range(self.players)]
        self.pile.sort(key=lambda c: (c.card.code, c.copy))
        self.rng.shuffle(self.pile)

    def take(self) -> CardCopy | None:
        """The top card of the draw pile; an empty pile is remade from the discard pile (all but
        its top card), shuffled. ``None`` when both are exhausted."""
        if not self.pile and len(self.discard) > 1:
            self.pile, self.discard = self.discard[:-1], self.discard[-1:]
            self.rng.shuffle(self.pile)
        return self.pile.pop() if self.pile else None

    def put_in_hand(self, seat: int, copy: CardCopy) -> None:
        """Put ``copy`` in ``seat``'s hand."""
        self.hands[seat].append(copy)

    def copy_in_hand(self, seat: int, card: Card) -> CardCopy | None:
        """A copy of ``card`` in ``seat``'s hand, or None."""
        for copy in self.hands[seat]:
            if copy.card is card:
                return copy
        return None

    def play(self, seat: int, copy: CardCopy) -> None:
        """Move ``copy`` from ``seat``'s hand to the discard."""
        self.hands[seat].remove(copy)
        self.discard.append(copy)

    def turn_up(self, copy: CardCopy) -> None:
        """Put ``copy`` on the discard face up."""
        self.discard.append(copy)

    def bury(self) -> None:
        """The card just turned up goes back into the pile at a random place."""
        copy = self.discard.pop()
        self.pile.insert(self.rng.randrange(len(self.pile) + 1), copy)

    def unshow(self, seat: int, copy: CardCopy) -> None:
        """A play the referee refused: the card goes back into the hand."""
        self.discard.remove(copy)
        self.hands[seat].append(copy)

    def redeal_hands(self, counts: list[int]) -> None:
        """Shuffle Hands: every hand collected, shuffled and dealt out in these sizes."""
        cards = [c for hand in self.hands for c in hand]
        cards.sort(key=lambda c: (c.card.code, c.copy))
        self.rng.shuffle(cards)
        self.hands = []
        for n in counts:
            self.hands.append(cards[:n])
            del cards[:n]

    def move_hands(self, owners: dict[int, int]) -> None:
        """Seven-O: hands change owner, seat to seat (a swap, a 0 passing every hand on)."""
        hands = list(self.hands)
        for old, new in owners.items():
            hands[new] = self.hands[old]
        self.hands = hands

    def snapshot(self) -> TableTop:
        """A copy of the table top, for an undo."""
        return TableTop(
            self.edition,
            self.players,
            self.rng,
            self.pile.copy(),
            self.discard.copy(),
            [h.copy() for h in self.hands],
        )

    def restore(self, other: TableTop) -> None:
        """Put the table top back as ``snap`` had it."""
        self.pile = other.pile.copy()
        self.discard = other.discard.copy()
        self.hands = [h.copy() for h in other.hands]

    def check(self, hand_sizes: list[int], discard: list[Card], total: int) -> None:
        """Raise :class:`WorldError` unless every copy is in exactly one place and the hands and
        discard pile match what the referee believes."""
        every = self.pile + self.discard + [c for h in self.hands for c in h]
        if len(every) != total or len(set(every)) != total:
            raise WorldError(f"{len(every)} cards on the table ({len(set(every))} distinct)")
        sizes = [len(h) for h in self.hands]
        if sizes != hand_sizes:
            raise WorldError(f"hands hold {sizes}, the referee counts {hand_sizes}")
        top = [c.card for c in self.discard[-len(discard):]] if discard else []
        if discard and top[-1] is not discard[-1]:
            raise WorldError(f"the top card is {top[-1]}, the referee says {discard[-1]}")
