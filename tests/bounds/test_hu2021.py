"""Bounds of Hu, Huang & Mehta (Theorems 2-10), module ``dpbandits.bounds.hu2021``.

Kinds: exact (reference values worked by hand and the bracket sums worked by hand, the conditions of
validity, the privacy corrections), oracle (leading orders by SymPy limits; Lemma 13 against the
exact law of the noisy lead), property (Hypothesis: the relaxed Theorem 7 bounds its exact bracket
form, Corollary 8's special cases, the paper-literal Theorem 3 below the derived one; lower bounds
below upper bounds on a grid), statistical (Anytime-Lazy-UCB and RNM-FTNL simulated against the
explicit bounds with fixed seeds; ``check_regret``'s band has false-alarm probability at most 0.05
per check).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings, strategies as st

from dpbandits.bounds import bounds_for, check_regret, get_bound
from dpbandits.bounds.core import Delta, Delta_min, K, T, epsilon
from dpbandits.bounds.hu2021 import C_12, bounds, thm7_brackets
from dpbandits.reference import get_setting, simulate, spec

T_PAPER = 2 * 2 ** 21          # the experiments' horizon (Sec. 6, App. I)
SETTINGS = {1: [0, 0.05, 0.05, 0.05, 0.05], 2: [0, 0.125, 0.25, 0.375, 0.5], 3: [0, 0.6, 0.6, 0.6, 0.6]}


@pytest.mark.exact
@pytest.mark.parametrize("setting, eps, printed", [
    (1, 0.1, 117_141), (1, 128.0, 117_141), (2, 0.1, 58_722), (2, 0.25, 29_444), (2, 0.5, 24_564),
    (2, 128.0, 24_564), (3, 0.1, 58_874), (3, 0.25, 23_740), (3, 0.5, 12_028), (3, 1.0, 10_076),
    (3, 64.0, 10_076)])
def test_theorem_3_reference_table(setting, eps, printed):
    """Sec. 6, App. I: sum_j 96 ln T / min{Delta_j, eps} + 6 Delta_j log2 T at T = 2^22, to the unit."""
    value = get_bound("hu2021.thm3").evaluate(T=T_PAPER, epsilon=eps, gaps=SETTINGS[setting])
    assert abs(value - printed) <= 0.5


@pytest.mark.exact
def test_thm7_brackets_by_hand():
    """Doubling gaps 0.1, 0.2, 0.4, 0.8: four singleton brackets (Sec. 1 doubling instance)."""
    gaps = [0, 0.1, 0.2, 0.4, 0.8]
    assert thm7_brackets(gaps, 10.0, 10 ** 6) == pytest.approx(256 * (10 + 5 + 2.5 + 1.25))
    assert thm7_brackets(gaps, 0.05, 10 ** 6) == pytest.approx(4 * 256 / 0.05)   # 256 (K-1) / eps
    two = [0, 0.1, 0.15, 0.5]          # J_1 = {0.1, 0.15}, J_3 = {0.5}
    assert thm7_brackets(two, 1.0, 10 ** 6) == pytest.approx(256 * (1 + math.log(2)) / 0.1 + 256 / 0.4)
    assert thm7_brackets([0, 1e-7, 0.5], 1.0, 10 ** 6) == pytest.approx(1 + 256 / 0.5)
    assert thm7_brackets([0, 0.1, 0.2], 1.0, 10 ** 6) == pytest.approx(256 / 0.1 + 256 / 0.2)  # 2 Delta_min -> J_2


@pytest.mark.property
@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(1e-3, 1.0), min_size=1, max_size=15), st.floats(1e-3, 10.0))
def test_relaxed_theorem_7_bounds_its_bracket_form(gaps, eps):
    vector = [0.0] + gaps
    exact = thm7_brackets(vector, eps, 10 ** 9)
    relaxed = get_bound("hu2021.thm7").evaluate(K=len(vector), Delta_min=min(gaps), epsilon=eps)
    assert exact <= relaxed * (1 + 1e-12)
    assert thm7_brackets(vector, eps / 2, 10 ** 9) <= get_bound("hu2021.thm7.lap2").evaluate(
        K=len(vector), Delta_min=min(gaps), epsilon=eps) * (1 + 1e-12)


@pytest.mark.property
@settings(max_examples=150, deadline=None)
@given(st.floats(1e-3, 0.5), st.lists(st.floats(0.0, 0.999), min_size=1, max_size=12), st.floats(1e-3, 5.0))
def test_corollary_8_special_cases_of_the_bracket_form(d_min, fractions, eps):
    """(i) all gaps <= eps: first form <= 512 (1 + ln(K-1)) / Delta_min; (ii) all gaps in
    [Delta_min, 2 Delta_min): first form = 256 (1 + ln(K-1)) / min{Delta_min, eps} exactly."""
    gaps = [0.0, d_min] + [d_min * (1 + f) for f in fractions]
    n_arms = len(gaps)
    exact = thm7_brackets(gaps, eps, 10 ** 9)
    ii = get_bound("hu2021.cor8.ii").evaluate(K=n_arms, Delta_min=d_min, epsilon=eps)
    assert exact == pytest.approx(ii, rel=1e-12)
    spread = [0.0, d_min] + [d_min + f * (1 - d_min) for f in fractions]
    i = get_bound("hu2021.cor8.i").evaluate(K=n_arms, Delta_min=d_min, epsilon=eps)
    assert thm7_brackets(spread, max(spread), 10 ** 9) <= i * (1 + 1e-12)


@pytest.mark.property
@settings(max_examples=100, deadline=None)
@given(st.lists(st.floats(0.01, 1.0), min_size=1, max_size=6), st.floats(0.01, 10.0), st.floats(2.0, 1e9))
def test_paper_literal_theorem_3_lies_below_the_derived_one(gaps, eps, horizon):
    """With Lemma 11's derived 5.625 <= 6 and 2^(d_j+1) - 2 < 96 ln T / (Delta min) - 2 (Thm 3)."""
    vector = [0.0] + gaps
    literal = get_bound("hu2021.thm3.literal").with_settings(C_11=5.625).evaluate(T=horizon, epsilon=eps, gaps=vector)
    derived = get_bound("hu2021.thm3").evaluate(T=horizon, epsilon=eps, gaps=vector)
    assert literal <= derived * (1 + 1e-12)


@pytest.mark.exact
def test_explicit_constants():
    """Theorems 3 and 4 at T = 1e6, gaps (0.1, 0.5), eps = 0.2."""
    lnT, log2T = math.log(1e6), math.log2(1e6)
    value = get_bound("hu2021.thm3").evaluate(T=1e6, epsilon=0.2, gaps=[0, 0.1, 0.5])
    assert value == pytest.approx(96 * lnT / 0.1 + 96 * lnT / 0.2 + 6 * 0.6 * log2T)
    value = get_bound("hu2021.thm4").evaluate(T=1e6, epsilon=0.2, K=3)
    assert value == pytest.approx((1 + 96 * math.log(2)) * math.sqrt(3e6 * log2T) + 96 * 3 * lnT / 0.2
                                  + 18 * log2T)
    assert 1.25 * 1.5 * 3 == 5.625                    # Lemma 11's derived constant


@pytest.mark.exact
def test_theorem_5_implicit_condition():
    """y log2 y >= 4 with y = 256 log2 T / (eps Delta): the boundary is y = 2.745 (Thm 5)."""
    root = float(sp.nsolve(sp.Symbol("y") * sp.log(sp.Symbol("y"), 2) - 4, 2.7))
    assert round(root, 3) == 2.745
    bound = get_bound("hu2021.thm5").with_settings(C_12=1.0)
    horizon = 2.0 ** 4                                 # log2 T = 4: y = 1024 / (eps Delta)
    inside = 1024 / (root * 0.5) * 0.999
    assert np.isfinite(bound.evaluate(T=horizon, epsilon=inside, gaps=[0, 0.5]))
    assert np.isnan(bound.evaluate(T=horizon, epsilon=inside / 0.99, gaps=[0, 0.5]))
    assert C_12 in bound.per_arm.free_symbols and not bound.is_explicit() and bound.status == "flawed"
    # (45) + twice (47), the noise the printed index's bonus does not cover: above Delta / 2
    assert (math.sqrt(3) + 2 * 3 * math.sqrt(2)) / 16 > 0.5 > (math.sqrt(3) + 3 * math.sqrt(2)) / 16


@pytest.mark.exact
def test_privacy_corrections():
    """RNM with Lap(1/eps) is 2 eps-DP (docs/errata.md#rnm-laplace); Hybrid-UCB's printed tree noise loses 3 eps / 2 (docs/errata.md#hhm-hybrid-tree)."""
    for key, factor in (("hu2021.thm6", 2), ("hu2021.thm5.privacy", 1.5)):
        corrected = get_bound(key)
        printed = get_bound(corrected.printed)
        assert corrected.status == "corrected" and printed.status == "stated"
        assert corrected.evaluate(epsilon=0.7) == pytest.approx(factor * printed.evaluate(epsilon=0.7))
    r = sp.Symbol("r", positive=True, integer=True)
    loss = sp.Rational(1, 2) + (r + 1) / (2 * r)       # array eps/2 + tree (r + 1) eps / (2 r)
    assert sp.maximum(loss, r, sp.Interval(1, sp.oo)) == sp.Rational(3, 2)
    assert get_bound("hu2021.thm6.lap2").evaluate(epsilon=0.7) == pytest.approx(0.7)


def _laplace_difference_tail(z: np.ndarray, b: float) -> np.ndarray:
    """P(L1 - L2 >= z) for independent Lap(b), exactly."""
    half = 0.5 * np.exp(-np.abs(z) / b) * (1 + np.abs(z) / (2 * b))
    return np.where(z >= 0, half, 1 - half)


@pytest.mark.oracle
@pytest.mark.parametrize("n, mu_1, mu_j, eps", [(1, 0.6, 0.4, 1.0), (8, 0.75, 0.5, 0.5), (64, 0.55, 0.45, 2.0),
                                                (256, 0.3, 0.2, 0.1), (32, 1.0, 0.0, 0.05)])
def test_lemma_13_against_the_exact_law(n, mu_1, mu_j, eps):
    """P(G_j + L_j >= G_1 + L_1) by convolution (Binomial sums, Laplace difference) is below Lemma 13."""
    from scipy.stats import binom

    k = np.arange(n + 1)
    pj, p1 = binom.pmf(k, n, mu_j), binom.pmf(k, n, mu_1)
    d = k[:, None] - k[None, :]                        # G_j - G_1
    exact = float(np.sum(pj[:, None] * p1[None, :] * _laplace_difference_tail(-d, 1 / eps)))
    bound = get_bound("hu2021.lemma13").evaluate(n=n, Delta_k=mu_1 - mu_j, epsilon=eps)
    gap = mu_1 - mu_j
    assert exact <= bound <= 2 * math.exp(-n * gap * min(gap, eps) / 8) + 1e-15


@pytest.mark.exact
def test_lower_bound_applies_only_where_its_theorem_does():
    thm10 = get_bound("hu2021.thm10")
    # T >= ln K / (10 eps Delta_min) = ln 10 / 0.01 = 230.3 at eps = 0.01, Delta_min = 0.1
    assert math.isnan(thm10.evaluate(T=230, K=10, epsilon=0.01, Delta_min=0.1))
    assert thm10.evaluate(T=231, K=10, epsilon=0.01, Delta_min=0.1) == pytest.approx(0.0098 * math.log(10) / 0.01)
    assert math.isnan(thm10.evaluate(T=1e4, K=3, epsilon=1.0, Delta_min=0.6))     # Delta_min <= 1/2
    assert not math.isnan(thm10.evaluate(T=1e4, K=3, epsilon=1.0, Delta_min=0.3))
    full = get_bound("hu2021.thm10.full").with_settings(C_M=0.01)
    # the non-private term needs T >= ln K / (16 Delta^2) = 14.4 at K = 10, Delta = 0.1
    assert math.isnan(full.evaluate(T=14, K=10, epsilon=100.0, Delta_min=0.1))
    assert full.evaluate(T=15, K=10, epsilon=100.0, Delta_min=0.1) == pytest.approx(0.01 * math.log(10) / 0.1)
    assert 0.2 * 0.49 / 10 == pytest.approx(0.0098)


@pytest.mark.property
def test_lower_bounds_below_upper_bounds_on_the_equal_gap_instance():
    """0.0098 ln K / eps <= 256 (1 + ln(K-1)) / min{Delta, eps} (Cor 8 (ii) at eps / 2 for the
    corrected noise, and Theorem 7's relaxed form) on a grid; and the minimax rates."""
    k, d, e = np.meshgrid([2, 3, 10, 100, 10 ** 4], np.geomspace(1e-3, 0.5, 12), np.geomspace(1e-3, 100, 15))
    low = get_bound("hu2021.thm10").evaluate(T=1e12, K=k, epsilon=e, Delta_min=d)
    ii = get_bound("hu2021.cor8.ii").evaluate(K=k, Delta_min=d, epsilon=e / 2)
    relaxed = get_bound("hu2021.thm7.lap2").evaluate(K=k, Delta_min=d, epsilon=e)
    assert np.isfinite(low).sum() > 100
    assert np.all(low[np.isfinite(low)] <= ii[np.isfinite(low)])
    assert np.all(low[np.isfinite(low)] <= relaxed[np.isfinite(low)])
    horizon = np.geomspace(10, 1e12, 30)[:, None]
    minimax = get_bound("hu2021.thm10.minimax").evaluate(T=horizon, K=10, epsilon=np.geomspace(0.01, 10, 9))
    cor9 = get_bound("hu2021.cor9").evaluate(T=horizon, K=10, epsilon=np.geomspace(0.01, 10, 9))
    assert np.all(minimax[np.isfinite(minimax)] <= cor9[np.isfinite(minimax)])


def _positive_finite(value: sp.Expr) -> bool:
    return bool(value.is_positive) and bool(value.is_finite)


@pytest.mark.oracle
def test_leading_orders():
    """bound / order -> a positive finite constant (T -> oo, or eps -> 0 for the T-free bounds)."""
    point = {Delta: sp.Rational(1, 10), epsilon: sp.Rational(1, 2)}
    thm3 = get_bound("hu2021.thm3")
    assert _positive_finite(sp.limit((thm3.per_arm / thm3.order).subs(point), T, sp.oo))
    thm4 = get_bound("hu2021.thm4")
    assert _positive_finite(sp.limit((thm4.rest / thm4.order).subs({K: 5, epsilon: sp.Rational(1, 2)}), T, sp.oo))
    # Theorem 5: SymPy's limit cannot take Max; the private branches dominate both maxima.
    thm5 = get_bound("hu2021.thm5")
    log2T = sp.log(T, 2)
    lead = 1024 * log2T / epsilon * sp.log(256 * log2T / (epsilon * Delta), 2)
    other = 1024 * log2T / Delta
    assert thm5.per_arm == sp.Max(other, lead) + C_12 * Delta * log2T
    rate_lead = sp.log(T) / epsilon * sp.log(sp.log(T) / (epsilon * Delta))
    assert thm5.order == sp.Max(sp.log(T) / Delta, rate_lead)
    assert _positive_finite(sp.limit((lead / rate_lead).subs(point), T, sp.oo))
    for small, big in ((other, lead), (C_12 * Delta * log2T, lead), (sp.log(T) / Delta, rate_lead)):
        assert sp.limit((small / big).subs({**point, C_12: 1}), T, sp.oo) == 0
    for key in ("hu2021.thm7", "hu2021.thm7.lap2", "hu2021.thm10"):
        bound = get_bound(key)
        ratio = sp.limit((bound.rest / bound.order).subs({K: 10, Delta_min: sp.Rational(1, 10)}), epsilon, 0)
        assert _positive_finite(ratio), key
    cor8 = get_bound("hu2021.cor8.ii").rest             # for eps < Delta_min the Min is eps
    below = cor8.subs(sp.Min(Delta_min, epsilon), epsilon).subs(K, 10)
    assert sp.limit(below * epsilon, epsilon, 0) == 256 * (1 + sp.log(9))
    assert T not in get_bound("hu2021.thm7").rest.free_symbols


@pytest.mark.exact
def test_theorem_7_order_form_drops_the_privacy_term_near_gap_one():
    """The second O-form's log(1/Delta_min) vanishes at Delta_min -> 1 (like Theorem 7's log|J_k|, docs/errata.md#hhm-thm7-log); the
    explicit form keeps 256 (1 + ln(K-1)) / eps."""
    order = get_bound("hu2021.thm7.order")
    assert order.evaluate(T=1e6, K=10, epsilon=1e-3, Delta_min=1 - 1e-6) < 2.31   # ln 10 / Delta_min + 0.002
    assert get_bound("hu2021.thm7").evaluate(K=10, Delta_min=1 - 1e-6, epsilon=1e-3) > 256 * 3.19 / 1e-3


@pytest.mark.smoke
def test_keys_and_variants():
    keys = [b.key for b in bounds()]
    assert len(keys) == len(set(keys)) and all(k.startswith("hu2021.") for k in keys)
    paper = {b.key for b in bounds_for("rnm-ftnl", "paper")}
    corrected = {b.key for b in bounds_for("rnm-ftnl", "corrected")}
    assert "hu2021.thm7" in paper and "hu2021.thm7.lap2" not in paper
    assert "hu2021.thm7.lap2" in corrected and "hu-journal.thm12" in corrected
    assert "hu-journal.thm12" not in paper        # the paper variant is not eps-DP
    assert "hu2021.thm6" in paper and "hu2021.thm6.lap2" in corrected


@pytest.mark.statistical
def test_anytime_lazy_ucb_respects_both_theorem_3_constants():
    """At T = 2^17, where both Theorem 3 bounds are informative (below T x largest gap from
    T = 33,575 and 71,540), so that a run could violate them; compiled backend, fixed seed. A true
    bound is reported violated with probability <= 0.05 per check (the band's level). At the
    former T = 20,000 the same checks are vacuous and say so."""
    environment = get_setting("hu2021-setting2").environment()
    gaps = 0.75 - np.array([0.75, 0.625, 0.5, 0.375, 0.25])
    result = simulate(spec("anytime-lazy-ucb", 5, epsilon=0.5), environment, 2 ** 17, runs=10,
                      seed=5, backend="compiled")
    for key in ("hu2021.thm3", "hu-journal.thm3"):
        check = check_regret(result, get_bound(key), epsilon=0.5, gaps=gaps)
        assert check.informative_from < 2 ** 17 and check.rows[-1]["bound"] < 2 ** 17 * 0.5
        assert check.verdict == "respected"
    short = simulate(spec("anytime-lazy-ucb", 5, epsilon=0.5), environment, 20_000, runs=10, seed=5)
    assert check_regret(short, get_bound("hu-journal.thm3"), epsilon=0.5,
                        gaps=gaps).verdict == "vacuous at this size"


@pytest.mark.statistical
def test_paper_ftnl_below_theorem_7():
    """At T = 2^19, above the horizon 234,457 from which Theorem 7 (eps = 0.5, K = 10, gap 0.1)
    is below T x largest gap; compiled backend, fixed seed; false alarm <= 0.05."""
    setting = get_setting("hu-journal-thm12")
    result = simulate(spec("rnm-ftnl", 10, epsilon=0.5, variant="paper"), setting.environment(),
                      2 ** 19, runs=20, seed=3, backend="compiled")
    check = check_regret(result, get_bound("hu2021.thm7"), epsilon=0.5, K=10, Delta_min=0.1)
    assert check.informative_from == 234_457 and check.rows[-1]["verdict"] == "respected"
    assert check.verdict == "respected"
