"""Hu, Huang & Mehta's bounds (spec 000 s.4) and the journal version's (spec 002 s.4).

Kinds: exact (bracket sums worked by hand, the explicit constants, conditions of validity),
oracle (leading orders by SymPy limits), property (the relaxed Theorem 7 bounds its exact
bracket form, Hypothesis), statistical (Anytime-Lazy-UCB and RNM-FTNL simulated against their
explicit bounds; false alarm at most 0.05 per check by the Bonferroni band, fixed seeds).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings, strategies as st

from dpbandits.bounds import bounds_for, check_regret, get_bound
from dpbandits.bounds.core import Delta, T, epsilon
from dpbandits.bounds.hu2021 import thm7_brackets
from dpbandits.reference import Bernoulli, get_setting, simulate, spec


@pytest.mark.exact
def test_thm7_brackets_by_hand():
    """Doubling gaps 0.1, 0.2, 0.4, 0.8: four singleton brackets (spec 002 s.4.8 remarks)."""
    gaps = [0, 0.1, 0.2, 0.4, 0.8]
    assert thm7_brackets(gaps, 10.0, 10 ** 6) == pytest.approx(256 * (10 + 5 + 2.5 + 1.25))
    assert thm7_brackets(gaps, 0.05, 10 ** 6) == pytest.approx(4 * 256 / 0.05)
    two = [0, 0.1, 0.15, 0.5]          # J_1 = {0.1, 0.15}, J_3 = {0.5}
    assert thm7_brackets(two, 1.0, 10 ** 6) == pytest.approx(256 * (1 + math.log(2)) / 0.1 + 256 / 0.4)
    assert thm7_brackets([0, 1e-7, 0.5], 1.0, 10 ** 6) == pytest.approx(1 + 256 / 0.5)


@pytest.mark.property
@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.lists(st.floats(1e-3, 1.0), min_size=1, max_size=15), st.floats(1e-3, 10.0))
def test_relaxed_theorem_7_bounds_its_bracket_form(gaps, eps):
    vector = [0.0] + gaps
    exact = thm7_brackets(vector, eps, 10 ** 9)
    relaxed = get_bound("hu2021.thm7").evaluate(K=len(vector), Delta_min=min(gaps), epsilon=eps)
    assert exact <= relaxed * (1 + 1e-12)
    assert thm7_brackets(vector, eps / 2, 10 ** 9) <= get_bound("hu2021.thm7.lap2").evaluate(
        K=len(vector), Delta_min=min(gaps), epsilon=eps) * (1 + 1e-12)


@pytest.mark.exact
def test_explicit_constants():
    """Spec 000 s.4.2-4.3 and spec 002 s.4.2 at T = 1e6, gaps (0.1, 0.5), eps = 0.2."""
    lnT, log2T = math.log(1e6), math.log2(1e6)
    value = get_bound("hu2021.thm3").evaluate(T=1e6, epsilon=0.2, gaps=[0, 0.1, 0.5])
    assert value == pytest.approx(96 * lnT / 0.1 + 96 * lnT / 0.2 + 6 * 0.6 * log2T)
    value = get_bound("hu-journal.thm3").evaluate(T=1e6, epsilon=0.2, gaps=[0, 0.1, 0.5])
    assert value == pytest.approx(192 * lnT / 0.1 + 192 * lnT / 0.2)
    value = get_bound("hu2021.thm4").evaluate(T=1e6, epsilon=0.2, K=3)
    assert value == pytest.approx((1 + 96 * math.log(2)) * math.sqrt(3e6 * log2T) + 96 * 3 * lnT / 0.2
                                  + 18 * log2T)
    assert get_bound("hu-journal.thm12").evaluate(T=1e5, K=10, epsilon=0.5, Delta_min=0.1) == \
        pytest.approx(0.0098 * math.log(10) / 0.5)


@pytest.mark.exact
def test_lower_bounds_apply_only_where_their_theorems_do():
    thm12, thm10 = get_bound("hu-journal.thm12"), get_bound("hu2021.thm10")
    # T >= ln K / (10 eps Delta_min) = ln 10 / 0.01 = 230.3 at eps = 0.01, Delta_min = 0.1
    assert math.isnan(thm12.evaluate(T=230, K=10, epsilon=0.01, Delta_min=0.1))
    assert not math.isnan(thm12.evaluate(T=231, K=10, epsilon=0.01, Delta_min=0.1))
    assert math.isnan(thm12.evaluate(T=1e4, K=3, epsilon=1.0, Delta_min=0.1))        # K >= 4
    assert math.isnan(thm12.evaluate(T=1e4, K=10, epsilon=1.0, Delta_min=0.3))       # Delta < 1/4
    assert not math.isnan(thm10.evaluate(T=1e4, K=3, epsilon=1.0, Delta_min=0.3))
    assert thm12.instance == "hu-journal-thm12"


@pytest.mark.oracle
@pytest.mark.parametrize("key, rate", [("hu2021.thm3", sp.log(T)), ("hu-journal.thm3", sp.log(T))])
def test_instance_dependent_bounds_grow_like_log_T(key, rate):
    term = get_bound(key).per_arm.subs({Delta: sp.Rational(1, 10), epsilon: sp.Rational(1, 2)})
    ratio = sp.limit(term / rate, T, sp.oo)
    assert ratio.is_positive and ratio.is_finite


@pytest.mark.oracle
def test_ftnl_bound_is_T_independent_and_scales_as_one_over_eps():
    rest = get_bound("hu2021.thm7").rest
    assert T not in rest.free_symbols
    from dpbandits.bounds.core import K, Delta_min

    scaled = sp.limit(rest * epsilon, epsilon, 0).subs({K: 10, Delta_min: sp.Rational(1, 10)})
    assert float(scaled) == pytest.approx(256 * (1 + math.log(9)) * (math.log2(10) + 1))


@pytest.mark.smoke
def test_bounds_follow_the_variant():
    paper = {b.key for b in bounds_for("rnm-ftnl", "paper")}
    corrected = {b.key for b in bounds_for("rnm-ftnl", "corrected")}
    assert "hu2021.thm7" in paper and "hu2021.thm7.lap2" not in paper
    assert "hu2021.thm7.lap2" in corrected and "hu-journal.thm12" in corrected
    assert "hu-journal.thm12" not in paper        # the paper variant is not eps-DP


@pytest.mark.statistical
def test_anytime_lazy_ucb_respects_both_theorem_3_constants():
    result = simulate(spec("anytime-lazy-ucb", 5, epsilon=0.5), get_setting("hu2021-setting2").environment(),
                      20_000, runs=10, seed=5)
    gaps = 0.75 - np.array([0.75, 0.625, 0.5, 0.375, 0.25])
    for key in ("hu2021.thm3", "hu-journal.thm3"):
        assert check_regret(result, get_bound(key), epsilon=0.5, gaps=gaps).verdict == "holds"


@pytest.mark.statistical
def test_corrected_ftnl_between_theorem_12_and_theorem_9():
    setting = get_setting("hu-journal-thm12")
    result = simulate(spec("rnm-ftnl", 10, epsilon=0.5, variant="corrected"), setting.environment(),
                      4096, runs=20, seed=2)
    values = dict(epsilon=0.5, K=10, Delta_min=0.1)
    assert check_regret(result, get_bound("hu-journal.thm9.lap2"), **values).verdict == "holds"
    assert check_regret(result, get_bound("hu-journal.thm12"), **values).verdict == "holds"
