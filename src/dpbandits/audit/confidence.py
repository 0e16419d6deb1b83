"""Confidence bounds that turn counts into statements about epsilon and delta.

Everything here is a *bound* (holds with probability at least 1 - alpha over the test sample,
when the event, pair and direction were fixed before that sample was drawn) unless its name says
*estimate*. The recipes are those of the audit recipes (section 1 and 4):

* :func:`epsilon_lower_bound`: one-sided Clopper-Pearson bounds at level alpha / (2m) on
  p0 = P0(S) (lower) and p1 = P1(S) (upper), so that P(bound > true epsilon) <= alpha when m
  hypotheses (event, direction, pair) are tested on the same sample (Bonferroni).
* :func:`hoeffding_lower_bound`: a one-sided Hoeffding lower bound on the mean of terms in [0, 1].
"""

from __future__ import annotations

import math

from scipy import stats

from ..errors import DPBanditsError, check_probability

__all__ = [
    "clopper_pearson_lower",
    "clopper_pearson_upper",
    "epsilon_lower_bound",
    "epsilon_estimate",
    "hoeffding_lower_bound",
    "max_attainable_bound",
]


def _check_counts(k: int, n: int) -> None:
    if not (0 <= k <= n) or n < 1:
        raise DPBanditsError(f"counts must satisfy 0 <= k <= n and n >= 1, got k = {k}, n = {n}")


def clopper_pearson_lower(k: int, n: int, a: float) -> float:
    """One-sided (1 - a) Clopper-Pearson lower bound on a binomial proportion (0 when k = 0)."""
    _check_counts(k, n)
    return 0.0 if k == 0 else float(stats.beta.ppf(a, k, n - k + 1))


def clopper_pearson_upper(k: int, n: int, a: float) -> float:
    """One-sided (1 - a) Clopper-Pearson upper bound on a binomial proportion (1 when k = n)."""
    _check_counts(k, n)
    return 1.0 if k == n else float(stats.beta.ppf(1.0 - a, k + 1, n - k))


def epsilon_lower_bound(k0: int, n0: int, k1: int, n1: int, alpha: float = 0.05, m: int = 1,
                        delta: float = 0.0) -> float:
    """Lower bound on epsilon from k0 of n0 runs on D in S and k1 of n1 runs on D' in S.

    ln((p0_lo - delta) / p1_hi) with one-sided Clopper-Pearson bounds at a = alpha / (2m); the
    bound exceeds the true epsilon of an (epsilon, delta)-DP mechanism with probability at most
    alpha. Returns 0.0 when the data support no positive bound (including p0_lo <= delta).
    """
    alpha = check_probability(alpha, "alpha")
    if m < 1:
        raise DPBanditsError(f"m (the number of hypotheses tested) must be >= 1, got {m}")
    a = alpha / (2 * m)
    p0_lo = clopper_pearson_lower(k0, n0, a)
    p1_hi = clopper_pearson_upper(k1, n1, a)
    if p0_lo <= delta:
        return 0.0
    return max(0.0, math.log((p0_lo - delta) / p1_hi))


def epsilon_estimate(k0: int, n0: int, k1: int, n1: int) -> float:
    """Point estimate ln((k0/n0) / (k1/n1)) of the privacy loss of one event: NOT a bound.

    +inf when k1 = 0 < k0; nan when both are 0.
    """
    _check_counts(k0, n0)
    _check_counts(k1, n1)
    if k0 == 0:
        return math.nan if k1 == 0 else -math.inf
    if k1 == 0:
        return math.inf
    return math.log((k0 / n0) / (k1 / n1))


def hoeffding_lower_bound(mean: float, n: int, alpha: float) -> float:
    """One-sided (1 - alpha) Hoeffding lower bound on E[Y] from the mean of n i.i.d. Y in [0, 1]."""
    alpha = check_probability(alpha, "alpha")
    return max(0.0, mean - math.sqrt(math.log(1.0 / alpha) / (2 * n)))


def max_attainable_bound(n: int, alpha: float = 0.05, m: int = 1) -> float:
    """The largest epsilon bound n runs per side can give: all n0 runs in S, none of n1.

    About ln(n / ln(2m / alpha)) (recipes section 3): no audit of this size can certify more.
    """
    return epsilon_lower_bound(n, n, 0, n, alpha, m)
