"""Bounds of the journal version, Hu, Huang, Mehta & Hegde, "Private online learning in a
stochastic environment" (arXiv:2102.07929v3), spec 002 section 4.

Theorem 3 (Anytime-Lazy-UCB) is O-only in the paper; following this paper's own proof chain the
spec derives the leading constant 192 (the arXiv version's chain gives 96 plus 6 log2 T, see
``hu2021.thm3``; both are valid). Theorem 5 (Lazy-DP-TS) has an explicit private part (576) but a
non-private part inherited from Agrawal & Goyal's Theta(.), kept as a free constant. Theorem 9
restates the FTNL bound (``hu2021.thm7`` relaxed, :func:`dpbandits.bounds.hu2021.thm7_brackets`
exact); Theorem 12 is the lower bound with its hard instance ``hu-journal-thm12``.
"""

from __future__ import annotations

from dataclasses import replace

import sympy as sp

from . import hu2021
from .core import Bound, Delta, Delta_min, K, T, epsilon, positive

__all__ = ["C_5", "thm3", "thm3_independent", "thm5", "thm9", "thm9_corrected", "cor10a",
           "cor10b", "cor11", "thm12_private", "azize_basu_minimax", "bounds"]

C_5 = positive("C_5")
"""The non-private constant of Theorem 5 (Agrawal & Goyal's Lemma 2.9, Theta(.) only)."""

_PAPER = "Hu, Huang, Mehta & Hegde, arXiv:2102.07929v3"


def thm3() -> Bound:
    """Theorem 3 (Anytime-Lazy-UCB) [DERIVED] from App. B.2.1 with Lemma 19's numerical
    constants: R(T) <= sum_j 192 ln T / min{Delta_j, eps} for every T >= 2 (spec 002 s.4.2)."""
    return Bound("hu-journal.thm3", "Theorem 3: instance-dependent regret of Anytime-Lazy-UCB",
                 f"{_PAPER}, Thm 3, App. B.2.1; spec 002 s.4.2 [DERIVED]", "upper",
                 "expected pseudo-regret R(T)", "derived",
                 per_arm=192 * sp.log(T) / sp.Min(Delta, epsilon), condition=sp.Ge(T, 2),
                 algorithms=("anytime-lazy-ucb",), order=sp.log(T) / sp.Min(Delta, epsilon))


def thm3_independent() -> Bound:
    """Theorem 3, instance-independent [DERIVED] (App. B.2.2): 193 sqrt(K T ln T) + 192 K ln T / eps."""
    rest = 193 * sp.sqrt(K * T * sp.log(T)) + 192 * K * sp.log(T) / epsilon
    return Bound("hu-journal.thm3.independent", "Theorem 3: instance-independent regret of Anytime-Lazy-UCB",
                 f"{_PAPER}, Thm 3, App. B.2.2; spec 002 s.4.2 [DERIVED]", "upper",
                 "worst-case expected pseudo-regret", "derived", rest=rest, condition=sp.Ge(T, 2),
                 algorithms=("anytime-lazy-ucb",),
                 order=sp.sqrt(K * T * sp.log(T)) + K * sp.log(T) / epsilon)


def thm5() -> Bound:
    """Theorem 5 (Lazy-DP-TS): sum_j [576 ln T / min{eps, Delta_j} + C_5 ln T / Delta_j + 3456 / Delta_j]
    plus O(1) terms: the private part's 576 and Lemma 21's small-epoch 3456 / Delta_j^2 (times
    Delta_j) are [DERIVED]; the rest of Lemma 21 is Theta(.) only (free C_5) (spec 002 s.4.4)."""
    term = (576 * sp.log(T) / sp.Min(epsilon, Delta) + C_5 * sp.log(T) / Delta + 3456 / Delta)
    return Bound("hu-journal.thm5", "Theorem 5: regret of Lazy-DP-TS (non-private constant free)",
                 f"{_PAPER}, Thm 5, App. C.1; spec 002 s.4.4", "upper", "expected pseudo-regret R(T)",
                 "free", per_arm=term, condition=sp.Ge(T, 2), algorithms=("lazy-dp-ts",),
                 order=sp.log(T) / sp.Min(Delta, epsilon), monotone=())


def thm9() -> Bound:
    """Theorem 9 (RNM-FTNL with Lap(1/eps)): the explicit (55) with the bracket count relaxed;
    the same expression as ``hu2021.thm7`` (spec 002 s.4.6)."""
    base = hu2021.thm7()
    return replace(base, key="hu-journal.thm9", title="Theorem 9: instance-dependent regret of RNM-FTNL (relaxed bracket count)", source=f"{_PAPER}, Thm 9, App. D.2 eq. (55); spec 002 s.4.6")


def thm9_corrected() -> Bound:
    """Theorem 9 for Lap(2/eps): eps replaced by eps / 2 (spec 002 s.4.6 R4) [DERIVED]."""
    base = hu2021.thm7_corrected()
    return replace(base, key="hu-journal.thm9.lap2", title="Theorem 9 for RNM-FTNL with Lap(2/eps)", source=f"{_PAPER}, Thm 9; spec 002 s.4.6 R4 [DERIVED]")


def cor10a() -> Bound:
    """Corollary 10(a): all Delta_j <= eps gives R(T) <= 512 (1 + ln(K-1)) / Delta_min + 1."""
    return Bound("hu-journal.cor10a", "Corollary 10(a): all gaps at most eps",
                 f"{_PAPER}, Cor 10; spec 002 s.4.7", "upper", "expected pseudo-regret R(T)", "paper",
                 rest=1 + 512 * (1 + sp.log(K - 1)) / Delta_min, condition=sp.Ge(K, 2), monotone=(),
                 note="needs every Delta_j <= eps")


def cor10b() -> Bound:
    """Corollary 10(b) [DERIVED]: all Delta_j in [Delta_min, 2 Delta_min] gives
    R(T) <= 512 (1 + ln(K-1)) / min{Delta_min, eps}."""
    return Bound("hu-journal.cor10b", "Corollary 10(b): gaps within a factor 2",
                 f"{_PAPER}, Cor 10; spec 002 s.4.7 [DERIVED]", "upper", "expected pseudo-regret R(T)",
                 "derived", rest=512 * (1 + sp.log(K - 1)) / sp.Min(Delta_min, epsilon),
                 condition=sp.Ge(K, 2), monotone=("epsilon-",),
                 note="needs every Delta_j in [Delta_min, 2 Delta_min]")


def cor11() -> Bound:
    """Corollary 11: O(sqrt(T log K) + log K log T / eps). Order only."""
    rate = sp.sqrt(T * sp.log(K)) + sp.log(K) * sp.log(T) / epsilon
    return Bound("hu-journal.cor11", "Corollary 11: instance-independent regret of RNM-FTNL",
                 f"{_PAPER}, Cor 11; spec 002 s.4.7", "upper", "worst-case expected pseudo-regret",
                 "order", rest=rate, algorithms=("rnm-ftnl",), order=rate)


def thm12_private() -> Bound:
    """Theorem 12, private term (App. D.3): R(T) >= 0.0098 ln K / eps for every eps-DP algorithm on
    the family P_j, when Delta_min in (0, 1/4), K >= 4 and T >= ln K / (10 eps Delta_min)
    (spec 002 s.4.8). The ``hu-journal-thm12`` setting is P_1 with K = 10, Delta = 0.1."""
    condition = sp.And(sp.Ge(T, sp.log(K) / (10 * epsilon * Delta_min)), sp.Ge(K, 4),
                       sp.Lt(Delta_min, sp.Rational(1, 4)))
    return Bound("hu-journal.thm12", "Theorem 12: lower bound, full information (private term)",
                 f"{_PAPER}, Thm 12, App. D.3; spec 002 s.4.8", "lower", "expected pseudo-regret R(T)",
                 "paper", rest=sp.Float(0.0098) * sp.log(K) / epsilon, condition=condition,
                 algorithms=("rnm-ftnl:corrected", "rnm-ftnl-bq:corrected", "naive-ftnl"),
                 instance="hu-journal-thm12", order=sp.log(K) / epsilon, monotone=("epsilon-",))


def azize_basu_minimax() -> Bound:
    """Azize & Basu (2022), cited: every eps-DP bandit algorithm has minimax regret
    Omega(max{sqrt(K T), K / eps}). Order only (their constants are external)."""
    rate = sp.Max(sp.sqrt(K * T), K / epsilon)
    return Bound("hu-journal.azize-basu-lower", "eps-DP bandit minimax lower bound (Azize & Basu 2022)",
                 f"{_PAPER}, cited; spec 002 s.4.9", "lower", "minimax expected pseudo-regret", "order",
                 rest=rate, order=rate, monotone=("T+",))


def bounds() -> list[Bound]:
    return [thm3(), thm3_independent(), thm5(), thm9(), thm9_corrected(), cor10a(), cor10b(), cor11(),
            thm12_private(), azize_basu_minimax()]
