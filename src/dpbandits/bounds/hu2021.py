"""Bounds of Hu, Huang & Mehta, "Near-optimal algorithms for private online learning in a
stochastic environment" (arXiv:2102.07929), Sec. 3-4 and App. B-H.

The paper states Theorems 3, 4, 5 and Corollary 9 with O(.) only; following the proofs gives
[DERIVED] explicit constants (docs/algorithms/anytime-lazy-ucb.md, Regret: Theorem 3) (Theorems 3 and 4), or leaves one constant free (Theorem 5's
C_12, the literal Theorem 3's C_11). Theorem 7 (FTNL) has explicit constants in App. G; its
bracket form needs the gap vector, so it is :func:`thm7_brackets` (exact first form), and the
Bound ``hu2021.thm7`` is the second form with the number of brackets bounded by
log2(1/Delta_min) + 1 (a valid relaxation, labelled derived). Theorem 10's private term is
explicit (0.0098 ln K / eps) and is a lower bound for epsilon-DP algorithms on its hard instance
(``hu-journal-thm12`` is that family's P_1 with K = 10, Delta = 0.1).

FTNL with Lap(1/eps) (``rnm-ftnl`` variant ``paper``) is only 2 eps-DP; the corrected Lap(2/eps)
variant satisfies every regret bound with eps replaced by eps / 2 (docs/errata.md#hj-corrected-rates).

Privacy statements are ``kind="privacy"`` bounds: Theorem 2 (sound), Theorem 6 and Theorem 5's
privacy part printed (eps) and as they hold for the printed noise (2 eps, 3 eps / 2), each checked
against the registry's claims by the tests. Lemma 13 is the ``kind="error"`` bound of App. G.
Theorem 10 is given as its explicit private term (a bound on the hard instance), in full with
Mourtada & Gaifas' constant free, and as its minimax rate.
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np
import sympy as sp

from .core import Bound, Delta, Delta_min, K, T, epsilon, n, positive

__all__ = ["C_11", "C_12", "C_M", "Delta_k", "thm2", "thm3", "thm3_literal", "thm4", "thm5",
           "thm5_order", "thm5_privacy_printed", "thm5_privacy", "thm6_printed", "thm6", "thm6_lap2", "thm7",
           "thm7_corrected", "thm7_order", "thm7_brackets", "lemma13", "cor8_i", "cor8_ii", "cor9",
           "private_lower_term", "thm10_private", "thm10", "thm10_minimax", "bounds"]

C_11 = positive("C_11")
"""Lemma 11's O(1) constant (5.625 by following its proof, docs/algorithms/anytime-lazy-ucb.md; kept free in the paper-literal form)."""
C_12 = positive("C_12")
"""Lemma 12's O(1) constant (O-only, Thm 5)."""
Delta_k = positive("Delta_k")
"""Delta_(k) = 2^(k-1) Delta_min, the lower gap of bracket J_k (Theorem 7, Lemma 13)."""
C_M = positive("C_M")
"""The constant of Mourtada & Gaifas' non-private lower bound (Thm 10's first term; not given)."""

_PAPER = "Hu, Huang & Mehta, arXiv:2102.07929"
_LOG2T = sp.log(T, 2)


def thm2() -> Bound:
    """Theorem 2 (privacy of Anytime-Lazy-UCB): eps-DP for every eps > 0 under replacement of one
    reward vector; sound (each reward enters one array sum, released once with Lap(1/eps))
    (Thm 2). ``monotone=()``: a privacy level, not a regret curve."""
    return Bound("hu2021.thm2", "Theorem 2: Anytime-Lazy-UCB is eps-DP", f"{_PAPER}, Thm 2, App. B",
                 "privacy", "privacy loss of the action sequence", "paper", rest=epsilon,
                 algorithms=("anytime-lazy-ucb",), monotone=())


def thm3() -> Bound:
    """Theorem 3 (Anytime-Lazy-UCB) [DERIVED], T >= 2 (Thm 3):
    R(T) <= sum_j 96 ln T / min{Delta_j, eps} + 6 Delta_j log2 T. Anytime."""
    return Bound("hu2021.thm3", "Theorem 3: problem-dependent regret of Anytime-Lazy-UCB",
                 f"{_PAPER}, Thm 3, App. C [DERIVED]", "upper",
                 "expected pseudo-regret R(T)", "derived",
                 per_arm=96 * sp.log(T) / sp.Min(Delta, epsilon) + 6 * Delta * _LOG2T,
                 condition=sp.Ge(T, 2), algorithms=("anytime-lazy-ucb",),
                 order=sp.log(T) / sp.Min(Delta, epsilon))


def thm3_literal() -> Bound:
    """Theorem 3, paper-literal App. C form with Lemma 11's constant free:
    sum_j Delta_j (1 + (2^{d_j + 1} - 2) + C_11 log2 T), d_j = ceil(log2(24 ln T / (Delta_j min{Delta_j, eps})))."""
    d = sp.ceiling(sp.log(24 * sp.log(T) / (Delta * sp.Min(Delta, epsilon)), 2))
    return Bound("hu2021.thm3.literal", "Theorem 3 (App. C form, Lemma 11 constant free)",
                 f"{_PAPER}, Thm 3, App. C eqs. (18)-(19)", "upper",
                 "expected pseudo-regret R(T)", "free",
                 per_arm=Delta * (1 + 2 ** (d + 1) - 2 + C_11 * _LOG2T), condition=sp.Ge(T, 2),
                 algorithms=("anytime-lazy-ucb",), monotone=())


def thm4() -> Bound:
    """Theorem 4 (Anytime-Lazy-UCB, problem-independent) [DERIVED] (Thm 4):
    (1 + 96 ln 2) sqrt(K T log2 T) + 96 K ln T / eps + 6 K log2 T."""
    rest = ((1 + 96 * sp.log(2)) * sp.sqrt(K * T * _LOG2T) + 96 * K * sp.log(T) / epsilon
            + 6 * K * _LOG2T)
    return Bound("hu2021.thm4", "Theorem 4: problem-independent regret of Anytime-Lazy-UCB",
                 f"{_PAPER}, Thm 4, App. D [DERIVED]", "upper",
                 "worst-case expected pseudo-regret", "derived", rest=rest, condition=sp.Ge(T, 2),
                 algorithms=("anytime-lazy-ucb",),
                 order=sp.sqrt(K * T * sp.log(T)) + K * sp.log(T) / epsilon)


def _hybrid_rate() -> sp.Expr:
    """Theorem 5's per-arm rate max{log T / Delta, log T / eps log(log T / (eps Delta))}."""
    return sp.Max(sp.log(T) / Delta, sp.log(T) / epsilon * sp.log(sp.log(T) / (epsilon * Delta)))


def thm5() -> Bound:
    """Theorem 5 (Hybrid-UCB), App. E.3.2 leading term [DERIVED] with Lemma 12's constant free
    (Thm 5): sum_j max{1024 log2 T / Delta_j, 1024 log2 T / eps log2(256 log2 T / (eps Delta_j))}
    + C_12 Delta_j log2 T. Status ``flawed``: the proof's noise threshold (43) is the full
    threshold, not half of it (Thm 5, docs/errata.md#hhm-thm5), so the noise of arm j may reach twice the
    index's bonus and (45) + 2 x (47) gives (sqrt 3 + 6 sqrt 2) / 16 = 0.64 Delta_j > Delta_j / 2:
    the d_j behind the 1024 does not exclude the bad event (42). The rate (``hu2021.thm5.order``)
    is unaffected (only constants change); this explicit leading term is not established and is
    never held against simulation."""
    y = 256 * _LOG2T / (epsilon * Delta)
    term = sp.Max(1024 * _LOG2T / Delta, 1024 * _LOG2T / epsilon * sp.log(y, 2)) + C_12 * Delta * _LOG2T
    return Bound("hu2021.thm5", "Theorem 5: regret of Hybrid-UCB (Lemma 12 constant free)",
                 f"{_PAPER}, Thm 5, App. E.3.2", "upper",
                 "expected pseudo-regret R(T)", "free", per_arm=term,
                 condition=sp.And(sp.Ge(T, 2), sp.Ge(y * sp.log(y, 2), 4)),
                 algorithms=("hybrid-ucb",), status="flawed", monotone=(), order=_hybrid_rate(),
                 note="the condition y log2 y >= 4 (y = 256 log2 T / (eps Delta_j), about y >= 2.745) "
                      "is the one step (46) of the proof needs and the paper leaves implicit; the "
                      "leading term follows the paper's d_j, whose noise threshold (43) is off by a "
                      "factor 2 (docs/errata.md#hhm-thm5), so it is not established")


def thm5_privacy_printed() -> Bound:
    """Theorem 5, privacy as printed: Hybrid-UCB is eps-DP (Thm 5, docs/errata.md#hhm-hybrid-tree)."""
    return Bound("hu2021.thm5.privacy.printed", "Theorem 5 (privacy) as printed",
                 f"{_PAPER}, Thm 5, App. E", "privacy",
                 "privacy loss of the noisy sums of Hybrid-UCB", "paper", rest=epsilon,
                 algorithms=("hybrid-ucb:paper",), monotone=())


def thm5_privacy() -> Bound:
    """Theorem 5, privacy of the printed noise (docs/errata.md#hhm-hybrid-tree): a reward enters one array sum
    (Lap(2/eps): eps/2) and, while its tree r fills, r + 1 released nodes (Lap(2r/eps) each:
    (r + 1) eps / (2r)); the loss eps (2r + 1) / (2r) is largest at r = 1: 3 eps / 2. The
    ``corrected`` variant (node noise Lap(2(r + 1)/eps)) is eps-DP as claimed."""
    return Bound("hu2021.thm5.privacy", "Theorem 5 (privacy) for the printed tree noise",
                 f"{_PAPER}, Thm 5, Alg. 4, docs/errata.md#hhm-hybrid-tree", "privacy",
                 "privacy loss of the noisy sums of Hybrid-UCB", "derived", rest=3 * epsilon / 2,
                 algorithms=("hybrid-ucb:paper",), status="corrected",
                 printed="hu2021.thm5.privacy.printed", monotone=())


def thm5_order() -> Bound:
    """Theorem 5 as stated: O(sum_j max{log T / Delta_j, log T / eps log(log T / (eps Delta_j))})."""
    rate = _hybrid_rate()
    return Bound("hu2021.thm5.order", "Theorem 5: rate of Hybrid-UCB", f"{_PAPER}, Thm 5",
                 "upper", "expected pseudo-regret R(T)", "order", per_arm=rate,
                 algorithms=("hybrid-ucb",), order=rate, monotone=())


def thm6_printed() -> Bound:
    """Theorem 6 as printed: FTNL with report-noisy-max at Lap(1/eps) is eps-DP (Thm 6)."""
    return Bound("hu2021.thm6.printed", "Theorem 6 (privacy of FTNL) as printed",
                 f"{_PAPER}, Thm 6", "privacy", "privacy loss of the action sequence",
                 "paper", rest=epsilon, algorithms=("rnm-ftnl:paper",), monotone=())


def thm6() -> Bound:
    """Theorem 6 as it holds (Alg. 2-3, docs/errata.md#rnm-laplace): under replacement of a whole reward vector the
    epoch sums move in opposite directions, and report-noisy-max with Lap(1/eps) is only
    2 eps-DP (loss 1.759 at K = 5, eps = 1; tends to 2 eps as K grows)."""
    return Bound("hu2021.thm6", "Theorem 6 (privacy of FTNL with Lap(1/eps)) corrected",
                 f"{_PAPER}, Thm 6, Alg. 2-3; docs/errata.md#rnm-laplace", "privacy",
                 "privacy loss of the action sequence", "derived", rest=2 * epsilon,
                 algorithms=("rnm-ftnl:paper",), status="corrected", printed="hu2021.thm6.printed",
                 monotone=())


def thm6_lap2() -> Bound:
    """Theorem 6 for the corrected noise Lap(2/eps): eps-DP (report-noisy-max with sensitivity-2
    scores; docs/errata.md#rnm-laplace, Hu et al. (journal), Thm 8)."""
    return Bound("hu2021.thm6.lap2", "Theorem 6 for FTNL with Lap(2/eps)",
                 f"{_PAPER}, Thm 6; docs/errata.md#rnm-laplace, Hu et al. (journal), Thm 8", "privacy",
                 "privacy loss of the action sequence", "derived", rest=epsilon,
                 algorithms=("rnm-ftnl:corrected",), monotone=())


def _ftnl_relaxed(eps: sp.Expr) -> sp.Expr:
    brackets = sp.log(1 / Delta_min, 2) + 1
    return (1 + 512 * (1 + sp.log(K - 1)) / Delta_min
            + 256 * (1 + sp.log(K - 1)) * brackets / eps)


def thm7() -> Bound:
    """Theorem 7 (FTNL, Lap(1/eps)), App. G's second form with the bracket count bounded by
    log2(1/Delta_min) + 1 and the +1 for gaps <= 1/T (Thm 7, App. G, Hu et al. (journal), Thm 9):
    1 + 512 (1 + ln(K-1)) / Delta_min + 256 (1 + ln(K-1)) (log2(1/Delta_min) + 1) / eps.
    :func:`thm7_brackets` is the exact (tighter) first form."""
    return Bound("hu2021.thm7", "Theorem 7: problem-dependent regret of FTNL (relaxed bracket count)",
                 f"{_PAPER}, Thm 7, App. G, Hu et al. (journal), Thm 9", "upper",
                 "expected pseudo-regret R(T)", "derived", rest=_ftnl_relaxed(epsilon),
                 condition=sp.Ge(K, 2), algorithms=("rnm-ftnl:paper",),
                 order=sp.log(K) / Delta_min + sp.log(K) * sp.log(1 / Delta_min) / epsilon,
                 note="256 and 512 are the paper's; the bracket-count relaxation is ours")


def thm7_corrected() -> Bound:
    """Theorem 7 for the corrected Lap(2/eps) noise: the same bound at eps / 2 (docs/errata.md#hj-corrected-rates)."""
    return Bound("hu2021.thm7.lap2", "Theorem 7 for FTNL with Lap(2/eps) (eps replaced by eps/2)",
                 f"{_PAPER}, Thm 7; docs/errata.md#hj-corrected-rates [DERIVED]", "upper",
                 "expected pseudo-regret R(T)", "derived", rest=_ftnl_relaxed(epsilon / 2),
                 condition=sp.Ge(K, 2), algorithms=("rnm-ftnl:corrected",),
                 order=sp.log(K) / Delta_min + sp.log(K) * sp.log(1 / Delta_min) / epsilon)


def thm7_order() -> Bound:
    """Theorem 7's second O-form as stated: O(log K / Delta_min + log K min{log(1/Delta_min), log T}
    / eps) (Thm 7, App. G), unit constants. Like the first O-form (which drops the "1 +" of
    1 + ln|J_k|, docs/errata.md#hhm-thm7-log), it loses the privacy term as Delta_min -> 1 (log(1/Delta_min) -> 0);
    the explicit forms (:func:`thm7`, :func:`thm7_brackets`) do not. Non-decreasing in T (T-free
    once T > 1/Delta_min) and non-increasing in eps."""
    rate = (sp.log(K) / Delta_min
            + sp.log(K) * sp.Min(sp.log(1 / Delta_min), sp.log(T)) / epsilon)
    return Bound("hu2021.thm7.order", "Theorem 7: rate of FTNL (second O-form)",
                 f"{_PAPER}, Thm 7", "upper", "expected pseudo-regret R(T)", "order",
                 rest=rate, condition=sp.And(sp.Ge(K, 2), sp.Lt(Delta_min, 1)),
                 algorithms=("rnm-ftnl",), order=rate)


def lemma13() -> Bound:
    """Lemma 13 (App. G, explicit): after n = 2^r rounds, an expert j of bracket k (gap at least
    Delta_k = Delta_(k)) leads the optimal one in noisy cumulative reward (Lap(1/eps) on each sum)
    with probability at most exp(-n Delta_k^2 / 8) + exp(-n Delta_k eps / 4)
    <= 2 exp(-n Delta_k min{Delta_k, eps} / 8) (Hoeffding on n differences in [-1, 1] plus the two
    Laplace upper tails; Thm 7, App. G). Read "for all r >= 0" (the paper's "r >= r_0" is before
    r_0 is defined). ``Delta_k`` is the bracket's lower gap Delta_(k) (a scalar, not summed)."""
    rest = sp.exp(-n * Delta_k ** 2 / 8) + sp.exp(-n * Delta_k * epsilon / 4)
    return Bound("hu2021.lemma13", "Lemma 13: probability that a suboptimal expert leads after noise",
                 f"{_PAPER}, Lemma 13, App. G", "error",
                 "P(noisy G_j - noisy G_1 >= 0)", "paper", rest=rest, condition=sp.Le(Delta_k, 1),
                 algorithms=("rnm-ftnl:paper",), monotone=("epsilon-",))


def thm7_brackets(gaps: Sequence[float], epsilon_: float, T_: int) -> float:
    """The exact first form of Theorem 7 / Theorem 9: sum over non-empty brackets J_k of
    256 (1 + ln |J_k|) / min{Delta_(k), eps}, brackets built from the gaps > 1/T, plus 1 if some
    gap lies in (0, 1/T] (Thm 7, App. G, Hu et al. (journal), Thm 9, docs/errata.md#hj-r0)."""
    g = np.asarray(gaps, dtype=float)
    positive_gaps = g[g > 0]
    small = positive_gaps[positive_gaps <= 1.0 / T_]
    big = positive_gaps[positive_gaps > 1.0 / T_]
    total = 1.0 if small.size else 0.0
    if big.size == 0:
        return total
    d_min = big.min()
    index = np.floor(np.log2(big / d_min)).astype(int) + 1
    for k in np.unique(index):
        size = int(np.sum(index == k))
        total += 256 * (1 + math.log(size)) / min(2 ** (k - 1) * d_min, epsilon_)
    return total


def cor8_i() -> Bound:
    """Corollary 8 (i): if every Delta_j <= eps, R(T) <= 512 (1 + ln(K-1)) / Delta_min (Cor. 8).
    The condition on every gap cannot be checked from Delta_min alone: listed, not auto-checked."""
    return Bound("hu2021.cor8.i", "Corollary 8 (i): all gaps at most eps", f"{_PAPER}, Cor 8",
                 "upper", "expected pseudo-regret R(T)", "paper",
                 rest=512 * (1 + sp.log(K - 1)) / Delta_min, condition=sp.Ge(K, 2),
                 monotone=(), note="needs every Delta_j <= eps")


def cor8_ii() -> Bound:
    """Corollary 8 (ii): if every Delta_j is in [Delta_min, 2 Delta_min),
    R(T) <= 256 (1 + ln(K-1)) / min{Delta_min, eps} (Cor. 8; half-open interval)."""
    return Bound("hu2021.cor8.ii", "Corollary 8 (ii): gaps within a factor 2", f"{_PAPER}, Cor 8",
                 "upper", "expected pseudo-regret R(T)", "paper",
                 rest=256 * (1 + sp.log(K - 1)) / sp.Min(Delta_min, epsilon), condition=sp.Ge(K, 2),
                 monotone=("epsilon-",), note="needs every Delta_j in [Delta_min, 2 Delta_min)")


def cor9() -> Bound:
    """Corollary 9 (FTNL, problem-independent): O(sqrt(T log K) + log K log T / eps). Order only."""
    rate = sp.sqrt(T * sp.log(K)) + sp.log(K) * sp.log(T) / epsilon
    return Bound("hu2021.cor9", "Corollary 9: problem-independent regret of FTNL",
                 f"{_PAPER}, Cor 9", "upper", "worst-case expected pseudo-regret",
                 "order", rest=rate, algorithms=("rnm-ftnl",), order=rate)


def private_lower_term() -> sp.Expr:
    """0.0098 ln K / eps: the private term of the lower bound of Theorem 10 (App. H), restated as
    Theorem 12 of the journal version (App. D.3); the constant is the paper's."""
    return sp.Float(0.0098) * sp.log(K) / epsilon


def thm10_private() -> Bound:
    """Theorem 10, private term (App. H, explicit): every eps-DP algorithm has regret at least
    0.0098 ln K / eps on some instance of the family P_j (Bernoulli 1/2 + Delta for action j,
    1/2 for the others), when T >= ln K / (10 eps Delta_min); K >= 2, Delta_min <= 1/2
    (Thm 10). By symmetry, an algorithm that treats actions alike has the same regret on
    every P_j, so the bound applies to P_1, the ``hu-journal-thm12`` setting."""
    condition = sp.And(sp.Ge(T, sp.log(K) / (10 * epsilon * Delta_min)), sp.Ge(K, 2),
                       sp.Le(Delta_min, sp.Rational(1, 2)))
    return Bound("hu2021.thm10", "Theorem 10: lower bound for eps-DP online learning (private term)",
                 f"{_PAPER}, Thm 10, App. H", "lower", "expected pseudo-regret R(T)",
                 "paper", rest=private_lower_term(), condition=condition,
                 algorithms=("rnm-ftnl:corrected", "rnm-ftnl-bq:corrected", "naive-ftnl"),
                 instance="hu-journal-thm12", order=sp.log(K) / epsilon, monotone=("epsilon-",))


def thm10() -> Bound:
    """Theorem 10 in full: R(T) >= max{C_M ln K / Delta_min, 0.0098 ln K / eps} on some instance,
    for T >= max{ln K / (16 Delta_min^2), ln K / (10 eps Delta_min)}, K >= 2, Delta_min <= 1/2
    (Thm 10). C_M is Mourtada & Gaifas' constant, not given (free symbol); 0.0098 is the
    paper's."""
    condition = sp.And(sp.Ge(T, sp.log(K) / (16 * Delta_min ** 2)),
                       sp.Ge(T, sp.log(K) / (10 * epsilon * Delta_min)), sp.Ge(K, 2),
                       sp.Le(Delta_min, sp.Rational(1, 2)))
    rest = sp.Max(C_M * sp.log(K) / Delta_min, private_lower_term())
    return Bound("hu2021.thm10.full", "Theorem 10: lower bound for eps-DP online learning (both terms)",
                 f"{_PAPER}, Thm 10, App. H", "lower", "expected pseudo-regret R(T)",
                 "free", rest=rest, condition=condition,
                 algorithms=("rnm-ftnl:corrected", "rnm-ftnl-bq:corrected", "naive-ftnl"),
                 instance="hu-journal-thm12",
                 order=sp.Max(sp.log(K) / Delta_min, sp.log(K) / epsilon), monotone=("epsilon-",))


def thm10_minimax() -> Bound:
    """Theorem 10's minimax corollary: Delta_min = sqrt(ln K / T) gives
    Omega(max{sqrt(T log K), log K / eps}) for T >= ln K / (100 eps^2) (Thm 10), and
    Delta_min <= 1/2 needs T >= 4 ln K. Order only."""
    rate = sp.Max(sp.sqrt(T * sp.log(K)), sp.log(K) / epsilon)
    condition = sp.And(sp.Ge(T, sp.log(K) / (100 * epsilon ** 2)), sp.Ge(T, 4 * sp.log(K)),
                       sp.Ge(K, 2))
    return Bound("hu2021.thm10.minimax", "Theorem 10: minimax lower bound for eps-DP online learning",
                 f"{_PAPER}, Thm 10 (minimax corollary)", "lower",
                 "minimax expected pseudo-regret", "order", rest=rate, condition=condition,
                 algorithms=("rnm-ftnl:corrected", "rnm-ftnl-bq:corrected", "naive-ftnl"), order=rate)


def bounds() -> list[Bound]:
    """Every bound of the paper, in the order of the paper."""
    return [thm2(), thm3(), thm3_literal(), thm4(), thm5(), thm5_order(), thm5_privacy_printed(),
            thm5_privacy(), thm6_printed(), thm6(), thm6_lap2(), thm7(), thm7_corrected(),
            thm7_order(), lemma13(), cor8_i(), cor8_ii(), cor9(), thm10_private(), thm10(),
            thm10_minimax()]
