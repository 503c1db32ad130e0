"""The pure rules engine: no I/O, no threads, no clock, no randomness it does not receive.

The API follows OpenSpiel: :attr:`State.current_player`, :func:`legal_actions`, :func:`apply`
(and :func:`apply_in_place`; :func:`apply_legal` for an action the engine listed itself), with
chance (shuffles, unknown draws) as explicit inputs, so a journal is a set-up plus actions and
replay is exact.
"""

from types import FunctionType

# First: the variants import the hooks, which the compiled build needs before the state.
from table.rules import variants  # noqa: F401  (registers the house and musician presets)
from table.rules.actions import (
    Action,
    CallUno,
    Catch,
    Challenge,
    ChooseColor,
    Don,
    Draw,
    Identify,
    Pass,
    Play,
    Reshuffle,
    Show,
    Swap,
    TurnUp,
)
from table.rules.engine import (
    Deal,
    Step,
    apply,
    apply_in_place,
    apply_legal,
    choose_dealer,
    new_game,
    next_round,
    same_names,
)
from table.rules.events import EventKind
from table.rules.flow import uno_due
from table.rules.legal import legal_actions
from table.rules.options import PRESETS, SPECS, Options, make_options, register_preset
from table.rules.scoring import standings
from table.rules.state import Event, Hand, Phase, RoundResult, State

#: Whether the engine runs compiled (the optional mypyc build, docs/performance.md) rather than
#: as the Python source: a compiled function is not a Python function.
COMPILED: bool = not isinstance(apply, FunctionType)

__all__ = [
    "COMPILED",
    "PRESETS",
    "SPECS",
    "Action",
    "CallUno",
    "Catch",
    "Challenge",
    "ChooseColor",
    "Deal",
    "Don",
    "Draw",
    "Event",
    "EventKind",
    "Hand",
    "Identify",
    "Options",
    "Pass",
    "Phase",
    "Play",
    "Reshuffle",
    "RoundResult",
    "Show",
    "State",
    "Step",
    "Swap",
    "TurnUp",
    "apply",
    "apply_in_place",
    "apply_legal",
    "choose_dealer",
    "legal_actions",
    "make_options",
    "new_game",
    "next_round",
    "register_preset",
    "same_names",
    "standings",
    "uno_due",
]
