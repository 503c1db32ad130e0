"""The seats' buttons on the simulated table: which button does a game action (the daemon's
:class:`table.inputs.Press` words), and the transcript's line for a press."""

from __future__ import annotations

from table.inputs import Press
from table.referee.referee import BUTTONS
from table.rules import Action, CallUno, Catch, ChooseColor, State

# The transcript's line for a seat's button (a colour, and a catch, have lines of their own).
PRESS_LINES = {"pass": "passes", "uno": "uno", "challenge": "challenges", "draw": "draws-button"}


def button_of(action: Action) -> str | None:
    """The seat's button (the word of a :class:`Press`) that does ``action`` at the table, or
    None when a button does not: a colour named is ``color:red``..., a call and a catch the UNO
    button (the referee decides whom it catches), a call the rules add later (Don) its own."""
    if isinstance(action, ChooseColor):
        return f"color:{action.color.value}"
    if isinstance(action, CallUno | Catch):
        return "uno"
    button = type(action).__name__.lower()
    return button if button in BUTTONS else None


def press_line(s: State, press: Press) -> tuple[str, dict[str, str | int]]:
    """The transcript's key (:data:`sim.terminal.view.MOVES`) and words for ``press`` made in
    state ``s``: the UNO button while another player is caught out is a catch of that player."""
    name, button, window = s.players[press.seat], press.button, s.uno_window
    if button.startswith("color:"):
        return "names", {"player": name, "color": button[6:]}
    if button == "uno" and window not in (None, press.seat) and not s.called[window]:
        return "catches", {"player": name, "target": s.players[window]}
    if button in PRESS_LINES:
        return PRESS_LINES[button], {"player": name}
    return "presses", {"player": name, "button": button}
