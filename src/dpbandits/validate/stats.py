"""Two-sample tests, Holm's correction and detectable differences for ``dpbandits validate``.

Every test here compares two *independent* samples, the candidate's ``x`` and the reference's
``y``, each a set of independent runs, under the null hypothesis that both come from the same
distribution. What each test guarantees:

* :func:`mann_whitney` (pull counts, regret): the two-sided Mann-Whitney U test with the normal
  approximation and the tie correction (SciPy's ``asymptotic`` method). Its level is alpha up to
  the normal approximation, which is accurate for the sample sizes :func:`~dpbandits.validate.validate`
  allows (at least 20 runs per side). The effect size is the rank-biserial correlation
  ``r = 2 U / (n_x n_y) - 1 = P(X > Y) - P(X < Y)``: positive when the candidate's values are larger.
* :func:`homogeneity` (the action at one round): the chi-square test of homogeneity of the
  2 x C table of arm counts when every expected count is at least 5 (Cochran's rule), and
  otherwise a Monte Carlo permutation test of the same statistic with ``B`` label permutations,
  whose p-value ``(1 + #{chi2_b >= chi2}) / (1 + B)`` is valid at every sample size
  (``P(p <= u) <= u`` exactly). Each permutation's table is drawn from its exact law: the
  candidate's row is multivariate hypergeometric given the pooled arm counts (the runs it gets
  under a uniform relabelling), drawn without listing the runs. The effect size is Cramér's V (for two rows, ``sqrt(chi2 / n)``).
* :func:`holm`: Holm's step-down procedure. Over any family of m tests, under any dependence
  between them, the probability of rejecting at least one true null hypothesis is at most alpha.

*Detectable differences* are computed, not estimated from the data: the smallest effect the test
would detect with probability ``power`` at the per-comparison level ``alpha / m`` (the first step
of Holm's procedure, so a conservative figure). For Mann-Whitney it is on the rank-biserial scale,
``2 (z_{1 - level/2} + z_power) sqrt((n_x + n_y + 1) / (12 n_x n_y))`` (the null variance of U
held fixed under the alternative: a first-order figure); for the chi-square test it is the
Cramér's V at which the noncentral chi-square with noncentrality ``n V^2`` exceeds the critical
value with probability ``power``. :func:`mean_shift_detectable` gives the same figure as a shift
of the mean in the quantity's own units (pulls, regret) through the two-sample z approximation.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np
from scipy import optimize, special, stats

from ..errors import DPBanditsError
from ..multiplicity import holm, holm_adjusted  # noqa: F401  (part of this module's API)

__all__ = ["TestOutcome", "holm", "holm_adjusted", "mann_whitney", "homogeneity",
           "rank_biserial_detectable", "cramers_v_detectable", "mean_shift_detectable",
           "PERMUTATIONS", "MIN_EXPECTED"]

PERMUTATIONS = 19999
"""Label permutations B of the Monte Carlo permutation test. Its smallest p-value is
1 / (B + 1) = 5e-5, so under Holm over m comparisons one action comparison can be rejected on its
own only when ``alpha >= m / (B + 1)`` (0.0037 for the 74 comparisons of K = 5 arms)."""

MIN_EXPECTED = 5.0
"""Smallest expected cell count at which the chi-square approximation is used (Cochran)."""


@dataclass(frozen=True)
class TestOutcome:
    """The outcome of one two-sample test."""

    test: str
    """Name of the test as reported, e.g. ``Mann-Whitney U`` or ``chi-square (4 df)``."""
    statistic: float
    p_value: float
    effect: float
    """Rank-biserial correlation (Mann-Whitney) or Cramér's V (homogeneity)."""
    dof: int = 0
    """Degrees of freedom of the chi-square statistic (0 for Mann-Whitney)."""


def mann_whitney(x: np.ndarray, y: np.ndarray) -> TestOutcome:
    """Two-sided Mann-Whitney U test of ``x`` against ``y`` (normal approximation, tie-corrected).

    When every value of both samples is the same number there is nothing to test: p = 1, r = 0.
    """
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if x.size < 2 or y.size < 2:
        raise DPBanditsError("Mann-Whitney needs at least two values per sample")
    if np.all(x == x[0]) and np.all(y == x[0]):
        return TestOutcome("Mann-Whitney U", x.size * y.size / 2, 1.0, 0.0)
    if np.isnan(x).any() or np.isnan(y).any():
        raise DPBanditsError("Mann-Whitney needs values that are not NaN")
    U1, p = _mann_whitney_asymptotic(x, y)
    effect = 2.0 * U1 / (x.size * y.size) - 1.0
    return TestOutcome("Mann-Whitney U", U1, p, effect)


def _mann_whitney_asymptotic(x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """(U of ``x``, two-sided p-value): SciPy's ``mannwhitneyu(x, y, method="asymptotic")``
    computed with the same operations in the same order (average ranks, ``U1 = R1 - n1 (n1 +
    1) / 2``, the tie term ``sum(t^3 - t)``, the continuity correction, ``2 ndtr(-z)`` clipped to
    [0, 1]), so the same numbers, without the argument handling that costs a validation most of
    a millisecond per test (hundreds of tests with the planted variants)."""
    n1, n2 = x.size, y.size
    values = np.concatenate([x, y])
    order = np.argsort(values, kind="stable")
    ordered = values[order]
    starts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]])
    ties = np.diff(np.r_[starts, values.size]).astype(float)
    average = starts + (ties + 1) / 2                       # 1-based average rank of each group
    ranks = np.empty(values.size)
    ranks[order] = np.repeat(average, ties.astype(np.int64))
    R1 = ranks[:n1].sum()
    U1 = R1 - n1 * (n1 + 1) / 2
    U = max(U1, n1 * n2 - U1)
    n = n1 + n2
    tie_term = np.sum(ties ** 3 - ties)
    s = np.sqrt(n1 * n2 / 12 * ((n + 1) - tie_term / (n * (n - 1))))
    with np.errstate(divide="ignore", invalid="ignore"):
        z = (U - n1 * n2 / 2 - 0.5) / s
    p = float(np.clip(2 * special.ndtr(-z), 0.0, 1.0))
    return float(U1), p


def _chi_square_statistic(counts: np.ndarray) -> np.ndarray:
    """Pearson's statistic of each 2 x C table in ``counts`` (shape (..., 2, C))."""
    rows = counts.sum(axis=-1, keepdims=True)
    columns = counts.sum(axis=-2, keepdims=True)
    expected = rows * columns / counts.sum(axis=(-2, -1), keepdims=True)
    return ((counts - expected) ** 2 / expected).sum(axis=(-2, -1))


def homogeneity(x: np.ndarray, y: np.ndarray, K: int, rng: np.random.Generator,
                permutations: int = PERMUTATIONS) -> TestOutcome:
    """Test that the arms in ``x`` and ``y`` (integers 0..K-1) have the same distribution.

    Arms neither sample chose are dropped. One arm left: nothing to test (p = 1, V = 0).
    Chi-square approximation when every expected count is >= :data:`MIN_EXPECTED`, else a Monte
    Carlo permutation test with ``permutations`` label shuffles drawn from ``rng``.
    """
    x, y = np.asarray(x, dtype=np.int64), np.asarray(y, dtype=np.int64)
    counts = np.stack([np.bincount(x, minlength=K), np.bincount(y, minlength=K)]).astype(float)
    used = counts.sum(axis=0) > 0
    counts = counts[:, used]
    C = counts.shape[1]
    n = x.size + y.size
    if C < 2:
        return TestOutcome("identical (one arm)", 0.0, 1.0, 0.0, 0)
    chi2 = float(_chi_square_statistic(counts))
    effect = math.sqrt(chi2 / n)
    expected = counts.sum(axis=1, keepdims=True) * counts.sum(axis=0, keepdims=True) / n
    if expected.min() >= MIN_EXPECTED:
        p = float(stats.chi2.sf(chi2, C - 1))
        return TestOutcome(f"chi-square ({C - 1} df)", chi2, p, effect, C - 1)
    # Permutation: which runs are the candidate's is shuffled, the pooled arms kept. Under a
    # uniform relabelling the candidate's row of the table is multivariate hypergeometric (its
    # x.size runs drawn without replacement from the pooled runs of each arm), so each
    # permutation's table is drawn as that row directly, exactly, in O(C) rather than O(n).
    pooled = counts.sum(axis=0)
    first = rng.multivariate_hypergeometric(pooled.astype(np.int64), x.size, size=permutations,
                                            method="marginals").astype(float)
    tables = np.stack([first, pooled - first], axis=1)
    exceed = int(np.sum(_chi_square_statistic(tables) >= chi2 * (1 - 1e-12)))
    p = (1 + exceed) / (1 + permutations)
    return TestOutcome(f"permutation chi-square ({C - 1} df, B = {permutations})", chi2, p, effect,
                       C - 1)


@functools.lru_cache(maxsize=4096)
def rank_biserial_detectable(n_x: int, n_y: int, level: float, power: float = 0.8) -> float:
    """Smallest |rank-biserial r| the two-sided Mann-Whitney test at ``level`` detects with ``power``."""
    z = stats.norm.ppf(1 - level / 2) + stats.norm.ppf(power)
    return float(min(1.0, 2 * z * math.sqrt((n_x + n_y + 1) / (12.0 * n_x * n_y))))


@functools.lru_cache(maxsize=4096)
def cramers_v_detectable(n: int, dof: int, level: float, power: float = 0.8) -> float:
    """Smallest Cramér's V the chi-square test (``dof`` df, ``n`` observations) detects with ``power``
    (a root of the noncentral chi-square's tail, some milliseconds: kept per arguments, as the
    same sizes and levels recur in every comparison family of a validation)."""
    if dof < 1:
        return float("nan")
    critical = stats.chi2.ppf(1 - level, dof)
    lam = optimize.brentq(lambda v: stats.ncx2.sf(critical, dof, v) - power, 1e-9, 1e7)
    return float(math.sqrt(lam / n))


def mean_shift_detectable(x: np.ndarray, y: np.ndarray, level: float, power: float = 0.8) -> float:
    """Shift of the mean (in the data's units) a two-sided two-sample z test at ``level`` detects
    with ``power``, with the samples' own standard deviations: an approximation for Mann-Whitney,
    whose efficiency relative to the z test is at least 0.864 for continuous shifts."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    spread = math.sqrt(x.var(ddof=1) / x.size + y.var(ddof=1) / y.size)
    return float((stats.norm.ppf(1 - level / 2) + stats.norm.ppf(power)) * spread)
