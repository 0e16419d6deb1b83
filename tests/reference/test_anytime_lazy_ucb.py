"""Anytime-Lazy-UCB: Algorithm 1 of the journal version (Algorithm 1 of Hu, Huang & Mehta 2021).

Kinds: exact (schedule, draws, zero noise, index, laziness, anytime), statistical (the
analytic privacy value of P{J_3 = 1}, regret sanity).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpbandits.reference import Bernoulli, Table, simulate, spec
from dpbandits.reference.bandit.anytime_lazy_ucb import AnytimeLazyUCB
from dpbandits.reference.noise import ScriptedNoise

from .helpers import (
    assert_anytime,
    assert_epoch_schedule,
    assert_unfinished_epochs_unused,
    drive,
)


@pytest.mark.exact
def test_init_pulls_every_arm_in_order_and_noises_the_first_reward():
    rng = ScriptedNoise(values=[0.5, -0.25, 0.125])
    policy = AnytimeLazyUCB(3, epsilon=2.0, rng=rng)
    table = np.array([[0.3, 0.9, 0.1], [0.2, 0.4, 0.6], [1.0, 1.0, 0.0]])
    assert list(drive(policy, table)) == [0, 1, 2]
    np.testing.assert_allclose(policy.mu_tilde[0], [0.3 + 0.5, 0.4 - 0.25, 0.0 + 0.125])
    assert rng.calls == [(0.5, 1)] * 3
    assert (policy.O == 1).all() and (policy.r == 0).all() and (policy.N == 0).all()


@pytest.mark.exact
def test_schedule_one_draw_per_full_epoch_and_zero_noise_mean_of_last_epoch():
    rng = ScriptedNoise(seed=1)
    table = Bernoulli([0.7, 0.5, 0.3]).table(400, np.random.default_rng(2))
    assert_epoch_schedule(AnytimeLazyUCB(3, epsilon=1.0, rng=rng), rng, table)


@pytest.mark.exact
def test_index_is_the_papers_formula():
    policy = AnytimeLazyUCB(2, epsilon=0.5, rng=ScriptedNoise())
    drive(policy, np.array([[1.0, 0.0], [0.0, 0.0]]))
    t = 3
    expected = policy.mu_tilde + math.sqrt(3 * math.log(t)) / np.sqrt(policy.O) + 3 * math.log(t) / (0.5 * policy.O)
    ucb = policy.mu_tilde + np.sqrt(3 * math.log(t) / policy.O) + 3 * math.log(t) / (policy.epsilon * policy.O)
    np.testing.assert_allclose(ucb, expected)
    assert policy.act(t)[0] == int(np.argmax(expected[0]))


@pytest.mark.exact
def test_rewards_of_an_unfinished_epoch_never_change_decisions():
    """Item 5(a): rewards in epochs not complete by T are never used (coupled runs)."""
    table = Bernoulli([0.6, 0.5]).table(300, np.random.default_rng(4))
    assert_unfinished_epochs_unused("anytime-lazy-ucb", table, epsilon=1.0)


@pytest.mark.exact
def test_anytime_prefixes_agree_and_counts_add_up():
    assert_anytime("anytime-lazy-ucb", Bernoulli([0.6, 0.5, 0.4]).table(500, np.random.default_rng(8)),
                   200, epsilon=1.0)
    assert "T" not in AnytimeLazyUCB.__init__.__code__.co_varnames


@pytest.mark.statistical
def test_analytic_privacy_value_of_the_first_decision():
    """P{J_3 = 1} = 1 - (2 + eps)/4 e^-eps (0.72409 at eps = 1) under
    X_1(1) = 1 and 1/2 under X_1(1) = 0, so the log-ratios 0.370 and 0.594 stay below eps.

    40000 runs per table: the standard deviation of each frequency is at most 0.0025; the test
    allows 0.0125 (5 sigma): failure probability below 1e-6.
    """
    eps = 1.0
    f = spec("anytime-lazy-ucb", 2, epsilon=eps)
    p_exact = 1 - (2 + eps) / 4 * math.exp(-eps)
    assert p_exact == pytest.approx(0.72409, abs=1e-5)
    freq = []
    for x11 in (1.0, 0.0):
        table = np.array([[x11, 0.0], [0.0, 0.0], [0.0, 0.0]])
        actions = simulate(f, Table(table), 3, runs=40_000, seed=17, record_actions=True).actions
        freq.append(np.mean(actions[:, 2] == 0))
    assert freq[0] == pytest.approx(p_exact, abs=0.0125)
    assert freq[1] == pytest.approx(0.5, abs=0.0125)
    assert math.log(p_exact / 0.5) == pytest.approx(0.370, abs=1e-3) and math.log(p_exact / 0.5) < eps
    assert math.log(0.5 / (1 - p_exact)) == pytest.approx(0.594, abs=1e-3)


@pytest.mark.statistical
def test_pull_counts_respect_the_derived_bound():
    """mean n_j(T) < 192 ln T / (Delta_j min(Delta_j, eps)).

    The bound is loose by orders of magnitude at T = 3000; a failure would mean a broken index.
    """
    means = np.array([0.75, 0.625, 0.5, 0.375, 0.25])
    T, eps = 3000, 0.5
    result = simulate(spec("anytime-lazy-ucb", 5, epsilon=eps), Bernoulli(means), T, runs=100, seed=3)
    gaps = means.max() - means
    mean_pulls = result.pulls.mean(axis=0)
    for j in range(1, 5):
        assert mean_pulls[j] < 192 * math.log(T) / (gaps[j] * min(gaps[j], eps))
