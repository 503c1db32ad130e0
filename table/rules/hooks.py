"""The hooks through which a variant changes the game, with the official game's answers.

The model is python-chess's ``chess/variant.py``: the engine runs one path for every option set
and, at the few points where a rule of docs/rules.md §4-§6 changes something, asks the rules of the
state (``state.rules``, a :class:`Rules`). The official game is this class itself: every hook
does nothing, allows nothing more, or answers as the official rules do.

A variant is a subclass that overrides some hooks and calls ``super()`` for the rest of the
chain, so that several variants combine (``table.rules.variants`` puts together, for each set of
options, the variants it turns on). Hooks named ``check_*`` only check: they raise
:class:`~table.errors.IllegalPlay` and change nothing, since every check of an action runs before
its first change. The others are called once the action is accepted.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from table.cards import Card, Color
from table.errors import IllegalPlay
from table.rules.actions import Action, Don, Swap
from table.rules.variant_state import NO_EXTRA, Extra

try:  # mypy's own (a note for the compiler: it changes nothing at run time)
    from mypy_extensions import mypyc_attr
except ImportError:  # installed without mypy

    def mypyc_attr(*attrs: str, **kwattrs: object) -> Any:  # type: ignore[misc]
        return lambda cls: cls


# The state and what needs it are imported where they are used, never here: the compiled
# build (docs/performance.md) makes ``Rules`` before state.py, whose ``State`` holds one.
if TYPE_CHECKING:
    from table.rules.options import Options
    from table.rules.state import Event, State


# Compiled, the variants stay Python classes (put together at run time by multiple
# inheritance): the compiler must let Python subclass this one.
@mypyc_attr(allow_interpreted_subclasses=True)
class Rules:
    """The official game (docs/rules.md §1-§3). Subclasses are the variants; see the module."""

    #: What the variants of this combination are called (empty for the official game).
    families: ClassVar[tuple[str, ...]] = ()
    #: The hooks some variant of this combination overrides. The hottest paths call a hook only
    #: when it is in ``hooked``: a call costs more than the nothing the official hook does.
    overridden: ClassVar[frozenset[str]] = frozenset()

    def __init__(self) -> None:
        # The class's set, kept by the instance itself: an attribute of the instance is read
        # several times faster than one of its class, and the hot paths ask it every action.
        self.hooked: frozenset[str] = type(self).overridden

    # The hooks are the same for every instance of a class: one instance is as good as another
    # (a state read back from a snapshot compares equal to the one that was saved).
    def __eq__(self, other: object) -> bool:
        return type(other) is type(self)

    def __hash__(self) -> int:
        return hash(type(self))

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"

    @classmethod
    def applies(cls, options: Options) -> bool:
        """Whether ``options`` turn this variant on (the official game: always)."""
        return True

    # --- a round begins ---------------------------------------------------------------------

    def new_extra(self, previous: Extra, n: int) -> Extra:
        """What the variants remember as a round of ``n`` seats begins (``previous``: at the
        end of the last round)."""
        return NO_EXTRA

    def buries(self, s: State, card: Card, official: bool) -> bool:
        """Whether the first card turned up goes back into the pile (``official``: whether
        the official rules bury it)."""
        return official

    def turned_up(self, s: State, card: Card) -> None:
        """``card`` stays turned up; its colour and rank are in force."""

    def first_turn(self, s: State, card: Card, events: list[Event]) -> bool:
        """Start play after the first card ``card`` in a way of the variant's own; return
        whether it did (else the official first card's effect applies)."""
        return False

    # --- checks of a play -------------------------------------------------------------------

    def may_jump(self, s: State, p: int, cards: tuple[Card, ...]) -> bool:
        """Whether ``p``, not on turn, may play ``cards`` now (jump in)."""
        return False

    def check_turn(self, s: State) -> None:
        """Raise unless the player on turn may act (play, draw or pass) now."""

    def check_group(self, s: State, cards: tuple[Card, ...]) -> None:
        """Raise unless ``cards`` (two or more) may go down together."""
        raise IllegalPlay("one-card-at-a-time", "cards are played one at a time")

    def may_stack(self, s: State, card: Card) -> bool:
        """Whether ``card`` may be played while a draw is pending (instead of drawing)."""
        return False

    def check_going_out(self, s: State, p: int, cards: tuple[Card, ...], left: int) -> None:
        """Raise unless ``p`` may play ``cards`` and keep ``left`` cards (0 or 1)."""

    # --- a play is carried out -----------------------------------------------------------

    def rank_after_wild(self, s: State, card: Card, prior: str | None) -> str | None:
        """The rank the next card may match after the wild ``card`` (``prior``: the one
        before it)."""
        return None

    def draws_wait(self, s: State, rank: str) -> bool:
        """Whether the draw of a draw card of ``rank`` waits (it may be answered)."""
        return False

    def after_play(
        self, s: State, p: int, cards: tuple[Card, ...], color: Color | None, events: list[Event]
    ) -> bool:
        """``p`` played ``cards`` (``color``: named for a wild), their effect is done and play
        goes on. Return whether the turn now waits for something of the variant's own (it is
        then not announced)."""
        return False

    def going_out(self, s: State, p: int, last: Card) -> None:
        """``p`` goes out on ``last``: the round is about to be won."""

    # --- the turn and the UNO call -------------------------------------------------------

    def handing_over(self, s: State, seat: int, events: list[Event]) -> int:
        """The turn is about to go to ``seat`` (said next, by
        :func:`~table.rules.flow.move_turn`, the one place the turn moves): return the seat
        it goes to, another one to pass it on (with the variant's events)."""
        return seat

    def uno_missed(self, s: State, seat: int, events: list[Event]) -> bool:
        """``seat`` is penalised for a missed UNO call (caught, or by the referee): give the
        variant's own penalty and return True, or return False for the official draw of
        ``uno_penalty`` cards (:func:`~table.rules.flow.penalise_missed_uno`)."""
        return False

    # --- other actions ------------------------------------------------------------------------

    def turn_action(self, s: State, p: int) -> None:
        """``p``, on turn, draws or passes."""

    def color_named(self, s: State, p: int, color: Color) -> None:
        """``p`` named ``color`` for the wild on top."""

    def several_at_once(self, s: State, size: int) -> bool:
        """Whether a hand of ``size`` (more than two) cards may go down to one in one play."""
        return False

    def awaiting(self, s: State) -> int | None:
        """The seat that must act before play goes on, for the variant (else ``None``)."""
        return None

    def shown(self, s: State, p: int, events: list[Event]) -> bool:
        """``p`` showed their hand: judge what waited for it; return whether anything did."""
        return False

    def on_don(self, s: State, a: Don, events: list[Event]) -> None:
        """The Don action (:mod:`table.rules.variants.don`)."""
        from table.rules.flow import check_seat

        check_seat(s, a.player)
        raise IllegalPlay("not-in-these-rules", "Don is not part of these rules")

    def on_swap(self, s: State, a: Swap, events: list[Event]) -> None:
        """The Swap action (Seven-O, :mod:`table.rules.variants.local`)."""
        from table.rules.flow import check_in_play, check_seat

        check_seat(s, a.player)
        check_seat(s, a.target)
        check_in_play(s)
        raise IllegalPlay("no-swap-needed", "no 7 is waiting for a swap")

    # --- listing -----------------------------------------------------------------------------

    def groups(self, s: State, p: int) -> Sequence[tuple[Card, ...]]:
        """The groups of two or more known cards ``p`` might play together (checked after)."""
        return ()

    def waiting_actions(self, s: State) -> list[Action] | None:
        """The legal actions while the variant waits for a seat (:meth:`awaiting`)."""
        return None

    def may_challenge(self, s: State, p: int) -> bool:
        """Whether ``p``, who is not the player who must draw, may challenge the Wild Draw Four
        of ``s.challenge`` now (the official game: never)."""
        return False

    def out_of_turn(self, s: State) -> list[Action]:
        """The out-of-turn actions of the variant that would be accepted now."""
        return []

    # --- scoring ------------------------------------------------------------------------------

    def round_points(self, s: State, events: list[Event]) -> tuple[int, ...]:
        """Each seat's points for the round just won (``events``: to explain them)."""
        from table.rules.scoring import round_points

        return round_points(s)
