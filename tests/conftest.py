"""Shared test set-up: the Hypothesis profiles (reproducible by default), and the scripted noise source.

Tests import ``ScriptedNoise`` from :mod:`dpbandits.reference.noise`; it is re-exported here.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import settings

from dpbandits.reference.noise import ScriptedNoise  # noqa: F401  (re-export for tests)

# Every run draws the same examples (locally and in CI), so a failure reproduces. Fresh examples
# are a separate job: ``python -m pytest --hypothesis-profile=explore`` (see CONTRIBUTING.md).
settings.register_profile("reproducible", derandomize=True, deadline=None, max_examples=50,
                          print_blob=True)
settings.register_profile("explore", derandomize=False, deadline=None, max_examples=500,
                          print_blob=True)
settings.load_profile("reproducible")


_SLOW_BY_TIME = Path(__file__).with_name("slow_by_time.txt")


def pytest_collection_modifyitems(config, items) -> None:
    """Mark ``slow`` the tests listed in ``slow_by_time.txt`` (the longest of the default run,
    by measured time) and deselect them unless ``-m`` selects slow ones; a listed test that no
    longer exists fails the collection, so the list cannot go stale."""
    listed = {line.split("#")[0].strip() for line in _SLOW_BY_TIME.read_text().splitlines()}
    listed.discard("")
    for item in items:
        if item.nodeid in listed:
            item.add_marker(pytest.mark.slow)
    if config.getoption("-k") or config.args and any("::" in a for a in config.args):
        return      # a run of named tests: the -m expression in addopts still applies
    missing = listed - {item.nodeid for item in items}
    files = {item.nodeid.split("::")[0] for item in items}
    gone = sorted(m for m in missing if m.split("::")[0] in files)
    if gone:
        raise pytest.UsageError(f"tests/slow_by_time.txt names tests that do not exist: {gone[:3]}")
