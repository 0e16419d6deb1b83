"""Shared test set-up: the Hypothesis profile for CI, and the scripted noise source.

Tests import ``ScriptedNoise`` from :mod:`dpbandits.reference.noise`; it is re-exported here.
"""

from __future__ import annotations

import os

from hypothesis import settings

from dpbandits.reference.noise import ScriptedNoise  # noqa: F401  (re-export for tests)

settings.register_profile("ci", derandomize=True, deadline=None, max_examples=50)
settings.register_profile("dev", deadline=None, max_examples=50)
settings.load_profile("ci" if os.environ.get("CI") else "dev")
