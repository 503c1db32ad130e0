import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

sys.path.insert(0, str(Path(__file__).resolve().parent))

# Property tests are judged by what they find, never by how fast: no deadline per example and
# no health check for slow generation, which a busy machine (the suite's own parallel workers,
# other work beside them) would otherwise fail. A test's own @settings still wins where it
# says more. docs/testing.md.
settings.register_profile(
    "suite", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("suite")


@pytest.fixture(autouse=True)
def _reap_daemons() -> Iterator[None]:
    """Daemon processes a test started are gone when it ends, passed or failed."""
    yield
    harness = sys.modules.get("daemon_harness")
    if harness is not None:
        harness.reap()


@pytest.fixture(autouse=True)
def _phrase_cache_in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The voice's disk cache (and every daemon a test starts) writes under the test's folder,
    never in the user's own cache."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg-cache"))
    monkeypatch.delenv("CACHE_DIRECTORY", raising=False)
