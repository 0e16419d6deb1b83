"""The statistics of `dpbandits validate`: Holm's procedure, the two-sample tests, detectable effects.

Kinds: exact (Holm by hand, closed forms), oracle (against SciPy's chi-square and Mann-Whitney on
the same data), property (Holm's adjusted p-values agree with the procedure), statistical (the
tests' level and the detectable effect's power by simulation, fixed seeds, failure probabilities
stated at each test).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs
from scipy import stats

from dpbandits.errors import DPBanditsError
from dpbandits.validate import checkpoints_for, holm, holm_adjusted, rounds_for
from dpbandits.validate import stats as st


@pytest.mark.exact
def test_holm_by_hand():
    # sorted: 0.01 <= 0.05/4 rejects; 0.03 > 0.05/3 stops.
    assert holm([0.01, 0.04, 0.03, 0.5], 0.05) == [True, False, False, False]
    assert holm([0.001, 0.012, 0.02], 0.05) == [True, True, True]
    assert holm([0.2, 0.3], 0.05) == [False, False]
    assert holm([], 0.05) == []
    np.testing.assert_allclose(holm_adjusted([0.01, 0.04, 0.03, 0.5]), [0.04, 0.09, 0.09, 0.5])


@pytest.mark.exact
def test_holm_rejects_bad_input():
    with pytest.raises(DPBanditsError, match="alpha"):
        holm([0.1], 1.5)
    with pytest.raises(DPBanditsError, match="p-values"):
        holm([1.2], 0.05)


@pytest.mark.property
@settings(max_examples=40)
@given(hs.lists(hs.floats(0, 1), min_size=1, max_size=30), hs.floats(0.001, 0.5))
def test_holm_adjusted_p_values_agree_with_the_procedure(p_values, alpha):
    adjusted = holm_adjusted(p_values)
    rejected = holm(p_values, alpha)
    assert [bool(a <= alpha) for a in adjusted] == rejected
    assert np.all(adjusted >= np.asarray(p_values) - 1e-15)


@pytest.mark.oracle
@pytest.mark.parametrize("seed", range(6))
def test_holm_matches_statsmodels(seed):
    from statsmodels.stats.multitest import multipletests

    rng = np.random.default_rng(seed)
    m = int(rng.integers(1, 40))
    p = rng.choice([rng.random(m), rng.random(m) ** 6, np.round(rng.random(m), 1)], axis=0)
    for alpha in (0.01, 0.05, 0.3):
        reject, adjusted, _, _ = multipletests(p, alpha=alpha, method="holm")
        assert holm(p, alpha) == [bool(r) for r in reject]
        assert np.array_equal(holm_adjusted(p), adjusted)


@pytest.mark.exact
def test_compared_rounds():
    assert checkpoints_for(1000, 5) == [10, 125, 250, 500, 1000]
    assert rounds_for(1000, 5) == [1, 2, 5, 6, 7, 500, 1000]
    assert checkpoints_for(8, 5) == [1, 2, 4, 8]
    assert rounds_for(3, 5) == [1, 2, 3]


@pytest.mark.exact
def test_mann_whitney_effect_and_constant_samples():
    x, y = np.array([3, 4, 5, 6.0]), np.array([1, 2.0, 0, -1])
    outcome = st.mann_whitney(x, y)
    assert outcome.effect == 1.0            # every x above every y
    same = st.mann_whitney(np.full(30, 7.0), np.full(30, 7.0))
    assert same.p_value == 1.0 and same.effect == 0.0


@pytest.mark.oracle
def test_mann_whitney_matches_scipy():
    rng = np.random.default_rng(3)
    x, y = rng.poisson(4, 50), rng.poisson(5, 60)
    ours = st.mann_whitney(x, y)
    theirs = stats.mannwhitneyu(x, y, alternative="two-sided", method="asymptotic")
    assert ours.p_value == pytest.approx(theirs.pvalue)
    assert ours.effect == pytest.approx(2 * theirs.statistic / 3000 - 1)


@settings(max_examples=300, deadline=None)
@given(hs.integers(2, 120), hs.integers(2, 120), hs.sampled_from([2, 3, 10, 1000]),
       hs.integers(0, 2**32 - 1))
def test_mann_whitney_gives_scipys_numbers_exactly(n_x, n_y, values, seed):
    # Our own computation of SciPy's asymptotic test (mann_whitney reimplements it for speed):
    # the same statistic and p-value to the last bit, with ties, shifts and a constant side.
    rng = np.random.default_rng(seed)
    x = rng.integers(0, values, n_x).astype(float)
    y = (rng.integers(0, values, n_y) + rng.integers(0, 2)).astype(float)
    if rng.random() < 0.2:
        x[:] = x[0]
    if np.all(x == x[0]) and np.all(y == x[0]):
        return
    ours = st.mann_whitney(x, y)
    theirs = stats.mannwhitneyu(x, y, alternative="two-sided", method="asymptotic")
    assert ours.statistic == float(theirs.statistic) and ours.p_value == float(theirs.pvalue)


@pytest.mark.oracle
def test_homogeneity_chi_square_matches_scipy_and_permutation_is_close():
    rng = np.random.default_rng(4)
    x, y = rng.integers(0, 3, 200), rng.choice(3, 200, p=[0.2, 0.3, 0.5])
    ours = st.homogeneity(x, y, 3, rng)
    table = np.stack([np.bincount(x, minlength=3), np.bincount(y, minlength=3)])
    chi2, p, dof, _ = stats.chi2_contingency(table, correction=False)
    assert ours.test.startswith("chi-square") and ours.dof == dof == 2
    assert ours.statistic == pytest.approx(chi2) and ours.p_value == pytest.approx(p)
    assert ours.effect == pytest.approx(math.sqrt(chi2 / 400))
    # Few observations: the permutation test; its p-value is close to the chi-square one.
    x, y = rng.integers(0, 3, 12), rng.choice(3, 12, p=[0.1, 0.1, 0.8])
    small = st.homogeneity(x, y, 3, np.random.default_rng(5))
    table = np.stack([np.bincount(x, minlength=3), np.bincount(y, minlength=3)])
    table = table[:, table.sum(axis=0) > 0]
    chi2, p, _, _ = stats.chi2_contingency(table, correction=False)
    assert small.test.startswith("permutation") and small.statistic == pytest.approx(chi2)
    assert abs(small.p_value - p) < 0.1


@pytest.mark.oracle
@pytest.mark.statistical
def test_the_permutation_p_value_is_the_exact_one_by_enumeration():
    """The permutation test draws each relabelled table as a multivariate hypergeometric row;
    against the exact permutation p-value (all C(12, 6) = 924 ways of labelling 6 of 12 runs as
    the candidate's) it is within 0.015, four Monte Carlo standard deviations at B = 19999
    (a miss has probability < 1e-4 at this fixed seed's draw; guards a law of the relabelled
    table that is not the permutation law)."""
    import itertools

    x, y = np.array([0, 0, 1, 2, 2, 2]), np.array([0, 1, 1, 1, 1, 2])
    pooled = np.concatenate([x, y])

    def chi2(first):
        table = np.stack([np.bincount(pooled[list(first)], minlength=3),
                          np.bincount(np.delete(pooled, list(first)), minlength=3)]).astype(float)
        expected = table.sum(1, keepdims=True) * table.sum(0, keepdims=True) / table.sum()
        return float(((table - expected) ** 2 / expected).sum())

    observed = chi2(range(6))
    labelled = [chi2(first) for first in itertools.combinations(range(12), 6)]
    exact = np.mean(np.asarray(labelled) >= observed * (1 - 1e-12))
    ours = st.homogeneity(x, y, 3, np.random.default_rng(0))
    assert ours.test.startswith("permutation") and ours.statistic == pytest.approx(observed)
    assert abs(ours.p_value - exact) < 0.015, (ours.p_value, exact)


@pytest.mark.exact
def test_homogeneity_of_a_single_arm_is_no_test():
    outcome = st.homogeneity(np.zeros(30, int), np.zeros(30, int), 4, np.random.default_rng(0))
    assert outcome.p_value == 1.0 and outcome.dof == 0


@pytest.mark.statistical
def test_the_tests_keep_their_level_with_ties():
    """2000 null pairs of samples (30 vs 30 Poisson(2) counts, heavy ties; 30 vs 30 arms of a
    skewed law) tested at level 0.05: the rejection rate is at most 0.05 + 0.02. Under a true
    level <= 0.05, P[Binomial(2000, 0.05) > 140] < 1e-3 (Chernoff), and a mild conservatism of the
    tie-corrected approximation does not break the inequality."""
    rng = np.random.default_rng(11)
    x, y = rng.poisson(2, (2000, 30)), rng.poisson(2, (2000, 30))
    p = stats.mannwhitneyu(x, y, axis=1, method="asymptotic").pvalue
    assert np.mean(p <= 0.05) <= 0.07
    arms = [st.homogeneity(rng.choice(3, 30, p=[0.8, 0.15, 0.05]), rng.choice(3, 30, p=[0.8, 0.15, 0.05]),
                           3, rng, permutations=199).p_value for _ in range(400)]
    # 400 permutation tests: P[Binomial(400, 0.05) > 36] < 1e-3.
    assert np.mean(np.asarray(arms) <= 0.05) <= 0.09


@pytest.mark.statistical
def test_detectable_effect_is_detected_with_the_stated_power():
    """Normal samples of 100 shifted so that the rank-biserial effect equals the detectable one at
    level 0.01: the test rejects in 0.8 +- 0.05 of 1000 replications (the figure is first order;
    the binomial sd is 0.013, so a miss by 0.05 has probability < 1e-4)."""
    n, level = 100, 0.01
    r = st.rank_biserial_detectable(n, n, level)
    # For N(d, 1) vs N(0, 1): r = 2 Phi(d / sqrt 2) - 1.
    d = math.sqrt(2) * stats.norm.ppf((r + 1) / 2)
    rng = np.random.default_rng(7)
    p = stats.mannwhitneyu(rng.normal(d, 1, (1000, n)), rng.normal(0, 1, (1000, n)), axis=1,
                           method="asymptotic").pvalue
    assert abs(np.mean(p <= level) - 0.8) <= 0.05


@pytest.mark.oracle
def test_cramers_v_detectable_has_the_stated_power():
    n, dof, level = 400, 2, 0.001
    v = st.cramers_v_detectable(n, dof, level)
    critical = stats.chi2.ppf(1 - level, dof)
    assert stats.ncx2.sf(critical, dof, n * v * v) == pytest.approx(0.8, abs=1e-6)
    assert math.isnan(st.cramers_v_detectable(n, 0, level))


@settings(max_examples=60, deadline=None)
@given(hs.integers(1, 30), hs.integers(1, 200), hs.integers(2, 6), hs.integers(0, 2**32 - 1))
def test_pulls_at_the_checkpoints_are_the_running_counts(n, T, K, seed):
    # validate.arms.pulls_at counts the stretches between checkpoints; the running count of
    # every round (what it replaced) read at the checkpoints is the same integers.
    from dpbandits.validate.arms import pulls_at

    rng = np.random.default_rng(seed)
    actions = rng.integers(0, K, (n, T))
    points = sorted(set(rng.integers(1, T + 1, rng.integers(1, 8)).tolist()))
    running = np.stack([np.cumsum(actions == a, axis=1) for a in range(K)], axis=2)
    np.testing.assert_array_equal(pulls_at(actions, points, K), running[:, np.array(points) - 1])
