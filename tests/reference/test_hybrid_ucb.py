"""Hybrid-UCB (Alg. 4, App. E of Hu, Huang & Mehta 2021) and the worst-case privacy loss of both variants (docs/errata.md#hhm-hybrid-tree).

Kinds: exact (init, zero noise, partition and node sets, draws, index, anytime), oracle (the
privacy loss of every observation, from the draws the code makes and an independent model of
the tree), statistical (regret sanity).

The model below names every noise variable by its logical slot:
``("Z", q)`` is array q's variable, ``("Y", r, l, m)`` the variable of node (l, m) of tree r,
which covers leaves (m-1) 2^l + 1 .. m 2^l, i.e. an arm's observations 2^r + (m-1) 2^l ..
2^r + m 2^l - 1.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpbandits.errors import DPBanditsError
from dpbandits.reference import Bernoulli, simulate, spec
from dpbandits.reference.bandit.hybrid_ucb import HybridUCB
from dpbandits.reference.noise import ScriptedNoise

from .helpers import assert_anytime

VARIANTS = ("paper", "corrected")


def tree_of(n: int) -> tuple[int, int]:
    """(r, tau): observation n >= 2 lies in tree r = floor(log2 n), which then holds tau leaves."""
    r = n.bit_length() - 1
    return r, n - (1 << r) + 1


def release_slots(n: int) -> set[tuple]:
    """Noise in the private mean after an arm's n-th observation (Alg. 4, App. E partition).

    Arrays 0..r-1 (the first 2^r - 1 observations), then one node per set bit of tau, highest
    first; for n = 1 only Z^(0).
    """
    if n == 1:
        return {("Z", 0)}
    r, tau = tree_of(n)
    slots = {("Z", q) for q in range(r)}
    covered = 0
    for level in reversed(range(r + 1)):
        if tau >> level & 1:
            slots.add(("Y", r, level, covered // (1 << level) + 1))
            covered += 1 << level
    return slots


def drawn_slots(n: int) -> list[tuple]:
    """Noise drawn while the n-th observation is processed, in order: the node that completes,
    then, when the tree fills, the variable of the array that fills with it."""
    if n == 1:
        return [("Z", 0)]
    r, tau = tree_of(n)
    level = (tau & -tau).bit_length() - 1
    slots = [("Y", r, level, tau >> level)]
    if tau == 1 << r:
        slots.append(("Z", r))
    return slots


def covers(slot: tuple) -> range:
    """The observations (1-based, per arm) whose sum the slot's variable noises."""
    if slot[0] == "Z":
        q = slot[1]
        return range(1 << q, 1 << (q + 1))
    _, r, level, m = slot
    first = (1 << r) + (m - 1) * (1 << level)
    return range(first, first + (1 << level))


def run_scripted(variant: str, K: int = 3, T: int = 300, epsilon: float = 0.5, seed: int = 0):
    """Drive one run on a Bernoulli table with distinct scripted noise values.

    Returns the policy, each arm's observations, each arm's {slot: (value, scale)} and, per
    round, the pulled arm with O_j * mu~_j after the update.
    """
    table = Bernoulli(np.linspace(0.7, 0.3, K)).table(T, np.random.default_rng(seed))
    values = np.random.default_rng(seed + 1).uniform(-3.0, 3.0, 3 * T).tolist()
    rng = ScriptedNoise(seed=seed + 2, values=values)
    policy = HybridUCB(K, epsilon=epsilon, rng=rng, variant=variant)
    obs = {j: [] for j in range(K)}
    noise = {j: {} for j in range(K)}
    trace = []
    for t in range(1, T + 1):
        a = policy.act(t)
        j = int(a[0])
        calls_before, draws_before = len(rng.calls), rng.n_draws
        policy.observe(t, a, table[t - 1, a])
        obs[j].append(float(table[t - 1, j]))
        scales = [float(np.ravel(scale)[0]) for scale, _ in rng.calls[calls_before:]]
        new_draws = rng.draws[draws_before:]
        slots = drawn_slots(len(obs[j]))
        assert len(new_draws) == len(scales) == len(slots)
        for slot, value, scale in zip(slots, new_draws, scales):
            assert slot not in noise[j]
            noise[j][slot] = (value, scale)
        trace.append((j, len(obs[j]), float(policy.O[0, j] * policy.mu_tilde[0, j])))
    return policy, obs, noise, trace


@pytest.mark.exact
@pytest.mark.parametrize("variant", VARIANTS)
def test_init_mean_is_the_reward_plus_Z0_and_Z0_is_reused(variant):
    """Item 1: mu~_{j,1} = X_j(j) + Z_j^(0), Z ~ Lap(2/eps), and Z_j^(0) is in every later mean."""
    policy, obs, noise, trace = run_scripted(variant, epsilon=0.5)
    K = policy.K
    for j in range(K):
        value, scale = noise[j][("Z", 0)]
        assert scale == pytest.approx(2 / 0.5)
        assert trace[j] == (j, 1, pytest.approx(obs[j][0] + value))
    for j, n, _ in trace:
        assert ("Z", 0) in release_slots(n)


@pytest.mark.exact
@pytest.mark.parametrize("variant", VARIANTS)
def test_every_release_is_the_sum_plus_exactly_the_predicted_noise(variant):
    """Items 3-5: after n observations, O mu~ = (sum of all n) + Z^(0..r-1) + the popcount(tau)
    nodes of tree r = floor(log2 n); every variable drawn once, when its slot completes, and
    reused unchanged. Distinct scripted values make any other partition or node set fail."""
    policy, obs, noise, trace = run_scripted(variant)
    for j, n, released in trace:
        slots = release_slots(n)
        expected = sum(obs[j][:n]) + sum(noise[j][slot][0] for slot in slots)
        assert released == pytest.approx(expected, abs=1e-9)
        if n >= 2:
            r, tau = tree_of(n)
            nodes = [s for s in slots if s[0] == "Y"]
            assert len(nodes) == (1 if tau == 1 << r else bin(tau).count("1")) <= r
            assert len(slots) - len(nodes) == r          # first group: 2^r - 1 observations
            assert sum(len(covers(s)) for s in nodes) == tau == n - 2 ** r + 1
            assert sum(len(covers(s)) for s in slots if s[0] == "Z") == 2 ** r - 1


@pytest.mark.exact
@pytest.mark.parametrize("variant", VARIANTS)
def test_one_draw_per_completed_array_and_released_node_at_the_variants_scale(variant):
    """Item 4: arrays at Lap(2/eps); nodes of tree r at Lap(2r/eps) (paper) or Lap(2(r+1)/eps)
    (corrected); an arm with n observations has drawn n + floor(log2(n+1)) - 1 variables."""
    eps = 0.5
    policy, obs, noise, _ = run_scripted(variant, epsilon=eps)
    offset = 0 if variant == "paper" else 1
    for j in range(policy.K):
        n = len(obs[j])
        assert len(noise[j]) == n + int(math.floor(math.log2(n + 1))) - 1
        for slot, (_, scale) in noise[j].items():
            expected = 2 / eps if slot[0] == "Z" else 2 * (slot[1] + offset) / eps
            assert scale == pytest.approx(expected)


@pytest.mark.exact
def test_queries_never_draw_noise():
    """Item 4: the index and the actions read the stored releases; nothing is redrawn."""
    rng = ScriptedNoise(seed=3)
    policy = HybridUCB(3, epsilon=1.0, rng=rng)
    table = Bernoulli([0.6, 0.5, 0.4]).table(50, np.random.default_rng(3))
    for t in range(1, 51):
        a = policy.act(t)
        policy.observe(t, a, table[t - 1, a])
    draws = rng.n_draws
    first = policy.index(51).copy()
    for _ in range(5):
        policy.act(51)
        np.testing.assert_array_equal(policy.index(51), first)
    assert rng.n_draws == draws


@pytest.mark.exact
def test_zero_noise_gives_the_exact_mean_of_all_observations_in_every_run():
    """Item 2: with zero noise mu~_j is the mean of all O_j observations after every pull;
    runs differ in their rewards, so this also checks the batch bookkeeping."""
    runs, K, T = 6, 3, 200
    policy = HybridUCB(K, epsilon=1.0, runs=runs, rng=ScriptedNoise(seed=4))
    rewards = np.random.default_rng(5).random((T, runs))
    sums = np.zeros((runs, K))
    counts = np.zeros((runs, K))
    rows = np.arange(runs)
    for t in range(1, T + 1):
        a = policy.act(t)
        policy.observe(t, a, rewards[t - 1])
        sums[rows, a] += rewards[t - 1]
        counts[rows, a] += 1
        np.testing.assert_allclose(policy.mu_tilde[rows, a], sums[rows, a] / counts[rows, a])
        np.testing.assert_array_equal(policy.O, counts)
    assert len({tuple(row) for row in counts}) > 1     # the runs really took different paths


@pytest.mark.exact
def play(policy: HybridUCB, t: int, arm: int, x: np.ndarray) -> None:
    """Round t with ``arm`` forced: act(t) (which makes room for round t's tree levels) and
    observe(t)."""
    policy.act(t)
    policy.observe(t, np.array([arm]), x)


def test_state_after_a_filled_tree_is_the_next_partition():
    """(state): r_j = floor(log2(O_j + 1)) at all times, and with zero noise F~ holds the
    first 2^r_j - 1 observations, the array being filled and tree r_j the rest."""
    policy = HybridUCB(2, epsilon=1.0, rng=ScriptedNoise(seed=6))
    x = np.random.default_rng(7).random(80)
    play(policy, 1, 0, x[:1])
    play(policy, 2, 1, np.array([0.5]))
    for n in range(2, 81):
        play(policy, n + 1, 0, x[n - 1:n])
        r = int(policy.r[0, 0])
        assert r == int(math.floor(math.log2(n + 1)))
        assert policy.F_tilde[0, 0] == pytest.approx(x[: 2 ** r - 1].sum())
        assert policy.F_sum[0, 0] == pytest.approx(x[2 ** r - 1: n].sum())
        assert policy.F_tilde[0, 0] + policy.B_tilde[0, 0] == pytest.approx(x[:n].sum())


@pytest.mark.exact
def test_index_is_equation_35_with_base_2_logs():
    """Item 6: mubar = mu~ + sqrt(3 log2 t / O) + 6 sqrt(8) log2(t) floor(log2(O+1)) / (eps O)."""
    eps = 0.7
    policy = HybridUCB(4, epsilon=eps, rng=ScriptedNoise(seed=8, values=np.linspace(-1, 1, 999)))
    table = Bernoulli([0.6, 0.5, 0.4, 0.3]).table(300, np.random.default_rng(9))
    for t in range(1, 301):
        a = policy.act(t)
        if t > 4:
            O = policy.O[0]
            floor_log = np.array([int(o + 1).bit_length() - 1 for o in O])
            expected = (policy.mu_tilde[0] + np.sqrt(3 * math.log2(t) / O)
                        + 6 * math.sqrt(8) * math.log2(t) * floor_log / (eps * O))
            np.testing.assert_allclose(policy.index(t)[0], expected, rtol=1e-13)
            assert a[0] == int(np.argmax(expected))
        policy.observe(t, a, table[t - 1, a])
    # one value by hand: t = 8, O = 3, mu~ = 0.25: 0.25 + sqrt(3) + 6 sqrt(8) * 3 * 2 / (0.7 * 3)
    policy.O[0, 0], policy.mu_tilde[0, 0], policy.r[0, 0] = 3, 0.25, 2
    by_hand = 0.25 + math.sqrt(3) + 36 * math.sqrt(8) / 2.1
    assert policy.index(8)[0, 0] == pytest.approx(by_hand, rel=1e-14)


@pytest.mark.exact
def test_anytime_prefixes_agree():
    """Item 7: no horizon in the constructor; runs to T1 < T2 agree on the first T1 actions."""
    assert_anytime("hybrid-ucb", Bernoulli([0.6, 0.5, 0.4]).table(400, np.random.default_rng(10)),
                   150, epsilon=1.0)
    assert "T" not in HybridUCB.__init__.__code__.co_varnames


def exact_privacy_losses(variant: str, epsilon: float, trees: int = 6) -> np.ndarray:
    """Loss of each observation n = 1..2^trees - 1 of one arm: the sum, over the noised
    quantities (arrays and released nodes) containing it, of 1/scale, with the scales the code
    actually draws. Every array and tree up to ``trees - 1`` is complete."""
    N = 2 ** trees - 1
    rng = ScriptedNoise(seed=11)
    policy = HybridUCB(2, epsilon=epsilon, rng=rng, variant=variant)
    play(policy, 1, 0, np.array([0.0]))
    slots = list(drawn_slots(1))
    play(policy, 2, 1, np.array([0.0]))                 # arm 1's own Z^(0): not ours
    rng.calls.pop()
    for n in range(2, N + 1):
        play(policy, n + 1, 0, np.array([0.5]))
        slots.extend(drawn_slots(n))
    scales = [float(np.ravel(scale)[0]) for scale, _ in rng.calls]
    assert len(scales) == len(slots)
    loss = np.zeros(N + 1)
    for slot, scale in zip(slots, scales):
        for n in covers(slot):
            loss[n] += 1.0 / scale
    return loss[1:]


@pytest.mark.oracle
@pytest.mark.parametrize("variant", VARIANTS)
def test_worst_case_privacy_loss_of_each_variant(variant):
    """docs/errata.md#hhm-hybrid-tree. Paper: leaf 1 of tree r (observation 2^r) lies in r+1 released nodes at
    Lap(2r/eps) and in array r at Lap(2/eps): (1/2 + (r+1)/(2r)) eps, worst 1.5 eps at r = 1.
    Corrected: at most eps, attained at every 2^r. The claim objects state the same numbers."""
    eps = 1.3
    loss = exact_privacy_losses(variant, eps)
    worst = loss.max()
    policy = HybridUCB(2, epsilon=eps, rng=0, variant=variant)
    if variant == "paper":
        for r in range(1, 6):
            assert loss[2 ** r - 1] == pytest.approx((0.5 + (r + 1) / (2 * r)) * eps)
        assert worst == pytest.approx(1.5 * eps)
        assert int(np.argmax(loss)) + 1 == 2
        assert policy.claim.status == "false"
    else:
        assert worst == pytest.approx(eps)
        attained = np.flatnonzero(np.isclose(loss, eps)) + 1
        assert set(attained) == {2, 4, 8, 16, 32}
        assert policy.claim.status == "holds"
    assert loss[0] == pytest.approx(eps / 2)           # the init observation: Z^(0) only
    assert policy.claim.claimed.epsilon == eps
    assert policy.claim.proven.epsilon == pytest.approx(worst)


@pytest.mark.exact
def test_variants_and_bad_input():
    assert HybridUCB.default_variant == "corrected"
    assert {v.name for v in HybridUCB.variants} == set(VARIANTS)
    with pytest.raises(DPBanditsError, match="variant"):
        HybridUCB(2, epsilon=1.0, rng=0, variant="strict")
    with pytest.raises(DPBanditsError, match="epsilon"):
        HybridUCB(2, epsilon=0.0, rng=0)


@pytest.mark.statistical
def test_large_epsilon_learns_the_best_arm():
    """At eps = 64 Hybrid-UCB is close to UCB1 with log2 radii. Over 100 runs of
    T = 3000 on means (0.8, 0.5) the mean share of the best arm is 0.90 with standard error
    0.0013 (measured at this seed); the test asks for more than 0.75, over 100 standard errors
    away: failure probability for a correct implementation below 1e-4 by Chebyshev, and far
    below 1e-9 by the normal approximation."""
    result = simulate(spec("hybrid-ucb", 2, epsilon=64.0), Bernoulli([0.8, 0.5]), 3000,
                      runs=100, seed=12)
    assert result.pulls[:, 0].mean() / 3000 > 0.75
