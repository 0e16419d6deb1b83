"""UCB1, the non-private baseline.

Kinds: exact (initialisation, index by hand), statistical (regret under Auer et al.'s bound).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpbandits.reference import Bernoulli, simulate, spec
from dpbandits.reference.bandit.ucb1 import UCB1


@pytest.mark.exact
def test_index_worked_by_hand():
    policy = UCB1(3, rng=0)
    rewards = {1: 1.0, 2: 0.0, 3: 0.5}
    for t in (1, 2, 3):
        a = policy.act(t)
        assert a[0] == t - 1
        policy.observe(t, a, np.array([rewards[t]]))
    # t = 4: indices 1 + sqrt(2 ln 4), 0 + sqrt(2 ln 4), 0.5 + sqrt(2 ln 4) -> arm 0
    assert policy.act(4)[0] == 0
    policy.observe(4, np.array([0]), np.array([0.0]))
    # t = 5: arm 0 has mean 0.5 over 2 pulls: 0.5 + sqrt(ln 5) = 1.769 < 0.5 + sqrt(2 ln 5) = 2.294
    radius = math.sqrt(2 * math.log(5))
    expected = np.argmax([0.5 + math.sqrt(math.log(5)), 0.0 + radius, 0.5 + radius])
    assert policy.act(5)[0] == expected == 2


@pytest.mark.exact
def test_random_tie_break_uses_only_the_index():
    policy = UCB1(2, rng=1, tie_break="random", runs=2000)
    for t in (1, 2):
        a = policy.act(t)
        policy.observe(t, a, np.full(2000, 0.5))
    share = np.mean(policy.act(3) == 0)
    assert 0.4 < share < 0.6  # 2000 fair coin flips: 0.1 is 9 sigma
    first = UCB1(2, rng=1, runs=5)
    for t in (1, 2):
        a = first.act(t)
        first.observe(t, a, np.full(5, 0.5))
    assert (first.act(3) == 0).all()


@pytest.mark.statistical
def test_regret_below_auer_bound():
    """Mean pseudo-regret over 200 runs stays below sum 8 ln T / Delta + (1 + pi^2/3) sum Delta.

    The bound (Auer et al. 2002, Thm 1) holds in expectation; the simulated mean at T = 5000 is
    about a third of it, far more than the 95% band.
    """
    means = np.array([0.9, 0.6, 0.5])
    T = 5000
    result = simulate(spec("ucb1", 3), Bernoulli(means), T, runs=200, seed=4)
    gaps = means.max() - means
    bound = sum(8 * math.log(T) / d + (1 + math.pi ** 2 / 3) * d for d in gaps if d > 0)
    mean, low, high = result.final()
    assert high < bound


@pytest.mark.exact
def test_log_round_t_minus_one_is_auer_et_al_plays_so_far():
    """Deviation 1: ``log_round="t-1"`` puts ln(t - 1), the plays so far, in the radius; each
    setting equals a plain loop written from Fig. 1 with its own logarithm, and on this table the
    two trajectories part."""
    table = Bernoulli([0.6, 0.55, 0.4]).table(400, np.random.default_rng(3))
    played = {}
    for log_round, n in (("t", lambda t: t), ("t-1", lambda t: t - 1)):
        policy = UCB1(3, rng=0, log_round=log_round)
        s, pulls, actions = np.zeros(3), np.zeros(3), []
        for t in range(1, 401):
            arm = t - 1 if t <= 3 else int(np.argmax(s / pulls + np.sqrt(2 * math.log(n(t)) / pulls)))
            assert policy.act(t)[0] == arm
            policy.observe(t, np.array([arm]), np.array([table[t - 1, arm]]))
            s[arm] += table[t - 1, arm]
            pulls[arm] += 1
            actions.append(arm)
        played[log_round] = actions
    assert played["t"] != played["t-1"]
    with pytest.raises(Exception, match="log_round"):
        UCB1(3, rng=0, log_round="t+1")
