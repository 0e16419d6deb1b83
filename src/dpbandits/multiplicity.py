"""Holm's step-down correction for multiple tests, shared by ``validate`` (its comparisons) and
``reproduce`` (the readings of a page's claims).

Written out rather than taken from statsmodels' ``multipletests(method="holm")``, whose arithmetic
it repeats, because that function collects the garbage on every call (a tenth of a second and more
in a large process); the oracle tests hold the two equal.
"""

from __future__ import annotations

import numpy as np

from .errors import DPBanditsError

__all__ = ["holm", "holm_adjusted"]


def holm(p_values: list[float] | np.ndarray, alpha: float) -> list[bool]:
    """Holm's step-down procedure: which hypotheses are rejected at family-wise level ``alpha``.

    The p-values in increasing order, the i-th smallest (i = 0, 1, ...) rejected when it and every
    smaller one satisfy ``p <= alpha / (m - i)``; family-wise error <= alpha under any dependence
    (Holm 1979).
    """
    p = _checked_p_values(p_values)
    if not 0 < alpha < 1:
        raise DPBanditsError(f"alpha must lie in (0, 1), got {alpha!r}")
    if not p.size:
        return []
    order = np.argsort(p, kind="stable")
    m = p.size
    refused = np.flatnonzero(p[order] > alpha / np.arange(m, 0, -1))
    first_kept = int(refused[0]) if refused.size else m
    rejected = np.zeros(m, dtype=bool)
    rejected[order[:first_kept]] = True
    return [bool(r) for r in rejected]


def holm_adjusted(p_values: list[float] | np.ndarray) -> np.ndarray:
    """Holm-adjusted p-values: the i-th smallest p-value times (m - i), made non-decreasing in
    that order and capped at 1 (statsmodels' arithmetic, as :func:`holm`); hypothesis i is
    rejected by :func:`holm` at alpha iff its adjusted value <= alpha, up to the rounding of one
    product against one quotient."""
    p = _checked_p_values(p_values)
    if not p.size:
        return np.empty(0)
    order = np.argsort(p, kind="stable")
    stepped = np.maximum.accumulate(p[order] * np.arange(p.size, 0, -1))
    adjusted = np.empty(p.size)
    adjusted[order] = np.minimum(stepped, 1.0)
    return adjusted


def _checked_p_values(p_values: list[float] | np.ndarray) -> np.ndarray:
    p = np.asarray(p_values, dtype=float)
    if p.size and not np.all((p >= 0) & (p <= 1)):
        raise DPBanditsError("p-values must lie in [0, 1]")
    return p
