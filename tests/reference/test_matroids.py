"""Matroids and their independence oracles: Sec. 5 and T-O1, T-O6.

Kinds: property (the three matroid axioms, rank and loops by brute force over every subset of
small random instances of each kind, against independent definitions of independence), oracle
(linear independence against SymPy's exact rank), exact (loops, parallel elements, exactness on
inputs a floating tolerance gets wrong, bad input refused).
"""

from __future__ import annotations

from fractions import Fraction
from itertools import combinations

import numpy as np
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from dpbandits.errors import DPBanditsError
from dpbandits.reference.matroid import Graphic, Linear, Partition, Uniform
from dpbandits.reference.matroid.data import synthetic_matroid

# --- small random instances and independent definitions of independence ------------------------

entries = st.one_of(st.integers(-2, 2), st.fractions(min_value=-2, max_value=2, max_denominator=3))


@st.composite
def uniform_matroids(draw):
    L = draw(st.integers(1, 6))
    return Uniform(L, draw(st.integers(0, L)))


@st.composite
def partition_matroids(draw):
    labels = draw(st.lists(st.integers(0, 2), min_size=1, max_size=6))
    used = sorted(set(labels))
    blocks = [[e for e, b in enumerate(labels) if b == j] for j in used]
    return Partition(blocks, [draw(st.integers(0, 3)) for _ in blocks])


@st.composite
def graphic_matroids(draw):
    n = draw(st.integers(1, 4))
    edges = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), min_size=1, max_size=6))
    return Graphic(edges, n)


@st.composite
def linear_matroids(draw):
    d = draw(st.integers(1, 3))
    L = draw(st.integers(1, 6))
    return Linear(draw(st.lists(st.lists(entries, min_size=d, max_size=d), min_size=L, max_size=L)))


any_matroid = st.one_of(uniform_matroids(), partition_matroids(), graphic_matroids(), linear_matroids())


def is_forest(edges, n, S):
    """Acyclic by depth-first search: a forest has |S| = n - (number of components)."""
    neighbours = {v: [] for v in range(n)}
    for e in S:
        u, v = edges[e]
        neighbours[u].append(v)
        neighbours[v].append(u)
    seen, components = set(), 0
    for start in range(n):
        if start in seen:
            continue
        components += 1
        stack = [start]
        while stack:
            v = stack.pop()
            if v not in seen:
                seen.add(v)
                stack.extend(neighbours[v])
    return len(S) == n - components


def reference_independent(m, S):
    """Independence straight from each kind's definition, not through the oracle under test."""
    if isinstance(m, Uniform):
        return len(S) <= m.k
    if isinstance(m, Partition):
        return all(sum(1 for e in S if e in block) <= c for block, c in zip(m.blocks, m.capacities))
    if isinstance(m, Graphic):
        return is_forest(m.edges, m.n, S)
    if not S:
        return True
    return sympy.Matrix([list(m.vectors[e]) for e in S]).rank() == len(S)


def subsets(L):
    return [S for size in range(L + 1) for S in combinations(range(L), size)]


# --- T-O1: axioms, rank, oracle agreement -----------------------------------------------------

@pytest.mark.property
@given(any_matroid)
def test_three_axioms_and_equal_basis_sizes(m):
    independent = {S for S in subsets(m.L) if m.is_independent(S)}
    assert () in independent                                                    # (1)
    for S in independent:                                                       # (2) hereditary
        assert all(S[:i] + S[i + 1:] in independent for i in range(len(S)))
    for A in independent:                                                       # (3) augmentation
        for B in independent:
            if len(A) == len(B) + 1:
                assert any(tuple(sorted(B + (e,))) in independent for e in A if e not in B)
    maximal = [S for S in independent
               if not any(tuple(sorted(S + (e,))) in independent for e in range(m.L) if e not in S)]
    assert {len(S) for S in maximal} == {m.rank}
    assert all(m.is_basis(S) for S in maximal)
    assert m.loops == tuple(e for e in range(m.L) if (e,) not in independent)


@pytest.mark.oracle
@settings(max_examples=30)
@given(any_matroid)
def test_oracle_matches_the_definition_and_rank_of_subsets(m):
    for S in subsets(m.L):
        expected = reference_independent(m, list(S))
        assert m.is_independent(S) == expected
        assert m.rank_of(S) == max(len(I) for I in subsets(m.L)
                                   if set(I) <= set(S) and reference_independent(m, list(I)))
        if expected:
            for e in range(m.L):
                assert m.can_add(S, e) == (e not in S and reference_independent(m, list(S) + [e]))


@pytest.mark.property
@given(any_matroid, st.data())
def test_builder_accepts_exactly_the_independent_extensions(m, data):
    order = data.draw(st.permutations(range(m.L)))
    builder = m.builder()
    for e in order:
        before = list(builder.members)
        assert builder.add_if_independent(e) == m.is_independent(before + [e])
    assert len(builder.members) == m.rank


@pytest.mark.exact
def test_ranks_of_the_four_kinds():
    assert Uniform(5, 2).rank == 2 and Uniform(4, 0).rank == 0
    assert Partition([[0, 1, 2], [3], [4, 5]], [2, 3, 0]).rank == 2 + 1 + 0
    triangle_with_tail = Graphic([(0, 1), (1, 2), (2, 0), (2, 3), (3, 3), (0, 1)])
    assert triangle_with_tail.rank == 3 and triangle_with_tail.loops == (4,)
    assert not triangle_with_tail.is_independent([0, 5])            # parallel edges
    assert not triangle_with_tail.is_independent([0, 1, 2])         # a cycle
    assert triangle_with_tail.is_basis([0, 1, 3])


# --- T-O6 and exact arithmetic ------------------------------------------------------------------

@pytest.mark.exact
def test_synthetic_matroid_loop_parallel_pair_and_circuits():
    m = synthetic_matroid()
    assert (m.L, m.rank, m.loops) == (7, 3, (6,))
    assert not m.is_independent([0, 5]) and m.is_independent([0]) and m.is_independent([5])
    assert not m.is_independent([0, 2, 3]) and not m.is_independent([1, 2, 4])   # e4 = e1 + e3, e5 = e2 + e3
    assert m.is_independent([0, 1, 3]) and m.is_independent([3, 4, 5])
    assert sum(m.is_basis(S) for S in combinations(range(7), 3)) == 13   # 20 triples of e1..e6, 7 dependent


@pytest.mark.exact
def test_linear_independence_is_exact():
    # A floating tolerance calls these dependent; they are not.
    assert Linear([[1, 0], [1, 2.0 ** -60]]).rank == 2
    assert Linear([[10 ** 20, 1], [10 ** 20 + 1, 1]]).rank == 2
    # ... and calls these independent; they are parallel.
    assert Linear([[Fraction(1, 3), 1], [1, 3]]).rank == 1
    assert Linear([[10 ** 30 + 1, 10 ** 30], [(10 ** 30 + 1) * 7, 10 ** 31 * 7 // 10]]).rank == 1
    # A float is its exact binary value: 0.2 == 2 * 0.1 exactly, 0.3 != 3 * 0.1.
    assert Linear([[0.1, 0.2], [1, 2]]).rank == 1
    assert Linear([[0.1, 0.3], [1, 3]]).rank == 2
    zero = Linear([[0, 0, 0], [1, 2, 3], [2, 4, 6], [0, 0, 1]])
    assert zero.loops == (0,) and not zero.is_independent([1, 2]) and zero.rank == 2


@pytest.mark.exact
def test_integer_matrix_is_primitive_and_int64_only_when_hadamard_allows():
    m = Linear([[Fraction(1, 2), Fraction(3, 4)], [4, 6], [0, 0]])
    assert m.integer_matrix.tolist() == [[2, 2, 0], [3, 3, 0]] and m.fits_int64
    big = Linear([[10 ** 10, 1], [1, 10 ** 10]])
    assert not big.fits_int64 and big.integer_matrix.dtype == object and big.rank == 2
    movies_like = Linear(np.eye(18, dtype=int)[:17] + np.eye(18, k=1, dtype=int)[:17])
    assert movies_like.fits_int64 and movies_like.rank == 17


# --- bad input ------------------------------------------------------------------------------------

@pytest.mark.exact
@pytest.mark.parametrize("build, argument", [
    (lambda: Uniform(0, 0), "L"),
    (lambda: Uniform(3, 4), "k"),
    (lambda: Uniform(3, -1), "k"),
    (lambda: Partition([[0, 1], [1]], [1, 1]), "blocks"),
    (lambda: Partition([[0], [2]], [1, 1]), "blocks"),
    (lambda: Partition([], []), "blocks"),
    (lambda: Partition([[0], [1]], [1]), "capacities"),
    (lambda: Partition([[0], [1]], [1, -1]), "capacities"),
    (lambda: Graphic([]), "edges"),
    (lambda: Graphic([(0, -1)]), "edges"),
    (lambda: Graphic([(0, 1, 2)]), "edges"),
    (lambda: Graphic([(0, 5)], n=3), "n = 3"),
    (lambda: Linear([]), "vectors"),
    (lambda: Linear([[1, 2], [1]]), "vectors"),
    (lambda: Linear([[float("nan"), 1]]), "vectors"),
    (lambda: Linear([["1", 2]]), "vectors"),
    (lambda: Linear([[1j, 2]]), "vectors"),
    (lambda: synthetic_matroid().is_independent([0, 0]), "S"),
    (lambda: synthetic_matroid().is_independent([7]), "S"),
    (lambda: synthetic_matroid().is_independent([1.0]), "S"),
    (lambda: synthetic_matroid().can_add([0, 5], 1), "independent"),
    (lambda: synthetic_matroid().can_add([], 9), "e"),
])
def test_bad_input_names_the_argument(build, argument):
    with pytest.raises(DPBanditsError, match=argument):
        build()
