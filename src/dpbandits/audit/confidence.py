"""Confidence bounds that turn counts into statements about epsilon and delta.

Everything here is a *bound* (holds with probability at least 1 - alpha over the test sample,
when the event, pair and direction were fixed before that sample was drawn) unless its name says
*estimate*. The recipes are those of the audit recipes (section 1 and 4):

* :func:`epsilon_lower_bound`: one-sided Clopper-Pearson bounds at level alpha / (2m) on
  p0 = P0(S) (lower) and p1 = P1(S) (upper), so that P(bound > true epsilon) <= alpha when m
  hypotheses (event, direction, pair) are tested on the same sample (Bonferroni).
* :func:`hoeffding_lower_bound`: a one-sided Hoeffding lower bound on the mean of terms in [0, 1].
* :func:`runs_for_power` and :func:`detectable_loss`: the size of a test sample, not a bound: how
  many runs per side make :func:`epsilon_lower_bound` exceed a claim with a given probability
  when an event of a given probability has a given loss, and the smallest loss a given size
  detects so.
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
    "runs_for_power",
    "detectable_loss",
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


def _power_holds(n: int, p_big: float, loss: float, claim: float, alpha: float, m: int,
                 power: float, delta: float) -> bool:
    """Whether n runs per side give a bound above ``claim`` with probability >= ``power`` when
    the event has probability ``p_big`` on one table and ``p_big * exp(-loss)`` on the other.

    Exact, not a normal approximation: the bound grows with the count on the larger side and
    falls with the count on the smaller one, so it exceeds the claim whenever the first count is
    at least its (1 - sqrt(power)) quantile and the second at most its sqrt(power) quantile, two
    independent events of probability >= sqrt(power) each."""
    side = math.sqrt(power)
    k_big = int(stats.binom.ppf(1.0 - side, n, p_big))
    k_small = int(stats.binom.ppf(side, n, p_big * math.exp(-loss))) if math.isfinite(loss) else 0
    return epsilon_lower_bound(k_big, n, min(k_small, n), n, alpha, m, delta) > claim


def runs_for_power(p_big: float, claim: float, loss: float, alpha: float = 0.05, m: int = 1,
                   power: float = 0.8, delta: float = 0.0, limit: int = 10 ** 8) -> int | None:
    """Runs per side at which an event with probability ``p_big`` on the more likely table and
    privacy loss ``loss`` (probability ``p_big * exp(-loss)`` on the other) gives an
    :func:`epsilon_lower_bound` (level ``alpha``, ``m`` hypotheses) above ``claim`` with
    probability at least ``power``: a sample size (a design quantity), not a bound.

    The size returned satisfies the condition exactly (:func:`_power_holds`); it is the smallest
    one found by doubling and bisection (the condition is monotone in n up to the counts'
    discreteness). None when no size up to ``limit`` does (``loss <= claim``, or an event too
    rare)."""
    if not 0.0 < p_big <= 1.0 or loss <= claim:
        return None
    args = (p_big, loss, claim, alpha, m, power, delta)
    high = 16
    while not _power_holds(high, *args):
        high *= 2
        if high > limit:
            return None
    low = high // 2
    while high - low > max(1, high // 200):          # within 0.5% of the smallest
        middle = (low + high) // 2
        if _power_holds(middle, *args):
            high = middle
        else:
            low = middle
    return high


def detectable_loss(p_big: float, n: int, claim: float, alpha: float = 0.05, m: int = 1,
                    power: float = 0.8, delta: float = 0.0) -> float:
    """The smallest privacy loss (to 1%) that an event with probability ``p_big`` on the more
    likely table would show, at ``n`` runs per side, as an :func:`epsilon_lower_bound` above
    ``claim`` with probability at least ``power``; ``inf`` when even an event that never occurs
    on the other table would not (``n`` too small for an event this rare)."""
    if not 0.0 < p_big <= 1.0:
        return math.inf
    if not _power_holds(n, p_big, math.inf, claim, alpha, m, power, delta):
        return math.inf
    low, high = claim, claim + 1.0
    while not _power_holds(n, p_big, high, claim, alpha, m, power, delta):
        low, high = high, 2 * high
    while high - low > 0.01 * high:
        middle = (low + high) / 2
        if _power_holds(n, p_big, middle, claim, alpha, m, power, delta):
            high = middle
        else:
            low = middle
    return high
