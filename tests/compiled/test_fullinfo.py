"""Exact: the full-information kernel is bit-identical to FTL, Hedge, naive FTNL, RNM-FTNL and
RNM-FTNL(B, Q) of the reference, for every variant, B, noise Q and tie-break, on every source."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpbandits.compiled import KernelPolicy, fullinfo
from dpbandits.compiled.draws import gumbel
from dpbandits.reference import Bernoulli, BetaArms, Table, simulate, spec
from dpbandits.reference.environments import as_source
from dpbandits.reference.fullinfo.hedge import Hedge
from dpbandits.reference.registry import make

from .identity import differing_fields

pytestmark = pytest.mark.exact

SOURCES = {
    "bernoulli": Bernoulli([0.5, 0.45, 0.4, 0.5]),
    "beta": BetaArms([2.0, 1.0, 3.0, 1.5], [2.0, 2.0, 1.0, 3.0]),
    "table": Table(BetaArms([2.0, 1.0, 3.0, 1.5], [2.0, 2.0, 1.0, 3.0])
                   .table(300, np.random.default_rng(7))),
    "wu-wang-thm3": as_source("wu-wang-thm3"),          # Deterministic, K = 8
    "hu-journal-thm12": as_source("hu-journal-thm12"),  # Bernoulli, K = 10
}

CONFIGS = [
    ("ftl", {}),
    ("hedge", {}),
    ("hedge", {"eta": 0.3}),
    ("naive-ftnl", {"epsilon": 0.5}),
    ("naive-ftnl", {"epsilon": 8.0}),
    *[("rnm-ftnl", {"epsilon": eps, "variant": v}) for v in ("paper", "corrected")
      for eps in (0.5, 8.0)],
    *[("rnm-ftnl-bq", {"epsilon": 0.5, "variant": v, "B": B, "Q": Q})
      for v in ("paper", "corrected") for B in (0, 1) for Q in ("laplace", "exponential", "gumbel")],
    *[("rnm-ftnl-bq", {"epsilon": 8.0, "B": B, "Q": Q})
      for B in (0, 1) for Q in ("laplace", "exponential", "gumbel")],
]


def _id(config):
    name, kwargs = config
    return "-".join([name, *(f"{k}={v}" for k, v in sorted(kwargs.items()))])


@pytest.mark.parametrize("source", sorted(SOURCES))
@pytest.mark.parametrize("tie_break", ["first", "random"])
@pytest.mark.parametrize("config", CONFIGS, ids=_id)
@pytest.mark.parametrize("runs, T", [(1, 300), (33, 200)])
def test_bit_identical(config, tie_break, source, runs, T):
    name, kwargs = config
    rewards = SOURCES[source]
    factory = spec(name, rewards.K, tie_break=tie_break, **kwargs)
    assert differing_fields(factory, rewards, T, runs, seed=11) == []


def test_block_boundary_and_workers_do_not_change_the_result():
    """Two blocks (4096 + 4) on one process and on two give the same compiled result."""
    factory = spec("rnm-ftnl-bq", 3, epsilon=1.0, Q="gumbel")
    source = Bernoulli([0.7, 0.5, 0.5])
    one = simulate(factory, source, 40, 4100, seed=5, backend="compiled")
    two = simulate(factory, source, 40, 4100, seed=5, backend="compiled", workers=2)
    reference = simulate(factory, source, 40, 4100, seed=5, backend="reference")
    assert np.array_equal(one.pseudo_regret, two.pseudo_regret)
    assert np.array_equal(one.pseudo_regret, reference.pseudo_regret)


@pytest.mark.parametrize("noise", ["laplace", "exponential", "gumbel"])
def test_rnm_noise_is_numpys_stream(noise):
    """Each noise draw consumes the generator as NumPy's sampler does, value for value."""
    code = {"laplace": fullinfo.LAPLACE, "exponential": fullinfo.EXPONENTIAL,
            "gumbel": fullinfo.GUMBEL}[noise]
    reference, kernel = np.random.default_rng(3), np.random.default_rng(3)
    expected = getattr(reference, noise)(*((0.0, 2.5) if noise != "exponential" else (2.5,)),
                                          size=2000)
    drawn = np.array([fullinfo.rnm_noise(kernel, code, 2.5) for _ in range(2000)])
    assert np.array_equal(expected, drawn)
    assert reference.random() == kernel.random()


def test_gumbel_matches_numpy():
    reference, kernel = np.random.default_rng(8), np.random.default_rng(8)
    assert np.array_equal(reference.gumbel(1.5, 0.25, size=500),
                          [gumbel(kernel, 1.5, 0.25) for _ in range(500)])


def test_hedge_weights_agree_to_one_ulp():
    """NumPy's array exp (SIMD) and the kernel's scalar exp may differ in the last place only.

    This is why Hedge's kernel is identical to the reference in its actions except when a uniform
    lands within an ulp of a cumulative-weight boundary (see the kernel's docstring).
    """
    rng = np.random.default_rng(0)
    policy = Hedge(10, runs=50, rng=np.random.default_rng(1))
    policy.S[:] = rng.random((50, 10)) * 40.0
    state = fullinfo.state_from(policy)
    t = 37
    logits = policy.learning_rate(t) * policy.S
    expected = np.cumsum(np.exp(logits - logits.max(axis=1, keepdims=True)), axis=1)
    for r in range(50):
        fullinfo.hedge_cdf(state, t, r)
        np.testing.assert_array_max_ulp(state.cdf, expected[r], maxulp=1)
    assert math.isclose(math.sqrt(state.eta_numerator / t), policy.learning_rate(t), rel_tol=0.0)


@pytest.mark.parametrize("config", [("ftl", {"tie_break": "random"}), ("hedge", {}),
                                    ("rnm-ftnl", {"epsilon": 1.0}),
                                    ("rnm-ftnl-bq", {"epsilon": 1.0, "Q": "gumbel"})], ids=_id)
def test_round_by_round_through_kernel_policy(config):
    """Driven through act/observe one round at a time (as validate drives it), on whole rows."""
    name, kwargs = config
    reference = make(name, 4, runs=3, rng=3, **kwargs)
    kernel = KernelPolicy(make(name, 4, runs=3, rng=3, **kwargs))
    rewards = np.random.default_rng(0)
    for t in range(1, 80):
        actions = reference.act(t)
        assert np.array_equal(actions, kernel.act(t))
        rows = rewards.beta(2.0, 3.0, size=(3, 4))
        reference.observe(t, actions, rows)
        kernel.observe(t, actions, rows)
