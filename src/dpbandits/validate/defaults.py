"""The defaults of ``validate``, in a module light enough for the command line to read at start."""

from __future__ import annotations

__all__ = ["DEFAULT_HORIZON", "DEFAULT_RUNS", "DEFAULT_SETTING", "MIN_RUNS", "DEFAULT_AUDIT_SAMPLES"]

DEFAULT_HORIZON = 1000
DEFAULT_RUNS = 200
DEFAULT_SETTING = "hu2021-setting2"
MIN_RUNS = 20
"""Fewest runs per sample: below it the Mann-Whitney normal approximation is not trusted."""
DEFAULT_AUDIT_SAMPLES = 10_000
"""Test runs per side of validate's privacy audit: at 10 000 the audit against ALGO catches a
Lazy-UCB that releases its whole history in 5 of 5 seeds, at the audit command's 2 000 in 2 of 5,
for about the same time (screening dominates)."""
