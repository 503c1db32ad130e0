import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))


@pytest.fixture(autouse=True)
def _reap_daemons() -> Iterator[None]:
    """Daemon processes a test started are gone when it ends, passed or failed."""
    yield
    harness = sys.modules.get("daemon_harness")
    if harness is not None:
        harness.reap()
