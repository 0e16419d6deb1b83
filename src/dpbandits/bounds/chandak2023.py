"""Bounds of Chandak, Hu & Hegde, "Differentially private algorithms for matroid bandits"
(2023): Theorems 1-4, Lemmas 1-4 and Table 1.

Notation (Sec. 2): ``L`` base arms, rank ``K``, horizon ``n``, ``epsilon_0 = epsilon / K``;
``Delta_{e,k} = w_bar(a_k*) - w_bar(e)`` for a suboptimal base arm ``e`` and the k-th optimal arm;
``Delta_{e,min}`` the smallest positive one, ``K_e`` how many are positive.

The paper's Theorems 2 and 4 are O-only: as :class:`Bound` objects they carry free universal
constants ``C_1, C_2, C_3`` (constants="free") and the per-arm sum runs over suboptimal base arms
``e`` with ``Delta`` standing for ``Delta_{e,min}``. The [DERIVED] explicit versions (docs/algorithms/dpucb-mat.md, Regret: Theorem 2) need
the whole gap matrix, so they are numerical functions of it here (:func:`gap_matrix`,
:func:`dpucb_derived`, :func:`dpts_v_derived`), each checked against values worked by hand in the tests; their
closed form (a), which needs only ``Delta_{e,min}`` and ``K_e <= K``, is also a Bound.
Privacy accounting (Thm 1, docs/errata.md#chh-round0): the faithful round-0 observation costs ``L epsilon / K``.
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np
import sympy as sp

from ..errors import DPBanditsError
from .core import Bound, Delta, K, L, epsilon, n, positive

__all__ = ["C_1", "C_2", "C_3", "thm2_paper", "thm4_paper", "table1_omm", "table1_cts",
           "table1_dpucb", "table1_dpts", "cucb_dp_lower", "conjectured_lower", "round0_privacy",
           "dpucb_closed_a", "gap_matrix", "l_c", "G_e", "F_K", "closed_form_a", "closed_form_b",
           "dpucb_derived", "dpts_v_derived", "lemma1_sides", "lemma3_sides", "bounds"]

C_1, C_2, C_3 = positive("C_1"), positive("C_2"), positive("C_3")
"""Universal constants the paper hides in O(.)."""
S_K = positive("S_K")
"""sum over k of 1 / Delta_{min,k} (Theorem 4's non-private term)."""

_PAPER = "Chandak, Hu & Hegde, Differentially private algorithms for matroid bandits (2023)"
_MAT = ("dpucb-mat", "dpts-mat")


def thm2_paper() -> Bound:
    """Theorem 2 (DPUCB-MAT), O-only: sum over e of C_1 ln(Kn)/Delta_{e,min}
    + C_2 min{K, log2(Kn)} ln(Kn) K / epsilon (Thm 2; "log" base 2, docs/errata.md#chh-log-base)."""
    term = C_1 * sp.log(K * n) / Delta + C_2 * sp.Min(K, sp.log(K * n, 2)) * sp.log(K * n) * K / epsilon
    return Bound("chandak.thm2", "Theorem 2: regret of DPUCB-MAT", f"{_PAPER}, Thm 2, App. B",
                 "upper", "expected regret R_n", "free", per_arm=term, algorithms=("dpucb-mat",),
                 order=sp.log(n) / Delta + sp.log(n) ** 2 * K / epsilon, monotone=())


def thm4_paper() -> Bound:
    """Theorem 4 (DPTS-MAT), O-only: Theorem 2's sum + C_3 ln(Kn) sum_k 1/Delta_{min,k}
    (``S_K``); Thm 4."""
    base = thm2_paper()
    return Bound("chandak.thm4", "Theorem 4: regret of DPTS-MAT", f"{_PAPER}, Thm 4, App. C",
                 "upper", "expected regret R_n", "free", per_arm=base.per_arm,
                 rest=C_3 * sp.log(K * n) * S_K, algorithms=("dpts-mat",), monotone=())


def _table(key: str, title: str, rate: sp.Expr, tags: tuple[str, ...], source: str) -> Bound:
    return Bound(key, title, f"{_PAPER}, Table 1 ({source})", "upper",
                 "expected regret R_n", "order", rest=rate, algorithms=tags, order=rate, monotone=())


def table1_omm() -> Bound:
    """Table 1, OMM (Kveton et al. 2014): O(L ln n / Delta)."""
    return _table("chandak.table1.omm", "Table 1: OMM", L * sp.log(n) / Delta, ("omm",), "Kveton et al.")


def table1_cts() -> Bound:
    """Table 1, CTS (Wang & Chen 2018): O~(L ln n / Delta + L / Delta^4)."""
    return _table("chandak.table1.cts", "Table 1: CTS", L * sp.log(n) / Delta + L / Delta ** 4,
                  ("cts",), "Wang & Chen")


def table1_dpucb() -> Bound:
    """Table 1, DPUCB-MAT: O(L ln n / Delta + min{K, log n} L K ln n / epsilon)."""
    rate = L * sp.log(n) / Delta + sp.Min(K, sp.log(n, 2)) * L * K * sp.log(n) / epsilon
    return _table("chandak.table1.dpucb-mat", "Table 1: DPUCB-MAT", rate, ("dpucb-mat",), "Thm 2")


def table1_dpts() -> Bound:
    """Table 1, DPTS-MAT: the same rate as DPUCB-MAT (the non-private extra term absorbed, K <= L)."""
    rate = L * sp.log(n) / Delta + sp.Min(K, sp.log(n, 2)) * L * K * sp.log(n) / epsilon
    return _table("chandak.table1.dpts-mat", "Table 1: DPTS-MAT", rate, ("dpts-mat",), "Thm 4")


def cucb_dp_lower() -> Bound:
    """Lower bound for DP combinatorial semi-bandits quoted from Chen et al. (2020):
    Omega(L K ln n / Delta + L K ln n / epsilon). Order only."""
    rate = L * K * sp.log(n) / Delta + L * K * sp.log(n) / epsilon
    return Bound("chandak.cucb-dp-lower", "DP combinatorial semi-bandit lower bound (Chen et al. 2020)",
                 f"{_PAPER}, Sec. 3 (quoted); Table 1", "lower", "expected regret R_n",
                 "order", rest=rate, order=rate, monotone=())


def conjectured_lower() -> Bound:
    """The paper's conjecture (Sec. 6): Omega(L ln n / Delta + L K ln n / epsilon) for DP matroid
    bandits; unproven (status "flawed" in the sense that no proof exists: never checked)."""
    rate = L * sp.log(n) / Delta + L * K * sp.log(n) / epsilon
    return Bound("chandak.conjecture", "Conjectured lower bound for DP matroid bandits",
                 f"{_PAPER}, Sec. 6; Table 1", "lower", "expected regret R_n", "order",
                 rest=rate, status="flawed", note="a conjecture, not a theorem", order=rate,
                 monotone=())


def round0_privacy() -> Bound:
    """Privacy of DPUCB-MAT / DPTS-MAT when round 0 is protected too (Thm 1, docs/errata.md#chh-round0): the
    round-0 observation of all L arms, each epsilon_0 = epsilon / K-DP, costs max{1, L/K} epsilon
    in total (basic composition), not epsilon."""
    return Bound("chandak.round0-privacy", "Round-0 composition of DPUCB-MAT / DPTS-MAT (paper variant)",
                 f"{_PAPER}, Thms 1, 3; docs/errata.md#chh-round0", "privacy", "epsilon of the paper variant",
                 "paper", rest=sp.Max(1, L / K) * epsilon, algorithms=("dpucb-mat:paper", "dpts-mat:paper"),
                 monotone=())


def dpucb_closed_a() -> Bound:
    """[DERIVED] closed form (a) of DPUCB-MAT's explicit bound (Thm 2), relaxed with K_e <= K:
    sum over suboptimal e of 96 ln(Kn) (2 / Delta_{e,min} + K^2 / epsilon), plus L F_K(n) <= L F_K(inf)
    which is at most 1.332 L (F_1 is the largest; :func:`F_K` computes it exactly)."""
    term = 96 * sp.log(K * n) * (2 / Delta + K * K / epsilon)
    return Bound("chandak.thm2.derived-a", "Theorem 2, explicit [DERIVED] closed form (a)",
                 f"{_PAPER}, Thm 2 [DERIVED]", "upper", "expected regret R_n",
                 "derived", per_arm=term, rest=sp.Rational(1332, 1000) * L,
                 algorithms=("dpucb-mat:corrected",), condition=sp.Ge(K * n, 2),
                 order=sp.log(n) / Delta + sp.log(n) * K ** 2 / epsilon, monotone=("epsilon-",),
                 note="K_e <= K and F_K(n) <= 1.3322 used; the exact sum is dpucb_derived")


# -- numerical, exact forms on a gap matrix ----------------------------------------------------------

def gap_matrix(means: Sequence[float], optimal: Sequence[int]) -> np.ndarray:
    """Delta_{e,k} = w_bar(a_k*) - w_bar(e) for every suboptimal base arm e (rows) and k (columns)."""
    w = np.asarray(means, dtype=float)
    best = list(optimal)
    others = [e for e in range(w.size) if e not in best]
    return w[best][None, :] - w[others][:, None]


def l_c(gap: float, c: float, K_: int, n_: int, epsilon_0: float) -> float:
    """l_c(Delta) = c ln(Kn) / (Delta min{Delta, epsilon_0})."""
    return c * math.log(K_ * n_) / (gap * min(gap, epsilon_0))


def G_e(gaps: Sequence[float], c: float, K_: int, n_: int, epsilon: float) -> float:
    """G_e^(c) = sum_{m=0}^{M_e} 2^{m+1} g_e(2^m) (Thm 2): the Abel-summed counter argument."""
    e0 = epsilon / K_
    g = np.asarray([x for x in gaps if x > 0], dtype=float)
    if g.size == 0:
        return 0.0
    limits = np.array([l_c(x, c, K_, n_, e0) for x in g])
    largest = limits.max()   # l_c(Delta_{e,min}): l_c decreases in the gap
    if largest < 1:
        return 0.0
    total = 0.0
    for m in range(int(math.floor(math.log2(largest))) + 1):
        alive = g[limits >= 2 ** m]
        total += 2 ** (m + 1) * (alive.max() if alive.size else 0.0)
    return total


def F_K(K_: int, n_: int) -> float:
    """F_K(n) = sum_{t<=n} min{1, floor(log2(t+1)) ((Kt)^-3 + 2 (Kt)^-6)} (Thm 2, Lemma 4 fixed)."""
    t = np.arange(1, int(n_) + 1, dtype=float)
    return float(np.minimum(1.0, np.floor(np.log2(t + 1)) * ((K_ * t) ** -3.0 + 2 * (K_ * t) ** -6.0)).sum())


def closed_form_a(gaps: Sequence[float], c: float, K_: int, n_: int, epsilon: float) -> float:
    """(a) G_e^(c) <= 4 c ln(Kn) (2 / Delta_{e,min} + K_e / epsilon_0)."""
    g = np.asarray([x for x in gaps if x > 0], dtype=float)
    return 4 * c * math.log(K_ * n_) * (2 / g.min() + g.size * K_ / epsilon)


def closed_form_b(gaps: Sequence[float], c: float, K_: int, n_: int, epsilon: float) -> float:
    """(b) G_e^(c) <= c ln(Kn) [4/min{Delta_{e,1}, e0} + 2 N_e / e0 + 2sqrt2/(sqrt2-1) 1{Delta_min < e0}/Delta_min]."""
    e0 = epsilon / K_
    g = np.asarray([x for x in gaps if x > 0], dtype=float)
    d1, dmin = g.max(), g.min()
    M = math.floor(math.log2(l_c(dmin, c, K_, n_, e0)))
    N = min(M + 1, (math.floor(math.log2(d1 / e0)) + 1) * int(d1 > e0))
    last = 2 * math.sqrt(2) / (math.sqrt(2) - 1) * (dmin < e0) / dmin
    return c * math.log(K_ * n_) * (4 / min(d1, e0) + 2 * N / e0 + last)


def _checked(gaps: np.ndarray, K_: int, n_: int) -> None:
    if gaps.ndim != 2 or gaps.shape[1] != K_:
        raise DPBanditsError(f"the gap matrix must have K = {K_} columns, got shape {gaps.shape}")
    if K_ * n_ < 2:
        raise DPBanditsError("the explicit bounds need K n >= 2")


def dpucb_derived(gaps: np.ndarray, n_: int, epsilon: float, *, loops: Sequence[int] = ()) -> float:
    """[DERIVED] R_n <= sum_e G_e^(24) + L F_K(n) for DPUCB-MAT (Thm 2); ``loops`` are rows of
    arms that are never played (docs/errata.md#chh-loops) and are excluded."""
    gaps = np.asarray(gaps, dtype=float)
    K_ = gaps.shape[1]
    _checked(gaps, K_, n_)
    L_ = gaps.shape[0] + K_
    rows = [r for i, r in enumerate(gaps) if i not in set(loops)]
    return sum(G_e(r, 24, K_, n_, epsilon) for r in rows) + L_ * F_K(K_, n_)


def dpts_v_derived(gaps: np.ndarray, n_: int, epsilon: float, *, loops: Sequence[int] = ()) -> float:
    """[DERIVED] DPTS-MAT's V term: sum_e G_e^(72) + (L-K) F_K(n) + n (L-K) (Kn)^-4 (Thm 4)."""
    gaps = np.asarray(gaps, dtype=float)
    K_ = gaps.shape[1]
    _checked(gaps, K_, n_)
    rows = [r for i, r in enumerate(gaps) if i not in set(loops)]
    L_minus_K = gaps.shape[0]
    return (sum(G_e(r, 72, K_, n_, epsilon) for r in rows) + L_minus_K * F_K(K_, n_)
            + n_ * L_minus_K * (K_ * n_) ** -4.0)


def lemma1_sides(gaps_desc: Sequence[float], epsilon_0: float) -> tuple[float, float]:
    """Lemma 1 (16): left and right sides for Delta_1 >= ... >= Delta_K in (0, 1]."""
    d = np.asarray(gaps_desc, dtype=float)
    l = 1 / (d * np.minimum(d, epsilon_0))
    left = d[0] * l[0] + float(np.sum(d[1:] * (l[1:] - l[:-1])))
    return left, 2 / d[-1] + d.size / epsilon_0


def lemma3_sides(gaps_desc: Sequence[float]) -> tuple[float, float]:
    """Lemma 3 (18) of Kveton et al.: left and right sides."""
    d = np.asarray(gaps_desc, dtype=float)
    left = d[0] / d[0] ** 2 + float(np.sum(d[1:] * (1 / d[1:] ** 2 - 1 / d[:-1] ** 2)))
    return left, 2 / d[-1]


def bounds() -> list[Bound]:
    return [thm2_paper(), thm4_paper(), table1_omm(), table1_cts(), table1_dpucb(), table1_dpts(),
            cucb_dp_lower(), conjectured_lower(), round0_privacy(), dpucb_closed_a()]
