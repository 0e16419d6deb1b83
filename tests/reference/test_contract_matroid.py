"""The contract every registered semi-bandit (matroid) algorithm and variant passes.

Mirrors the bandit contract. Kinds: smoke (valid bases on matroids of every kind, claim present,
listing), exact (determinism, unchosen coordinates never read, bad input refused), statistical
(one batch vs many single runs: same law).
"""

from __future__ import annotations

import inspect
import pickle

import numpy as np
import pytest
from scipy import stats

from dpbandits.errors import DPBanditsError
from dpbandits.reference import ALGORITHMS, Bernoulli, Table, algorithms, get, make, simulate, spec
from dpbandits.reference.matroid import Graphic, MatroidEnvironment, Partition, Uniform
from dpbandits.reference.matroid.data import SYNTHETIC_MEANS, synthetic_matroid
from dpbandits.reference.privacy import PrivacyClaim


def _cases():
    cases = []
    for name in ALGORITHMS:
        try:
            cls = get(name)
        except ImportError:
            continue  # reported by the bandit contract's import test
        if cls.feedback == "semi":
            cases.extend(pytest.param(name, v.name, id=f"{name}[{v.name}]") for v in cls.variants)
    return cases


CASES = _cases()
MEANS = np.array(SYNTHETIC_MEANS)
MATROIDS = {
    "linear": synthetic_matroid(),
    "uniform": Uniform(7, 3),
    "partition": Partition([[0, 3], [1, 4, 6], [2, 5]], [1, 2, 1]),
    "graphic": Graphic([(0, 1), (1, 2), (2, 0), (2, 3), (3, 3), (0, 1), (1, 3)], 4),
}
T = 120


def factory(name, variant, matroid, epsilon=2.0, **params):
    if get(name).private:
        return spec(name, matroid.L, epsilon=epsilon, variant=variant, matroid=matroid, **params)
    return spec(name, matroid.L, variant=variant, matroid=matroid, **params)


@pytest.mark.smoke
def test_every_matroid_algorithm_is_registered_as_semi():
    assert sorted(case.values[0] for case in CASES if case.values[1] in ("paper",)) == \
        ["cts", "dpts-mat", "dpucb-mat", "omm"]
    listed = {info.name: info for info in algorithms(epsilon=1.0)}
    for name in ("omm", "cts", "dpucb-mat", "dpts-mat"):
        assert listed[name].feedback == "semi" and listed[name].claims


@pytest.mark.smoke
@pytest.mark.parametrize("kind", list(MATROIDS))
@pytest.mark.parametrize("name, variant", CASES)
def test_actions_are_bases_and_claim_present(name, variant, kind):
    m = MATROIDS[kind]
    env = MatroidEnvironment(m, Bernoulli(MEANS))
    result = simulate(factory(name, variant, m), env, T, runs=5, seed=3, record_actions=True)
    assert result.actions.shape == (5, T, m.rank)
    bases = {tuple(sorted(A)) for A in result.actions.reshape(-1, m.rank).tolist()}
    assert all(m.is_basis(B) for B in bases)
    assert (result.pulls.sum(axis=1) == T * m.rank).all()
    assert (result.pseudo_regret >= -1e-9).all()                             # pseudo-regret is never negative
    assert np.all(np.diff(result.pseudo_regret, axis=1) >= -1e-9)
    policy = make(name, m.L, epsilon=2.0, rng=0, variant=variant, matroid=m)
    assert policy.super_arm_size == m.rank and policy.feedback == "semi"
    claim = policy.claim
    assert isinstance(claim, PrivacyClaim) and claim.source
    assert (claim.claimed is not None) == get(name).private
    assert get(name).default_variant in [v.name for v in get(name).variants]


@pytest.mark.exact
@pytest.mark.parametrize("name, variant", CASES)
def test_deterministic_under_a_seed(name, variant):
    m = MATROIDS["linear"]
    env = MatroidEnvironment(m, Bernoulli(MEANS))
    for params in ({}, {"tie_break": "random"}):
        f = factory(name, variant, m, **params)
        first = simulate(f, env, T, runs=4, seed=11, record_actions=True)
        second = simulate(f, env, T, runs=4, seed=11, record_actions=True)
        np.testing.assert_array_equal(first.actions, second.actions)
        np.testing.assert_array_equal(first.pseudo_regret, second.pseudo_regret)
    other = simulate(factory(name, variant, m), env, T, runs=4, seed=12, record_actions=True)
    assert not np.array_equal(first.actions, other.actions)
    copy = pickle.loads(pickle.dumps(f))                     # worker processes receive factories
    np.testing.assert_array_equal(simulate(copy, env, 30, runs=2, seed=1, record_actions=True).actions,
                                  simulate(f, env, 30, runs=2, seed=1, record_actions=True).actions)


@pytest.mark.exact
@pytest.mark.parametrize("name, variant", CASES)
def test_unchosen_coordinates_are_never_read(name, variant):
    """Replacing every weight of rounds 1..T outside the played basis leaves the run unchanged
    (row 0 is observed whole, so it is kept)."""
    m = MATROIDS["linear"]
    rng = np.random.default_rng(5)
    X = (rng.random((T, 7)) < MEANS).astype(float)
    X0 = (rng.random(7) < MEANS).astype(float)
    f = factory(name, variant, m)
    seen = simulate(f, MatroidEnvironment(m, Table(X, X0=X0)), T, seed=2, record_actions=True).actions[0]
    hidden = np.ones_like(X, dtype=bool)
    hidden[np.arange(T)[:, None], seen] = False
    altered = np.where(hidden, 1.0 - X, X)
    again = simulate(f, MatroidEnvironment(m, Table(altered, X0=X0)), T, seed=2, record_actions=True).actions[0]
    np.testing.assert_array_equal(seen, again)


@pytest.mark.statistical
@pytest.mark.parametrize("name, variant", CASES)
def test_one_batch_and_many_single_runs_have_the_same_law(name, variant):
    """Final pseudo-regret at T = 100: 300 runs in one batch vs 300 policies of one run each.

    Two-sample Kolmogorov-Smirnov test, rejecting at p < 1e-4 (fixed seeds; under the null the
    probability of a false failure is at most 1e-4 per case).
    """
    m = MATROIDS["linear"]
    env = MatroidEnvironment(m, Bernoulli(MEANS))
    f = factory(name, variant, m)
    batch = simulate(f, env, 100, runs=300, seed=21).pseudo_regret[:, -1]
    singles = np.array([simulate(f, env, 100, runs=1, seed=1000 + i).pseudo_regret[0, -1]
                        for i in range(300)])
    assert stats.ks_2samp(batch, singles).pvalue > 1e-4


@pytest.mark.exact
@pytest.mark.parametrize("name, variant", CASES)
def test_bad_input_is_refused(name, variant):
    cls = get(name)
    m = MATROIDS["linear"]
    with pytest.raises(DPBanditsError, match="K"):
        make(name, 1, epsilon=1.0, rng=0, variant=variant)
    if cls.private:
        for bad in (0.0, -1.0, float("nan"), float("inf")):
            with pytest.raises(DPBanditsError, match="epsilon"):
                make(name, 7, epsilon=bad, rng=0, variant=variant, matroid=m)
    else:
        assert "epsilon" not in inspect.signature(cls.__init__).parameters
    with pytest.raises(DPBanditsError, match="variant"):
        make(name, 7, epsilon=1.0, rng=0, variant="no-such-variant", matroid=m)
    with pytest.raises(DPBanditsError, match="matroid"):
        make(name, 6, epsilon=1.0, rng=0, variant=variant, matroid=m)
    with pytest.raises(DPBanditsError, match="matroid"):
        make(name, 7, epsilon=1.0, rng=0, variant=variant, matroid=[[1, 0]] * 7)
    with pytest.raises(DPBanditsError, match="rank"):
        make(name, 2, epsilon=1.0, rng=0, variant=variant, matroid=Uniform(2, 0))
    with pytest.raises(DPBanditsError, match="tie_break"):
        make(name, 7, epsilon=1.0, rng=0, variant=variant, matroid=m, tie_break="last")
    with pytest.raises(DPBanditsError, match="unknown parameter"):
        make(name, 7, epsilon=1.0, rng=0, variant=variant, matroid=m, horizon=5)
    policy = make(name, 7, epsilon=1.0, rng=0, variant=variant, matroid=m, runs=2)
    with pytest.raises(DPBanditsError, match=r"observe\(0"):
        policy.act(1)
    for bad in (1.5, -0.1, float("nan")):
        with pytest.raises(DPBanditsError, match=r"\[0, 1\]"):
            make(name, 7, epsilon=1.0, rng=0, variant=variant, matroid=m, runs=2).observe(
                0, None, np.full((2, 7), bad))
    with pytest.raises(DPBanditsError, match="shape"):
        policy.observe(0, None, np.full((2, 3), 0.5))
    policy = make(name, 7, epsilon=1.0, rng=0, variant=variant, matroid=m, runs=2)
    policy.observe(0, None, np.full((2, 7), 0.5))
    with pytest.raises(DPBanditsError, match="already"):
        policy.observe(0, None, np.full((2, 7), 0.5))
    actions = policy.act(1)
    assert actions.shape == (2, 3) and actions.dtype.kind == "i"
    for bad in (1.5, -0.1, float("nan")):
        with pytest.raises(DPBanditsError, match=r"\[0, 1\]"):
            policy.observe(1, actions, np.full((2, 3), bad))
    with pytest.raises(DPBanditsError, match="shape"):
        policy.observe(1, actions, np.full((2, 7), 0.5))
