"""AdaP-KLUCB (and its AdaP-UCB index): Sec. 6 (AdaP-KLUCB, Azize & Basu 2022).

Kinds: exact (initialisation, episodes and their draws, zero and scripted noise against an
independent scalar implementation, forgetfulness, the indexes by hand, anytime, bad input),
oracle (the KL index against scipy's brentq), property (Hypothesis: the KL index's defining
inequalities; the doubling structure under real noise), statistical (uniform ties, learning).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats
from scipy.optimize import brentq

from dpbandits.errors import DPBanditsError
from dpbandits.reference import Bernoulli, make, simulate, spec
from dpbandits.reference.bandit.adap_klucb import AdaPKLUCB, bernoulli_kl, kl_ucb_index
from dpbandits.reference.neighbours import ROW
from dpbandits.reference.noise import ScriptedNoise

from .helpers import assert_anytime
from .helpers import drive_runs as drive

BELOW_ONE = float(np.nextafter(1.0, 0.0))


def kl_scalar(p: float, q: float) -> float:
    """Bernoulli relative entropy with math.log, 0 ln 0 = 0."""
    total = 0.0
    for a, b in ((p, q), (1.0 - p, 1.0 - q)):
        if a > 0.0:
            total += math.inf if b <= 0.0 else a * math.log(a / b)
    return total


def kl_index_scalar(p: float, d: float) -> float:
    """max{q in [p, 1] : kl(p, q) <= d} by brentq (largest float below 1 if kl stays below d)."""
    if p >= 1.0:
        return 1.0
    if d <= 0.0:
        return p
    if kl_scalar(p, BELOW_ONE) <= d:
        return BELOW_ONE
    return brentq(lambda q: kl_scalar(p, q) - d, p, BELOW_ONE, xtol=1e-16, rtol=1e-15)


def index_scalar(kind, mu, n, t, epsilon, alpha):
    """One arm's index at t_l = t, from the formulas of Sec. 6 (AdaP-KLUCB, Azize & Basu 2022)."""
    if kind == "ucb":
        return (mu + math.sqrt(alpha * math.log(2 * t) / (2 * n))
                + alpha * math.log(t) / (epsilon * n))
    shifted = min(max(mu + alpha * math.log(t) / (epsilon * n), 0.0), 1.0)
    return kl_index_scalar(shifted, alpha * math.log(t) / n)


def adap_scalar(table, epsilon, T, noise=None, kind="kl", alpha=3.1, n0=1.0):
    """One run of Algorithm 1 written with plain Python, ties to the lowest arm. ``noise`` yields
    the value added to each released mean (zero by default). Returns the actions."""
    K = len(table[0])
    noise = iter(noise) if noise is not None else iter(lambda: 0.0, None)
    N, n, mu, actions = [0] * K, [n0] * K, [0.0] * K, []
    for a in range(K):
        N[a] = 1
        mu[a] = table[a][a] + next(noise)
        actions.append(a)
    t = K
    while t < T:
        values = [index_scalar(kind, mu[a], n[a], t + 1, epsilon, alpha) for a in range(K)]
        arm = values.index(max(values))
        length, total = N[arm], 0.0
        for _ in range(length):
            if t == T:
                return actions
            total += table[t][arm]
            actions.append(arm)
            N[arm] += 1
            t += 1
        mu[arm] = total / length + next(noise)
        n[arm] = length
    return actions


def episodes(actions, K):
    """Split one run's actions into Algorithm 1's episodes: after the K initial pulls each
    episode repeats its arm as many times as the arm was pulled before it (l.7)."""
    out, t = [], K
    while t < len(actions):
        arm = int(actions[t])
        length = int(np.sum(actions[:t] == arm))
        out.append((t, arm, length))
        t += length
    return out


@pytest.mark.exact
@pytest.mark.parametrize("n0, scale", [(1.0, 0.5), (0.5, 1.0)])
def test_initialisation_pulls_each_arm_once_with_its_noise(n0, scale):
    """l.3: rounds 1..K pull arms 1..K; mu~_a = X_a(a) + Lap(1/(eps n_a)), n_a = 1 by default
    and the paper's literal N_a / 2 = 0.5 with init_episode_size=0.5 (deviation 1)."""
    rng = ScriptedNoise(values=[0.25, -0.5, 0.125])
    policy = AdaPKLUCB(3, epsilon=2.0, rng=rng, init_episode_size=n0)
    table = np.array([[0.3, 0.9, 0.1], [0.2, 0.4, 0.6], [1.0, 1.0, 0.0]])
    assert list(drive(policy, table[:, None, :])[0]) == [0, 1, 2]
    np.testing.assert_allclose(policy.mu_tilde[0], [0.55, -0.1, 0.125])
    assert rng.calls == [(scale, 1)] * 3
    np.testing.assert_array_equal(policy.n[0], [n0] * 3)
    np.testing.assert_array_equal(policy.N[0], [1, 1, 1])


@pytest.mark.exact
@pytest.mark.parametrize("kind", ["kl", "ucb"])
@pytest.mark.parametrize("n0", [1.0, 0.5])
def test_scripted_noise_matches_the_scalar_algorithm(kind, n0):
    """The whole action sequence equals the scalar implementation's (brentq for the KL index)
    with distinct scripted noise values, and one draw is made per initial pull and per ended
    episode, of scale 1/(eps n) with n the episode's length."""
    eps, T, K = 0.8, 3000, 3
    table = Bernoulli([0.7, 0.55, 0.4]).table(T, np.random.default_rng(11))
    values = np.random.default_rng(12).uniform(-0.3, 0.3, 200).tolist()
    rng = ScriptedNoise(seed=1, values=list(values))
    policy = AdaPKLUCB(K, epsilon=eps, rng=rng, index=kind, init_episode_size=n0,
                       tie_break="first")
    actions = drive(policy, table[:, None, :])[0]
    expected = adap_scalar(table.tolist(), eps, T, values, kind, n0=n0)
    np.testing.assert_array_equal(actions, expected)
    ended = [(s, a, n) for s, a, n in episodes(actions, K) if s + n <= T]
    assert rng.n_draws == K + len(ended)
    scales = [float(np.ravel(scale)[0]) for scale, _ in rng.calls]
    assert scales[:K] == [pytest.approx(1 / (eps * n0))] * K
    assert scales[K:] == [pytest.approx(1 / (eps * n)) for _, _, n in ended]


@pytest.mark.exact
def test_zero_noise_in_a_batch_matches_the_scalar_algorithm_run_by_run():
    """Runs with different rewards take different paths; each equals its own scalar run."""
    runs, T = 6, 2000
    means = [0.6, 0.5, 0.45, 0.3]
    rewards = np.stack([Bernoulli(means).table(T, np.random.default_rng(20 + i))
                        for i in range(runs)], axis=1)
    policy = AdaPKLUCB(4, epsilon=1.0, runs=runs, rng=ScriptedNoise(seed=2), tie_break="first")
    actions = drive(policy, rewards)
    for i in range(runs):
        np.testing.assert_array_equal(actions[i], adap_scalar(rewards[:, i].tolist(), 1.0, T))
    assert len({tuple(a) for a in actions}) > 1


@pytest.mark.exact
def test_forgetful_private_mean_of_the_last_episode_only():
    """With zero noise, after every round mu~_a is the plain mean of arm a's last ended episode
    and n_a its length, which is N_a / 2 once the arm has had an episode (l.7)."""
    T, K = 1500, 3
    table = Bernoulli([0.65, 0.5, 0.35]).table(T, np.random.default_rng(13))
    policy = AdaPKLUCB(K, epsilon=1.0, rng=ScriptedNoise(seed=3))
    pulls = {a: [] for a in range(K)}
    last = {}
    for t in range(1, T + 1):
        a = policy.act(t)
        j = int(a[0])
        policy.observe(t, a, table[t - 1, a])
        pulls[j].append(float(table[t - 1, j]))
        N = len(pulls[j])
        if N == 1:
            last[j] = pulls[j]
        elif N & (N - 1) == 0:              # the episode that began at N/2 pulls has ended
            last[j] = pulls[j][N // 2:]
        for arm in last:
            assert policy.mu_tilde[0, arm] == pytest.approx(np.mean(last[arm]), abs=1e-12)
            assert policy.n[0, arm] == len(last[arm])
        np.testing.assert_array_equal(policy.N[0], [len(pulls[arm]) for arm in range(K)])


@pytest.mark.property
def test_doubling_episodes_under_real_noise():
    """l.5-l.7 in a batch with real Laplace noise: every run is a sequence of episodes, each
    pulling one arm N_a(t_l - 1) times, the index is read only at episode starts, and draws are
    one per ended episode (checked through the policy's stored means)."""
    runs, T, K = 40, 3000, 4
    rewards = np.random.default_rng(14).random((T, runs, K)) * np.array([1.0, 0.8, 0.7, 0.5])
    policy = AdaPKLUCB(K, epsilon=0.5, runs=runs, rng=np.random.default_rng(15))
    rows = np.arange(runs)
    changes = np.zeros((runs, T), dtype=bool)
    actions = np.empty((runs, T), dtype=np.int64)
    for t in range(1, T + 1):
        before = policy.mu_tilde.copy()
        a = policy.act(t)
        actions[:, t - 1] = a
        policy.observe(t, a, rewards[t - 1, rows, a])
        changes[:, t - 1] = (policy.mu_tilde != before).any(axis=1)
    for i in range(runs):
        run = episodes(actions[i], K)
        assert run[0][0] == K
        ends = {s + n - 1 for s, _, n in run if s + n <= T}
        assert set(np.flatnonzero(changes[i])) == set(range(K)) | ends
        for s, arm, n in run:
            assert (actions[i, s:s + n] == arm).all()
        assert sum(n for _, _, n in run) >= T - K


@pytest.mark.oracle
def test_kl_index_against_brentq():
    """The bisection agrees with a scalar brentq root to 1e-13 on a grid, including p = 0,
    p = 1, d = 0 and saturation near 1."""
    ps = np.array([0.0, 1e-9, 0.05, 0.3, 0.5, 0.77, 0.95, 0.999, 1.0])
    ds = np.array([0.0, 1e-6, 0.01, 0.2, 1.0, 4.0, 30.0])
    P, D = np.meshgrid(ps, ds)
    got = kl_ucb_index(P, D)
    want = np.vectorize(kl_index_scalar)(P, D)
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-13)
    assert (bernoulli_kl(P, got) <= D).all()
    # closed forms: p = 0 gives 1 - e^-d; p = 1 gives 1
    np.testing.assert_allclose(kl_ucb_index(0.0, ds), 1 - np.exp(-ds), atol=1e-15)
    np.testing.assert_array_equal(kl_ucb_index(1.0, ds), 1.0)


@pytest.mark.exact
def test_bernoulli_kl_values():
    """kl(1/2, 1/4) = ln(4/3) / 2; kl(0, q) = -ln(1 - q); kl(1, q) = -ln q; kl(p, p) = 0;
    infinite where q gives no mass to an outcome p does."""
    assert bernoulli_kl(0.5, 0.25) == pytest.approx(0.5 * math.log(4 / 3), rel=1e-15)
    assert bernoulli_kl(0.0, 0.3) == pytest.approx(-math.log(0.7), rel=1e-15)
    assert bernoulli_kl(1.0, 0.3) == pytest.approx(-math.log(0.3), rel=1e-15)
    np.testing.assert_array_equal(bernoulli_kl([0.2, 0.0, 1.0], [0.2, 0.0, 1.0]), 0.0)
    assert bernoulli_kl(0.5, 1.0) == math.inf and bernoulli_kl(0.5, 0.0) == math.inf


@pytest.mark.property
@given(p=st.floats(0.0, 1.0), d=st.floats(0.0, 50.0))
def test_kl_index_is_the_largest_feasible_q(p, d):
    """p <= I <= 1 and kl(p, I) <= d; any q more than 1e-12 above I is infeasible."""
    q = float(kl_ucb_index(p, d))
    assert p <= q <= 1.0
    assert bernoulli_kl(p, q) <= d
    if q < 1.0 - 1e-12:
        assert bernoulli_kl(p, q + 1e-12) > d


@pytest.mark.exact
def test_indexes_by_hand():
    """Sec. 6 (AdaP-KLUCB, Azize & Basu 2022) at t_l = 10, alpha = 3.1, eps = 0.5, with mu~ = (0.6, 0.2) and
    n = (4, 16). UCB, eq. (7): mu~ + sqrt(3.1 ln 20 / (2n)) + 3.1 ln 10 / (0.5 n). KL: the shifted
    mean clips to 1 for n = 4 (index 1) and is 0.2 + 3.1 ln 10 / 8 = 1.0923 -> 1 for n = 16 too;
    at t_l = 3, n = 16, the shift 3.1 ln 3 / 8 = 0.4257 gives p = 0.6257, d = 3.1 ln 3 / 16."""
    policy = AdaPKLUCB(2, epsilon=0.5, rng=0, index="ucb")
    policy.mu_tilde[0] = [0.6, 0.2]
    policy.n[0] = [4.0, 16.0]
    ucb = [0.6 + math.sqrt(3.1 * math.log(20) / 8) + 3.1 * math.log(10) / 2,
           0.2 + math.sqrt(3.1 * math.log(20) / 32) + 3.1 * math.log(10) / 8]
    np.testing.assert_allclose(policy.index(10)[0], ucb, rtol=1e-14)
    policy.index_kind = "kl"
    np.testing.assert_array_equal(policy.index(10)[0], [1.0, 1.0])
    p, d = 0.2 + 3.1 * math.log(3) / 8, 3.1 * math.log(3) / 16
    assert policy.index(3)[0, 1] == pytest.approx(kl_index_scalar(p, d), abs=1e-13)
    assert 0.6257 < policy.index(3)[0, 1] < 1.0


@pytest.mark.exact
def test_anytime_prefixes_agree():
    """No horizon in the constructor; runs to T1 < T2 agree on the first T1 actions (ties are
    random, from the same stream)."""
    assert_anytime("adap-klucb", Bernoulli([0.6, 0.5, 0.4]).table(600, np.random.default_rng(16)),
                   250, seed=4, epsilon=1.0)


@pytest.mark.exact
def test_queries_do_not_draw_noise_or_move_the_episode():
    rng = ScriptedNoise(seed=5)
    policy = AdaPKLUCB(3, epsilon=1.0, rng=rng, tie_break="first")
    table = Bernoulli([0.6, 0.5, 0.4]).table(40, np.random.default_rng(17))
    drive(policy, table[:, None, :])
    draws, left = rng.n_draws, policy.left.copy()
    first = policy.act(41)
    left = policy.left.copy()
    for _ in range(3):
        np.testing.assert_array_equal(policy.act(41), first)
    np.testing.assert_array_equal(policy.left, left)
    assert rng.n_draws == draws


@pytest.mark.exact
def test_bad_input_variants_and_claim():
    for bad in (3.0, 2.0, float("nan"), float("inf"), "x"):
        with pytest.raises(DPBanditsError, match="alpha"):
            AdaPKLUCB(3, epsilon=1.0, rng=0, alpha=bad)
    with pytest.raises(DPBanditsError, match="index"):
        AdaPKLUCB(3, epsilon=1.0, rng=0, index="klucb")
    for bad in (2, 0.25, True, "1"):
        with pytest.raises(DPBanditsError, match="init_episode_size"):
            AdaPKLUCB(3, epsilon=1.0, rng=0, init_episode_size=bad)
    with pytest.raises(DPBanditsError, match="unknown parameter"):
        make("adap-klucb", 3, epsilon=1.0, rng=0, beta=0.1)
    policy = make("adap-klucb", 3, epsilon=1.0, rng=0, alpha=4.0, index="ucb",
                  init_episode_size=0.5, T=100)
    assert (policy.alpha, policy.index_kind, policy.init_episode_size) == (4.0, "ucb", 0.5)
    assert AdaPKLUCB(3, epsilon=1.0, rng=0).tie_break == "random"
    for t in range(1, 4):
        policy.observe(t, policy.act(t), np.array([0.5]))
    a = policy.act(4)
    with pytest.raises(DPBanditsError, match="actions"):
        policy.observe(4, (a + 1) % 3, np.array([0.5]))
    assert [v.name for v in AdaPKLUCB.variants] == ["paper"]
    claim = AdaPKLUCB(3, epsilon=0.3, rng=0).claim
    assert claim.status == "holds" and claim.claimed.epsilon == claim.proven.epsilon == 0.3
    assert claim.claimed.delta == 0.0 and claim.claimed.relation == ROW


@pytest.mark.statistical
def test_saturated_ties_are_broken_uniformly():
    """Deviation 3: with all rewards 1 and zero noise every KL index is 1 at t = K+1, so the
    first episode's arm is uniform over the K = 4 arms. Chi-square test over 4000 runs,
    rejecting at p < 1e-4 (false-failure probability 1e-4 under a correct implementation)."""
    runs, K = 4000, 4
    policy = AdaPKLUCB(K, epsilon=1.0, runs=runs, rng=ScriptedNoise(seed=6))
    for t in range(1, K + 1):
        policy.observe(t, policy.act(t), np.ones(runs))
    assert (policy.index(K + 1) == 1.0).all()
    counts = np.bincount(policy.act(K + 1), minlength=K)
    assert stats.chisquare(counts).pvalue > 1e-4
    first = AdaPKLUCB(K, epsilon=1.0, runs=3, rng=ScriptedNoise(seed=6), tie_break="first")
    for t in range(1, K + 1):
        first.observe(t, first.act(t), np.ones(3))
    assert (first.act(K + 1) == 0).all()


@pytest.mark.statistical
@pytest.mark.parametrize("kind", ["kl", "ucb"])
def test_learns_the_best_arm(kind):
    """Means (0.8, 0.5, 0.4), eps = 1, T = 4000, 100 runs. The mean share of pulls of the best arm
    is 0.82 (kl) and 0.79 (ucb) at this seed, with standard errors near 0.0035; the test asks for
    more than 0.7, at least 25 standard errors below: a false failure has probability below
    1/625 = 1.6e-3 by Chebyshev and below 1e-9 by the normal approximation."""
    result = simulate(spec("adap-klucb", 3, epsilon=1.0, index=kind), Bernoulli([0.8, 0.5, 0.4]),
                      4000, runs=100, seed=7)
    assert result.pulls[:, 0].mean() / 4000 > 0.7
