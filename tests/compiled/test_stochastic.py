"""Exact: the Thompson Sampling, Lazy-DP-TS, DP-SE and AdaP-KLUCB kernels against the reference.

Every kernel here is bit-identical to its reference algorithm on every run, round and checkpoint,
except AdaP-KLUCB's KL index, which NumPy's SIMD ``log1p`` lets differ by a few ulps (the kernel's
docstring); for it the trajectories are checked identical and the index within 4 ulps.
"""

from __future__ import annotations

import numpy as np
import pytest

from dpbandits.compiled.adap_klucb import kl_ucb_index as compiled_kl_ucb_index
from dpbandits.errors import DPBanditsError
from dpbandits.reference import (
    Bernoulli,
    BetaArms,
    Deterministic,
    Table,
    simulate,
    spec,
)
from dpbandits.reference.bandit.adap_klucb import kl_ucb_index

from .identity import differing_fields

pytestmark = pytest.mark.exact

SOURCES = {
    "bernoulli": Bernoulli([0.7, 0.62, 0.55, 0.3]),
    "beta": BetaArms([2.0, 1.0, 3.0, 1.5], [2.0, 2.0, 1.0, 3.0]),
    "table": Table(Bernoulli([0.7, 0.62, 0.55, 0.3]).table(2500, np.random.default_rng(7))),
    "deterministic": Deterministic([0.6, 0.5, 0.6, 0.3]),
}
SHAPES = [(1, 300), (33, 200)]
"""(runs, T): one run, and a batch whose runs draw interleaved from the shared generators."""


@pytest.mark.parametrize("source", sorted(SOURCES))
@pytest.mark.parametrize("tie_break", ["first", "random"])
@pytest.mark.parametrize("name, kwargs", [
    ("thompson", {}),
    ("lazy-dp-ts", {"epsilon": 0.5}),
    ("lazy-dp-ts", {"epsilon": 2.0, "log_base": 2}),
])
@pytest.mark.parametrize("runs, T", SHAPES)
def test_thompson_kernels_are_bit_identical(name, kwargs, tie_break, source, runs, T):
    factory = spec(name, 4, tie_break=tie_break, **kwargs)
    assert differing_fields(factory, SOURCES[source], T, runs, seed=11) == []


@pytest.mark.parametrize("source", sorted(SOURCES))
@pytest.mark.parametrize("kwargs", [
    {"epsilon": 10.0, "beta": 1.0},                                     # one epoch ends by T
    {"epsilon": 0.3, "beta": 0.5, "rounding": "plus-one", "order": "blocks"},
    {"epsilon": 10.0, "beta": 1.0, "rounding": "ceil-plus-one"},      # one pull more per epoch
    {"epsilon": 0.05, "beta": 1.0, "tie_break": "random"},              # the noise term of R_e rules
    {"epsilon": 1.0},                                                   # beta = 1/T: no epoch ends
])
@pytest.mark.parametrize("runs", [1, 33])
def test_dp_se_kernel_is_bit_identical(kwargs, source, runs):
    T = 2500
    assert differing_fields(spec("dp-se", 4, T=T, **kwargs), SOURCES[source], T, runs,
                            seed=11) == []


@pytest.mark.parametrize("order", ["round-robin", "blocks"])
@pytest.mark.parametrize("runs", [1, 33])
def test_dp_se_kernel_is_bit_identical_through_eliminations_to_one_arm(order, runs):
    """Two epochs end (T = 7000 > 4 * 444 + 2 * 2130), eliminating down to a single arm."""
    T, source = 7000, Bernoulli([0.9, 0.8, 0.5, 0.1])
    factory = spec("dp-se", 4, epsilon=10.0, beta=1.0, T=T, order=order)
    assert differing_fields(factory, source, T, runs, seed=2) == []
    pulls = simulate(factory, source, T, runs, seed=2, backend="compiled").pulls
    assert np.all(pulls[:, 2:] == 444) and np.all(pulls[:, 0] > pulls[:, 1] + 900)


def test_dp_se_kernel_refuses_rounds_beyond_its_horizon():
    factory = spec("dp-se", 3, epsilon=1.0, T=50)
    for backend in ("reference", "compiled"):
        with pytest.raises(DPBanditsError, match="horizon"):
            simulate(factory, Bernoulli([0.6, 0.5, 0.4]), 60, 2, backend=backend)


@pytest.mark.parametrize("source", sorted(SOURCES))
@pytest.mark.parametrize("tie_break", ["first", "random"])
@pytest.mark.parametrize("kwargs", [
    {"epsilon": 1.0},
    {"epsilon": 3.0, "alpha": 4.0, "init_episode_size": 0.5},
    {"epsilon": 0.2, "index": "ucb"},
    {"epsilon": 3.0, "index": "ucb", "init_episode_size": 0.5},
])
@pytest.mark.parametrize("runs, T", SHAPES)
def test_adap_klucb_kernel_trajectories_are_identical(kwargs, tie_break, source, runs, T):
    factory = spec("adap-klucb", 4, tie_break=tie_break, **kwargs)
    assert differing_fields(factory, SOURCES[source], T, runs, seed=11) == []


def test_adap_klucb_kernel_trajectories_are_identical_on_many_runs():
    factory = spec("adap-klucb", 5, epsilon=0.5)
    source = Bernoulli([0.9, 0.88, 0.5, 0.3, 0.95])
    assert differing_fields(factory, source, 1500, 300, seed=4) == []


def test_kl_index_is_within_a_few_ulps_of_the_reference():
    """The KL index: NumPy's SIMD log1p against libm's, 4 ulps at most; exactly 1 at p = 1."""
    rng = np.random.default_rng(1)
    p = rng.random(20_000)
    p[:200], p[200:400] = 0.0, 1.0
    d = rng.random(p.size) * np.exp(-15.0 * rng.random(p.size))
    reference = kl_ucb_index(p, d)
    compiled = np.array([compiled_kl_ucb_index(a, b) for a, b in zip(p, d)])
    assert np.all(np.abs(compiled - reference) <= 4 * np.spacing(reference))
    assert np.all(compiled[200:400] == 1.0) and np.all(reference[200:400] == 1.0)


def test_block_boundary_and_workers_do_not_change_the_result():
    """Two blocks (4096 + 4) on one process and on two give the same compiled result."""
    factory = spec("lazy-dp-ts", 3, epsilon=1.0)
    source = Bernoulli([0.7, 0.5, 0.5])
    one = simulate(factory, source, 30, 4100, seed=5, backend="compiled")
    two = simulate(factory, source, 30, 4100, seed=5, backend="compiled", workers=2)
    reference = simulate(factory, source, 30, 4100, seed=5, backend="reference")
    for name in ("pseudo_regret", "realised_regret", "pulls"):
        assert np.array_equal(getattr(one, name), getattr(two, name))
        assert np.array_equal(getattr(one, name), getattr(reference, name))
