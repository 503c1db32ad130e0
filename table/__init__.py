"""uno-table: an automatic referee for UNO played with RFID-tagged cards."""

import sys

__version__ = "0.1.0"

# A child process's working folder: one its user cannot write code into (the root folder; only
# root can write there, and a child runs no code from its working folder anyway).
CHILD_FOLDER = "/"


def child_command(module: str, *args: str) -> list[str]:
    """``python -m module args`` as a child process of the table starts it: isolated (``-I``:
    neither the folder it was started from nor its script's is on ``sys.path``, no
    ``PYTHON*`` variable and no user site), so a ``table/`` planted in the current folder never
    runs. Start it in :data:`CHILD_FOLDER`."""
    return [sys.executable, "-I", "-m", module, *args]
