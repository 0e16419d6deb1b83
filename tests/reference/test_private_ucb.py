"""Private-UCB (Mishra and Thakurta, UAI 2015): Sec. 4 (Private-UCB, Mishra & Thakurta 2015) and docs/errata.md#td-private-ucb.

Kinds: exact (reference values of Gamma, the trees at eps/K, zero and scripted noise, the
index, the horizon, the claim, bad input), oracle (each private total against an independent
model of the dyadic nodes), statistical (the relaxation dominates at eps = 1; UCB-like at large
eps).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpbandits.errors import DPBanditsError
from dpbandits.reference import Bernoulli, make, simulate, spec
from dpbandits.reference.bandit.private_ucb import PrivateUCB, confidence_relaxation
from dpbandits.reference.noise import ScriptedNoise

RTOL = 1e-12


@pytest.mark.exact
def test_gamma_reference_values():
    """Sec. 4 (Private-UCB, Mishra & Thakurta 2015) (ln, eps = 1, T = 1e5): K = 2: Gamma_3 = 5048.47, Gamma_T = 16091.59
    (= Gamma with the fixed gamma = T^-4); K = 10: Gamma_11 = 34264.26, Gamma_T = 82591.22."""
    T = 10 ** 5
    assert confidence_relaxation(2, T, 1.0, 3) == pytest.approx(5048.47, abs=5e-3)
    assert confidence_relaxation(2, T, 1.0, T) == pytest.approx(16091.59, abs=5e-3)
    assert confidence_relaxation(10, T, 1.0, 11) == pytest.approx(34264.26, abs=5e-3)
    assert confidence_relaxation(10, T, 1.0, T) == pytest.approx(82591.22, abs=5e-3)
    for t in (3, 50, 999, T):
        fixed = confidence_relaxation(2, T, 1.0, t, gamma_rule="T")
        assert fixed == pytest.approx(16091.59, abs=5e-3)


@pytest.mark.exact
def test_gamma_by_hand_for_both_depth_logs():
    """Gamma_t = K depth^2 ln(K T ln T / gamma) / eps with gamma = t^-4; depth = ln T or log2 T."""
    K, T, eps, t = 3, 1000, 0.4, 17
    inner = math.log(K * T * math.log(T) * t ** 4)
    assert confidence_relaxation(K, T, eps, t) == pytest.approx(
        K * math.log(T) ** 2 * inner / eps, rel=RTOL)
    assert confidence_relaxation(K, T, eps, t, depth_log="log2") == pytest.approx(
        K * math.log2(T) ** 2 * inner / eps, rel=RTOL)
    increasing = [confidence_relaxation(K, T, eps, s) for s in range(1, T + 1, 37)]
    assert all(a < b for a, b in zip(increasing, increasing[1:]))


@pytest.mark.exact
def test_one_tree_per_arm_at_eps_over_K_and_zero_noise_index_by_hand():
    """Init pulls arms 1..K in order; every insertion draws exactly one Laplace variable at
    the node scale (floor(log2 T) + 1) / eps0 with eps0 = eps / K; with zero noise each private
    total is the arm's exact sum and the action is the argmax of the index computed by hand, in
    every run of a batch."""
    K, T, eps, runs = 3, 200, 0.5, 6
    rng = ScriptedNoise(seed=1)
    policy = PrivateUCB(K, epsilon=eps, T=T, runs=runs, rng=rng)
    assert policy.epsilon0 == pytest.approx(eps / K)
    rewards = np.random.default_rng(2).random((T, runs))
    sums, counts = np.zeros((runs, K)), np.zeros((runs, K))
    rows = np.arange(runs)
    for t in range(1, T + 1):
        a = policy.act(t)
        if t <= K:
            assert (a == t - 1).all()
        else:
            gamma = K * math.log(T) ** 2 * math.log(K * T * math.log(T) * t ** 4) / eps
            index = sums / counts + np.sqrt(2 * math.log(t) / counts) + gamma / counts
            np.testing.assert_allclose(policy.index(t), index, rtol=RTOL)
            np.testing.assert_array_equal(a, np.argmax(index, axis=1))
        calls = len(rng.calls)
        policy.observe(t, a, rewards[t - 1])
        assert len(rng.calls) == calls + 1 and rng.n_draws == t * runs
        scale, size = rng.calls[-1]
        assert size == runs and np.all(np.asarray(scale) == (T.bit_length()) * K / eps)
        sums[rows, a] += rewards[t - 1]
        counts[rows, a] += 1
        np.testing.assert_allclose(policy.trees.value, sums, rtol=RTOL, atol=1e-12)
        np.testing.assert_array_equal(policy.n, counts)
    assert T.bit_length() == math.floor(math.log2(T)) + 1
    assert len({tuple(row) for row in counts}) > 1        # the runs took different paths


def prefix_ends(n: int) -> list[int]:
    """The insertions whose completed dyadic node is in the release after n items: the block
    ends of [1, n] split into maximal dyadic blocks, largest first (one per set bit of n)."""
    ends, covered = [], 0
    for level in reversed(range(n.bit_length())):
        if n >> level & 1:
            covered += 1 << level
            ends.append(covered)
    return ends


@pytest.mark.oracle
def test_private_totals_are_the_sums_plus_the_dyadic_node_noise_of_their_own_tree():
    """Each arm's tree sees only its own rewards, in pull order: after n pulls the private total
    is the true sum plus the noise drawn at that arm's insertions prefix_ends(n), i.e.
    popcount(n) distinct scripted values; the index uses it."""
    K, T, eps = 3, 300, 1.0
    values = np.random.default_rng(3).uniform(-2, 2, T).tolist()
    rng = ScriptedNoise(seed=4, values=values)
    policy = PrivateUCB(K, epsilon=eps, T=T, rng=rng)
    table = Bernoulli([0.7, 0.6, 0.5]).table(T, np.random.default_rng(5))
    draws = {j: [] for j in range(K)}
    rewards = {j: [] for j in range(K)}
    for t in range(1, T + 1):
        a = policy.act(t)
        j = int(a[0])
        before = rng.n_draws
        policy.observe(t, a, table[t - 1, a])
        draws[j].extend(rng.draws[before:])
        rewards[j].append(table[t - 1, j])
        n = len(rewards[j])
        noise = sum(draws[j][end - 1] for end in prefix_ends(n))
        assert policy.trees.value[0, j] == pytest.approx(sum(rewards[j]) + noise, abs=1e-9)
        assert len(prefix_ends(n)) == bin(n).count("1")
    n = policy.n[0].astype(float)
    by_hand = (policy.trees.value[0] / n + np.sqrt(2 * math.log(T) / n)
               + confidence_relaxation(K, T, eps, T) / n)
    np.testing.assert_allclose(policy.index(T)[0], by_hand, rtol=RTOL)


@pytest.mark.exact
def test_needs_the_horizon_and_refuses_rounds_past_it():
    assert PrivateUCB.needs_horizon
    with pytest.raises(DPBanditsError, match="horizon"):
        make("private-ucb", 2, epsilon=1.0, rng=0)
    policy = make("private-ucb", 2, epsilon=1.0, rng=0, T=5, gamma_rule="T", depth_log="log2")
    assert (policy.T, policy.gamma_rule, policy.depth_log) == (5, "T", "log2")
    table = np.random.default_rng(6).random((5, 2))
    for t in range(1, 6):
        a = policy.act(t)
        policy.observe(t, a, table[t - 1, a])
    with pytest.raises(DPBanditsError, match="horizon T = 5"):
        policy.act(6)


@pytest.mark.exact
def test_gamma_rule_T_uses_the_same_relaxation_every_round():
    """docs/errata.md#td-private-ucb option: with gamma = T^-4 Gamma_t = Gamma_T, so the index differs from the
    default rule's by (Gamma_T - Gamma_t) / n_a only."""
    K, T = 2, 100
    fixed = PrivateUCB(K, epsilon=1.0, T=T, rng=ScriptedNoise(seed=7), gamma_rule="T")
    moving = PrivateUCB(K, epsilon=1.0, T=T, rng=ScriptedNoise(seed=7))
    for policy in (fixed, moving):
        for t in (1, 2):
            policy.observe(t, np.array([t - 1]), np.array([0.5]))
    for t in (3, 40, T):
        assert fixed.Gamma(t) == pytest.approx(confidence_relaxation(K, T, 1.0, T), rel=RTOL)
        gap = (fixed.Gamma(t) - moving.Gamma(t)) / fixed.n
        np.testing.assert_allclose(fixed.index(t) - moving.index(t), gap, rtol=1e-9, atol=1e-9)
    assert (fixed.Gamma(3) > moving.Gamma(3)) and fixed.Gamma(T) == pytest.approx(moving.Gamma(T))


@pytest.mark.exact
def test_claim_holds_with_a_factor_K_to_spare():
    policy = PrivateUCB(4, epsilon=2.0, T=100, rng=0)
    claim = policy.claim
    assert claim.status == "holds"
    assert claim.claimed.epsilon == 2.0 and claim.claimed.delta == 0.0
    assert claim.proven.epsilon == pytest.approx(0.5)
    assert claim.proven.implies(claim.claimed)
    assert [v.name for v in PrivateUCB.variants] == ["paper"]


@pytest.mark.exact
def test_bad_input_is_refused():
    with pytest.raises(DPBanditsError, match="gamma_rule"):
        PrivateUCB(2, epsilon=1.0, T=10, rng=0, gamma_rule="fixed")
    with pytest.raises(DPBanditsError, match="depth_log"):
        PrivateUCB(2, epsilon=1.0, T=10, rng=0, depth_log="log10")
    for bad in (0, -3, 2.5):
        with pytest.raises(DPBanditsError, match="T must"):
            PrivateUCB(2, epsilon=1.0, T=bad, rng=0)
    with pytest.raises(DPBanditsError, match="t must be a round"):
        confidence_relaxation(2, 10, 1.0, 11)
    with pytest.raises(DPBanditsError, match="T must"):
        confidence_relaxation(2, 1, 1.0, 1)
    with pytest.raises(DPBanditsError, match="epsilon"):
        confidence_relaxation(2, 10, 0.0, 3)
    with pytest.raises(DPBanditsError, match="unknown parameter"):
        make("private-ucb", 2, epsilon=1.0, rng=0, T=10, gamma=1e-3)


@pytest.mark.statistical
def test_relaxation_dominates_at_eps_1_and_vanishes_at_large_eps():
    """Sec. 4 ("Private-UCB performs worse"): at eps = 1, T = 3000 the term
    Gamma_t / n_a (Gamma_t from 1.9e3 to 5.5e3) swamps the gap 0.3, so the pulls stay nearly
    balanced; at eps = 1e4 it is negligible and the algorithm behaves like UCB1. Measured at
    these seeds over 200 runs: best-arm share 0.520 (sd 0.005 across runs) and 0.961 (sd 0.009).
    The thresholds 0.6 and 0.85 lie over 100 standard errors away: failure probability < 1e-4
    by Chebyshev."""
    source = Bernoulli([0.9, 0.6])
    noisy = simulate(spec("private-ucb", 2, epsilon=1.0, T=3000), source, 3000, runs=200, seed=1)
    assert noisy.pulls[:, 0].mean() / 3000 < 0.6
    clear = simulate(spec("private-ucb", 2, epsilon=1e4, T=3000), source, 3000, runs=200, seed=1)
    assert clear.pulls[:, 0].mean() / 3000 > 0.85
