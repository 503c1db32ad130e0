"""The names of the simulated table's pads (a seat's pad is named after its player)."""

from __future__ import annotations

PAD = "pad"  # the play pad
SHOE = "shoe"  # the draw shoe
