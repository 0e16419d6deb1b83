"""Bounds of Wu & Wang, "Improved regret bounds for differentially private decision-theoretic
online learning" (arXiv:2502.10997): eq. (2), Theorems 1-4, Lemma 5, Corollaries 1-2.

The paper states its results with O(.) and universal constants ``c_1, c_2`` (Lemma 5). Working
the proofs through gives explicit forms, labelled [DERIVED] (docs/algorithms/rnm-ftnl-bq.md,
Regret: Theorems 2 and 4):

- Theorem 2 (B = 1): the paper-literal form keeps ``c_1, c_2`` symbolic, with the paper's own
  preset (2, 16) (Lemma 5 for exponential/Gumbel noise in the Eq. (7) convention) and drops a
  factor 2 in Regret_up (docs/errata.md#ww-thm2-factor2); the corrected form restores it, with preset (2, 32) (all four
  noises, incl. Lap(2/epsilon)) or (2, 16) (exponential and Gumbel noise only).
- Corollary 1, Corollary 2 and Theorem 4: derived constants (Cor. 1 App. D, Cor. 2 App. F, Thm 4 App. H).
- Theorem 3 (lower bound, deterministic setting): explicit, closed form and sum form; needs
  K >= 6 (the proof averages over K - 5 instances; the paper's "any K" is not covered, docs/errata.md#ww-thm3-k6).

Which algorithm: RNM-FTNL(B, Q) is ``rnm-ftnl-bq`` (parameters ``B`` and ``Q``); which B and Q a
bound needs is in each docstring. The registry's bound tags cannot select parameters, so a check
of ``rnm-ftnl-bq`` against these bounds uses its default parameters (B = 1, exponential noise).
"""

from __future__ import annotations

import numpy as np
from dataclasses import replace

import sympy as sp

from ..errors import DPBanditsError
from .core import Bound, Delta_min, K, T, epsilon, positive

__all__ = ["c_1", "c_2", "PRESETS", "eq2_lower", "thm1", "remark1", "thm2_printed", "thm2",
           "thm2_exp_gumbel", "cor1", "cor1_exp_gumbel", "thm3_lower", "thm3_limit", "cor2",
           "thm4_printed", "thm4", "lb_sum", "lemma3_sum", "bounds"]

c_1 = positive("c_1")
"""Universal constant of Lemma 5 (multiplier)."""
c_2 = positive("c_2")
"""Universal constant of Lemma 5 (in the exponent's denominator, Eq. (7) convention)."""
H_eps = positive("H_epsilon")
"""sum of 1/j over ranks j >= 2 with Delta_j > epsilon (Theorem 2, paper-literal)."""
k_eps = sp.Symbol("k_epsilon", nonnegative=True)
"""Number of actions with Delta_j > epsilon (Theorem 2, paper-literal)."""

PRESETS = {"paper": {"c_1": 2.0, "c_2": 16.0}, "uniform": {"c_1": 2.0, "c_2": 32.0}}
"""(c_1, c_2): the paper's Lemma 5 for exponential/Gumbel noise in the Eq. (7) convention, and
a uniform preset that also covers Lap(2/epsilon) (Lemma 5 redone for all four noises;
docs/errata.md#ww-exponent)."""

_PAPER = "Wu & Wang, arXiv:2502.10997"
_TAG = ("rnm-ftnl-bq",)
_K2 = sp.Ge(K, 2)


def eq2_lower() -> Bound:
    """Eq. (2), the prior lower bound of Hu et al. (2021): Omega(log K / Delta_min + log K / eps).
    Order only; stochastic worst case, not valid in the deterministic setting (eq. (2))."""
    return Bound("wu-wang.eq2", "Eq. (2): prior instance-dependent lower bound (Hu et al. 2021)",
                 f"{_PAPER}, Eq. (2)", "lower", "expected pseudo-regret",
                 "order", rest=sp.log(K) / Delta_min + sp.log(K) / epsilon, algorithms=_TAG,
                 order=sp.log(K) / Delta_min + sp.log(K) / epsilon, monotone=("epsilon-",))


def thm1() -> Bound:
    """Theorem 1 (Hu et al. 2021; B = 0, Lap(2/eps)): O(log K / Delta_min + log K log T / eps).
    Order only here (``hu2021.thm7`` has Hu et al.'s explicit App. G form)."""
    rate = sp.log(K) / Delta_min + sp.log(K) * sp.log(T) / epsilon
    return Bound("wu-wang.thm1", "Theorem 1: best existing upper bound (Hu et al. 2021)",
                 f"{_PAPER}, Thm 1, Eq. (3)", "upper", "expected pseudo-regret",
                 "order", rest=rate, algorithms=_TAG, order=rate)


def remark1() -> Bound:
    """Remark 1: a T-independent O(log K / Delta_min + K log K / eps) from Hu et al.'s analysis."""
    rate = sp.log(K) / Delta_min + K * sp.log(K) / epsilon
    return Bound("wu-wang.remark1", "Remark 1: T-independent form of Theorem 1",
                 f"{_PAPER}, Remark 1", "upper", "expected pseudo-regret", "order",
                 rest=rate, algorithms=_TAG, order=rate)


def thm2_printed() -> Bound:
    """Theorem 2 (B = 1), paper-literal explicit form from App. C with c_1, c_2 symbolic:

    (8 c_2 ln K + c_1 c_2) / Delta_min + (2 c_2 ln K / eps) H_eps + (c_1 c_2 / eps) k_eps / K,

    where H_eps = sum of 1/j over ranks j >= 2 with Delta_j > eps and k_eps = #{j: Delta_j > eps}
    (:func:`rank_terms` computes both from a gap vector). The paper's Regret_up step drops a
    factor 2 (docs/errata.md#ww-thm2-factor2); preset (c_1, c_2) = (2, 16) is the paper's Lemma 5 (Lemma 5, eqs. (5)-(8)).
    """
    rest = ((8 * c_2 * sp.log(K) + c_1 * c_2) / Delta_min + 2 * c_2 * sp.log(K) * H_eps / epsilon
            + c_1 * c_2 * k_eps / (epsilon * K))
    return Bound("wu-wang.thm2.printed", "Theorem 2 (paper-literal constants, factor 2 dropped)",
                 f"{_PAPER}, Thm 2 and App. C; Lemma 5, eqs. (5)-(8)", "upper", "expected pseudo-regret",
                 "paper", rest=rest, condition=_K2, algorithms=_TAG,
                 settings=PRESETS["paper"], order=sp.log(K) / Delta_min + sp.log(K) ** 2 / epsilon,
                 note="needs H_epsilon and k_epsilon (rank_terms); factor 2 missing, docs/errata.md#ww-thm2-factor2",
                 monotone=())


def thm2() -> Bound:
    """Theorem 2 (B = 1) [DERIVED], corrected, uniform preset (2, 32): valid for Lap(2/eps),
    Exp(1/eps), Exp(2/eps) and Gumbel(2/eps) noise (Lemma 5, eqs. (5)-(8)):
    (512 ln K + 128) / Delta_min + 64 ((ln K)^2 + 1) / eps. T-independent."""
    rest = ((2 * (8 * c_2 * sp.log(K) + c_1 * c_2)) / Delta_min
            + (2 * c_2 * sp.log(K) ** 2 + c_1 * c_2) / epsilon)
    return Bound("wu-wang.thm2", "Theorem 2 (corrected, all four noises)",
                 f"{_PAPER}, Thm 2; Lemma 5, eqs. (5)-(8) [DERIVED]", "upper", "expected pseudo-regret",
                 "derived", rest=rest, condition=_K2, algorithms=_TAG, status="corrected",
                 printed="wu-wang.thm2.printed", settings=PRESETS["uniform"],
                 order=sp.log(K) / Delta_min + sp.log(K) ** 2 / epsilon, monotone=("epsilon-",))


def thm2_exp_gumbel() -> Bound:
    """Theorem 2 (B = 1) [DERIVED] for exponential or Gumbel noise only, preset (2, 16):
    (256 ln K + 64) / Delta_min + 32 ((ln K)^2 + 1) / eps."""
    base = thm2()
    return replace(base, key="wu-wang.thm2.exp-gumbel", title="Theorem 2 (corrected, exponential or Gumbel noise)", settings=PRESETS["paper"])


def cor1() -> Bound:
    """Corollary 1 (B = 1) [DERIVED], uniform preset (2, 32): instance-independent
    (1 + 16 c_2) sqrt(T ln K) + 2 c_1 c_2 sqrt(T / ln K) + (2 c_2 (ln K)^2 + c_1 c_2) / eps."""
    rest = ((1 + 16 * c_2) * sp.sqrt(T * sp.log(K)) + 2 * c_1 * c_2 * sp.sqrt(T / sp.log(K))
            + (2 * c_2 * sp.log(K) ** 2 + c_1 * c_2) / epsilon)
    return Bound("wu-wang.cor1", "Corollary 1 (instance-independent, all four noises)",
                 f"{_PAPER}, Cor 1, App. D [DERIVED]", "upper",
                 "worst-case expected pseudo-regret", "derived", rest=rest, condition=_K2,
                 algorithms=_TAG, settings=PRESETS["uniform"],
                 order=sp.sqrt(T * sp.log(K)) + sp.log(K) ** 2 / epsilon)


def cor1_exp_gumbel() -> Bound:
    """Corollary 1 [DERIVED] for exponential or Gumbel noise, preset (2, 16)."""
    base = cor1()
    return replace(base, key="wu-wang.cor1.exp-gumbel", title="Corollary 1 (exponential or Gumbel noise)", settings=PRESETS["paper"])


def thm3_lower() -> Bound:
    """Theorem 3, closed form (explicit, paper's constants; Thm 3): for every epsilon-DP
    algorithm the average regret over the K cyclic deterministic instances is at least

    LB(T, K, eps) = (1/eps) [ -ln(3 + (K - 5) e^{-(T+1) eps}) + ln(3 e^eps + K - 5) - eps ],

    the overflow-safe form of the paper's expression. Needs K >= 6. For a label-equivariant
    algorithm (RNM-FTNL) every instance has the same regret, so it bounds each one.
    """
    rest = (-sp.log(3 + (K - 5) * sp.exp(-(T + 1) * epsilon)) + sp.log(3 * sp.exp(epsilon) + K - 5)
            - epsilon) / epsilon
    return Bound("wu-wang.thm3", "Theorem 3: lower bound, deterministic setting (closed form)",
                 f"{_PAPER}, Thm 3, App. E", "lower", "expected pseudo-regret",
                 "paper", rest=rest, condition=sp.Ge(K, 6),
                 algorithms=("rnm-ftnl", "rnm-ftnl-bq", "naive-ftnl"), instance="wu-wang-thm3",
                 order=sp.log(K) / epsilon, monotone=("T+", "epsilon-"))


def thm3_limit() -> Bound:
    """Theorem 3, T -> infinity: ln(e^eps + (K - 5)/3) / eps - 1 (Thm 3); K >= 6."""
    rest = sp.log(sp.exp(epsilon) + (K - 5) / 3) / epsilon - 1
    return Bound("wu-wang.thm3.limit", "Theorem 3: lower bound as T grows",
                 f"{_PAPER}, Thm 3, App. E", "lower", "expected pseudo-regret",
                 "paper", rest=rest, condition=sp.Ge(K, 6),
                 algorithms=("rnm-ftnl", "rnm-ftnl-bq", "naive-ftnl"), instance="wu-wang-thm3",
                 asymptotic=True, monotone=("epsilon-",))


def cor2() -> Bound:
    """Corollary 2 (deterministic setting, read with B = 0, docs/errata.md#ww-cor2-b) [DERIVED]:
    1 + (32 (ln K)^2 + 16) / eps (Cor. 2)."""
    rest = 1 + (32 * sp.log(K) ** 2 + 16) / epsilon
    return Bound("wu-wang.cor2", "Corollary 2: deterministic setting, log^2 K / eps",
                 f"{_PAPER}, Cor 2, App. F [DERIVED]", "upper",
                 "expected pseudo-regret", "derived", rest=rest, condition=_K2, algorithms=_TAG,
                 instance="deterministic", order=sp.log(K) ** 2 / epsilon)


def thm4_printed() -> Bound:
    """Theorem 4, paper-literal: 3 + 4 (1 + ln 2) / ln 2 * ln K / eps, derived for the
    temperature-eps softmax (effectively Gumbel(1/eps), docs/errata.md#ww-gumbel-temperature) with the loose Lemma 3 constant."""
    rest = 3 + 4 * (1 + sp.log(2)) / sp.log(2) * sp.log(K) / epsilon
    return Bound("wu-wang.thm4.printed", "Theorem 4 (paper-literal constant)",
                 f"{_PAPER}, Thm 4, App. H", "upper", "expected pseudo-regret",
                 "paper", rest=rest, condition=_K2, algorithms=_TAG, instance="deterministic",
                 order=sp.log(K) / epsilon)


def thm4() -> Bound:
    """Theorem 4 [DERIVED] for Gumbel(2/eps) as specified (and Exp(2/eps), Exp(1/eps) by
    dominance), B = 0, deterministic setting, every T: 1 + 4 (1 + ln 2) log2 K / eps (Thm 4)."""
    rest = 1 + 4 * (1 + sp.log(2)) * sp.log(K, 2) / epsilon
    return Bound("wu-wang.thm4", "Theorem 4: optimal rate in the deterministic setting",
                 f"{_PAPER}, Thm 4, App. H [DERIVED]", "upper",
                 "expected pseudo-regret", "derived", rest=rest, condition=_K2, algorithms=_TAG,
                 status="corrected", printed="wu-wang.thm4.printed", instance="deterministic",
                 order=sp.log(K) / epsilon)


def lb_sum(T: int, K: int, epsilon: float) -> float:
    """Theorem 3, sum form (tighter than the closed form): sum_{t=1}^T (K-5) / (3 e^{t eps} + K-5)."""
    if K < 6:
        raise DPBanditsError(f"Theorem 3 needs K >= 6 (the proof averages over K - 5 instances), got {K}")
    t = np.arange(1, int(T) + 1, dtype=float)
    with np.errstate(over="ignore"):
        return float(np.sum((K - 5) / (3 * np.exp(t * epsilon) + K - 5)))


def rank_terms(gaps, epsilon: float) -> dict[str, float]:
    """H_epsilon and k_epsilon of the paper-literal Theorem 2 from a gap vector (ranks by gap)."""
    g = np.sort(np.asarray(gaps, dtype=float))
    ranks = np.arange(1, g.size + 1)
    above = g > epsilon
    return {"H_epsilon": float(np.sum(1.0 / ranks[above & (ranks >= 2)])),
            "k_epsilon": float(np.sum(above)), "K": float(g.size), "Delta_min": float(g[g > 0].min())}


def lemma3_sum(a, r_max: int = 200) -> float:
    """sum_{r=1}^{r_max} f(r) with f(x) = sum_i 2^x a_i e^{-2^x a_i} / sum_i e^{-2^x a_i} (Lemma 2/3)."""
    a = np.asarray(a, dtype=float)
    total = 0.0
    for r in range(1, r_max + 1):
        z = 2.0 ** r * a
        w = np.exp(-(z - z.min()))
        total += float(np.sum(z * w) / np.sum(w))
    return total


def bounds() -> list[Bound]:
    return [eq2_lower(), thm1(), remark1(), thm2_printed(), thm2(), thm2_exp_gumbel(), cor1(),
            cor1_exp_gumbel(), thm3_lower(), thm3_limit(), cor2(), thm4_printed(), thm4()]
