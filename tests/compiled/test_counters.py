"""Exact: the compiled counters and the counter-based UCB kernels against the reference.

The counters (Chan, Shi and Song's logarithmic, binary and hybrid mechanisms) are checked alone
on random insertion sequences, and the lazy-epoch release on a batch of ended epochs: every release
and the generator's state after the sequence are bit-identical. The kernels of DP-UCB-BOUND, DP-UCB (Tossou & Dimitrakakis, AAAI 2016, Alg. 1-2),
DP-UCB-INT (Alg. 3), Private-UCB (Mishra & Thakurta, UAI 2015, Alg. 1) and Hybrid-UCB (Hu, Huang
& Mehta, arXiv:2102.07929v2, Alg. 4) are checked for bit-identical trajectories with every
variant and parameter, on every bandit source, with both tie-breaks, for 1 run and for 33 runs.
"""

from __future__ import annotations

import numpy as np
import pytest

from numba import njit

from dpbandits.compiled import counters, epochs
from dpbandits.compiled.sums import MAX_TERMS, pairwise_sum
from dpbandits.errors import DPBanditsError
from dpbandits.reference import Bernoulli, BetaArms, Deterministic, Table, simulate, spec
from dpbandits.reference.mechanisms import (BinaryCounter, HybridCounter, LogarithmicCounter,
                                            release_epoch)

from .identity import differing_fields

pytestmark = pytest.mark.exact

SOURCES = {
    "bernoulli": Bernoulli([0.5, 0.45, 0.4, 0.5]),
    "beta": BetaArms([2.0, 1.0, 3.0, 1.5], [2.0, 2.0, 1.0, 3.0]),
    "table": Table(Bernoulli([0.6, 0.5, 0.4, 0.3]).table(300, np.random.default_rng(7))),
    "deterministic": Deterministic([0.6, 0.5, 0.5, 0.3]),
}


# ---------------------------------------------------------------------------------------------
# The counters alone


@pytest.mark.parametrize("width", [1, 3, 7, 8, 9, 15, 16, 17, 24, 40, 64, 128, 129, 250, 1000,
                                   MAX_TERMS])
def test_pairwise_sum_is_numpys_sum(width):
    """NumPy's row sums, with zeros from ``top`` on (skipped), for every row width the counters
    use and, up to the longest, the semi-bandit sums of a basis."""
    rng = np.random.default_rng(width)
    tops = range(width + 1) if width <= 128 else sorted({0, 1, 7, 8, 130, width // 2, width - 1,
                                                         width} & set(range(width + 1)))
    for top in tops:
        a = rng.laplace(0.0, 3.0, (5, width))
        a[:, top:] = 0.0
        expected = a.sum(axis=1)
        got = [pairwise_sum(a[row], width, top) for row in range(5)]
        assert np.array_equal(expected, got)


def _insertions(size: int, steps: int, seed: int):
    """Random calls: a random subset of the counters (in random order) and items in [0, 1]."""
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        where = rng.permutation(size)[:rng.integers(0, size + 1)].astype(np.int64)
        items = rng.random(where.size)
        items[rng.random(where.size) < 0.2] = 1.0
        yield where, items


def _same_releases(make, view, insert, steps: int, seed: int = 0) -> None:
    reference, twin = make(np.random.default_rng(seed)), make(np.random.default_rng(seed))
    compiled = view(twin)
    for where, items in _insertions(reference.size, steps, seed + 1):
        reference.insert(where, items)
        insert(compiled, where, items, twin.rng)
        assert np.array_equal(reference.value, twin.value)
        assert np.array_equal(reference.count, twin.count)
    assert reference.rng.random() == twin.rng.random()      # the same number of draws


@pytest.mark.parametrize("split", ["chan", "paper"])
def test_hybrid_counter_releases_are_the_references(split):
    """Up to about 600 items per counter: binary parts of up to 9 levels (pairwise sums)."""
    _same_releases(lambda rng: HybridCounter((3, 4), 0.7, rng, split=split),
                   counters.hybrid_from, counters.hybrid_insert, steps=1200)


@pytest.mark.parametrize("horizon", [5, 100, 1500])
def test_binary_counter_releases_are_the_references(horizon):
    """Tree depths below 8 (left-to-right sums) and from 8 on (NumPy's 8 accumulators)."""
    steps = min(horizon, 1400)
    _same_releases(lambda rng: BinaryCounter((2, 3), 1.3, horizon, rng),
                   counters.binary_from, counters.binary_insert, steps=steps)


def test_binary_counter_refuses_an_item_beyond_its_horizon():
    counter = BinaryCounter(2, 1.0, 1, np.random.default_rng(0))
    compiled = counters.binary_from(counter)
    where, items = np.array([0, 1]), np.array([0.5, 0.5])
    assert counters.binary_insert(compiled, where, items, counter.rng)
    assert not counters.binary_insert(compiled, where[:1], items[:1], counter.rng)
    assert counter.count.tolist() == [1, 1]


def test_logarithmic_counter_releases_are_the_references():
    _same_releases(lambda rng: LogarithmicCounter((2, 5), 0.4, rng),
                   counters.logarithmic_from, counters.logarithmic_insert, steps=700)


@njit
def _release_epochs(Phi, cells, scale, rng, length):
    out = np.empty(cells.shape[0])
    for q in range(cells.shape[0]):
        if length[q] > 0:
            out[q] = epochs.release_epoch(Phi, (cells[q, 0], cells[q, 1]), scale[q], rng, length[q])
        else:
            out[q] = epochs.release_epoch(Phi, (cells[q, 0], cells[q, 1]), scale[q], rng)
    return out


@pytest.mark.parametrize("means", [False, True], ids=["sums", "means"])
def test_the_lazy_epoch_release_is_the_references(means):
    """The compiled lazy-epoch release, one cell at a time, against the reference's batch on the
    same seed: the same released values bit for bit, the same sums emptied and the generator
    in the same state afterwards (the same draws in the same order)."""
    data = np.random.default_rng(11)
    Phi = np.round(data.random((6, 4)) * 50.0, 0) + data.random((6, 4))
    rows = np.array([0, 1, 1, 3, 5])
    arms = np.array([2, 0, 3, 3, 1])
    length = (data.integers(1, 40, rows.size).astype(float) if means
              else np.zeros(rows.size))
    scale = 1.0 / (0.3 * np.where(means, length, 1.0))
    reference_Phi, compiled_Phi = Phi.copy(), Phi.copy()
    reference_rng, compiled_rng = np.random.default_rng(2), np.random.default_rng(2)
    expected = release_epoch(reference_rng, reference_Phi, (rows, arms), scale,
                             length=length if means else None)
    got = _release_epochs(compiled_Phi, np.stack([rows, arms], axis=1), scale, compiled_rng,
                          length)
    np.testing.assert_array_equal(got, expected)
    np.testing.assert_array_equal(compiled_Phi, reference_Phi)
    assert compiled_rng.random() == reference_rng.random()


# ---------------------------------------------------------------------------------------------
# The kernels

CASES = [
    ("dp-ucb-bound", {"epsilon": 0.5}),
    ("dp-ucb-bound", {"epsilon": 2.0, "variant": "paper"}),
    ("dp-ucb-bound", {"epsilon": 1.0, "tree_log_base": "e"}),
    ("dp-ucb", {"epsilon": 0.5}),
    ("dp-ucb", {"epsilon": 1.0, "variant": "paper"}),
    ("private-ucb", {"epsilon": 0.5, "T": 300}),
    ("private-ucb", {"epsilon": 1.0, "T": 300, "gamma_rule": "T", "depth_log": "log2"}),
    ("hybrid-ucb", {"epsilon": 0.5}),
    ("hybrid-ucb", {"epsilon": 2.0, "variant": "paper"}),
    ("dp-ucb-int", {"epsilon": 0.5}),
    ("dp-ucb-int", {"epsilon": 0.3, "variant": "paper"}),
    ("dp-ucb-int", {"epsilon": 0.2, "interval": "x", "v": 1.5}),
    ("dp-ucb-int", {"epsilon": 0.25, "interval": "y", "bonus": "fresh", "v": 1.3}),
    ("dp-ucb-int", {"epsilon": 2.0, "variant": "paper", "interval": "y", "bonus": "fresh"}),
]


@pytest.mark.parametrize("source", sorted(SOURCES))
@pytest.mark.parametrize("tie_break", ["first", "random"])
@pytest.mark.parametrize("name, kwargs", CASES, ids=[f"{n}-{kw}" for n, kw in CASES])
@pytest.mark.parametrize("runs, T", [(1, 300), (33, 150)])
def test_bit_identical(name, kwargs, tie_break, source, runs, T):
    factory = spec(name, 4, tie_break=tie_break, **kwargs)
    assert differing_fields(factory, SOURCES[source], T, runs, seed=11) == []


@pytest.mark.parametrize("variant", ["corrected", "paper"])
def test_hybrid_ucb_trees_of_8_levels_and_more(variant):
    """An arm observed over 2,000 times fills trees r = 7 to 10: p-sum widths 8 and 16."""
    factory = spec("hybrid-ucb", 2, epsilon=4.0, variant=variant)
    assert differing_fields(factory, Bernoulli([0.9, 0.1]), 2500, 2, seed=1) == []


def test_dp_ucb_bound_across_counts_where_numpys_simd_log_differs():
    """On a CPU with AVX-512, NumPy's SIMD log2 of n = 1621 differs from libm's in the last bit,
    and so may nu_a; the trajectories are identical across that count."""
    n = 1621
    factory = spec("dp-ucb-bound", 2, epsilon=8.0)
    T = 2 * n + 200
    result = simulate(factory, Bernoulli([0.9, 0.2]), T, 1, seed=2, backend="compiled")
    assert result.pulls.max() > n
    assert differing_fields(factory, Bernoulli([0.9, 0.2]), T, 1, seed=2) == []


def test_private_ucb_refuses_a_round_beyond_its_horizon():
    factory = spec("private-ucb", 2, epsilon=1.0, T=10)
    with pytest.raises(DPBanditsError, match="horizon"):
        simulate(factory, Bernoulli([0.6, 0.4]), 12, 2, backend="compiled")


@pytest.mark.parametrize("interval", ["constant", "x", "y"])
@pytest.mark.parametrize("epsilon, v", [(0.05, 1.1), (0.3, 1.5), (1.0, 1.2)])
def test_dp_ucb_int_release_points_are_the_references(interval, epsilon, v):
    """The kernel's W_1, W_2, ... (Alg. 3 l.2, Lemma B.1) are the reference's, up to 1000."""
    from dpbandits.compiled import dp_ucb_int
    from dpbandits.reference.bandit.dp_ucb_int import release_points

    factory = spec("dp-ucb-int", 2, epsilon=epsilon, v=v, interval=interval)
    policy = factory(1, np.random.default_rng(0))
    state = dp_ucb_int.state_from(policy)
    expected = release_points(epsilon, v, 1000, interval)
    points = [int(policy.f0)]
    while points[-1] < expected[-1]:
        points.append(dp_ucb_int.next_release_point(state, points[-1]))
    assert points == expected.tolist()


@pytest.mark.parametrize("variant", ["corrected", "paper"])
def test_dp_ucb_int_across_releases_where_numpys_simd_pow_differs(variant):
    """f = 1: a release at every pull, about 3,000 releases, 5% of whose noise scales NumPy's
    SIMD power (on a CPU with AVX-512) rounds differently from libm; identical trajectories."""
    factory = spec("dp-ucb-int", 2, epsilon=2.0, variant=variant)
    assert differing_fields(factory, Bernoulli([0.7, 0.6]), 1500, 2, seed=4) == []


def test_block_boundary_and_workers_do_not_change_the_result():
    """Two blocks (4096 + 4) on one process and on two give the reference's result."""
    factory = spec("dp-ucb-bound", 3, epsilon=1.0)
    source = Bernoulli([0.7, 0.5, 0.5])
    one = simulate(factory, source, 40, 4100, seed=5, backend="compiled")
    two = simulate(factory, source, 40, 4100, seed=5, backend="compiled", workers=2)
    reference = simulate(factory, source, 40, 4100, seed=5, backend="reference")
    assert np.array_equal(one.pseudo_regret, two.pseudo_regret)
    assert np.array_equal(one.pulls, two.pulls)
    assert np.array_equal(one.pseudo_regret, reference.pseudo_regret)


def _plant_near_ties(policy, shift: int) -> None:
    """Arms 1 and 3 tie exactly; arm 0 has arm 1's count and a sum ``shift`` ulps away."""
    R, K = policy.runs, policy.K
    counts = np.tile([9, 9, 30, 9], (R, 1))
    sums = np.tile([0.0, 5.3, 3.0, 5.3], (R, 1))
    sums[:, 0] = sums[:, 1]
    for _ in range(abs(shift)):
        sums[:, 0] = np.nextafter(sums[:, 0], np.sign(shift) * np.inf)
    if policy.name in ("dp-ucb-bound", "dp-ucb"):
        policy.n[:] = counts
        policy.H._value[:] = sums.ravel()
    elif policy.name == "private-ucb":
        policy.trees.n[:] = counts.ravel()
        policy.trees._value[:] = sums.ravel()
    else:
        policy.O[:] = counts
        policy.r[:] = 3
        policy.mu_tilde[:] = sums / counts


@pytest.mark.parametrize("tie_break", ["first", "random"])
@pytest.mark.parametrize("name, kwargs", [("dp-ucb-bound", {}), ("dp-ucb", {}),
                                          ("private-ucb", {"T": 100}), ("hybrid-ucb", {})])
def test_screened_argmax_is_the_references_at_exact_and_near_ties(name, kwargs, tie_break):
    """Indices equal or a few ulps apart: the arms the screen keeps are compared exactly."""
    from dpbandits.compiled import KernelPolicy

    factory = spec(name, 4, epsilon=1.0, tie_break=tie_break, **kwargs)
    for shift in range(-3, 4):
        reference = factory(5, np.random.default_rng(shift + 3))
        twin = factory(5, np.random.default_rng(shift + 3))
        _plant_near_ties(reference, shift)
        _plant_near_ties(twin, shift)
        kernel = KernelPolicy(twin)
        for t in (37, 38):
            assert np.array_equal(reference.act(t), kernel.act(t))
