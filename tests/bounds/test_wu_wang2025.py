"""Wu & Wang's bounds (Sec. 3-4, App. C-H).

Kinds: exact (a table of upper and lower bounds worked by hand, the Lemma 3 examples, presets),
oracle (the exact deterministic regret of RNM-FTNL(B = 0) sandwiched between Theorem 3 and
Theorem 4; the closed form of Theorem 3 below its sum form, and against a direct mpmath sum;
Lemma 2's identity by SymPy), smoke (guards).
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
import sympy as sp

from dpbandits.bounds import get_bound
from dpbandits.bounds.check import check_regret
from dpbandits.bounds.core import K, T, epsilon
from dpbandits.bounds.wu_wang2025 import lb_sum, lemma3_sum, rank_terms
from dpbandits.errors import DPBanditsError
from dpbandits.reference import make

# K, eps, exact regret of Gumbel(2/eps) and Exp(2/eps), UB, LB (T = 2^16)
TABLE = [(8, 0.05, 239.37, 197.63, 407.36, 13.37), (8, 0.2, 59.38, 48.95, 102.59, 2.99),
         (8, 1.0, 11.44, 9.36, 21.32, 0.31), (32, 0.05, 399.34, 352.21, 678.26, 45.15),
         (32, 0.2, 99.16, 87.37, 170.31, 10.62), (32, 1.0, 19.12, 16.76, 34.86, 1.46),
         (128, 0.2, 138.49, 126.81, 238.04, 17.71)]


@pytest.mark.exact
@pytest.mark.parametrize("K_, eps, gumbel, exp2, ub, lb", TABLE)
def test_upper_and_lower_bound_columns_of_the_spec_table(K_, eps, gumbel, exp2, ub, lb):
    assert get_bound("wu-wang.thm4").evaluate(K=K_, epsilon=eps) == pytest.approx(ub, abs=0.006)
    assert get_bound("wu-wang.thm3").evaluate(K=K_, epsilon=eps, T=2 ** 16) == pytest.approx(lb, abs=0.006)
    assert lb <= gumbel <= ub and lb <= exp2 <= ub


@pytest.mark.oracle
@pytest.mark.parametrize("K_, eps", [(8, 0.2), (8, 1.0)])
def test_exact_regret_of_gumbel_noise_lies_between_theorem_3_and_theorem_4(K_, eps):
    """The exact regret on the sorted hard instance (0, D, D, 1, ..., 1) of Thm 3."""
    losses = np.array([0.0, 0.05, 0.05] + [1.0] * (K_ - 3))
    model = make("rnm-ftnl-bq", K_, epsilon=eps, rng=0, variant="paper", B=0,
                 Q="gumbel").trajectory_model()
    regret = model.deterministic_pseudo_regret(1 - losses, 2 ** 16)
    lower = get_bound("wu-wang.thm3").evaluate(K=K_, epsilon=eps, T=2 ** 16)
    upper = get_bound("wu-wang.thm4").evaluate(K=K_, epsilon=eps)
    assert lower <= lb_sum(2 ** 16, K_, eps) <= regret <= upper


@pytest.mark.oracle
@pytest.mark.parametrize("T_, K_, eps", [(10, 6, 0.5), (100, 40, 0.05), (1000, 9, 2.0)])
def test_closed_form_of_theorem_3_is_below_its_sum_form(T_, K_, eps):
    closed = get_bound("wu-wang.thm3").evaluate(T=T_, K=K_, epsilon=eps)
    direct = float(mpmath.nsum(lambda t: (K_ - 5) / (3 * mpmath.e ** (t * eps) + K_ - 5), [1, T_]))
    assert lb_sum(T_, K_, eps) == pytest.approx(direct, rel=1e-12)
    assert closed <= direct


@pytest.mark.exact
def test_theorem_3_limit_and_guard():
    limit = get_bound("wu-wang.thm3.limit")
    assert limit.evaluate(K=8, epsilon=1.0) == pytest.approx(math.log(math.e + 1) - 1)
    assert math.isnan(get_bound("wu-wang.thm3").evaluate(K=5, epsilon=1.0, T=100))
    with pytest.raises(DPBanditsError, match="K >= 6"):
        lb_sum(100, 5, 1.0)
    with pytest.raises(DPBanditsError, match="limit"):
        check_regret(None, limit, K=8, epsilon=1.0)


@pytest.mark.exact
def test_theorem_2_presets_give_the_spec_constants():
    """(2, 32): (512 ln K + 128)/D + 64((ln K)^2 + 1)/eps; (2, 16): (256 ln K + 64)/D + 32(...)."""
    for key, a, b, c in [("wu-wang.thm2", 512, 128, 64), ("wu-wang.thm2.exp-gumbel", 256, 64, 32)]:
        value = get_bound(key).evaluate(K=10, epsilon=0.3, Delta_min=0.05)
        expected = (a * math.log(10) + b) / 0.05 + c * (math.log(10) ** 2 + 1) / 0.3
        assert value == pytest.approx(expected, rel=1e-12)
    value = get_bound("wu-wang.cor1").evaluate(K=10, epsilon=0.3, T=1e6)
    expected = (513 * math.sqrt(1e6 * math.log(10)) + 128 * math.sqrt(1e6 / math.log(10))
                + 64 * (math.log(10) ** 2 + 1) / 0.3)
    assert value == pytest.approx(expected, rel=1e-12)
    assert get_bound("wu-wang.cor2").evaluate(K=10, epsilon=0.5) == pytest.approx(
        1 + (32 * math.log(10) ** 2 + 16) / 0.5)


@pytest.mark.exact
def test_printed_theorem_2_drops_the_factor_two_of_regret_up():
    """docs/errata.md#ww-thm2-factor2: with the same (c_1, c_2) the corrected Delta_min term is twice the printed one."""
    printed, corrected = get_bound("wu-wang.thm2.printed"), get_bound("wu-wang.thm2.exp-gumbel")
    terms = rank_terms([0, 0.05, 0.05, 1, 1, 1], epsilon=100.0)   # no gap above eps
    assert terms["H_epsilon"] == 0 and terms["k_epsilon"] == 0
    big_eps = dict(K=6, Delta_min=0.05, epsilon=1e9)
    p = printed.evaluate(**big_eps, H_epsilon=0.0, k_epsilon=0.0)
    assert corrected.evaluate(**big_eps) == pytest.approx(2 * p, rel=1e-6)
    assert rank_terms([0, 0.1, 0.5, 0.9], 0.3)["H_epsilon"] == pytest.approx(1 / 3 + 1 / 4)


@pytest.mark.exact
@pytest.mark.parametrize("a, low, value, high", [
    (np.arange(19) / 18, 3.37, 6.08, 7.19), (np.arange(95) / 94, 5.68, 10.01, 11.12),
    (np.array([0, 0.05, 0.05] + [1] * 16), 2.77, 5.31, 7.19),
    (np.array([0, 0.05, 0.05] + [1] * 92), 4.71, 8.80, 11.12)])
def test_lemma_3_examples(a, low, value, high):
    """sum f(r) <= (1+ln2)/ln2 ln sum e^{-a_i} <= (1+ln2) log2 K."""
    assert lemma3_sum(a) == pytest.approx(low, abs=0.006)
    middle = (1 + math.log(2)) / math.log(2) * math.log(np.exp(-a).sum())
    assert middle == pytest.approx(value, abs=0.006)
    assert (1 + math.log(2)) * math.log2(a.size) == pytest.approx(high, abs=0.006)


@pytest.mark.oracle
def test_lemma_2_identity_symbolically():
    """f'(x) - ln2 f(x) = -ln2 Var_w(2^x a) for three actions (Lemmas 2-3)."""
    x = sp.Symbol("x", real=True)
    a = sp.symbols("a1:4", real=True)
    w = [sp.exp(-2 ** x * ai) for ai in a]
    f = sum(2 ** x * ai * wi for ai, wi in zip(a, w)) / sum(w)
    second = sum((2 ** x * ai) ** 2 * wi for ai, wi in zip(a, w)) / sum(w)
    variance = second - f ** 2
    residual = sp.diff(f, x) - sp.log(2) * f + sp.log(2) * variance
    point = {x: 0.7, a[0]: 0.0, a[1]: 0.3, a[2]: 1.1}
    assert abs(float(residual.subs(point))) < 1e-12


@pytest.mark.exact
def test_rates_of_table_1():
    """Theorem 2 is T-independent with log^2 K / eps; Theorem 1 grows like log T."""
    assert T not in get_bound("wu-wang.thm2").rest.free_symbols
    ratio = sp.limit(get_bound("wu-wang.thm1").rest / sp.log(T), T, sp.oo)
    assert ratio == sp.log(K) / epsilon
