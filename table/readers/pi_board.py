"""Which Raspberry Pi this is, and which ``RPi.GPIO`` it needs: rpi-lgpio's, on every board.

Two packages install the module ``RPi.GPIO``, each writing ``RPi/GPIO/__init__.py`` over the
other's: RPi.GPIO itself (C, through ``/dev/gpiomem``; what ``mfrc522`` requires) and
rpi-lgpio (the same API on lgpio's ``/dev/gpiochip*``). The original cannot drive the GPIO of a
board with the RP1 I/O chip (Pi 5, Pi 500, Compute Module 5), and on every board its edge
detection fails under Raspberry Pi OS Bookworm's kernels 6.6 and later ("Failed to add edge
detection"), which stops seat buttons. So the ``pi`` extra brings rpi-lgpio on every board, and
``mfrc522`` is installed without its dependencies so that the original never comes.
"""

from __future__ import annotations

import importlib.machinery
import importlib.metadata
import re
import sys
from pathlib import Path
from typing import Final

MODEL_FILE: Final = Path("/proc/device-tree/model")
PACKAGES: Final = ("RPi.GPIO", "rpi-lgpio")


def board_model(model_file: Path | None = None) -> str | None:
    """The board's model (``Raspberry Pi 5 Model B Rev 1.0``); None off a Raspberry Pi."""
    try:
        raw = (model_file or MODEL_FILE).read_bytes()
    except OSError:
        return None
    model = raw.rstrip(b"\0").decode("utf-8", errors="replace").strip()
    return model if model.startswith("Raspberry Pi") else None


def wanted(model: str) -> str:
    """The package whose ``RPi.GPIO`` ``model`` needs: rpi-lgpio on every board (the original's
    edge detection fails on current kernels, and it cannot drive an RP1 board at all)."""
    del model  # the same on every board; the model is named in doctor's messages
    return "rpi-lgpio"


def extra(package: str) -> str:
    """The extra of uno-table that installs ``package``'s RPi.GPIO (only ``pi`` does now)."""
    del package
    return "pi"


def imported(path: list[str] | None = None) -> str | None:
    """The package whose ``RPi/GPIO/__init__.py`` Python would import (told by the file
    itself: rpi-lgpio's imports lgpio), or None when there is none. Nothing is imported: the
    original refuses to load off a Pi."""
    spec = importlib.machinery.PathFinder.find_spec("RPi", path)
    for folder in (spec.submodule_search_locations or []) if spec else []:
        init = Path(folder) / "GPIO" / "__init__.py"
        if init.is_file():
            text = init.read_text(encoding="utf-8", errors="replace")
            return "rpi-lgpio" if re.search(r"^import lgpio\b", text, re.M) else "RPi.GPIO"
    return None


def installed(path: list[str] | None = None) -> list[str]:
    """Which of the two packages are installed (both: the file is the last one's)."""
    def norm(name: str) -> str:
        return re.sub(r"[-_.]+", "-", name).lower()

    found = importlib.metadata.distributions(path=path or sys.path)
    names = {norm(d.metadata["Name"] or "") for d in found}
    return [p for p in PACKAGES if norm(p) in names]
