"""Bounds of the journal version, Hu, Huang, Mehta & Hegde, "Private online learning in a
stochastic environment" (arXiv:2102.07929v3): Theorems 2-12 and their appendices.

Theorem 3 (Anytime-Lazy-UCB) is O-only in the paper; following this paper's own proof chain
gives the leading constant 192 (docs/algorithms/anytime-lazy-ucb.md, Regret: Theorem 3) (the arXiv version's chain gives 96 plus 6 log2 T, see
``hu2021.thm3``; both are valid). Theorem 5 (Lazy-DP-TS) has an explicit private part (576) but a
non-private part inherited from Agrawal & Goyal's Theta(.), kept as a free constant. Theorem 9
restates the FTNL bound (``hu2021.thm7`` relaxed, :func:`dpbandits.bounds.hu2021.thm7_brackets`
exact, and ``hu-journal.thm9.second`` the explicit second form counting only the brackets
above eps); Theorem 12 is the lower bound with its hard instance ``hu-journal-thm12``, also in
full (Mourtada & Gaifas' constant free) and as its minimax rate.

Where the journal restates a result of the arXiv version (Theorems 2, 8, 9, Lemma 24) the bound is
the arXiv function's, under its own key and source. Theorem 9's log-ratio O-form is given as
printed and with its "+1" restored (docs/errata.md#hj-thm9-plus-one); Theorem 8 as printed (eps) and as it holds for
Lap(1/eps) (2 eps). :func:`lemma19_constant` computes the [DERIVED] C_19(s) behind the 192.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import sympy as sp

from . import hu2021
from ..errors import DPBanditsError
from .core import Bound, Delta, Delta_min, K, T, epsilon, positive

__all__ = ["C_5", "Delta_max", "thm2", "thm3", "thm3_independent", "lemma19_constant", "thm4", "thm5",
           "thm5_independent", "thm8_printed", "thm8", "thm8_lap2", "thm9", "thm9_corrected",
           "thm9_second", "thm9_order_printed", "thm9_order", "lemma24", "cor10a", "cor10b", "cor11",
           "thm12_private", "thm12", "thm12_minimax", "azize_basu_minimax", "bounds"]

C_5 = positive("C_5")
"""The non-private constant of Theorem 5 (Agrawal & Goyal's Lemma 2.9, Theta(.) only)."""
Delta_max = positive("Delta_max")
"""Largest gap (Theorem 9's second form)."""

_PAPER = "Hu, Huang, Mehta & Hegde, arXiv:2102.07929v3"


def _restated(base: Bound, key: str, title: str, source: str, **changes) -> Bound:
    """``base`` (a result of the arXiv version) under the journal's key, title and source."""
    return replace(base, key=key, title=title, source=f"{_PAPER}, {source}", **changes)


def thm2() -> Bound:
    """Theorem 2: Anytime-Lazy-UCB is eps-DP (Thm 2); the arXiv version's Theorem 2."""
    return _restated(hu2021.thm2(), "hu-journal.thm2", "Theorem 2: Anytime-Lazy-UCB is eps-DP",
                     "Thm 2, App. B.1")


def thm3() -> Bound:
    """Theorem 3 (Anytime-Lazy-UCB) [DERIVED] from App. B.2.1 with Lemma 19's numerical
    constants: R(T) <= sum_j 192 ln T / min{Delta_j, eps} for every T >= 2 (Thm 3)."""
    return Bound("hu-journal.thm3", "Theorem 3: instance-dependent regret of Anytime-Lazy-UCB",
                 f"{_PAPER}, Thm 3, App. B.2.1 [DERIVED]", "upper",
                 "expected pseudo-regret R(T)", "derived",
                 per_arm=192 * sp.log(T) / sp.Min(Delta, epsilon), condition=sp.Ge(T, 2),
                 algorithms=("anytime-lazy-ucb",), order=sp.log(T) / sp.Min(Delta, epsilon))


def thm3_independent() -> Bound:
    """Theorem 3, instance-independent [DERIVED] (App. B.2.2): 193 sqrt(K T ln T) + 192 K ln T / eps."""
    rest = 193 * sp.sqrt(K * T * sp.log(T)) + 192 * K * sp.log(T) / epsilon
    return Bound("hu-journal.thm3.independent", "Theorem 3: instance-independent regret of Anytime-Lazy-UCB",
                 f"{_PAPER}, Thm 3, App. B.2.2 [DERIVED]", "upper",
                 "worst-case expected pseudo-regret", "derived", rest=rest, condition=sp.Ge(T, 2),
                 algorithms=("anytime-lazy-ucb",),
                 order=sp.sqrt(K * T * sp.log(T)) + K * sp.log(T) / epsilon)


def lemma19_constant(s: int) -> float:
    """The [DERIVED] explicit constant C_19(s) of Lemma 19 (Thm 3): a bound on
    P{r_j(T) = s} omega^(s+1), the sum over t > omega^(s-1) of (floor(log2(t - 1)) + 1)
    (arm 1's epoch indices tau) times twice (t^-3 / 2 + t^-6) (the one-sided Laplace tail plus
    the one-sided Hoeffding term, for each of the two concentration events), times
    omega^(s+1) = 2^(s+2) - 1. The sum runs over blocks t in (2^m, 2^(m+1)], on which
    floor(log2(t - 1)) = m, with Hurwitz zeta differences for the power sums (exact), up to
    m = s + 60; the rest is bounded above by (log2 N + 2) (N^-2 + N^-5), N = 2^(s+61), so the
    value returned is an upper bound (by less than 1e-30)."""
    from scipy.special import zeta

    if isinstance(s, bool) or not isinstance(s, (int, np.integer)) or s < 1:
        raise DPBanditsError(f"s must be a positive integer, got {s!r}")

    def block(a: float, b: float) -> float:
        """sum over t in [a, b] of t^-3 + 2 t^-6."""
        return float(zeta(3, a) - zeta(3, b + 1) + 2 * (zeta(6, a) - zeta(6, b + 1)))

    start = 2.0 ** s                             # omega^(s-1) + 1 = 2^s; floor(log2(2^s - 1)) = s - 1
    total = s * (start ** -3 + 2 * start ** -6)
    top = s + 60
    for m in range(s, top + 1):
        total += (m + 1) * block(2.0 ** m + 1, 2.0 ** (m + 1))
    end = 2.0 ** (top + 1)
    total += (math.log2(end) + 2) * (end ** -2 + end ** -5)
    return float(total * (2 ** (s + 2) - 1))


def thm4() -> Bound:
    """Theorem 4: Lazy-DP-TS is eps-DP (Thm 4): each reward enters one epoch sum, released
    once with Lap(1/eps); the Beta draws are post-processing."""
    return Bound("hu-journal.thm4", "Theorem 4: Lazy-DP-TS is eps-DP", f"{_PAPER}, Thm 4, Alg. 3",
                 "privacy", "privacy loss of the action sequence", "paper", rest=epsilon,
                 algorithms=("lazy-dp-ts",), monotone=())


def thm5() -> Bound:
    """Theorem 5 (Lazy-DP-TS): sum_j [576 ln T / min{eps, Delta_j} + C_5 ln T / Delta_j + 3456 / Delta_j]
    plus O(1) terms: the private part's 576 and Lemma 21's small-epoch 3456 / Delta_j^2 (times
    Delta_j) are [DERIVED]; the rest of Lemma 21 is Theta(.) only (free C_5) (Thm 5)."""
    term = (576 * sp.log(T) / sp.Min(epsilon, Delta) + C_5 * sp.log(T) / Delta + 3456 / Delta)
    return Bound("hu-journal.thm5", "Theorem 5: regret of Lazy-DP-TS (non-private constant free)",
                 f"{_PAPER}, Thm 5, App. C.1", "upper", "expected pseudo-regret R(T)",
                 "free", per_arm=term, condition=sp.Ge(T, 2), algorithms=("lazy-dp-ts",),
                 order=sp.log(T) / sp.Min(Delta, epsilon), monotone=())


def thm5_independent() -> Bound:
    """Theorem 5, instance-independent: O(sqrt(K T log T) + K log T / eps) (Thm 5, reusing
    App. B.2.2). Order only: the non-private part's constant is not known (Theta(.) in Lemma 7)."""
    rate = sp.sqrt(K * T * sp.log(T)) + K * sp.log(T) / epsilon
    return Bound("hu-journal.thm5.independent", "Theorem 5: instance-independent regret of Lazy-DP-TS",
                 f"{_PAPER}, Thm 5", "upper", "worst-case expected pseudo-regret",
                 "order", rest=rate, condition=sp.Ge(T, 2), algorithms=("lazy-dp-ts",), order=rate)


def thm8_printed() -> Bound:
    """Theorem 8 as printed: RNM-FTNL (Lap(1/eps)) is eps-DP (Thm 8)."""
    return _restated(hu2021.thm6_printed(), "hu-journal.thm8.printed", "Theorem 8 (privacy of RNM-FTNL) as printed",
                     "Thm 8")


def thm8() -> Bound:
    """Theorem 8 as it holds: Lap(1/eps) gives only 2 eps-DP under replacement of a reward vector
    (loss 1.945 eps at K = 10; Thm 8, docs/errata.md#rnm-laplace)."""
    return _restated(hu2021.thm6(), "hu-journal.thm8", "Theorem 8 (privacy of RNM-FTNL with Lap(1/eps)) corrected",
                     "Thm 8, docs/errata.md#rnm-laplace", printed="hu-journal.thm8.printed")


def thm8_lap2() -> Bound:
    """Theorem 8 for the corrected noise Lap(2/eps): eps-DP (Thm 8)."""
    return _restated(hu2021.thm6_lap2(), "hu-journal.thm8.lap2", "Theorem 8 for RNM-FTNL with Lap(2/eps)",
                     "Thm 8")


def thm9() -> Bound:
    """Theorem 9 (RNM-FTNL with Lap(1/eps)): the explicit (55) with the bracket count relaxed;
    the same expression as ``hu2021.thm7`` (Thm 9)."""
    return _restated(hu2021.thm7(), "hu-journal.thm9",
                     "Theorem 9: instance-dependent regret of RNM-FTNL (relaxed bracket count)",
                     "Thm 9, App. D.2 eq. (55)")


def thm9_corrected() -> Bound:
    """Theorem 9 for Lap(2/eps): eps replaced by eps / 2 (Thm 9, docs/errata.md#hj-corrected-rates) [DERIVED]."""
    return _restated(hu2021.thm7_corrected(), "hu-journal.thm9.lap2", "Theorem 9 for RNM-FTNL with Lap(2/eps)",
                     "Thm 9; docs/errata.md#hj-corrected-rates [DERIVED]")


def _bracket_count_above_eps(eps: sp.Expr) -> sp.Expr:
    """N_br: non-empty brackets with Delta_(l) > eps, at most floor(log2(Delta_max / max{Delta_min,
    eps})) + 1 when Delta_max > eps, else 0 (Thm 9)."""
    return sp.Piecewise((sp.floor(sp.log(Delta_max / sp.Max(Delta_min, eps), 2)) + 1, Delta_max > eps),
                        (0, True))


def thm9_second() -> Bound:
    """Theorem 9, explicit second form of (55) [DERIVED] (Thm 9):
    1 + 512 (1 + ln(K-1)) / Delta'_min + 256 (1 + ln(K-1)) N_br / eps, with N_br the number of
    non-empty brackets whose Delta_(l) exceeds eps (bounded by its log-ratio count) and Delta'_min
    the smallest gap above 1/T (pass it as ``Delta_min``; the +1 covers the gaps in (0, 1/T]).
    It lies between the exact bracket form (:func:`dpbandits.bounds.hu2021.thm7_brackets`) and the
    relaxed ``hu-journal.thm9``. ``monotone=("epsilon-",)``: T-free."""
    rest = (1 + 512 * (1 + sp.log(K - 1)) / Delta_min
            + 256 * (1 + sp.log(K - 1)) / epsilon * _bracket_count_above_eps(epsilon))
    return Bound("hu-journal.thm9.second", "Theorem 9: explicit second form (brackets above eps counted)",
                 f"{_PAPER}, Thm 9, App. D.2 eq. (55) [DERIVED]", "upper",
                 "expected pseudo-regret R(T)", "derived", rest=rest,
                 condition=sp.And(sp.Ge(K, 2), sp.Ge(Delta_max, Delta_min), sp.Le(Delta_max, 1)),
                 algorithms=("rnm-ftnl:paper",), monotone=("epsilon-",),
                 order=sp.log(K) / Delta_min + sp.log(K) * (1 + sp.log(Delta_max / Delta_min)) / epsilon)


def thm9_order_printed() -> Bound:
    """Theorem 9's second O-form as printed: O(log K / Delta_min + log K log(Delta_max /
    max{Delta_min, eps, 1/T}) / eps), unit constants. It drops the "+1" (docs/errata.md#hj-thm9-plus-one): with all
    gaps equal and eps < Delta_min the log is 0 and the privacy term vanishes, though the explicit
    form keeps 256 (1 + ln(K-1)) / eps."""
    rate = (sp.log(K) / Delta_min
            + sp.log(K) * sp.log(Delta_max / sp.Max(Delta_min, epsilon, 1 / T)) / epsilon)
    return Bound("hu-journal.thm9.order.printed", "Theorem 9: rate of RNM-FTNL as printed (second O-form)",
                 f"{_PAPER}, Thm 9; docs/errata.md#hj-thm9-plus-one", "upper", "expected pseudo-regret R(T)", "order",
                 rest=rate, condition=sp.And(sp.Ge(K, 2), sp.Ge(Delta_max, Delta_min)),
                 algorithms=("rnm-ftnl",), monotone=())


def thm9_order() -> Bound:
    """Theorem 9's second O-form with the "+1" restored (docs/errata.md#hj-thm9-plus-one): O(log K / Delta_min
    + log K (1 + log(Delta_max / max{Delta_min, eps, 1/T})) / eps). ``monotone=()``: the rate
    with unit constants is not monotone in eps where the max switches (only the explicit forms
    are)."""
    rate = (sp.log(K) / Delta_min
            + sp.log(K) * (1 + sp.log(Delta_max / sp.Max(Delta_min, epsilon, 1 / T))) / epsilon)
    return Bound("hu-journal.thm9.order", "Theorem 9: rate of RNM-FTNL (second O-form, +1 restored)",
                 f"{_PAPER}, Thm 9; docs/errata.md#hj-thm9-plus-one", "upper", "expected pseudo-regret R(T)", "order",
                 rest=rate, condition=sp.And(sp.Ge(K, 2), sp.Ge(Delta_max, Delta_min)),
                 algorithms=("rnm-ftnl",), status="corrected", printed="hu-journal.thm9.order.printed",
                 monotone=(), order=rate)


def lemma24() -> Bound:
    """Lemma 24 (App. D.2): the arXiv version's Lemma 13 restated (Thm 9)."""
    return _restated(hu2021.lemma13(), "hu-journal.lemma24",
                     "Lemma 24: probability that a suboptimal action leads after noise",
                     "Lemma 24, App. D.2; Thm 9")


def cor10a() -> Bound:
    """Corollary 10(a): all Delta_j <= eps gives R(T) <= 512 (1 + ln(K-1)) / Delta_min + 1."""
    return Bound("hu-journal.cor10a", "Corollary 10(a): all gaps at most eps",
                 f"{_PAPER}, Cor 10", "upper", "expected pseudo-regret R(T)", "paper",
                 rest=1 + 512 * (1 + sp.log(K - 1)) / Delta_min, condition=sp.Ge(K, 2), monotone=(),
                 note="needs every Delta_j <= eps")


def cor10b() -> Bound:
    """Corollary 10(b) [DERIVED]: all Delta_j in [Delta_min, 2 Delta_min] gives
    R(T) <= 512 (1 + ln(K-1)) / min{Delta_min, eps}."""
    return Bound("hu-journal.cor10b", "Corollary 10(b): gaps within a factor 2",
                 f"{_PAPER}, Cor 10 [DERIVED]", "upper", "expected pseudo-regret R(T)",
                 "derived", rest=512 * (1 + sp.log(K - 1)) / sp.Min(Delta_min, epsilon),
                 condition=sp.Ge(K, 2), monotone=("epsilon-",),
                 note="needs every Delta_j in [Delta_min, 2 Delta_min]")


def cor11() -> Bound:
    """Corollary 11: O(sqrt(T log K) + log K log T / eps), the conference version's Corollary 9
    (:func:`dpbandits.bounds.hu2021.cor9`) restated. Order only."""
    return replace(hu2021.cor9(), key="hu-journal.cor11",
                   title="Corollary 11: instance-independent regret of RNM-FTNL",
                   source=f"{_PAPER}, Cor 11")


def _thm12_domain() -> sp.Basic:
    """Theorem 12's conditions on the private term: T >= ln K / (10 eps Delta_min), K >= 4 and
    Delta_min in (0, 1/4) (the arXiv version's Theorem 10 asks K >= 2, Delta_min <= 1/2)."""
    return sp.And(sp.Ge(T, sp.log(K) / (10 * epsilon * Delta_min)), sp.Ge(K, 4),
                  sp.Lt(Delta_min, sp.Rational(1, 4)))


def thm12_private() -> Bound:
    """Theorem 12, private term (App. D.3): R(T) >= 0.0098 ln K / eps for every eps-DP algorithm on
    the family P_j, when Delta_min in (0, 1/4), K >= 4 and T >= ln K / (10 eps Delta_min)
    (Thm 12): the arXiv version's Theorem 10 on a narrower domain. The ``hu-journal-thm12``
    setting is P_1 with K = 10, Delta = 0.1."""
    return _restated(hu2021.thm10_private(), "hu-journal.thm12",
                     "Theorem 12: lower bound, full information (private term)",
                     "Thm 12, App. D.3", condition=_thm12_domain())


def thm12() -> Bound:
    """Theorem 12 in full: R(T) >= max{C_M ln K / Delta_min, 0.0098 ln K / eps} for Delta_min in
    (0, 1/4), K >= 4, T >= max{ln K / (16 Delta_min^2), ln K / (10 eps Delta_min)} (Thm 12,
    App. D.3). C_M (Mourtada & Gaifas' Prop. 4 constant) is not given: free symbol."""
    condition = sp.And(sp.Ge(T, sp.log(K) / (16 * Delta_min ** 2)), _thm12_domain())
    return _restated(hu2021.thm10(), "hu-journal.thm12.full",
                     "Theorem 12: lower bound, full information (both terms)",
                     "Thm 12, App. D.3", condition=condition)


def thm12_minimax() -> Bound:
    """Theorem 12's minimax corollary: Delta_min = sqrt(ln K / T) gives
    Omega(max{sqrt(T log K), log K / eps}) for T >= ln K / (100 eps^2); Delta_min < 1/4 needs
    T > 16 ln K [DERIVED]; K >= 4 (Thm 12). Order only."""
    condition = sp.And(sp.Ge(T, sp.log(K) / (100 * epsilon ** 2)), sp.Gt(T, 16 * sp.log(K)),
                       sp.Ge(K, 4))
    return _restated(hu2021.thm10_minimax(), "hu-journal.thm12.minimax",
                     "Theorem 12: minimax lower bound, full information",
                     "Thm 12 (minimax corollary)", condition=condition)


def azize_basu_minimax() -> Bound:
    """Azize & Basu (2022), cited: every eps-DP bandit algorithm has minimax regret
    Omega(max{sqrt(K T), K / eps}). Order only (their constants are external)."""
    rate = sp.Max(sp.sqrt(K * T), K / epsilon)
    return Bound("hu-journal.azize-basu-lower", "eps-DP bandit minimax lower bound (Azize & Basu 2022)",
                 f"{_PAPER}, Sec. 1 (cited)", "lower", "minimax expected pseudo-regret", "order",
                 rest=rate, order=rate, monotone=("T+",))


def bounds() -> list[Bound]:
    """Every bound of the journal version, in the order of the paper."""
    return [thm2(), thm3(), thm3_independent(), thm4(), thm5(), thm5_independent(), thm8_printed(),
            thm8(), thm8_lap2(), thm9(), thm9_corrected(), thm9_second(), thm9_order_printed(),
            thm9_order(), lemma24(), cor10a(), cor10b(), cor11(), thm12_private(), thm12(),
            thm12_minimax(), azize_basu_minimax()]
