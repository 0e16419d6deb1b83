"""The simulation engine.

Kinds: exact (seeding, blocks, workers, regret bookkeeping, bad input), statistical (regret of
a fixed policy against its closed form).
"""

from __future__ import annotations

import numpy as np
import pytest

from dpbandits.errors import DPBanditsError
from dpbandits.reference import RUNS_PER_BLOCK, Bernoulli, Table, simulate, spec
from dpbandits.reference.engine import default_checkpoints


class FixedArm:
    """A policy that always pulls one arm (for closed-form regret)."""

    feedback = "bandit"

    def __init__(self, runs, arm, K):
        self.runs, self.arm, self.K = runs, arm, K

    def act(self, t):
        return np.full(self.runs, self.arm)

    def observe(self, t, actions, feedback):
        pass


class FixedArmFactory:
    def __init__(self, arm, K):
        self.arm, self.K = arm, K

    def __call__(self, runs, rng):
        return FixedArm(runs, self.arm, self.K)


@pytest.mark.exact
def test_pseudo_regret_of_a_fixed_arm_is_linear():
    means = np.array([0.9, 0.6, 0.3])
    result = simulate(FixedArmFactory(2, 3), Bernoulli(means), 50, runs=4, seed=0,
                      checkpoints=np.array([1, 10, 50]))
    np.testing.assert_allclose(result.pseudo_regret, np.tile([0.6, 6.0, 30.0], (4, 1)))
    assert (result.pulls[:, 2] == 50).all()


@pytest.mark.exact
def test_realised_regret_on_a_table_is_exact():
    table = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    result = simulate(FixedArmFactory(1, 2), Table(table, means=[0.7, 0.5]), 3, runs=2, seed=0,
                      checkpoints=np.array([1, 2, 3]))
    np.testing.assert_allclose(result.realised_regret[0], [0.7, 0.4, 0.1])
    np.testing.assert_allclose(result.pseudo_regret[0], [0.2, 0.4, 0.6])


@pytest.mark.exact
def test_result_depends_only_on_the_seed_not_on_workers():
    f = spec("anytime-lazy-ucb", 3, epsilon=1.0)
    runs = RUNS_PER_BLOCK + 37  # two blocks
    one = simulate(f, Bernoulli([0.8, 0.5, 0.4]), 60, runs=runs, seed=7)
    two = simulate(f, Bernoulli([0.8, 0.5, 0.4]), 60, runs=runs, seed=7, workers=2)
    np.testing.assert_array_equal(one.pseudo_regret, two.pseudo_regret)
    np.testing.assert_array_equal(one.pulls, two.pulls)


@pytest.mark.exact
def test_first_block_is_the_same_whatever_the_number_of_runs():
    """Runs are seeded by block: adding runs never changes the runs already there."""
    f = spec("ucb1", 3)
    small = simulate(f, Bernoulli([0.8, 0.5, 0.4]), 40, runs=10, seed=3, record_actions=True)
    large = simulate(f, Bernoulli([0.8, 0.5, 0.4]), 40, runs=RUNS_PER_BLOCK + 5, seed=3, record_actions=True)
    assert small.actions.shape == (10, 40)
    assert large.actions[:RUNS_PER_BLOCK].shape == (RUNS_PER_BLOCK, 40)


@pytest.mark.exact
def test_same_rewards_for_every_algorithm_under_one_seed():
    """The reward stream is separate from the policy stream: realised minus pseudo regret of a
    fixed arm is the same sum of rewards whichever arm a different policy would pull."""
    means = np.array([0.6, 0.4])
    a = simulate(FixedArmFactory(0, 2), Bernoulli(means), 30, runs=3, seed=9)
    b = simulate(FixedArmFactory(0, 2), Bernoulli(means), 30, runs=3, seed=9)
    np.testing.assert_array_equal(a.realised_regret, b.realised_regret)


@pytest.mark.exact
def test_progress_counts_every_run_round():
    seen = []
    simulate(spec("ucb1", 2), Bernoulli([0.5, 0.4]), 257, runs=3, seed=0, progress=seen.append)
    assert sum(seen) == 3 * 257


@pytest.mark.exact
def test_checkpoints_end_at_the_horizon():
    for T in (1, 2, 7, 1000, 10 ** 6):
        cps = default_checkpoints(T)
        assert cps[0] == 1 and cps[-1] == T and np.all(np.diff(cps) > 0)


@pytest.mark.exact
def test_bad_input_names_the_argument():
    f = spec("ucb1", 2)
    with pytest.raises(DPBanditsError, match="T"):
        simulate(f, Bernoulli([0.5, 0.4]), 0)
    with pytest.raises(DPBanditsError, match="runs"):
        simulate(f, Bernoulli([0.5, 0.4]), 10, runs=0)
    with pytest.raises(DPBanditsError, match="horizon"):
        simulate(f, np.zeros((5, 2)), 10)
    with pytest.raises(DPBanditsError, match="K = 2"):
        simulate(f, Bernoulli([0.5, 0.4, 0.3]), 10)
    with pytest.raises(DPBanditsError, match="setting"):
        simulate(f, "no-such-setting", 10)


class BadPolicy(FixedArm):
    def act(self, t):
        return np.full(self.runs, 5)


@pytest.mark.exact
def test_invalid_actions_are_refused():
    with pytest.raises(DPBanditsError, match="outside"):
        simulate(lambda runs, rng: BadPolicy(runs, 0, 2), Bernoulli([0.5, 0.4]), 3)


@pytest.mark.statistical
def test_mean_realised_regret_of_a_fixed_arm():
    """Realised regret of always pulling arm 1: mean T*(mu* - mu_1) = 30 at T = 100.

    Over 4000 runs the mean has standard deviation sqrt(100 * 0.24 / 4000) = 0.077; the test
    allows 0.5 (6.4 sigma, failure probability below 1e-9).
    """
    result = simulate(FixedArmFactory(1, 2), Bernoulli([0.7, 0.4]), 100, runs=4000, seed=1)
    assert abs(result.final("realised")[0] - 30.0) < 0.5
    mean, low, high = result.final("pseudo")
    assert mean == pytest.approx(30.0)


@pytest.mark.exact
def test_dask_cluster_gives_the_same_result_as_one_process():
    """Blocks on a Dask LocalCluster (2 workers) reproduce the single-process result exactly."""
    distributed = pytest.importorskip("distributed")
    factory = spec("anytime-lazy-ucb", 3, epsilon=1.0)
    runs = 2 * RUNS_PER_BLOCK + 17
    local = simulate(factory, Bernoulli([0.8, 0.5, 0.3]), 60, runs=runs, seed=5, record_actions=True)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as client:
        remote = simulate(factory, Bernoulli([0.8, 0.5, 0.3]), 60, runs=runs, seed=5,
                          record_actions=True, client=client)
    np.testing.assert_array_equal(local.actions, remote.actions)
    np.testing.assert_array_equal(local.pseudo_regret, remote.pseudo_regret)


@pytest.mark.exact
@pytest.mark.parametrize("level", [2, 0, 1, -0.5, float("nan"), "0.9"])
def test_a_confidence_level_outside_the_unit_interval_is_an_error(level):
    """Not a NaN band: a level outside (0, 1) raises the library's error."""
    from dpbandits.errors import DPBanditsError
    from dpbandits.reference import Bernoulli, simulate, spec

    result = simulate(spec("ucb1", 2), Bernoulli([0.6, 0.4]), 10, 3)
    with pytest.raises(DPBanditsError, match="level must be a confidence level"):
        result.final(level=level)
    with pytest.raises(DPBanditsError, match="level must be a confidence level"):
        result.confidence_band(level=level)


@pytest.mark.exact
def test_the_engine_runs_the_backend_handed_to_it_from_above(monkeypatch):
    from dpbandits.reference import engine
    from dpbandits.reference.registry import spec

    table = np.full((6000, 2), 0.5)
    monkeypatch.delitem(engine._BACKEND_LOADERS, "compiled")     # restored after the test
    assert engine.choose_backend(spec("ucb1", 2), engine.as_source(table), 6000) == "reference"
    with pytest.raises(DPBanditsError, match="no compiled backend is registered"):
        engine.simulate(spec("ucb1", 2), table, 6000, backend="compiled")

    class Fake:
        calls = 0

        def unsupported(self, policy, source):
            return None

        def run_block(self, policy, source, T, env_rng, checkpoints, record_actions, progress=None):
            Fake.calls += 1
            return engine._play(policy, source, T, env_rng, checkpoints, record_actions, progress)

    engine.register_backend("compiled", Fake)
    result = engine.simulate(spec("ucb1", 2), table, 6000, runs=2)      # auto: long enough
    assert result.backend == "compiled" and Fake.calls == 1
    with pytest.raises(DPBanditsError, match="registered backend"):
        engine.register_backend("reference", Fake)
