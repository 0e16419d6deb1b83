"""Exact: the matroid kernel (OMM, CTS, DPUCB-MAT, DPTS-MAT) is bit-identical to the reference.

Also the pieces it runs on: the compiled greedy oracle against the reference's on every matroid
kind, the shared loop's ``draw_rows`` (every source, round 0 included, the row sampler against
``matrix[rng.integers(n, size=R)]``), ``make_sim(width=..., best=...)`` and ``semi_round``'s
regret, whose sums follow NumPy's pairwise order (different from a plain loop from 8 terms on).
"""

from __future__ import annotations

import numpy as np
import pytest

from dpbandits.compiled import matroid as kernel
from dpbandits.compiled.loop import draw_rows, make_sim, semi_round
from dpbandits.compiled.matroid_greedy import oracle_from, priority_order, select
from dpbandits.errors import DPBanditsError
from dpbandits.reference import Bernoulli, BetaArms, Deterministic, Table, simulate, spec
from dpbandits.reference.matroid import (Graphic, Linear, MatroidEnvironment, Partition, RowSampler,
                                         Uniform, greedy)
from dpbandits.reference.matroid.data import SYNTHETIC_MEANS, matroid_setting, synthetic_matroid

from .identity import differing_fields

pytestmark = pytest.mark.exact

MEANS = np.array(SYNTHETIC_MEANS)
_rng = np.random.default_rng(7)
SYNTHETIC = synthetic_matroid()
SOURCES = {
    "bernoulli": Bernoulli(MEANS),
    "beta": BetaArms(np.linspace(0.5, 3.0, 7), np.linspace(2.0, 0.7, 7)),
    "table": Table(_rng.beta(2.0, 3.0, size=(200, 7)), X0=_rng.beta(2.0, 3.0, size=7)),
    "deterministic": Deterministic(MEANS),
    "row-sampler": RowSampler((_rng.random((40, 7)) < MEANS).astype(float)),
}

CONFIGS = [
    ("omm", {}),
    ("omm", {"alpha": 0.5, "log_round": "t-1"}),
    ("cts", {"form": "round0"}),
    ("cts", {"form": "agrawal-goyal"}),
    ("cts", {"form": "lazy"}),
    ("dpucb-mat", {"epsilon": 2.0, "variant": "paper"}),
    ("dpucb-mat", {"epsilon": 0.5, "variant": "corrected"}),
    ("dpts-mat", {"epsilon": 2.0, "variant": "paper"}),
    ("dpts-mat", {"epsilon": 0.5, "variant": "corrected"}),
]
CONFIG_IDS = [name + "-" + "-".join(f"{v}" for v in kwargs.values()) for name, kwargs in CONFIGS]


@pytest.mark.parametrize("runs, T", [(1, 150), (30, 60)])
@pytest.mark.parametrize("tie_break", ["first", "random"])
@pytest.mark.parametrize("source", sorted(SOURCES))
@pytest.mark.parametrize("name, kwargs", CONFIGS, ids=CONFIG_IDS)
def test_bit_identical_on_the_synthetic_matroid(name, kwargs, source, tie_break, runs, T):
    """Table 2's linear matroid (rank 3, a loop, a parallel pair) on every source."""
    factory = spec(name, 7, matroid=SYNTHETIC, tie_break=tie_break, **kwargs)
    env = MatroidEnvironment(SYNTHETIC, SOURCES[source])
    assert differing_fields(factory, env, T, runs, seed=3) == []


def _wide_linear() -> Linear:
    """12 integer vectors in Z^9 (rank 9): bases of 9 > 8 arms exercise the pairwise sums."""
    vectors = np.random.default_rng(3).integers(-2, 3, size=(12, 9))
    vectors[11] = 0                                         # a loop
    vectors[10] = 3 * vectors[0]                            # parallel to e_0
    return Linear(vectors)


MATROIDS = {
    "uniform": Uniform(7, 3),
    "partition": Partition([[0, 3], [1, 2, 6], [4, 5]], [1, 2, 0]),
    "graphic": Graphic([(0, 1), (1, 2), (2, 0), (0, 1), (3, 3), (2, 3), (1, 3)]),
    "linear-rank-9": _wide_linear(),
}


@pytest.mark.parametrize("tie_break", ["first", "random"])
@pytest.mark.parametrize("matroid", sorted(MATROIDS))
@pytest.mark.parametrize("name, kwargs", [("omm", {}), ("cts", {}), ("dpucb-mat", {"epsilon": 1.0}),
                                          ("dpts-mat", {"epsilon": 1.0})])
def test_bit_identical_on_every_matroid_kind(name, kwargs, matroid, tie_break):
    m = MATROIDS[matroid]
    rng = np.random.default_rng(5)
    table = Table(rng.random((80, m.L)), X0=rng.random(m.L))
    factory = spec(name, m.L, matroid=m, tie_break=tie_break, **kwargs)
    assert differing_fields(factory, MatroidEnvironment(m, table), 80, 1, seed=2) == []
    bernoulli = MatroidEnvironment(m, Bernoulli(np.linspace(0.9, 0.1, m.L)))
    assert differing_fields(factory, bernoulli, 60, 25, seed=2) == []


@pytest.mark.parametrize("name, kwargs", [("omm", {}), ("cts", {}), ("dpucb-mat", {"epsilon": 2.0}),
                                          ("dpts-mat", {"epsilon": 2.0})])
@pytest.mark.parametrize("setting", ["chandak-synthetic", "chandak-movielens-standin"])
def test_bit_identical_on_the_cli_settings(name, kwargs, setting):
    """As ``dpbandits run`` builds them; the stand-in has 100 base arms, rank 17."""
    env = _setting(setting)
    factory = spec(name, env.K, matroid=env.matroid, T=40, **kwargs)
    assert differing_fields(factory, env, 40, 3, seed=1) == []


_SETTINGS: dict = {}


def _setting(name):
    if name not in _SETTINGS:
        _SETTINGS[name] = matroid_setting(name)
    return _SETTINGS[name]


def test_block_boundary_and_workers_do_not_change_the_result():
    """Two blocks (4096 + 5) on one process and on two give the reference's result."""
    env = MatroidEnvironment(SYNTHETIC, Bernoulli(MEANS))
    factory = spec("dpts-mat", 7, epsilon=2.0, matroid=SYNTHETIC)
    one = simulate(factory, env, 12, 4101, seed=5, backend="compiled")
    two = simulate(factory, env, 12, 4101, seed=5, backend="compiled", workers=2)
    reference = simulate(factory, env, 12, 4101, seed=5, backend="reference")
    for field in ("pseudo_regret", "realised_regret", "pulls"):
        assert np.array_equal(getattr(one, field), getattr(two, field))
        assert np.array_equal(getattr(one, field), getattr(reference, field))


# --- the greedy oracle -------------------------------------------------------------------

@pytest.mark.parametrize("matroid", sorted(MATROIDS) + ["synthetic"])
@pytest.mark.parametrize("random_ties", [0, 1])
def test_compiled_greedy_is_the_reference_greedy(matroid, random_ties):
    """Scores with many ties (a few levels), with and without tie keys, 500 runs."""
    m = SYNTHETIC if matroid == "synthetic" else MATROIDS[matroid]
    rng = np.random.default_rng(11)
    scores = rng.integers(0, 3, size=(500, m.L)).astype(float) - 0.5
    keys = rng.random(scores.shape)
    expected = greedy(m, scores, tie_keys=keys if random_ties else None)
    oracle, order = oracle_from(m), np.zeros(m.L, np.int64)
    bases = np.zeros((500, m.rank), np.int64)
    for r in range(500):
        priority_order(scores, keys, r, random_ties, order)
        select(oracle, order, bases, r)
    np.testing.assert_array_equal(bases, expected)


def test_unsupported_matroids_are_declined_with_the_reason():
    class Custom(Uniform):
        pass

    env = MatroidEnvironment(Custom(4, 2), Bernoulli([0.5, 0.4, 0.3, 0.2]))
    factory = spec("omm", 4, matroid=env.matroid)
    with pytest.raises(DPBanditsError, match="not Custom"):
        simulate(factory, env, 10, 1, backend="compiled")
    assert simulate(factory, env, 6000, 1).backend == "reference"
    huge = Linear([[10**12, 1, 0], [3, 10**12, 7], [1, 1, 10**12], [2, 5, 1]])
    assert not huge.fits_int64
    factory = spec("omm", 4, matroid=huge)
    with pytest.raises(DPBanditsError, match="beyond int64"):
        simulate(factory, MatroidEnvironment(huge, Bernoulli([0.5, 0.4, 0.3, 0.2])), 10, 1,
                 backend="compiled")


def test_a_table_without_row_zero_is_refused_as_by_the_reference():
    env = MatroidEnvironment(SYNTHETIC, Table(np.full((20, 7), 0.5)))
    factory = spec("omm", 7, matroid=SYNTHETIC)
    for backend in ("reference", "compiled"):
        with pytest.raises(DPBanditsError, match="give the table X0"):
            simulate(factory, env, 20, 2, backend=backend)
    # CTS in Agrawal and Goyal's form observes no round 0 and needs none
    factory = spec("cts", 7, matroid=SYNTHETIC, form="agrawal-goyal")
    assert differing_fields(factory, env, 20, 2) == []


# --- the shared loop's semi-bandit pieces ------------------------------------------------

@pytest.mark.parametrize("source", sorted(SOURCES))
@pytest.mark.parametrize("runs", [1, 3, 30])
def test_draw_rows_draws_what_the_reference_source_draws(source, runs):
    """Rounds 0..5 from twin generators; the row sampler's odd R leaves half a 64-bit word."""
    env = MatroidEnvironment(SYNTHETIC, SOURCES[source])
    ours, theirs = np.random.default_rng(9), np.random.default_rng(9)
    sim = make_sim(env, runs, 6, np.array([6]), False, ours, width=3, best=env.optimal_value)
    for t in range(6):
        draw_rows(sim, t)
        np.testing.assert_array_equal(sim.rows, env.rows(theirs, t, runs))
        assert ours.random() == theirs.random()              # the streams stay in step


@pytest.mark.parametrize("n", [1, 2, 7, 6040])
@pytest.mark.parametrize("runs", [1, 5, 64])
def test_row_sampler_index_draws_are_numpys(n, runs):
    """draw_rows's ROW_SAMPLER branch picks matrix[rng.integers(n, size=R)], bit for bit."""
    matrix = np.linspace(0.0, 1.0, n)[:, None] * np.ones((1, 2))     # distinct rows
    ours, theirs = np.random.default_rng(n), np.random.default_rng(n)
    sim = make_sim(RowSampler(matrix), runs, 1, np.array([1]), False, ours, width=1, best=0.0)
    for _ in range(4):
        draw_rows(sim, 1)
        np.testing.assert_array_equal(sim.rows, matrix[theirs.integers(n, size=runs)])


def test_row_sampler_index_draws_beyond_32_bits():
    """n > 2^32 rows take NumPy's 64-bit bounded draw; checked through the index alone."""
    from dpbandits.compiled.loop import _integer_below
    ours, theirs = np.random.default_rng(4), np.random.default_rng(4)
    for n in (2**32 + 3, 2**40 + 1, 2**32, 2**32 + 1):
        got = [_integer_below(ours, n) for _ in range(7)]
        np.testing.assert_array_equal(got, [theirs.integers(n) for _ in range(7)])


def test_make_sim_for_a_semi_bandit():
    env = MatroidEnvironment(SYNTHETIC, Bernoulli(MEANS))
    sim = make_sim(env, 4, 10, np.array([5, 10]), True, np.random.default_rng(0), width=3,
                   best=env.optimal_value)
    assert sim.actions.shape == (4, 3) and sim.x.shape == (4, 3) and sim.rows.shape == (4, 7)
    assert sim.actions_seen.shape == (4, 10, 3) and sim.pulls.shape == (4, 7)
    assert sim.mu_star == env.optimal_value == pytest.approx(2.15)
    np.testing.assert_array_equal(sim.means, MEANS)


def test_semi_round_books_regret_with_numpys_sums():
    """17 base arms of awkward means: the regret equals the reference ledger's to the bit."""
    L, k, R, T = 40, 17, 6, 25
    rng = np.random.default_rng(2)
    means = rng.random(L) / 3
    table = Table(rng.random((T, L)), means=means, X0=rng.random(L))
    env = MatroidEnvironment(Uniform(L, k), table)
    sim = make_sim(env, R, T, np.arange(1, T + 1), True, np.random.default_rng(0), width=k,
                   best=env.optimal_value)
    pseudo, realised = np.zeros(R), np.zeros(R)
    for t in range(1, T + 1):
        actions = np.argsort(rng.random((R, L)), axis=1)[:, :k]
        sim.actions[:] = actions
        semi_round(sim, t)
        x = table.X[t - 1][actions]
        pseudo += env.optimal_value - means[actions].sum(axis=1)
        realised += env.optimal_value - x.sum(axis=1)
        np.testing.assert_array_equal(sim.x, x)
        np.testing.assert_array_equal(sim.pseudo_at[:, t - 1], pseudo)
        np.testing.assert_array_equal(sim.realised_at[:, t - 1], realised)
        np.testing.assert_array_equal(sim.actions_seen[:, t - 1], actions)


def test_a_source_without_an_optimal_value_is_refused_with_the_reason():
    factory = spec("dpucb-mat", 2, epsilon=1.0)
    with pytest.raises(DPBanditsError, match="needs a source with an optimal_value"):
        simulate(factory, Bernoulli([0.6, 0.4]), 10, 1, backend="compiled")
    with pytest.raises(DPBanditsError, match="needs a source with an optimal_value"):
        simulate(factory, Bernoulli([0.6, 0.4]), 6000, 1)            # auto: the reference says why


def test_warm_up_compiles_the_matroid_kernel():
    from dpbandits.compiled import warm_up
    assert sorted(warm_up(list(kernel.ALGORITHMS))) == sorted(kernel.ALGORITHMS)
