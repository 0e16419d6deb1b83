"""Python semi-bandit policies as mechanisms: SemiPolicyMechanism.

Kinds: exact (row 0 delivered first, the sorted basis and its weights delivered in that order,
read-only; per-run seeding and worker-count independence; every invalid basis refused with the
run and the round named), smoke (attributes, a table without row 0).
"""

from __future__ import annotations

import numpy as np
import pytest

from dpbandits.audit.semi_adapter import SemiPolicyMechanism
from dpbandits.errors import DPBanditsError
from dpbandits.reference import Table
from dpbandits.reference.matroid import Partition, Uniform

MATROID = Partition([[0, 1], [2, 3]], [1, 1])      # one base arm of {0, 1} and one of {2, 3}
X = np.array([[0.1, 0.2, 0.3, 0.4],
              [0.5, 0.6, 0.7, 0.8],
              [0.9, 1.0, 0.0, 0.25]])
TABLE = Table(X[1:], X0=X[0])


class Recorder:
    """Plays (3, 0) then (random of {0, 1}, random of {2, 3}), unsorted; records what it sees."""

    def __init__(self, rng):
        self.rng, self.seen = rng, []

    def act(self, t):
        if t == 1:
            return [3, 0]
        return np.array([2 + self.rng.integers(0, 2), self.rng.integers(0, 2)])

    def observe(self, t, arms, rewards):
        self.seen.append((t, None if arms is None else arms.tolist(), rewards.tolist(),
                          rewards.flags.writeable, None if arms is None else arms.flags.writeable))


SEEN: list = []


def recorder(rng):
    policy = Recorder(rng)
    SEEN.append(policy)
    return policy


def random_policy(rng):
    return Recorder(rng)


class Plays:
    def __init__(self, value, at=1):
        self.value, self.at = value, at

    def act(self, t):
        return self.value if t >= self.at else [0, 2]

    def observe(self, t, arms, rewards):
        pass


@pytest.mark.exact
def test_row_zero_first_then_the_sorted_basis_and_its_weights():
    SEEN.clear()
    bases = SemiPolicyMechanism(recorder, MATROID, None, isolated=False).sample(TABLE, 1, 0)
    seen = SEEN[0].seen
    assert seen[0] == (0, None, [0.1, 0.2, 0.3, 0.4], False, None)
    assert seen[1] == (1, [0, 3], [0.5, 0.8], False, False)         # (3, 0) sorted, weights in order
    t, arms, rewards, _, _ = seen[2]
    assert t == 2 and rewards == X[2, arms].tolist()
    assert bases.shape == (1, 2, 2) and bases.dtype == np.int32
    assert bases[0].tolist() == [[0, 3], arms]


@pytest.mark.exact
def test_runs_depend_on_the_seed_only_not_on_the_workers():
    one = SemiPolicyMechanism(random_policy, MATROID, 1.0).sample(TABLE, 16, 3)
    two = SemiPolicyMechanism(random_policy, MATROID, 1.0, workers=2).sample(TABLE, 16, 3)
    np.testing.assert_array_equal(one, two)
    np.testing.assert_array_equal(one[:5], SemiPolicyMechanism(random_policy, MATROID, 1.0)
                                  .sample(TABLE, 5, 3))
    assert len({tuple(run[1]) for run in one}) > 1                   # the rng is used


@pytest.mark.exact
@pytest.mark.parametrize("value, message", [
    ([0, 1], r"run 0: policy.act\(1\) returned the super arm \[0, 1\], which is not a basis"),
    ([2, 2], r"policy.act\(1\) returned the super arm \[2, 2\], which repeats a base arm"),
    ([0, 4], r"policy.act\(1\) returned base arms \[0, 4\], outside 0..3"),
    ([0, 2, 3], r"policy.act\(1\) must return k = 2 base arms \(a basis\), got shape \(3,\)"),
    (0, r"must return k = 2 base arms \(a basis\), got 0"),
    ([0.0, 2.0], r"dtype float64; base arms are integers"),
    ([True, False], r"dtype bool"),
    (None, r"policy.act\(1\)"),
])
def test_a_value_that_is_not_a_basis_names_the_run_and_the_round(value, message):
    with pytest.raises(DPBanditsError, match=message):
        SemiPolicyMechanism(lambda rng: Plays(value), MATROID, None).sample(TABLE, 2, 0)


@pytest.mark.exact
def test_a_later_round_and_a_raising_observe_are_named():
    with pytest.raises(DPBanditsError, match=r"run 0: policy.act\(2\) returned the super arm \[2, 3\]"):
        SemiPolicyMechanism(lambda rng: Plays([3, 2], at=2), MATROID, None).sample(TABLE, 1, 0)

    class Fails(Plays):
        def observe(self, t, arms, rewards):
            rewards[0] = 1.0                                          # read-only: raises

    with pytest.raises(DPBanditsError, match=r"run 0: policy.observe\(0, None, w0\) raised ValueError"):
        SemiPolicyMechanism(lambda rng: Fails([0, 2]), MATROID, None).sample(TABLE, 1, 0)


@pytest.mark.smoke
def test_attributes_and_bad_input():
    mechanism = SemiPolicyMechanism(random_policy, MATROID, 0.5, label="mine")
    assert (mechanism.K, mechanism.k, mechanism.feedback, mechanism.label) == (4, 2, "semi", "mine")
    assert mechanism.claimed.epsilon == 0.5
    with pytest.raises(DPBanditsError, match="the table needs X0"):
        mechanism.sample(Table(X), 1, 0)
    with pytest.raises(DPBanditsError, match="has K = 4 arms but the table has 3"):
        SemiPolicyMechanism(random_policy, Uniform(4, 1), None).sample(Table(X[:, :3], X0=X[0, :3]), 1, 0)
    with pytest.raises(DPBanditsError, match="matroid must be a Matroid"):
        SemiPolicyMechanism(random_policy, 4, None)
