"""The defaults of ``validate``, in a module light enough for the command line to read at start."""

from __future__ import annotations

__all__ = ["DEFAULT_HORIZON", "DEFAULT_RUNS", "DEFAULT_SETTING", "MIN_RUNS", "DEFAULT_AUDIT_SAMPLES"]

DEFAULT_HORIZON = 1000
DEFAULT_RUNS = 200
DEFAULT_SETTING = "hu2021-setting2"
MIN_RUNS = 20
"""Fewest runs per sample: below it the Mann-Whitney normal approximation is not trusted."""
DEFAULT_AUDIT_SAMPLES = 20_000
"""Test runs per side of validate's privacy audit: the audit against ALGO's own default
(:data:`dpbandits.audit.against.AGAINST_SAMPLES`, kept equal by a test; this module stays light
for the command line)."""
