"""Shared test set-up: the Hypothesis profiles (reproducible by default), and the scripted noise source.

Tests import ``ScriptedNoise`` from :mod:`dpbandits.reference.noise`; it is re-exported here.
"""

from __future__ import annotations

from hypothesis import settings

from dpbandits.reference.noise import ScriptedNoise  # noqa: F401  (re-export for tests)

# Every run draws the same examples (locally and in CI), so a failure reproduces. Fresh examples
# are a separate job: ``python -m pytest --hypothesis-profile=explore`` (see CONTRIBUTING.md).
settings.register_profile("reproducible", derandomize=True, deadline=None, max_examples=50,
                          print_blob=True)
settings.register_profile("explore", derandomize=False, deadline=None, max_examples=500,
                          print_blob=True)
settings.load_profile("reproducible")
