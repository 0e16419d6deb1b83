"""Tossou & Dimitrakakis's bounds (spec 001 s.4).

Kinds: exact (the spec's s.4.12 reference table for Theorems 3.2, 3.3 and 3.5, eq. (2.2)'s values,
the Lambert test vector), oracle (Corollary 3.2 inverts Corollary 3.1 in SymPy; the symbolic
Theorem 3.4 agrees with the reference module's numerical accountant), statistical (DP-UCB-BOUND
simulated under its corrected Theorem 3.2; false alarm at most 0.05 by the band, fixed seed).
"""

from __future__ import annotations

import math

import pytest
import sympy as sp

from dpbandits.bounds import bounds_for, check_regret, get_bound
from dpbandits.bounds.core import epsilon, t
from dpbandits.bounds.tossou2016 import delta_prime, epsilon_prime, v
from dpbandits.reference import Bernoulli, simulate, spec
from dpbandits.reference.bandit.dp_ucb_int import corollary_3_1, input_epsilon, theorem_3_4

TWO, TEN = [0, 0.3], [0, 0.35] + [0.45] * 8
# spec 001 s.4.12: t = 1e5, lambda_0 = 0.5; columns 2-arm eps 1, 0.1, 10-arm eps 1, 0.1
TABLE = {
    "tossou2016.thm3.2.stated": (3381.41, 39972.65, 30442.19, 359763.32),
    "tossou2016.thm3.2.proof": (3704.50, 43203.51, 32438.15, 379722.87),
    "tossou2016.thm3.2.lambert": (2715.23, 33909.21, 23432.13, 295275.70),
    "tossou2016.thm3.2": (7778.74, 90124.86, 68194.46, 792896.87),
    "tossou2016.thm3.2.lambert-corrected": (5839.40, 71846.08, 50551.61, 626889.62),
}


@pytest.mark.exact
@pytest.mark.parametrize("key", sorted(TABLE))
def test_theorem_3_2_reference_table(key):
    bound = get_bound(key)
    values = [bound.evaluate(t=1e5, epsilon=e, gaps=g) for g in (TWO, TEN) for e in (1.0, 0.1)]
    assert values == pytest.approx(TABLE[key], abs=0.006)


@pytest.mark.exact
def test_theorem_3_3_and_3_5_reference_values():
    b = get_bound("tossou2016.thm3.3")
    values = [b.evaluate(t=1e5, epsilon=e, gaps=g) for g in (TWO, TEN) for e in (1.0, 0.1)]
    assert values == pytest.approx([3.00196e7, 4.10447e9, 3.95257e8, 5.40421e10], rel=1e-5)
    b = get_bound("tossou2016.thm3.5")
    for f0, two, ten in [(253, 386.35, 2945.12), (124, 347.65, 2435.57), (46, 324.25, 2127.47)]:
        assert b.evaluate(t=1e5, f_0=f0, gaps=TWO) == pytest.approx(two, abs=0.006)
        assert b.evaluate(t=1e5, f_0=f0, gaps=TEN) == pytest.approx(ten, abs=0.006)
    assert b.status == "flawed"


@pytest.mark.exact
def test_lambert_root_test_vector():
    """Spec 001 s.4.4: B = 100 gives the exact root 763.835 and B (ln B + 7) = 1160.517."""
    B = sp.Integer(100)
    root = float(-B * sp.LambertW(-1 / (sp.E * B), -1))
    assert root == pytest.approx(763.835, abs=5e-4)
    assert float(B * (sp.log(B) + 7)) == pytest.approx(1160.517, abs=5e-4)


@pytest.mark.exact
def test_hybrid_mechanism_error_bound():
    b = get_bound("tossou2016.hybrid-error")
    assert b.evaluate(n=1000, gamma=1e-12, epsilon=1.0) == pytest.approx(900.0, abs=0.05)
    assert b.evaluate(n=100, gamma=1e-8, epsilon=1.0) == pytest.approx(428.2, abs=0.05)
    assert math.isnan(b.evaluate(n=2 ** 20, gamma=0.5, epsilon=1.0))   # ln(8) < 21: FLAG-26


@pytest.mark.oracle
def test_corollary_3_2_inverts_corollary_3_1():
    advanced = get_bound("tossou2016.cor3.1.advanced").rest
    chosen = get_bound("tossou2016.cor3.2").rest
    residual = advanced.subs(epsilon, chosen) - epsilon_prime
    point = {v: sp.Rational(11, 10), delta_prime: sp.exp(-10), epsilon_prime: 1}
    assert abs(float(residual.subs(point).evalf(30))) < 1e-20
    value = get_bound("tossou2016.cor3.2").evaluate(epsilon_prime=1.0, v=1.1, delta_prime=math.exp(-10))
    assert value == pytest.approx(3.964317e-3, rel=1e-6)
    assert value == pytest.approx(input_epsilon(1.0, 1.1, math.exp(-10)), rel=1e-12)


@pytest.mark.oracle
def test_symbolic_theorem_3_4_matches_the_numerical_accountant():
    bound = get_bound("tossou2016.thm3.4").rest
    point = {epsilon: sp.Rational(1, 10), v: sp.Rational(11, 10), delta_prime: sp.exp(-10), t: 50}
    symbolic = float(bound.subs(point).doit().evalf(20))
    numeric = theorem_3_4(0.1, 1.1, math.exp(-10), 50)
    assert symbolic == pytest.approx(min(numeric.basic, numeric.advanced), rel=1e-10)
    basic = get_bound("tossou2016.cor3.1.basic").evaluate(epsilon=0.1, v=1.1, t=50)
    assert basic == pytest.approx(corollary_3_1(0.1, 1.1, math.exp(-10), 50).basic, rel=1e-12)
    assert basic >= numeric.basic


@pytest.mark.smoke
def test_flawed_and_privacy_bounds_are_never_simulated():
    explicit = {b.key for b in bounds_for("dp-ucb-int", explicit=True)}
    assert "tossou2016.thm3.5" in explicit                    # explicit constants ...
    with pytest.raises(Exception, match="regret"):
        check_regret(None, get_bound("tossou2016.cor3.1.advanced"))   # ... privacy is not regret


@pytest.mark.statistical
def test_dp_ucb_bound_respects_corrected_theorem_3_2():
    result = simulate(spec("dp-ucb-bound", 2, epsilon=1.0), Bernoulli([0.9, 0.6]), 4000, runs=10, seed=4)
    check = check_regret(result, get_bound("tossou2016.thm3.2"), epsilon=1.0, gaps=TWO)
    assert check.verdict == "holds"
