"""DP-SE (Sajed & Sheffet 2019, as docs/algorithms/dp-se.md reconstructs it) and its constants.

Kinds: exact (epoch lengths by hand, the elimination threshold at its boundary, zero and scripted
noise against an independent scalar Successive Elimination, the Laplace draws, the horizon, bad
input), property (Hypothesis: 2(h_e + c_e) <= Delta_e / 2 and the epoch structure under real
noise), statistical (the best arm survives with probability at least 1 - beta).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from dpbandits.errors import DPBanditsError
from dpbandits.reference import Bernoulli, make
from dpbandits.reference.bandit.dp_se import (
    DPSE,
    ROUNDINGS,
    elimination_threshold,
    epoch_length,
    round_epoch_length,
)
from dpbandits.reference.neighbours import ROW
from dpbandits.reference.noise import ScriptedNoise

from .helpers import drive_runs as drive


def successive_elimination(table, epsilon, beta, T, noise=None, order="round-robin",
                           rounding="ceil"):
    """One run of DP-SE written from the pseudocode with plain Python, independent of the
    policy: ``noise`` yields the value added to each released mean (zero: non-private SE).

    Returns the actions, each ended epoch as (e, S, R_e), and the number of noise values used.
    """
    K = len(table[0])
    noise = iter(noise) if noise is not None else iter(lambda: 0.0, None)
    S, e, t = list(range(K)), 1, 0
    actions, epochs, used = [], [], 0
    while t < T:
        if len(S) == 1:
            actions.append(S[0])
            t += 1
            continue
        delta = 2.0 ** -e
        bound = max(32 * math.log(8 * len(S) * e * e / beta) / delta ** 2,
                    8 * math.log(4 * len(S) * e * e / beta) / (epsilon * delta))
        R = {"ceil": math.ceil(bound), "plus-one": math.floor(bound) + 1,
             "ceil-plus-one": math.ceil(bound) + 1}[rounding]
        if order == "round-robin":
            schedule = [a for _ in range(R) for a in S]
        else:
            schedule = [a for a in S for _ in range(R)]
        sums = dict.fromkeys(S, 0.0)
        for a in schedule:
            if t == T:
                return actions, epochs, used
            sums[a] += table[t][a]
            actions.append(a)
            t += 1
        mu = {}
        for a in S:
            mu[a] = sums[a] / R + next(noise)
            used += 1
        h = math.sqrt(math.log(8 * len(S) * e * e / beta) / (2 * R))
        c = math.log(4 * len(S) * e * e / beta) / (R * epsilon)
        best = max(mu.values())
        epochs.append((e, tuple(S), R))
        S = [a for a in S if best - mu[a] <= 2 * (h + c)]
        e += 1
    return actions, epochs, used


# Two clear eliminations at epoch 1 and one close arm eliminated at epoch 2, at eps = 1 and
# beta = 1/T: R_1 = ceil(128 ln 960000) = 1764 with 4 arms, R_2 = ceil(512 ln 1920000) = 7408.
MEANS = [0.9, 0.8, 0.3, 0.1]
T_LONG = 30_000


@pytest.mark.exact
def test_epoch_length_by_hand():
    """l.5. K = 3, eps = 1, beta = 1/120: max{128 ln 2880, 16 ln 1440} = max{1019.59, 116.36};
    at eps = 0.01 the private term 1600 ln 1440 = 11635.84 dominates; e = 2, |S| = 2,
    beta = 1e-3, eps = 0.5: max{512 ln 16000, 64 ln 8000} = max{5666.12, 663.90}."""
    assert epoch_length(1, 3, 1.0, 1 / 120) == 1020
    assert epoch_length(1, 3, 0.01, 1 / 120) == 11636
    assert epoch_length(2, 2, 0.5, 1e-3) == 5667
    assert epoch_length(1, 3, 1.0, 1 / 120, rounding="plus-one") == 1020
    # vectorised; the second: 512 ln 7680 = 4580.5
    np.testing.assert_array_equal(epoch_length([1, 2], [3, 2], 1.0, 1 / 120), [1020, 4581])
    # the threshold of l.8-l.9 at the first case: 2 (sqrt(ln 2880 / 2040) + ln 1440 / 1020)
    by_hand = 2 * (math.sqrt(math.log(2880) / 2040) + math.log(1440) / 1020)
    assert elimination_threshold(1, 3, 1020, 1.0, 1 / 120) == pytest.approx(by_hand, rel=1e-14)
    policy = DPSE(3, epsilon=1.0, rng=0, T=120)
    assert policy.beta == 1 / 120 and policy.R[0] == 1020 and policy.e[0] == 1


@pytest.mark.exact
def test_absurd_epoch_lengths_are_refused():
    with pytest.raises(DPBanditsError, match="epoch length"):
        epoch_length(40, 2, 1.0, 0.5)
    with pytest.raises(DPBanditsError, match="epoch length"):
        DPSE(2, epsilon=1e-18, rng=0, T=100)


@pytest.mark.exact
def test_the_roundings_worked_by_hand():
    """Deviation 2: ceil(x) against the public implementations' floor(x) + 1 (different only at
    integers) and ceil(x) + 1 (one more everywhere)."""
    bounds = np.array([4.0, 4.2, 1019.59, 7.999999])
    np.testing.assert_array_equal(round_epoch_length(bounds, "ceil"), [4, 5, 1020, 8])
    np.testing.assert_array_equal(round_epoch_length(bounds, "plus-one"), [5, 5, 1020, 8])
    np.testing.assert_array_equal(round_epoch_length(bounds, "ceil-plus-one"), [5, 6, 1021, 9])
    with pytest.raises(DPBanditsError, match="rounding"):
        round_epoch_length(bounds, "floor")


@pytest.mark.exact
def test_ceil_plus_one_is_the_public_count_at_K_2_T_2751():
    """At K = 2, T = 2751, beta = 1/T the bound of l.5 is 1368.6 (the Hoeffding term): the
    reconstruction pulls each arm 1369 times in epoch 1, a public implementation 1370, so its
    first release comes after round 2740 instead of 2738."""
    T = 2751
    assert epoch_length(1, 2, 1.0, 1 / T) == 1369
    assert epoch_length(1, 2, 1.0, 1 / T, "ceil-plus-one") == 1370
    for rounding, last in (("ceil", 2738), ("ceil-plus-one", 2740)):
        policy = DPSE(2, epsilon=1.0, rng=0, T=T, rounding=rounding)
        for t in range(1, last + 1):
            assert np.isnan(policy.mu_tilde).all()
            policy.observe(t, policy.act(t), np.array([0.5]))
        assert not np.isnan(policy.mu_tilde).any()


@pytest.mark.property
@given(e=st.integers(1, 20), S=st.integers(2, 200),
       epsilon=st.floats(1e-3, 1e3), beta=st.floats(1e-12, 1.0))
def test_threshold_is_at_most_half_the_epoch_gap(e, S, epsilon, beta):
    """Hu, Huang & Mehta (2021), Sec. 6 (DP-SE, Sajed & Sheffet 2019): R_e makes h_e, c_e <= Delta_e / 8, so 2(h_e + c_e) <= Delta_e / 2,
    with either rounding."""
    for rounding in ROUNDINGS:
        R = epoch_length(e, S, epsilon, beta, rounding)
        assert elimination_threshold(e, S, R, epsilon, beta) <= 2.0 ** -e / 2 * (1 + 1e-12)


@pytest.mark.exact
def test_zero_noise_is_successive_elimination_in_every_run():
    """Items 1-3: with zero noise every run eliminates exactly as the scalar SE does on its own
    rewards (each active arm R_e times per epoch, eliminated arms never again, the last arm until
    T), and the policy draws one Laplace variable per active arm per ended epoch."""
    runs = 5
    rewards = np.stack([Bernoulli(MEANS).table(T_LONG, np.random.default_rng(100 + i))
                        for i in range(runs)], axis=1)
    rng = ScriptedNoise(seed=1)
    policy = DPSE(len(MEANS), epsilon=1.0, runs=runs, rng=rng, T=T_LONG)
    actions = drive(policy, rewards)
    total_draws = 0
    for i in range(runs):
        expected, epochs, used = successive_elimination(rewards[:, i].tolist(), 1.0, 1 / T_LONG,
                                                        T_LONG)
        np.testing.assert_array_equal(actions[i], expected)
        assert [S for _, S, _ in epochs[:2]] == [(0, 1, 2, 3), (0, 1)]
        assert [R for _, _, R in epochs[:2]] == [1764, 7408]
        total_draws += used
    assert rng.n_draws == total_draws == runs * (4 + 2)
    assert policy.done.all() and (policy.active[:, 0]).all()
    assert (actions[:, -1] == 0).all()


@pytest.mark.exact
@pytest.mark.parametrize("order, rounding", [("round-robin", "ceil"), ("blocks", "ceil"),
                                             ("round-robin", "plus-one"),
                                             ("round-robin", "ceil-plus-one")])
def test_scripted_noise_releases_and_eliminations(order, rounding):
    """Item 2: each release is the epoch mean plus its own draw, one draw of scale
    1/(eps R_e) per active arm, in increasing arm order; the eliminations follow them."""
    eps, T = 0.5, 12_000           # R_1 = 828 (4 arms), then R_2 = 3664 if two arms remain
    table = Bernoulli([0.9, 0.85, 0.5, 0.2]).table(T, np.random.default_rng(7))
    values = np.random.default_rng(8).uniform(-0.06, 0.06, 40).tolist()
    rng = ScriptedNoise(seed=2, values=list(values))
    policy = DPSE(4, epsilon=eps, rng=rng, T=T, beta=0.05, order=order, rounding=rounding)
    actions = drive(policy, table[:, None, :])[0]
    expected, epochs, used = successive_elimination(table.tolist(), eps, 0.05, T, values,
                                                    order, rounding)
    np.testing.assert_array_equal(actions, expected)
    assert len(epochs) >= 2 and rng.n_draws == used
    scales = [np.ravel(scale) for scale, _ in rng.calls]
    assert [s.size for s in scales] == [len(S) for _, S, _ in epochs]
    for s, (_, _, R) in zip(scales, epochs):
        np.testing.assert_allclose(s, 1 / (eps * R))
    # the released means of the last ended epoch, arm by arm
    e, S, R = epochs[-1]
    first = sum(len(s) for s in scales[:-1])
    start = sum(len(S_) * R_ for _, S_, R_ in epochs[:-1])
    for k, a in enumerate(S):
        pulled = [t for t in range(start, start + len(S) * R) if expected[t] == a]
        assert len(pulled) == R
        mean = sum(table[t, a] for t in pulled) / R
        assert policy.mu_tilde[0, a] == pytest.approx(mean + values[first + k], abs=1e-12)


@pytest.mark.exact
@pytest.mark.parametrize("margin, eliminated", [(-1e-9, False), (1e-9, True)])
def test_threshold_boundary(margin, eliminated):
    """l.9 keeps an arm whose gap to the best release is exactly at most 2(h_e + c_e).
    Both arms pay 0.5; arm 1's release is lowered by the threshold plus ``margin``."""
    eps, beta = 1.0, 1e-3
    R = 1240                       # ceil(max{128 ln 16000, 16 ln 8000}) = ceil(1239.3)
    threshold = 2 * (math.sqrt(math.log(16000) / (2 * R)) + math.log(8000) / R)
    T = 2 * R + 50
    rng = ScriptedNoise(values=[0.0, -(threshold + margin)])
    policy = DPSE(2, epsilon=eps, rng=rng, T=T, beta=beta)
    assert policy.R[0] == R
    actions = drive(policy, np.full((T, 1, 2), 0.5))[0]
    np.testing.assert_array_equal(actions[:2 * R], np.tile([0, 1], R))
    assert rng.n_draws == 2
    if eliminated:
        assert policy.done[0] and (actions[2 * R:] == 0).all()
    else:
        assert not policy.done[0] and policy.e[0] == 2
        np.testing.assert_array_equal(actions[2 * R:], np.tile([0, 1], 25))
        assert policy.R[0] == epoch_length(2, 2, eps, beta)


@pytest.mark.property
def test_epoch_structure_under_real_noise():
    """Items 1-3 in a batch with real Laplace noise and different rewards per run: every run's
    actions split into epochs pulling each active arm R_e times round-robin, an arm missing from
    one epoch never returns, and the single remaining arm is pulled to the end. Releases are
    recovered from the policy's state between rounds."""
    runs, T, K = 12, 20_000, 4
    # Uniform rewards with means (0.5, 0.15, 0.15, 0.3) in runs 0-5 and (0.5, 0.175, 0.15, 0.45)
    # in runs 6-11: epoch 1 (R_1 = 1712) ends them all; the first group then has one arm left,
    # the second starts epoch 2 (R_2 = 7200) with arms 0 and 3 and cannot end it by T.
    scale = np.repeat([[1.0, 0.3, 0.3, 0.6], [1.0, 0.35, 0.3, 0.9]], runs // 2, axis=0)
    rewards = np.random.default_rng(3).random((T, runs, K)) * scale
    policy = DPSE(K, epsilon=2.0, runs=runs, rng=np.random.default_rng(4), T=T)
    rows = np.arange(runs)
    log = []
    for t in range(1, T + 1):
        state = (policy.active.copy(), policy.R.copy(), policy.done.copy())
        a = policy.act(t)
        log.append((a, *state))
        policy.observe(t, a, rewards[t - 1, rows, a])
    for i in range(runs):
        t, seen_done = 0, False
        while t < T:
            a, active, R, done = (x[i] for x in log[t])
            if done:
                seen_done = True
                arm = int(np.flatnonzero(active)[0])
                assert all(log[s][0][i] == arm for s in range(t, T))
                break
            S = np.flatnonzero(active)
            epoch = [log[s][0][i] for s in range(t, min(T, t + S.size * R))]
            np.testing.assert_array_equal(epoch, np.resize(S, len(epoch)))
            t += S.size * R
        if t < T:
            assert seen_done
    assert policy.done[:6].all() and not policy.done[6:].any()
    assert (policy.e[6:] == 2).all() and policy.active[6:, [0, 3]].all()


@pytest.mark.exact
def test_needs_its_horizon_and_refuses_later_rounds():
    """Item 4: not anytime."""
    assert DPSE.needs_horizon
    with pytest.raises(DPBanditsError, match="T is required"):
        DPSE(3, epsilon=1.0, rng=0)
    with pytest.raises(DPBanditsError, match="T is required"):
        make("dp-se", 3, epsilon=1.0, rng=0)
    policy = make("dp-se", 3, epsilon=1.0, rng=0, T=5)
    assert policy.T == 5 and policy.beta == 0.2
    for t in range(1, 6):
        policy.observe(t, policy.act(t), np.array([0.5]))
    with pytest.raises(DPBanditsError, match="horizon"):
        policy.act(6)


@pytest.mark.exact
def test_bad_input_and_claim():
    for bad in (0.0, -0.1, 1.5, float("nan")):
        with pytest.raises(DPBanditsError, match="beta"):
            DPSE(3, epsilon=1.0, rng=0, T=100, beta=bad)
    with pytest.raises(DPBanditsError, match="T"):
        DPSE(3, epsilon=1.0, rng=0, T=0)
    with pytest.raises(DPBanditsError, match="rounding"):
        DPSE(3, epsilon=1.0, rng=0, T=100, rounding="floor")
    with pytest.raises(DPBanditsError, match="order"):
        DPSE(3, epsilon=1.0, rng=0, T=100, order="random")
    with pytest.raises(DPBanditsError, match="unknown parameter"):
        make("dp-se", 3, epsilon=1.0, rng=0, T=100, delta=0.1)
    assert DPSE(3, epsilon=1.0, rng=0, T=100, beta=1.0).beta == 1.0
    assert [v.name for v in DPSE.variants] == ["paper"] and DPSE.default_variant == "paper"
    claim = DPSE(3, epsilon=0.7, rng=0, T=100).claim
    assert claim.status == "holds"
    assert claim.claimed.epsilon == claim.proven.epsilon == 0.7
    assert claim.claimed.delta == 0.0 and claim.claimed.relation == ROW


@pytest.mark.statistical
def test_best_arm_survives_and_far_arms_go_after_epoch_one():
    """The journal version's setting 1 means, eps = 1, beta = 1e-6. With probability at least 1 - beta per
    run every release is within h_e + c_e of its mean (module docstring); then the best arm is
    never eliminated, and arms with gap > 4(h_1 + c_1) = 0.28 leave after epoch 1, pulled exactly
    R_1 times. Over 200 runs the failure probability is at most 200 beta = 2e-4 (union bound)."""
    means = [0.75, 0.625, 0.5, 0.375, 0.25]
    beta, T, runs = 1e-6, 12_000, 200
    R1 = int(epoch_length(1, 5, 1.0, beta))
    assert 2 * elimination_threshold(1, 5, R1, 1.0, beta) < 0.375   # 4 (h_1 + c_1) < the gap
    assert 5 * R1 < T
    rewards = np.random.default_rng(5).random((T, runs, 5)) < np.array(means)
    policy = DPSE(5, epsilon=1.0, runs=runs, rng=np.random.default_rng(6), T=T, beta=beta)
    actions = drive(policy, rewards.astype(float))
    assert policy.active[:, 0].all()
    pulls = np.stack([(actions == a).sum(axis=1) for a in range(5)], axis=1)
    assert (pulls[:, 3:] == R1).all()
