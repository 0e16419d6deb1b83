"""DP-UCB-INT: a UCB that re-releases each arm's noisy mean only at the ends of intervals.

Citation: A. C. Y. Tossou and C. Dimitrakakis. *Algorithms for Differentially Private
Multi-Armed Bandits.* AAAI 2016; HAL hal-01234427, arXiv:1511.08681. Algorithm 3 (section 3.3),
Lemma 3.1, Theorem 3.4, Corollaries 3.1 and 3.2, Lemma B.1 (proofs in Appendix B).

Pseudocode (Algorithm 3; the paper prints no line numbers, so ``l.N`` counts its statements in
order). ``log`` in the bonus is the natural log::

    l.1   input: eps in (0, 1]; v in (1, 1.5] ("privacy rate"); K arms A
    l.2   f <- ceil(1/eps); x_hat <- 0
    l.3   for t = 1..T:
    l.4       if t <= K f:
    l.5           play arm a = ((t - 1) mod K) + 1 and observe r_t
    l.6       else:
    l.7           for all a in A:
    l.8               if n_{a,t} mod f = 0:
    l.9                   x_hat_a <- s_a / n_{a,t} + Lap(0, 1 / n_{a,t}^(1 - v/2))
                                     + sqrt(2 log t / n_{a,t})
    l.10          pull a_t = argmax_a x_hat_a and observe r_t
    l.11          update sum s_a <- s_a + r_t

The input ``epsilon`` sets the release interval; it is not the privacy level. The Laplace scale
n^(v/2 - 1) does not depend on it (docs/errata.md#td-int-noise-scale).

Release intervals (``interval``): ``"constant"`` is the printed f = ceil(1/eps), releases at
n_a = f, 2f, 3f, ...; ``"x"`` and ``"y"`` are the two series of Lemma B.1, releases at
n_a = W_1, W_2, ... with W_0 = 0 and W_{n+1} the least integer w > W_n such that
sum_{i=W_n+1}^{w} g(i) >= g(w) / eps, where g(i) = i^(-v/2) (x-rule) or i^(-v) (y-rule). The
round-robin start gives each arm W_1 pulls (f_0 = W_1 of Theorem 3.5). See :func:`release_points`.

Privacy claim (Theorem 3.4, Corollary 3.1; proofs App. B.2-B.3): after any number t of steps
Algorithm 3 is (eps', delta')-DP for any delta' in (0, 1] under the replacement of one reward
(relation ROW), with eps' <= min(eps (t^(1-v/2) - v/2) / (1 - v/2),
2 eps zeta(v) + sqrt(2 eps zeta(v) ln(1/delta'))). The first (basic-composition, pure) term
grows with t, so the claim for every t is the second: :attr:`DPUCBInt.claim` is
(2 eps zeta(v) + sqrt(2 eps zeta(v) ln(1/delta')), delta')-DP. The argument: a release at count
n is a Laplace mechanism on a mean of sensitivity 1/n at scale n^(v/2-1), so n^(-v/2)-DP
(Lemma 3.1); a changed reward reaches one arm's releases only; that arm's releases compose by
basic composition (C) or by heterogeneous advanced composition (D, docs/errata.md#td-advanced-composition), see
:func:`composition`; since at most one release falls in each interval of length <= ceil(1/eps)
and g is decreasing, each sum over releases is at most eps times the sum over n = 1..t
(Theorem 3.4, :func:`theorem_3_4`); e^x <= 1 + 2x on [0, 1] and zeta(v) bound the rest
(Corollary 3.1, :func:`corollary_3_1`). :meth:`DPUCBInt.pure_claim` states the pure branch at a
given t. Status by variant:

* ``corrected``: one release each time n_a reaches a new release point. The claim holds for
  every interval rule: both Lemma B.1 rules justify the advanced branch (docs/errata.md#td-y-rule).
  The pure branch holds for ``constant`` and ``x``; the y-rule does not justify it: the exact
  basic-composition loss of the releases can exceed eps sum_{n<=t} n^(-v/2) (1.676 > 1.56 in
  the example in docs/errata.md#td-int-loop), and :meth:`pure_claim` then reports it as unproven.
* ``paper``: the loop as printed draws fresh noise for an arm at every step while its count
  sits at a release point, so an arm that is not pulled is re-released without bound. The pure
  branch is false (docs/errata.md#td-int-loop: K = 2, eps = 0.5, v = 1.5, the event "arm 2 not pulled in
  steps 5..20" has log-likelihood ratio 4.46 > 2.535 between neighbouring tables); the
  (eps', delta') claim is not shown false but no proof covers it: the number of releases is
  unbounded and depends on the data through the actions.

Regret (Theorem 3.5): R <= sum_{a: mu_a < mu*} Delta_a [f_0 + 8 log t / Delta_a^2 + 1 +
4 zeta(1.5)]. Its proof is flawed (docs/errata.md#td-thm35): the key condition bounds n from above,
not below.

Deviations:
1. Default variant ``corrected`` (docs/errata.md#td-int-loop, reading R-B): an arm's x_hat is refreshed
   once when n_a reaches a new release point and is frozen, bonus included, until the next one,
   as the proof of Theorem 3.4 assumes ("a new mean is only released t/f times"). The printed
   loop is variant ``paper``. After the round-robin start the corrected variant pulls arms in
   runs of whole intervals.
2. s_a and n_a are updated in the round-robin phase too (docs/errata.md#td-int-init): the printed update
   sits in the else-branch only, but the first K f rewards are part of every arm's mean.
3. The interval is a parameter: the printed f = ceil(1/eps) (default) or Lemma B.1's x- or
   y-series (docs/errata.md#td-int-interval; the paper does not say which its experiments used).
4. ``bonus="fresh"`` (reading R-C, docs/errata.md#td-int-loop) keeps the noisy mean frozen between releases but
   recomputes sqrt(2 ln t / n_a) at every step. It releases exactly what ``"frozen"`` releases,
   so its privacy is the same. Default ``"frozen"``, as in l.9.
5. The paper restricts the input eps to (0, 1]; larger values are accepted and give f = 1
   (a release at every new count). Theorem 3.4 and Corollary 3.1 still hold there, because a sum
   over releases is then at most the sum over all n <= t.
6. Theorem 3.4 is evaluated in the form its proof gives (docs/errata.md#td-thm34-typos): the printed
   sqrt(t^v) is sqrt(n^v), and the advanced term sums n^(-v/2) (e^(n^(-v/2)) - 1).
7. Ties go to the lowest arm by default (docs/errata.md#td-ties; probability 0 under Laplace noise).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Iterator

import numpy as np
from scipy.special import zeta

from ...errors import DPBanditsError, check_epsilon, check_positive_int, check_probability
from ..declarations import AuditPreset, KnownPairs, TablePair
from ..noise import decision, laplace, release
from ..neighbours import ROW, NeighbourRelation
from ..policy import PolicyBase
from ..privacy import Guarantee, PrivacyClaim, Variant

__all__ = [
    "DPUCBInt",
    "INTERVAL_RULES",
    "BONUS_RULES",
    "PrivacyBound",
    "noise_scale",
    "lemma_3_1",
    "release_points",
    "composition",
    "accountant",
    "theorem_3_4",
    "corollary_3_1",
    "input_epsilon",
]

INTERVAL_RULES = ("constant", "x", "y")
BONUS_RULES = ("frozen", "fresh")
_SOURCE = ("Tossou & Dimitrakakis (AAAI 2016), Theorem 3.4 and Corollary 3.1 "
           "(proofs App. B.2-B.3)")
_CHUNK = 1 << 20  # terms per block when summing a series over n = 1..t


def _check_v(v: float) -> float:
    """The privacy rate v of Algorithm 3, in (1, 1.5] (the paper's domain)."""
    try:
        value = float(v)
    except (TypeError, ValueError):
        raise DPBanditsError(f"v must be a number in (1, 1.5], got {v!r}") from None
    if not (math.isfinite(value) and 1.0 < value <= 1.5):
        raise DPBanditsError(f"v must lie in (1, 1.5], got {v!r}")
    return value


def _check_delta(delta: float) -> float:
    return check_probability(delta, "delta", open_right=False)


def _check_interval(interval: str) -> str:
    if interval not in INTERVAL_RULES:
        raise DPBanditsError(f"interval must be one of {INTERVAL_RULES}, got {interval!r}")
    return interval


@dataclass(frozen=True)
class PrivacyBound:
    """The two branches of Theorem 3.4: min of a pure and an (eps', delta') guarantee.

    ``basic`` is eps' by basic composition (pure, delta = 0); ``advanced`` is eps' at ``delta``
    by heterogeneous advanced composition (docs/errata.md#td-advanced-composition).
    """

    basic: float
    advanced: float
    delta: float

    @property
    def epsilon(self) -> float:
        """eps' = min(basic, advanced), the bound as the paper states it."""
        return min(self.basic, self.advanced)

    def guarantee(self, relation: NeighbourRelation = ROW) -> Guarantee:
        """The stronger branch as a guarantee: pure when ``basic <= advanced``."""
        if self.basic <= self.advanced:
            return Guarantee(self.basic, 0.0, relation)
        return Guarantee(self.advanced, self.delta, relation)


def noise_scale(n, v: float):
    """Laplace scale of a release at count n: n^(v/2 - 1) = 1 / n^(1 - v/2) (Alg. 3 l.9)."""
    v = _check_v(v)
    return np.asarray(n, dtype=float) ** (v / 2.0 - 1.0)


def lemma_3_1(n, v: float):
    """Lemma 3.1: a release at count n is n^(-v/2)-DP for its arm's rewards.

    The mean has sensitivity 1/n and the noise scale n^(v/2-1), so the Laplace mechanism's
    epsilon is (1/n) / n^(v/2-1) = n^(-v/2).
    """
    v = _check_v(v)
    return np.asarray(n, dtype=float) ** (-v / 2.0)


def _release_series(epsilon: float, v: float, interval: str) -> Iterator[int]:
    """W_1, W_2, ...: the counts at which an arm's mean is released (unbounded)."""
    if interval == "constant":
        f = math.ceil(1.0 / epsilon)                                      # [Alg.3 l.2]
        yield from itertools.count(f, f)
        return
    exponent = v / 2.0 if interval == "x" else v                         # Lemma B.1
    W = 0
    while True:
        total, w = 0.0, W
        while True:
            w += 1
            g = w ** -exponent
            total += g
            if total >= g / epsilon:
                break
        W = w
        yield W


def release_points(epsilon: float, v: float, n_max: int, interval: str = "constant") -> np.ndarray:
    """The counts n_a <= n_max at which an arm's mean is released (Alg. 3 l.8, Lemma B.1).

    ``constant``: f, 2f, ... with f = ceil(1/eps). ``x`` / ``y``: Lemma B.1's series W_1, W_2, ...
    (module docstring). The interval lengths f_n = W_{n+1} - W_n are ``np.diff`` of
    ``[0, *points]``; each is at most ceil(1/eps), since a block of that length already meets
    the threshold.
    """
    epsilon = check_epsilon(epsilon)
    v = _check_v(v)
    n_max = check_positive_int(n_max, "n_max", minimum=0)
    interval = _check_interval(interval)
    if interval == "constant":
        f = math.ceil(1.0 / epsilon)
        return np.arange(f, n_max + 1, f, dtype=np.int64)
    points = itertools.takewhile(lambda w: w <= n_max, _release_series(epsilon, v, interval))
    return np.fromiter(points, dtype=np.int64)


def composition(counts, v: float, delta: float) -> PrivacyBound:
    """Theorem 3.4 before its eps-relaxation (proof B.2): one arm's releases at ``counts``.

    C = sum_n n^(-v/2) (basic composition of the Lemma 3.1 releases) and
    D = sum_n n^(-v/2) (e^(n^(-v/2)) - 1) + sqrt(2 ln(1/delta') sum_n n^(-v)) (advanced
    composition, heterogeneous form, docs/errata.md#td-advanced-composition), sums over the multiset ``counts``.
    """
    v = _check_v(v)
    delta = _check_delta(delta)
    n = np.asarray(counts, dtype=float).ravel()
    if n.size and not (np.all(n >= 1) and np.all(n == np.floor(n))):
        raise DPBanditsError("counts must be positive integers (the arm's pull counts at release)")
    per_release = n ** (-v / 2.0)
    basic = float(per_release.sum())
    advanced = float((per_release * np.expm1(per_release)).sum()
                     + math.sqrt(2.0 * math.log(1.0 / delta) * float((per_release ** 2).sum())))
    return PrivacyBound(basic, advanced, delta)


def accountant(epsilon: float, v: float, delta: float, releases: int,
               interval: str = "constant") -> PrivacyBound:
    """Theorem 3.4's exact (eps', delta') after ``releases`` releases of one arm's mean.

    The releases are the first ``releases`` points of the interval rule (:func:`release_points`),
    composed by :func:`composition`. By parallel composition across arms, the worst arm's value
    is the algorithm's (``corrected`` variant).
    """
    epsilon = check_epsilon(epsilon)
    v = _check_v(v)
    releases = check_positive_int(releases, "releases", minimum=0)
    interval = _check_interval(interval)
    counts = np.fromiter(itertools.islice(_release_series(epsilon, v, interval), releases),
                         dtype=np.int64, count=releases)
    return composition(counts, v, delta)


def _series_sums(t: int, v: float) -> tuple[float, float, float]:
    """sum_{n<=t} of n^(-v/2), n^(-v/2) (e^(n^(-v/2)) - 1) and n^(-v), summed in blocks."""
    basic = exp_term = squares = 0.0
    for start in range(1, t + 1, _CHUNK):
        g = np.arange(start, min(start + _CHUNK, t + 1), dtype=float) ** (-v / 2.0)
        basic += float(g.sum())
        exp_term += float((g * np.expm1(g)).sum())
        squares += float((g * g).sum())
    return basic, exp_term, squares


def theorem_3_4(epsilon: float, v: float, delta: float, t: int) -> PrivacyBound:
    """Theorem 3.4 after t steps, in the form its proof (B.3, B.6) gives (docs/errata.md#td-thm34-typos).

    basic = eps sum_{n<=t} n^(-v/2);
    advanced = eps sum_{n<=t} n^(-v/2) (e^(n^(-v/2)) - 1)
               + sqrt(2 eps ln(1/delta') sum_{n<=t} n^(-v)).
    """
    epsilon = check_epsilon(epsilon)
    v = _check_v(v)
    delta = _check_delta(delta)
    t = check_positive_int(t, "t")
    basic, exp_term, squares = _series_sums(t, v)
    advanced = epsilon * exp_term + math.sqrt(2.0 * epsilon * math.log(1.0 / delta) * squares)
    return PrivacyBound(epsilon * basic, advanced, delta)


def corollary_3_1(epsilon: float, v: float, delta: float, t: int | None = None) -> PrivacyBound:
    """Corollary 3.1, the closed form of Theorem 3.4.

    basic = eps (t^(1-v/2) - v/2) / (1 - v/2) (integral test) and
    advanced = 2 eps zeta(v) + sqrt(2 eps zeta(v) ln(1/delta')), which does not depend on t.
    ``t=None`` asks for the bound over every t: ``basic`` is then infinite.
    """
    epsilon = check_epsilon(epsilon)
    v = _check_v(v)
    delta = _check_delta(delta)
    if t is None:
        basic = math.inf
    else:
        t = check_positive_int(t, "t")
        basic = epsilon * (t ** (1.0 - v / 2.0) - v / 2.0) / (1.0 - v / 2.0)
    z = float(zeta(v))
    advanced = 2.0 * epsilon * z + math.sqrt(2.0 * epsilon * z * math.log(1.0 / delta))
    return PrivacyBound(basic, advanced, delta)


def input_epsilon(target_epsilon: float, v: float, delta: float) -> float:
    """Corollary 3.2: the input eps of Algorithm 3 that makes it (eps', delta')-DP.

    eps = (sqrt((ln(1/delta') + 4 eps') / (8 zeta(v))) - sqrt(ln(1/delta') / (8 zeta(v))))^2, the
    positive root of eps' = 2 eps zeta(v) + sqrt(2 eps zeta(v) ln(1/delta')) in sqrt(eps). It is
    computed as (4 eps' / (8 zeta)) / (sqrt(.) + sqrt(.)), the same number without the
    cancellation of the printed difference. The paper states eps' in (0, 1]; the root is exact
    for every eps' > 0.
    """
    target_epsilon = check_epsilon(target_epsilon, "target_epsilon")
    v = _check_v(v)
    delta = _check_delta(delta)
    scale = 8.0 * float(zeta(v))
    log_term = math.log(1.0 / delta)
    root = (4.0 * target_epsilon / scale) / (math.sqrt((log_term + 4.0 * target_epsilon) / scale)
                                             + math.sqrt(log_term / scale))
    return root * root


class _Schedule:
    """The release points W_1, W_2, ... of one interval rule, extended on demand."""

    def __init__(self, epsilon: float, v: float, interval: str) -> None:
        self._rule = (epsilon, v, interval)
        self._source = _release_series(epsilon, v, interval)
        self.points = np.zeros(0, dtype=np.int64)

    def __deepcopy__(self, memo: dict) -> "_Schedule":
        """A copy at the same place in the series (a Python generator cannot be copied): the
        series is a function of the rule alone, so a new one past the points already taken
        continues as this one does. The accountant's enumeration copies a policy where its
        action sequences branch."""
        out = _Schedule(*self._rule)
        memo[id(self)] = out
        for _ in itertools.islice(out._source, self.points.size):
            pass
        out.points = self.points.copy()
        return out

    def covering(self, index: int) -> np.ndarray:
        """The known points, at least ``index + 1`` of them."""
        have = self.points.size
        if index >= have:
            extra = itertools.islice(self._source, max(index + 1, 2 * have) - have)
            self.points = np.concatenate([self.points, np.fromiter(extra, dtype=np.int64)])
        return self.points



def arm_two_first_reward(K: int, T: int) -> list[TablePair]:
    """The worked worst case of docs/errata.md#td-int-loop: arm 1 always pays 1; arm 2's first
    reward (round 2) is 0 vs 1."""
    X = np.zeros((T, K))
    X[:, 0] = 1.0
    Y = X.copy()
    Y[1, 1] = 1.0
    return [TablePair(X, Y, 2, "docs/errata.md#td-int-loop: arm 2's first reward 0 vs 1")]


class DPUCBInt(PolicyBase):
    """DP-UCB-INT of Tossou and Dimitrakakis, batch-first."""

    name = "dp-ucb-int"
    title = "DP-UCB-INT"
    paper = "Tossou & Dimitrakakis (AAAI 2016), Alg. 3"
    variants = (
        Variant("corrected", "one release each time n_a reaches a new release point, index "
                             "frozen until the next (docs/errata.md#td-int-loop, reading R-B)"),
        Variant("paper", "as printed: fresh noise at every step while n_a sits at a release "
                         "point; (eps', delta') unproven, pure branch false (docs/errata.md#td-int-loop)"),
    )
    default_variant = "corrected"

    kernel = "dp_ucb_int"
    known_pairs = KnownPairs(build=arm_two_first_reward, arms=2,
                             source="docs/errata.md#td-int-loop")
    audit_preset = AuditPreset(
        epsilon=0.5, params={"v": 1.5}, T=20, samples=500_000,
        why="the parameters of the counterexample in docs/errata.md#td-int-loop (eps = 0.5, "
            "v = 1.5, T = 20), whose violating event has probability about 4e-4 and needs about "
            "5e5 runs per side")
    white_box_statistic = "mean_hat"
    planted_parts = {
        "noise scale alone x 1/2 (every release at half its Laplace scale n^(v/2 - 1); release "
        "points unchanged)": ("noise scale", {"rng": 0.5}),
    }
    """A planted variant that changes one part (what ``validate`` runs to state its power):
    epsilon x 2 moves the release points alone (eps sets the interval; the noise n^(v/2 - 1)
    does not read it), and this moves the noise alone; ``planted_changes`` moves the radius
    sqrt(2 ln t / n) alone."""
    planted_changes = {"confidence radius sqrt(3 ln t / n) for sqrt(2 ln t / n) (l.9; noise "
                       "and release points unchanged)": {"radius_scale": math.sqrt(1.5)}}

    def __init__(self, K: int, *, epsilon: float, runs: int = 1, rng, variant: str | None = None,
                 tie_break: str = "first", v: float = 1.1, delta: float = math.exp(-10),
                 interval: str = "constant", bonus: str = "frozen") -> None:
        super().__init__(K, runs=runs, rng=rng, epsilon=epsilon, variant=variant,
                         tie_break=tie_break)
        self.v = float(v)                   # v: privacy rate (Alg. 3 input); experiments: 1.1
        self.delta = float(delta)           # delta' of the claim (Theorem 3.4); experiments: e^-10
        self.interval = interval
        self.bonus = bonus
        self._schedule = _Schedule(self.epsilon, self.v, self.interval)
        self.f0 = int(self._schedule.covering(0)[0])   # f_0 = W_1; the start lasts K f_0 steps
        shape = (self.runs, self.K)
        self.s = np.zeros(shape)                           # s_a: reward sum of arm a (l.11)
        self.n = np.zeros(shape, np.int64)                 # n_{a,t}: pulls of arm a
        self.reached = np.zeros(shape, np.int64)           # release points n_a has reached
        self.next_point = np.full(shape, self.f0, np.int64)
        self.at_point = np.zeros(shape, bool)              # n_a is a release point (l.8)
        self.last_release = np.zeros(shape, np.int64)      # n_a at the arm's last release
        self.releases = np.zeros(shape, np.int64)          # releases (Laplace draws) so far
        self.mean_hat = np.zeros(shape)                    # s_a / n_a + Lap at the last release
        self.x_hat = np.zeros(shape)                       # x_hat_a of l.9
        self._released_round = 0

    @property
    def claim(self) -> PrivacyClaim:
        claimed = corollary_3_1(self.epsilon, self.v, self.delta).guarantee()
        if self.variant == "corrected":
            return PrivacyClaim(claimed, claimed, "holds", _SOURCE,
                                "one release per interval, each n^(-v/2)-DP (Lemma 3.1); "
                                "advanced composition over one arm's releases, relaxed by "
                                "interval length >= 1/eps and bounded by zeta(v)")
        return PrivacyClaim(claimed, None, "unproven", _SOURCE,
                            "the printed loop re-releases an unpulled arm's mean with fresh "
                            "noise at every step while n_a sits at a release point: the "
                            "number of releases is unbounded and data-dependent, which "
                            "Theorem 3.4's proof does not cover (docs/errata.md#td-int-loop)")

    def pure_claim(self, t: int) -> PrivacyClaim:
        """Theorem 3.4's pure branch after t steps: eps sum_{n<=t} n^(-v/2)-DP.

        ``proven`` is basic composition over the release points up to t (each arm has
        n_a <= t). It implies the claim for the ``constant`` and ``x`` rules; for the ``y`` rule
        it may not (docs/errata.md#td-y-rule), and the status is then ``unproven``. For the ``paper``
        variant the branch is false (the docs/errata.md#td-int-loop counterexample) and nothing is proven.
        """
        t = check_positive_int(t, "t")
        claimed = Guarantee(theorem_3_4(self.epsilon, self.v, self.delta, t).basic)
        source = "Tossou & Dimitrakakis (AAAI 2016), Theorem 3.4, first branch"
        if self.variant == "paper":
            return PrivacyClaim(claimed, None, "false", source,
                                "K = 2, eps = 0.5, v = 1.5: the event 'arm 2 not pulled in "
                                "steps 5..20' has log-likelihood ratio 4.46 > 2.535 between "
                                "tables differing in arm 2's first reward (docs/errata.md#td-int-loop)")
        points = release_points(self.epsilon, self.v, t, self.interval)
        proven = Guarantee(composition(points, self.v, self.delta).basic)
        if proven.implies(claimed):
            return PrivacyClaim(claimed, proven, "holds", source,
                                "basic composition of the releases at n_a <= t")
        return PrivacyClaim(claimed, proven, "unproven", source,
                            "the y-rule intervals do not justify the relaxation (B.5)-(B.6): "
                            "the releases' basic-composition loss exceeds the claim "
                            "(docs/errata.md#td-y-rule)")

    # --8<-- [start:act-release]
    def act(self, t: int) -> np.ndarray:
        if t <= self.K * self.f0:                                                  # [Alg.3 l.4]
            return np.full(self.runs, (t - 1) % self.K)                            # [Alg.3 l.5]
        if t != self._released_round:   # one pass of l.7-9 per round, however often act(t) runs
            self._release(t)
            self._released_round = t
        if self.bonus == "frozen":
            index = self.x_hat
        else:                           # deviation 4
            index = self.mean_hat + self.radius_scale * np.sqrt(2.0 * math.log(t) / self.n)
        return self.argmax(index)                                                  # [Alg.3 l.10]

    def _release(self, t: int) -> None:
        """Lines 7-9: refresh x_hat of the arms whose count is due for a release."""
        due = self.at_point.copy()                                                 # [Alg.3 l.8]
        if self.variant == "corrected":
            due &= self.last_release != self.n       # deviation 1: once per release point
        if not due.any():
            return
        i, a = np.nonzero(due)                                                     # [Alg.3 l.7]
        n = self.n[i, a]
        noise = laplace(self.rng, noise_scale(n, self.v), i.size)
        self.mean_hat[i, a] = release(self.s[i, a] / n, noise)                             # [Alg.3 l.9]
        self.x_hat[i, a] = self.mean_hat[i, a] + self.radius_scale * np.sqrt(2.0 * math.log(t) / n)
        self.last_release[i, a] = n
        self.releases[i, a] += 1

    def observe(self, t: int, actions: np.ndarray, feedback: np.ndarray) -> None:
        r = self.check_observation(t, actions, feedback)
        rows = self._rows
        self.s[rows, actions] += r                         # [Alg.3 l.11], in both phases (dev. 2)
        self.n[rows, actions] += 1
        pulls, point = decision(self.n[rows, actions], self.next_point[rows, actions])  # counts
        hit = pulls == point
        self.at_point[rows, actions] = hit
        if hit.any():
            i, a = rows[hit], actions[hit]
            self.reached[i, a] += 1
            points = self._schedule.covering(int(self.reached[i, a].max()))
            self.next_point[i, a] = points[self.reached[i, a]]
    # --8<-- [end:act-release]
