"""The contract every registered bandit algorithm and variant passes.

Kinds: smoke (valid actions, claim present), exact (determinism, hidden rewards never read,
bad input refused), statistical (one batch vs many single runs: same law).
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from dpbandits.errors import DPBanditsError
from dpbandits.reference import ALGORITHMS, Bernoulli, Table, get, make, simulate, spec
from dpbandits.reference.privacy import PrivacyClaim



def _cases():
    """One case per (bandit algorithm, variant); an algorithm that fails to import fails its case."""
    cases = []
    for name in ALGORITHMS:
        try:
            cls = get(name)
        except ImportError:
            continue  # reported by test_every_registered_algorithm_imports
        if cls.feedback in ("bandit", "full"):
            cases.extend(pytest.param(name, v.name, id=f"{name}[{v.name}]") for v in cls.variants)
    return cases


CASES = _cases()
BANDIT_CASES = [case for case in CASES if get(case.values[0]).feedback == "bandit"]
MEANS = np.array([0.8, 0.6, 0.5])
T = 120


def factory(name: str, variant: str, epsilon: float = 1.0):
    return spec(name, len(MEANS), epsilon=epsilon, variant=variant, T=T)


@pytest.mark.smoke
@pytest.mark.parametrize("name", list(ALGORITHMS))
def test_every_registered_algorithm_imports(name):
    assert get(name).name == name


@pytest.mark.smoke
@pytest.mark.parametrize("name, variant", CASES)
def test_actions_valid_and_claim_present(name, variant):
    result = simulate(factory(name, variant), Bernoulli(MEANS), T, runs=7, seed=3, record_actions=True)
    assert result.actions.shape == (7, T)
    assert result.actions.min() >= 0 and result.actions.max() < len(MEANS)
    assert (result.pulls.sum(axis=1) == T).all()
    assert np.all(np.diff(result.pseudo_regret, axis=1) >= -1e-12)
    policy = make(name, 3, epsilon=1.0, rng=0, variant=variant, T=T)
    claim = policy.claim
    assert isinstance(claim, PrivacyClaim)
    assert claim.source
    assert (claim.claimed is not None) == get(name).private
    assert get(name).default_variant in [v.name for v in get(name).variants]


@pytest.mark.exact
@pytest.mark.parametrize("name, variant", CASES)
def test_deterministic_under_a_seed(name, variant):
    f = factory(name, variant)
    first = simulate(f, Bernoulli(MEANS), T, runs=5, seed=11, record_actions=True)
    second = simulate(f, Bernoulli(MEANS), T, runs=5, seed=11, record_actions=True)
    np.testing.assert_array_equal(first.actions, second.actions)
    np.testing.assert_array_equal(first.pseudo_regret, second.pseudo_regret)


@pytest.mark.exact
@pytest.mark.parametrize("name, variant", BANDIT_CASES)
def test_hidden_rewards_are_never_read(name, variant):
    """Changing every reward the bandit feedback hides leaves the actions unchanged."""
    table = Bernoulli(MEANS).table(T, np.random.default_rng(5))
    f = factory(name, variant)
    seen = simulate(f, Table(table), T, runs=1, seed=2, record_actions=True).actions[0]
    hidden = np.ones_like(table, dtype=bool)
    hidden[np.arange(T), seen] = False
    altered = np.where(hidden, 1.0 - table, table)
    again = simulate(f, Table(altered), T, runs=1, seed=2, record_actions=True).actions[0]
    np.testing.assert_array_equal(seen, again)


@pytest.mark.statistical
@pytest.mark.parametrize("name, variant", CASES)
def test_one_batch_and_many_single_runs_have_the_same_law(name, variant):
    """Pulls of the best arm: 300 runs in one batch vs 300 policies of one run each.

    Two-sample Kolmogorov-Smirnov test, rejecting at p < 1e-4 (fixed seeds; under the null the
    probability of a false failure is at most 1e-4 per case).
    """
    f = factory(name, variant)
    source = Bernoulli(MEANS)
    batch = simulate(f, source, T, runs=300, seed=21).pulls[:, 0]
    singles = np.array([simulate(f, source, T, runs=1, seed=1000 + i).pulls[0, 0] for i in range(300)])
    assert stats.ks_2samp(batch, singles).pvalue > 1e-4


@pytest.mark.exact
@pytest.mark.parametrize("name, variant", CASES)
def test_bad_input_is_refused(name, variant):
    cls = get(name)
    with pytest.raises(DPBanditsError, match="K"):
        make(name, 1, epsilon=1.0, rng=0, variant=variant, T=T)
    if cls.private:
        for bad in (0.0, -1.0, float("nan"), float("inf")):
            with pytest.raises(DPBanditsError, match="epsilon"):
                make(name, 3, epsilon=bad, rng=0, variant=variant, T=T)
    with pytest.raises(DPBanditsError, match="variant"):
        make(name, 3, epsilon=1.0, rng=0, variant="no-such-variant", T=T)
    policy = make(name, 3, epsilon=1.0, rng=0, variant=variant, T=T)
    actions = policy.act(1)
    shape = (1,) if cls.feedback == "bandit" else (1, 3)
    for bad in (1.5, -0.1, float("nan")):
        with pytest.raises(DPBanditsError, match=r"\[0, 1\]"):
            policy.observe(1, actions, np.full(shape, bad))
    wrong = (1, 3) if cls.feedback == "bandit" else (1,)
    with pytest.raises(DPBanditsError, match="shape"):
        policy.observe(1, actions, np.full(wrong, 0.5))
