"""Report-noisy-max: exact output laws, the epoch schedule, and sampling against the laws.

Kinds: exact (closed forms and values worked by hand), oracle (mpmath quadrature, an
independent permute-and-flip sampler), property (Hypothesis invariances), statistical (Monte Carlo
frequencies against the exact laws; fixed seeds, failure probabilities stated per test).
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from dpbandits.errors import DPBanditsError
from dpbandits.reference.report_noisy_max import (
    NOISES, EpochRNM, epoch_of, epoch_rounds, epoch_sums, epochs_played, literal_epoch_count,
    log_probabilities, noisy_argmax, probabilities, resampled_sum_law, rounds_played_in_epoch,
    sample_noise)


def loss(p_event_0: float, p_event_1: float) -> float:
    return math.log(p_event_0 / p_event_1)


@pytest.mark.exact
@pytest.mark.parametrize("noise, scale, expected", [
    ("laplace", 2.0, (0.351496, 0.235524, 0.280023, 0.132957)),
    ("exponential", 1.0, (0.492018, 0.182762, 0.264340, 0.060880)),
    ("gumbel", 2.0, (0.338887, 0.238810, 0.277457, 0.144845)),
])
def test_spec_004_oracle_values(noise, scale, expected):
    """G = (0.3, 1.0, 0.7, 2.0), u = -G, eps = 1."""
    p = probabilities(-np.array([0.3, 1.0, 0.7, 2.0]), noise, scale)
    np.testing.assert_allclose(p, expected, atol=1e-6)
    assert p.sum() == pytest.approx(1.0, abs=1e-12)


@pytest.mark.exact
def test_k2_closed_forms_on_a_grid():
    """Alg. 1 line 16: K = 2 closed forms of P[J = 1] in d = G_1 - G_2 (losses)."""
    for beta in (0.5, 1.0, 2.0):
        for d in np.linspace(-5, 5, 21):
            scores = np.array([-d, 0.0])
            a = abs(d) / beta
            gumbel = 1.0 / (1.0 + math.exp(d / beta))
            expo = 0.5 * math.exp(-a) if d >= 0 else 1.0 - 0.5 * math.exp(-a)
            lap_tail = 0.5 * (1.0 + a / 2.0) * math.exp(-a)
            lap = lap_tail if d >= 0 else 1.0 - lap_tail
            assert probabilities(scores, "gumbel", beta)[0] == pytest.approx(gumbel, abs=1e-12)
            assert probabilities(scores, "exponential", beta)[0] == pytest.approx(expo, abs=1e-12)
            assert probabilities(scores, "laplace", beta)[0] == pytest.approx(lap, abs=1e-10)


@pytest.mark.exact
def test_k2_values_of_spec_004_item_6_3_5():
    scores = -np.array([0.0, 1.0])
    assert probabilities(scores, "gumbel", 2.0)[1] == pytest.approx(0.377541, abs=1e-6)
    assert probabilities(scores, "exponential", 2.0)[1] == pytest.approx(0.303265, abs=1e-6)
    assert probabilities(scores, "exponential", 1.0)[1] == pytest.approx(0.183940, abs=1e-6)
    assert probabilities(scores, "laplace", 2.0)[1] == pytest.approx(0.379082, abs=1e-6)


@pytest.mark.exact
def test_issue_worked_privacy_losses():
    """K = 2, eps = 1, Lap(1/eps): sums differing by 0 vs 2 give log ratio 1.3069; exponential
    noise at scale 1/eps gives exactly 2 eps on (2, 0) vs (1, 1); K = 5 gives 1.759."""
    tie = probabilities(np.array([0.0, 0.0]), "laplace", 1.0)[1]
    behind = probabilities(np.array([2.0, 0.0]), "laplace", 1.0)[1]
    assert loss(tie, behind) == pytest.approx(2.0 + math.log(0.5), abs=1e-10)
    assert loss(tie, behind) == pytest.approx(1.3069, abs=1e-4)
    for eps in (0.5, 1.0, 2.0):
        # losses (2, 0) vs (1, 1) are rewards (0, 2) vs (1, 1); event J = action 1
        p = probabilities(np.array([0.0, 2.0]), "exponential", 1 / eps)[0]
        q = probabilities(np.array([1.0, 1.0]), "exponential", 1 / eps)[0]
        assert p == pytest.approx(0.5 * math.exp(-2 * eps), rel=1e-12)
        assert loss(q, p) == pytest.approx(2 * eps, abs=1e-12)
    p = probabilities(np.array([1.0, 0, 0, 0, 0]), "laplace", 1.0)[0]
    q = probabilities(np.array([0.0, 1, 1, 1, 1]), "laplace", 1.0)[0]
    assert (p, q) == (pytest.approx(0.43566, abs=1e-5), pytest.approx(0.07503, abs=1e-5))
    assert loss(p, q) == pytest.approx(1.759, abs=1e-3)


@pytest.mark.exact
@pytest.mark.parametrize("K, eps, scale_mult, p_x, p_x_prime", [
    (2, 1.0, 1, 0.72409, 0.27591),
    (3, 1.0, 1, 0.59019, 0.14201),
    (5, 1.0, 1, 0.43566, 0.07503),
    (5, 0.5, 1, 0.30884, 0.12327),
    (10, 1.0, 1, 0.25734, 0.03680),
    (3, 1.0, 2, 0.46390, 0.22206),
    (5, 1.0, 2, 0.30884, 0.12327),
    (10, 1.0, 2, 0.16367, 0.06067),
])
def test_spec_002_e1_table(K, eps, scale_mult, p_x, p_x_prime):
    """docs/errata.md#rnm-laplace: epoch 0, X(1) = e_1 vs 1 - e_1, event 'action 1 at round 2'."""
    e1 = np.eye(K)[0]
    assert probabilities(e1, "laplace", scale_mult / eps)[0] == pytest.approx(p_x, abs=1e-5)
    assert probabilities(1 - e1, "laplace", scale_mult / eps)[0] == pytest.approx(p_x_prime, abs=1e-5)


@pytest.mark.exact
@pytest.mark.parametrize("noise, scale, epoch1, epoch2, large", [
    ("laplace", 2.0, 0.493448, 0.594530, 0.95348),
    ("exponential", 1.0, 1.489880, 2.0, 2.0),
    ("exponential", 2.0, 0.831797, 1.0, 1.0),
    ("gumbel", 2.0, 0.5, 0.620115, 1.0000),
])
def test_spec_004_single_rnm_privacy_losses(noise, scale, epoch1, epoch2, large):
    """Sec. 3.1 table (K = 2, eps = 1, event J = action 1; losses G vs G')."""
    def privacy_loss(G, G_prime):
        return loss(probabilities(-np.array(G), noise, scale)[0],
                    probabilities(-np.array(G_prime), noise, scale)[0])
    assert abs(privacy_loss([0, 1], [1, 0])) == pytest.approx(epoch1, abs=1e-5)
    assert abs(privacy_loss([1, 1], [2, 0])) == pytest.approx(epoch2, abs=1e-5)
    assert abs(privacy_loss([39, 1], [40, 0])) == pytest.approx(large, abs=1e-4)


@pytest.mark.oracle
def test_laplace_law_against_mpmath():
    """The Laplace integral at 30 digits with mpmath, on breakpoint-split intervals."""
    mpmath.mp.dps = 30
    u = [0.4, -1.3, 0.0]
    beta = 0.7
    for j in range(3):
        def integrand(z, j=j):
            value = mpmath.exp(-abs(z) / beta) / (2 * beta)
            for i in range(3):
                if i != j:
                    x = (u[j] - u[i] + z) / beta
                    value *= mpmath.exp(x) / 2 if x < 0 else 1 - mpmath.exp(-x) / 2
            return value
        points = sorted({0.0, *[u[i] - u[j] for i in range(3) if i != j]})
        exact = mpmath.quad(integrand, [-mpmath.inf, *points, mpmath.inf])
        assert probabilities(np.array(u), "laplace", beta)[j] == pytest.approx(float(exact), rel=1e-9)


@pytest.mark.exact
def test_exponential_noise_is_not_softmax():
    """u = (0, -1), beta = 1."""
    assert probabilities(np.array([0.0, -1.0]), "exponential", 1.0)[1] == pytest.approx(0.18394, abs=1e-5)
    assert probabilities(np.array([0.0, -1.0]), "gumbel", 1.0)[1] == pytest.approx(0.26894, abs=1e-5)


@pytest.mark.exact
def test_tiny_probabilities_do_not_underflow():
    """An action 2000 scale units behind has log-probability about -2000, not -inf."""
    for noise in NOISES:
        logp = log_probabilities(np.array([0.0, -2000.0]), noise, 1.0)
        assert np.all(np.isfinite(logp))
        assert -2001.0 < logp[1] < -1990.0


@pytest.mark.statistical
@pytest.mark.parametrize("noise", NOISES)
def test_the_law_of_ten_thousand_arms_is_finite_and_sums_to_one(noise):
    """K = 10 000 (the largest the tool takes): equal utilities give 1/K each by symmetry (exact),
    and one arm 9 scale units ahead of the rest (P[J = 0] about 1/2) wins in 2000 simulated
    runs as often as the law says (a two-sided binomial interval at level 1e-6: a false alarm
    with probability at most 1e-6 per noise, fixed seed). Before, the Laplace law's integrand
    was scaled by its value at the kinks only, about e^-6900 below its maximum (at
    z = ln(K / 2)) with equal utilities, and the integral overflowed."""
    K = 10_000
    np.testing.assert_allclose(probabilities(np.zeros(K), noise, 1.0), 1 / K, rtol=1e-6)
    u = np.zeros(K)
    u[0] = 9.0
    law = probabilities(u, noise, 1.0)
    assert law.sum() == pytest.approx(1.0, abs=1e-9) and np.all(law[1:] == law[1])
    rng = np.random.default_rng(0)
    wins = sum(int(np.sum(np.argmax(u + sample_noise(rng, noise, 1.0, (200, K)), axis=1) == 0))
               for _ in range(10))
    low, high = stats.binom.interval(1 - 1e-6, 2000, law[0])
    assert low <= wins <= high, (wins, law[0])


@pytest.mark.exact
def test_limits_in_the_scale():
    u = np.array([0.0, -1.0, -1.0, -3.0])
    for noise in NOISES:
        assert probabilities(u, noise, 1e-3)[0] == pytest.approx(1.0, abs=1e-9)
        np.testing.assert_allclose(probabilities(u, noise, 1e6), 0.25, atol=1e-5)


@pytest.mark.property
@settings(max_examples=30, deadline=None)
@given(u=st.lists(st.floats(-5, 5), min_size=2, max_size=5), shift=st.floats(-10, 10),
       factor=st.floats(0.2, 5), beta=st.floats(0.2, 5), noise=st.sampled_from(NOISES),
       seed=st.integers(0, 1000))
def test_invariances(u, shift, factor, beta, noise, seed):
    """Shift invariance, joint scaling of scores and scale, permutation equivariance, monotonicity."""
    u = np.array(u)
    p = probabilities(u, noise, beta)
    assert p.sum() == pytest.approx(1.0, abs=1e-9) and np.all(p >= 0)
    np.testing.assert_allclose(probabilities(u + shift, noise, beta), p, atol=1e-9)
    np.testing.assert_allclose(probabilities(u * factor, noise, beta * factor), p, atol=1e-9)
    perm = np.random.default_rng(seed).permutation(u.size)
    np.testing.assert_allclose(probabilities(u[perm], noise, beta), p[perm], atol=1e-9)
    raised = u.copy()
    raised[0] += 0.5
    q = probabilities(raised, noise, beta)
    assert q[0] >= p[0] - 1e-12 and np.all(q[1:] <= p[1:] + 1e-12)


@pytest.mark.property
@settings(max_examples=30, deadline=None)
@given(u=st.lists(st.floats(-3, 3), min_size=2, max_size=6), beta=st.floats(0.2, 3))
def test_permute_and_flip_utility_dominates_the_exponential_mechanism(u, beta):
    """McKenna and Sheldon, Thm 2: at equal scale, E[u_J] under RNM-Exp >= under RNM-Gumbel."""
    u = np.array(u)
    assert probabilities(u, "exponential", beta) @ u >= probabilities(u, "gumbel", beta) @ u - 1e-9


def _chi2_pvalue(counts: np.ndarray, p: np.ndarray) -> float:
    expected = counts.sum() * p
    keep = expected > 0
    return stats.chisquare(counts[keep], expected[keep] * counts[keep].sum() / expected[keep].sum()).pvalue


@pytest.mark.statistical
@pytest.mark.parametrize("noise", NOISES)
def test_sampler_matches_the_exact_law(noise):
    """2e5 RNM draws per case, chi-square goodness of fit; fails with probability <= 1e-6 per
    case under the null (fixed seed)."""
    rng = np.random.default_rng(20261122)
    for u, beta in [(np.array([0.3, -0.4, 0.0, -1.2]), 0.8), (np.array([2.0, 0.0, 1.0]), 1.5)]:
        J = noisy_argmax(rng, np.broadcast_to(u, (200_000, u.size)), noise, beta)
        counts = np.bincount(J, minlength=u.size)
        assert _chi2_pvalue(counts, probabilities(u, noise, beta)) > 1e-6


@pytest.mark.oracle
def test_exponential_law_against_an_independent_permute_and_flip_sampler():
    """Permute-and-flip (visit actions in random order, accept i with prob q_i) vs the closed form;
    2e5 draws, chi-square, false-failure probability <= 1e-6 (fixed seed)."""
    rng = np.random.default_rng(7)
    u, beta = np.array([0.0, -0.5, -1.0, -2.0]), 1.0
    q = np.exp((u - u.max()) / beta)
    n = 200_000
    counts = np.zeros(u.size, dtype=np.int64)
    remaining = np.arange(n)
    while remaining.size:
        order = np.argsort(rng.random((remaining.size, u.size)), axis=1)
        accept = rng.random((remaining.size, u.size)) < q[order]
        first = np.argmax(accept, axis=1)
        done = accept.any(axis=1)
        np.add.at(counts, order[done, first[done]], 1)
        remaining = remaining[~done]
    assert _chi2_pvalue(counts, probabilities(u, "exponential", beta)) > 1e-6


@pytest.mark.exact
def test_epoch_schedule():
    """(T, L, N) triples, and the rounds add up to T."""
    triples = [(3, 2, 2), (4, 3, 3), (5, 3, 3), (6, 4, 3), (7, 4, 3), (8, 4, 4), (9, 4, 4),
               (10, 5, 4), (16, 5, 5), (17, 5, 5), (18, 6, 5)]
    for T, L, N in triples:
        assert literal_epoch_count(T) == L and epochs_played(T) == N
    assert literal_epoch_count(2) == 1 and epochs_played(2) == 2
    for T in range(1, 300):
        assert sum(rounds_played_in_epoch(e, T) for e in range(epochs_played(T) + 2)) == T
    for t in range(1, 300):
        first, last = epoch_rounds(epoch_of(t))
        assert first <= t <= last
    with pytest.raises(DPBanditsError, match="T"):
        literal_epoch_count(1)


@pytest.mark.exact
def test_epoch_sums_and_resampled_law():
    table = np.arange(7 * 2, dtype=float).reshape(7, 2) / 20
    sums = epoch_sums(table)
    np.testing.assert_allclose(sums[1], table[1:3].sum(axis=0))
    np.testing.assert_allclose(sums[2], table[3:7].sum(axis=0))
    np.testing.assert_allclose(resampled_sum_law(np.full(5, 0.3)), stats.binom.pmf(np.arange(6), 5, 0.3))


@pytest.mark.exact
def test_bad_input():
    with pytest.raises(DPBanditsError, match="noise"):
        probabilities(np.zeros(2), "cauchy", 1.0)
    with pytest.raises(DPBanditsError, match="scale"):
        probabilities(np.zeros(2), "laplace", 0.0)
    with pytest.raises(DPBanditsError, match="scores"):
        probabilities(np.array([0.0, np.nan]), "laplace", 1.0)
    model = EpochRNM(2, np.full(2, 0.5), "laplace", 1.0)
    with pytest.raises(DPBanditsError, match="columns"):
        model.log_probability(np.zeros((4, 2)), np.zeros(3, dtype=int))
