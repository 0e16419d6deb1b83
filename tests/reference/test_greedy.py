"""The greedy basis oracle (Algorithm 1): Alg. 1 and T-O2 to T-O5, T-O7, T-O8.

Kinds: property (greedy against brute force over all bases of small random matroids of every
kind, with negative and tied scores; every computation method against the generic oracle path;
the ranking-only dependence; the pairing permutation's properties), exact (the tie rule, the
synthetic dataset's A* and f(A*) = 2.15, big integers, bad input).
"""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from dpbandits.errors import DPBanditsError
from dpbandits.reference.matroid import Graphic, Linear, Partition, Uniform
from dpbandits.reference.matroid.data import SYNTHETIC_MEANS, synthetic_matroid
from dpbandits.reference.matroid.greedy import (basis_value, greedy, greedy_generic, optimal_basis,
                                                optimal_value, pairing_permutation, priority_order,
                                                select)


@st.composite
def matroids(draw):
    kind = draw(st.sampled_from(["uniform", "partition", "graphic", "linear"]))
    if kind == "uniform":
        L = draw(st.integers(1, 7))
        return Uniform(L, draw(st.integers(1, L)))
    if kind == "partition":
        labels = draw(st.lists(st.integers(0, 2), min_size=1, max_size=7))
        blocks = [[e for e, b in enumerate(labels) if b == j] for j in sorted(set(labels))]
        capacities = [draw(st.integers(0, 3)) for _ in blocks]
        capacities[0] = max(capacities[0], 1)
        return Partition(blocks, capacities)
    if kind == "graphic":
        n = draw(st.integers(2, 5))
        edges = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)),
                              min_size=1, max_size=7))
        edges[0] = (0, 1)
        return Graphic(edges, n)
    d = draw(st.integers(1, 3))
    vectors = draw(st.lists(st.lists(st.integers(-2, 2), min_size=d, max_size=d), min_size=1, max_size=7))
    vectors[0] = [1] + [0] * (d - 1)
    return Linear(vectors)


def scores_for(m, R=None):
    """Small integer scores (exact sums, frequent ties), negative ones included."""
    shape = (m.L,) if R is None else (R, m.L)
    return arrays(np.float64, shape, elements=st.integers(-4, 4).map(float))


def all_bases(m):
    return [B for B in combinations(range(m.L), m.rank) if m.is_independent(B)]


def methods_for(m):
    kind = {Uniform: "uniform", Partition: "partition", Graphic: "graphic", Linear: "linear"}[type(m)]
    return ["auto", "generic", "table", kind]


# --- T-O2, T-O3, T-O4: a maximum-weight basis, in descending order ------------------------------

@pytest.mark.property
@given(matroids(), st.data())
def test_greedy_returns_a_maximum_weight_basis(m, data):
    x = data.draw(scores_for(m))
    A = greedy(m, x)
    assert A.shape == (m.rank,) and A.dtype == np.int64
    assert m.is_basis(A)
    assert not any(m.can_add(A, e) for e in range(m.L) if e not in A)       # maximal
    assert x[A].sum() == max(x[list(B)].sum() for B in all_bases(m))        # Rado-Edmonds
    assert np.all(np.diff(x[A]) <= 0)                                       # insertion order


@pytest.mark.property
@given(matroids(), st.data())
def test_every_method_gives_the_generic_oracles_bases(m, data):
    x = data.draw(scores_for(m, R=12))
    expected = greedy_generic(m, x)
    for method in methods_for(m):
        np.testing.assert_array_equal(greedy(m, x, method=method), expected)
    keys = data.draw(arrays(np.float64, x.shape, elements=st.floats(0, 1)))
    expected = greedy_generic(m, x, tie_keys=keys)
    for method in methods_for(m):
        np.testing.assert_array_equal(greedy(m, x, tie_keys=keys, method=method), expected)


@pytest.mark.property
@given(matroids(), st.data())
def test_output_depends_only_on_the_ranking(m, data):
    x = data.draw(scores_for(m, R=5))
    np.testing.assert_array_equal(greedy(m, x), greedy(m, x ** 3 + 2 * x - 7))
    np.testing.assert_array_equal(greedy(m, x), greedy(m, np.exp(x / 3)))


@pytest.mark.exact
def test_negative_scores_are_never_skipped():
    m = synthetic_matroid()
    x = -np.array([5.0, 1.0, 2.0, 3.0, 4.0, 0.5, 0.1])
    A = greedy(m, x)
    assert A.tolist() == [5, 1, 2]          # e7 (-0.1) is a loop, e6 (-0.5) beats e1, e2, e3
    assert m.is_basis(A)


# --- T-O5: ties -------------------------------------------------------------------------------------

@pytest.mark.property
@given(matroids())
def test_all_equal_scores_give_the_lexicographically_smallest_basis(m):
    for method in methods_for(m):
        assert tuple(greedy(m, np.zeros(m.L), method=method)) == min(all_bases(m))


@pytest.mark.exact
def test_ties_go_to_the_lower_index_and_tie_keys_override():
    m = Uniform(5, 2)
    x = np.array([1.0, 3.0, 1.0, 3.0, 3.0])
    assert greedy(m, x).tolist() == [1, 3]
    keys = np.array([0.0, 0.9, 0.0, 0.5, 0.1])
    assert greedy(m, x, tie_keys=keys).tolist() == [4, 3]
    assert priority_order(x[None], keys[None]).tolist() == [[4, 3, 1, 0, 2]]
    assert greedy(m, np.array([0.0, -0.0, 1.0, -0.0, 0.0])).tolist() == [2, 0]   # -0 == 0


# --- T-O6, T-O7: the synthetic dataset ----------------------------------------------------------

@pytest.mark.exact
def test_synthetic_optimal_basis_and_value():
    m = synthetic_matroid()
    assert optimal_basis(m, SYNTHETIC_MEANS).tolist() == [0, 1, 2]   # e1, e2, then e3 (e7 is a loop)
    assert optimal_value(m, SYNTHETIC_MEANS) == pytest.approx(2.15, abs=1e-12)
    x = np.array([0.8, 0.75, 0.6, 0.2, 0.3, 0.9, 1.0])
    assert greedy(m, x).tolist() == [5, 1, 2]      # e6 first, then e1 is parallel and skipped


@pytest.mark.property
@given(st.data())
def test_loop_and_parallel_pair_are_never_chosen_together(data):
    m = synthetic_matroid()
    x = data.draw(arrays(np.float64, (20, 7), elements=st.floats(-10, 10)))
    A = greedy(m, x)
    assert not (A == 6).any()
    assert not ((A == 0).any(axis=1) & (A == 5).any(axis=1)).any()


@pytest.mark.exact
def test_big_integer_vectors_use_exact_python_integers():
    rng = np.random.default_rng(4)
    vectors = [[int(v) * 10 ** 12 + 1 for v in rng.integers(-3, 4, 4)] for _ in range(12)]
    vectors[5] = [3 * v for v in vectors[2]]
    m = Linear(vectors)
    assert not m.fits_int64
    x = rng.normal(size=(30, 12))
    np.testing.assert_array_equal(greedy(m, x, method="linear"), greedy_generic(m, x))
    np.testing.assert_array_equal(greedy(m, x, method="table"), greedy_generic(m, x))


@pytest.mark.exact
def test_large_ground_sets_agree_between_batch_paths_and_the_oracle():
    """L > 16: no closure table; the Bareiss and label paths against the generic oracle."""
    rng = np.random.default_rng(5)
    genres = (rng.random((40, 8)) < 0.3).astype(int)
    linear = Linear(genres)
    edges = [tuple(map(int, rng.integers(0, 9, 2))) for _ in range(30)]
    graphic = Graphic(edges, 9)
    for m in (linear, graphic):
        x = rng.normal(size=(25, m.L))
        np.testing.assert_array_equal(greedy(m, x), greedy_generic(m, x))


@pytest.mark.exact
def test_basis_value_shapes():
    w = np.array([0.5, 0.25, 1.0])
    assert basis_value(np.array([0, 2]), w) == 1.5
    np.testing.assert_allclose(basis_value(np.array([[0, 2], [1, 0]]), w), [1.5, 0.75])
    np.testing.assert_allclose(basis_value(np.array([[0, 2], [1, 0]]), np.stack([w, 2 * w])), [1.5, 1.5])


# --- T-O8: the pairing permutation of Sec. 4.3 ----------------------------------------------------

@pytest.mark.property
@given(matroids(), st.data())
def test_pairing_is_a_bijection_with_properties_p1_p2(m, data):
    w_bar = data.draw(arrays(np.float64, (m.L,), elements=st.floats(0, 1)))
    x = data.draw(arrays(np.float64, (m.L,), elements=st.floats(-3, 3)))
    optimal, played = optimal_basis(m, w_bar), greedy(m, x)
    pi = pairing_permutation(m, played, optimal)
    assert sorted(pi.tolist()) == list(range(m.rank))
    for k, a in enumerate(played):
        partner = optimal[pi[k]]
        if a in optimal:
            assert partner == a                                                      # (P1)
        else:
            assert x[a] >= x[partner] and partner not in played                      # (P1)
        prefix = list(played[:k])
        assert m.is_independent(prefix + [a]) and m.is_independent(prefix + [partner])  # (P2)
    regret = w_bar[optimal].sum() - w_bar[played].sum()
    assert regret == pytest.approx(sum(w_bar[optimal[pi[k]]] - w_bar[played[k]] for k in range(m.rank)))


# --- bad input -------------------------------------------------------------------------------------

@pytest.mark.exact
def test_bad_input_is_refused():
    m = synthetic_matroid()
    with pytest.raises(DPBanditsError, match="NaN"):
        greedy(m, np.array([0.1, np.nan, 0, 0, 0, 0, 0]))
    with pytest.raises(DPBanditsError, match="shape"):
        greedy(m, np.zeros(6))
    with pytest.raises(DPBanditsError, match="shape"):
        greedy(m, np.zeros((2, 3, 7)))
    with pytest.raises(DPBanditsError, match="Matroid"):
        greedy([[1, 0]], np.zeros(2))
    with pytest.raises(DPBanditsError, match="method"):
        greedy(m, np.zeros(7), method="fastest")
    with pytest.raises(DPBanditsError, match="tie_keys"):
        greedy(m, np.zeros(7), tie_keys=np.zeros(6))
    with pytest.raises(DPBanditsError, match="Partition"):
        greedy(m, np.zeros(7), method="partition")
    with pytest.raises(DPBanditsError, match="L <= 16"):
        select(Uniform(20, 3), np.tile(np.arange(20), (2, 1)), "table")
    with pytest.raises(DPBanditsError, match="bases"):
        pairing_permutation(m, [0, 5, 1], [0, 1, 2])
