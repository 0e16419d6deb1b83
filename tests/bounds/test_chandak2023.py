"""Chandak, Hu & Hegde's bounds (Theorems 1-4, Lemma 4, Table 1).

Kinds: exact (values of G_e worked by hand, closed forms (a) and (b), F_K, the round-0
composition), property (Lemmas 1 and 3 and the closed forms on random gap vectors, Hypothesis),
smoke (the catalogue entries and guards).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from dpbandits.bounds import bounds_for, get_bound
from dpbandits.bounds.chandak2023 import (F_K, G_e, closed_form_a, closed_form_b, dpts_v_derived,
                                          dpucb_derived, gap_matrix, lemma1_sides, lemma3_sides)
from dpbandits.errors import DPBanditsError
from dpbandits.reference.matroid.data import SYNTHETIC_MEANS

GAPS = gap_matrix(SYNTHETIC_MEANS, [0, 1, 2])   # rows e_4, e_5, e_6, e_7 (the loop)


@pytest.mark.exact
@pytest.mark.parametrize("row, G24, a, b, G72", [(0, 2046.8, 9401.8, 5873.1, 8190.8),
                                                 (1, 3173.4, 11051.2, 7610.8, 11467.8),
                                                 (2, 4095.2, 14350.1, 10921.4, 16383.2)])
def test_golden_values_of_the_synthetic_instance(row, G24, a, b, G72):
    """Thm 2 and Thm 4: n = 1e4, eps = 2, K = 3."""
    gaps = GAPS[row]
    assert G_e(gaps, 24, 3, 10_000, 2.0) == pytest.approx(G24, abs=0.05)
    assert closed_form_a(gaps, 24, 3, 10_000, 2.0) == pytest.approx(a, abs=0.05)
    assert closed_form_b(gaps, 24, 3, 10_000, 2.0) == pytest.approx(b, abs=0.05)
    assert G_e(gaps, 72, 3, 10_000, 2.0) == pytest.approx(G72, abs=0.05)


@pytest.mark.exact
def test_the_loop_and_F_K():
    assert G_e(GAPS[3], 24, 3, 10_000, 2.0) == pytest.approx(16383.8, abs=0.05)
    for K_, value in [(1, 1.332), (2, 0.194), (3, 0.0507)]:
        assert F_K(K_, 10 ** 6) == pytest.approx(value, abs=6e-4)
    assert F_K(17, 10 ** 6) == pytest.approx(2.6e-4, rel=0.02)
    total = dpucb_derived(GAPS, 10_000, 2.0, loops=[3])
    assert total == pytest.approx(2046.8 + 3173.4 + 4095.2 + 7 * F_K(3, 10_000), abs=0.2)
    assert dpts_v_derived(GAPS, 10_000, 2.0, loops=[3]) > 8190.8 + 11467.8 + 16383.2


@pytest.mark.exact
def test_round_zero_composition_and_closed_form_bound():
    assert get_bound("chandak.round0-privacy").evaluate(L=7, K=3, epsilon=2.0) == pytest.approx(14 / 3)
    bound = get_bound("chandak.thm2.derived-a")
    value = bound.evaluate(K=3, n=10_000, epsilon=2.0, L=7, gaps=[0.4, 0.45, 0.4])
    exact = dpucb_derived(GAPS, 10_000, 2.0, loops=[3])
    assert value >= exact


@pytest.mark.property
@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(0.01, 1.0), min_size=1, max_size=12), st.floats(1e-3, 10.0),
       st.integers(10, 10 ** 6))
def test_closed_forms_bound_G_e_and_lemmas_hold(gaps, eps, n_):
    K_ = len(gaps)
    for c in (24, 72):
        exact = G_e(gaps, c, K_, n_, eps)
        assert exact <= closed_form_a(gaps, c, K_, n_, eps) * (1 + 1e-9)
        assert exact <= closed_form_b(gaps, c, K_, n_, eps) * (1 + 1e-9)
    desc = sorted(gaps, reverse=True)
    left, right = lemma1_sides(desc, eps / K_)
    assert left <= right * (1 + 1e-9)
    left, right = lemma3_sides(desc)
    assert left <= right * (1 + 1e-9)


@pytest.mark.smoke
def test_catalogue_and_guards():
    assert {b.key for b in bounds_for("dpucb-mat", "paper")} >= {"chandak.thm2", "chandak.table1.dpucb-mat",
                                                         "chandak.round0-privacy"}
    assert get_bound("chandak.thm2").constants == "free"
    with pytest.raises(DPBanditsError, match="K n >= 2"):
        dpucb_derived(np.full((2, 1), 0.5), 1, 1.0)
