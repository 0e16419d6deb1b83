"""Matroids on the ground set {0, ..., L-1}, each with an exact independence oracle.

A matroid (E, I) has a finite ground set E of L base arms and a family I of independent sets
with (1) the empty set in I, (2) every subset of an independent set independent, and (3)
augmentation: if A, B are in I and |A| > |B|, some e in A \\ B has B + e in I (Chandak, Hu &
Hegde, Sec. 2.1, lost from the source text and rebuilt from Kveton et al. 2014). A basis is a maximal independent set; all bases have the same size, the rank
(the paper's K). A loop is an element e with {e} dependent: it is in no basis.

Every matroid answers

* ``is_independent(S)``: is the set S (distinct elements) independent,
* ``can_add(S, e)``: for an independent S and e not in S, is S + e independent,
* ``builder()``: an incremental oracle that grows one independent set (what the greedy uses),
* ``rank``, ``rank_of(S)``, ``loops``, ``is_basis(S)`` and ``L``.

The four kinds of Sec. 5:

:class:`Uniform` (L, k)
    S is independent iff |S| <= k.
:class:`Partition` (blocks, capacities)
    S is independent iff |S & E_j| <= c_j for every block E_j.
:class:`Graphic` (edges, n)
    base arms are the edges of a multigraph on n vertices; S is independent iff it is acyclic
    (union-find). A self-loop edge is a matroid loop; parallel edges are parallel elements.
:class:`Linear` (vectors)
    base arms are vectors over the rationals; S is independent iff its vectors are linearly
    independent. Arithmetic is exact (Python Fractions), never a floating tolerance: the zero
    vector is a loop and scalar multiples are parallel, whatever their size.
"""

from __future__ import annotations

import math
import numbers
from fractions import Fraction
from typing import Iterable, Sequence

import numpy as np

from ...errors import DPBanditsError, check_positive_int

__all__ = ["Matroid", "Builder", "Uniform", "Partition", "Graphic", "Linear"]


class Builder:
    """Grows one independent set; ``add_if_independent(e)`` adds e when S + e stays independent."""

    def __init__(self) -> None:
        self.members: list[int] = []

    def add_if_independent(self, e: int) -> bool:
        if not self._fits(e):
            return False
        self._add(e)
        self.members.append(e)
        return True

    def _fits(self, e: int) -> bool:
        raise NotImplementedError

    def _add(self, e: int) -> None:
        raise NotImplementedError


class Matroid:
    """A matroid on {0, ..., L-1}. Subclasses implement :meth:`builder`."""

    L: int

    def __init__(self, L: int) -> None:
        self.L = check_positive_int(L, "L")
        self._rank = self.rank_of(range(self.L))
        self._loops = tuple(e for e in range(self.L) if not self.builder().add_if_independent(e))

    def builder(self) -> Builder:
        """A fresh incremental oracle, starting from the empty set."""
        raise NotImplementedError

    @property
    def rank(self) -> int:
        """The size K of every basis."""
        return self._rank

    @property
    def loops(self) -> tuple[int, ...]:
        """Elements e with {e} dependent; they belong to no basis."""
        return self._loops

    def is_independent(self, S: Iterable[int]) -> bool:
        builder = self.builder()
        return all(builder.add_if_independent(e) for e in self._elements(S))

    def can_add(self, S: Iterable[int], e: int) -> bool:
        """True when e is not in the independent set S and S + e is independent."""
        S = self._elements(S)
        e = self._element(e, "e")
        builder = self.builder()
        if not all(builder.add_if_independent(x) for x in S):
            raise DPBanditsError(f"S must be an independent set, got {S}")
        return e not in S and builder.add_if_independent(e)

    def rank_of(self, S: Iterable[int]) -> int:
        """The size of a largest independent subset of S."""
        builder = self.builder()
        return sum(builder.add_if_independent(e) for e in self._elements(S))

    def is_basis(self, S: Iterable[int]) -> bool:
        S = self._elements(S)
        return len(S) == self.rank and self.is_independent(S)

    def _element(self, e: object, name: str) -> int:
        if isinstance(e, (bool, np.bool_)) or not isinstance(e, (int, np.integer)):
            raise DPBanditsError(f"{name} must be a base arm index in 0..{self.L - 1}, got {e!r}")
        if not 0 <= int(e) < self.L:
            raise DPBanditsError(f"{name} must be a base arm index in 0..{self.L - 1}, got {e!r}")
        return int(e)

    def _elements(self, S: Iterable[int]) -> list[int]:
        try:
            items = [self._element(e, "S") for e in S]
        except TypeError:
            raise DPBanditsError(f"S must be an iterable of base arm indices, got {S!r}") from None
        if len(set(items)) != len(items):
            raise DPBanditsError(f"S must not repeat a base arm, got {items}")
        return items


class _CountBuilder(Builder):
    def __init__(self, k: int) -> None:
        super().__init__()
        self.k = k

    def _fits(self, e: int) -> bool:
        return len(self.members) < self.k and e not in self.members

    def _add(self, e: int) -> None:
        pass


class Uniform(Matroid):
    """The uniform matroid U(k, L): every set of at most k base arms is independent."""

    def __init__(self, L: int, k: int) -> None:
        L = check_positive_int(L, "L")
        self.k = check_positive_int(k, "k", minimum=0)
        if self.k > L:
            raise DPBanditsError(f"k must lie in 0..L = 0..{L}, got {k!r}")
        super().__init__(L)

    def builder(self) -> Builder:
        return _CountBuilder(self.k)

    def __repr__(self) -> str:
        return f"Uniform(L={self.L}, k={self.k})"


class _PartitionBuilder(Builder):
    def __init__(self, matroid: "Partition") -> None:
        super().__init__()
        self.block_of = matroid.block_of
        self.left = list(matroid.capacities)

    def _fits(self, e: int) -> bool:
        return self.left[self.block_of[e]] > 0 and e not in self.members

    def _add(self, e: int) -> None:
        self.left[self.block_of[e]] -= 1


class Partition(Matroid):
    """The partition matroid: blocks E_1..E_m of the ground set, at most c_j elements from E_j.

    ``blocks`` is a list of lists that partition {0, ..., L-1}; ``capacities`` the c_j >= 0.
    The rank is sum_j min(c_j, |E_j|).
    """

    def __init__(self, blocks: Sequence[Sequence[int]], capacities: Sequence[int]) -> None:
        try:
            blocks = [list(block) for block in blocks]
        except TypeError:
            raise DPBanditsError(f"blocks must be a list of lists of base arms, got {blocks!r}") from None
        members = [e for block in blocks for e in block]
        L = len(members)
        if L == 0 or any(len(block) == 0 for block in blocks):
            raise DPBanditsError("blocks must be non-empty lists that partition 0..L-1")
        if any(isinstance(e, (bool, np.bool_)) or not isinstance(e, (int, np.integer)) for e in members) \
                or sorted(int(e) for e in members) != list(range(L)):
            raise DPBanditsError(f"blocks must partition 0..L-1 (each base arm in exactly one block), "
                                 f"got {blocks}")
        try:
            capacities = [check_positive_int(c, "capacities", minimum=0) for c in capacities]
        except TypeError:
            raise DPBanditsError(f"capacities must be a list of integers >= 0, got {capacities!r}") from None
        if len(capacities) != len(blocks):
            raise DPBanditsError(f"capacities must give one integer per block ({len(blocks)}), "
                                 f"got {len(capacities)}")
        self.blocks = tuple(tuple(int(e) for e in block) for block in blocks)
        self.capacities = tuple(capacities)
        block_of = np.empty(L, dtype=np.int64)
        for j, block in enumerate(self.blocks):
            block_of[list(block)] = j
        self.block_of = block_of
        super().__init__(L)

    def builder(self) -> Builder:
        return _PartitionBuilder(self)

    def __repr__(self) -> str:
        return f"Partition(blocks={[list(b) for b in self.blocks]}, capacities={list(self.capacities)})"


class _UnionFindBuilder(Builder):
    def __init__(self, matroid: "Graphic") -> None:
        super().__init__()
        self.edges = matroid.edges
        self.parent = list(range(matroid.n))

    def _root(self, x: int) -> int:
        parent = self.parent
        while parent[x] != x:
            parent[x] = parent[parent[x]]   # path halving
            x = parent[x]
        return x

    def _fits(self, e: int) -> bool:
        u, v = self.edges[e]
        return self._root(u) != self._root(v)

    def _add(self, e: int) -> None:
        u, v = self.edges[e]
        self.parent[self._root(u)] = self._root(v)


class Graphic(Matroid):
    """The graphic (cycle) matroid of a multigraph: independent sets are the forests.

    ``edges`` lists the base arms as vertex pairs (u, v) with 0 <= u, v < n; ``n`` defaults to one
    more than the largest vertex. Self-loops are matroid loops; parallel edges are allowed.
    """

    def __init__(self, edges: Sequence[Sequence[int]], n: int | None = None) -> None:
        try:
            pairs = [tuple(edge) for edge in edges]
        except TypeError:
            raise DPBanditsError(f"edges must be a list of vertex pairs (u, v), got {edges!r}") from None
        if not pairs:
            raise DPBanditsError("edges must hold at least one edge")
        for edge in pairs:
            if len(edge) != 2 or any(isinstance(x, (bool, np.bool_)) or not isinstance(x, (int, np.integer))
                                     or x < 0 for x in edge):
                raise DPBanditsError(f"edges must be pairs of vertex indices >= 0, got {edge!r}")
        largest = max(max(int(u), int(v)) for u, v in pairs)
        self.n = largest + 1 if n is None else check_positive_int(n, "n")
        if largest >= self.n:
            raise DPBanditsError(f"edges use vertex {largest}, but n = {self.n} vertices are 0..{self.n - 1}")
        self.edges = tuple((int(u), int(v)) for u, v in pairs)
        self.heads = np.array([u for u, _ in self.edges], dtype=np.int64)
        self.tails = np.array([v for _, v in self.edges], dtype=np.int64)
        super().__init__(len(self.edges))

    def builder(self) -> Builder:
        return _UnionFindBuilder(self)

    def __repr__(self) -> str:
        return f"Graphic(edges={list(self.edges)}, n={self.n})"


class _EchelonBuilder(Builder):
    """Keeps the chosen vectors in echelon form over the rationals (exact Gaussian elimination).

    Invariant: stored vector i is zero at the pivots of the vectors stored before it, so reducing
    a vector against them in order leaves it zero at every pivot.
    """

    def __init__(self, matroid: "Linear") -> None:
        super().__init__()
        self.vectors = matroid.vectors
        self.rows: list[tuple[int, list[Fraction]]] = []
        self._pending: tuple[int, list[Fraction]] | None = None

    def _fits(self, e: int) -> bool:
        w = list(self.vectors[e])
        for pivot, row in self.rows:
            if w[pivot]:
                factor = w[pivot] / row[pivot]
                w = [a - factor * b for a, b in zip(w, row)]
        pivot = next((i for i, value in enumerate(w) if value), None)
        if pivot is None:
            return False
        self._pending = (pivot, w)
        return True

    def _add(self, e: int) -> None:
        assert self._pending is not None
        self.rows.append(self._pending)
        self._pending = None


def _as_fraction(value: object) -> Fraction:
    if isinstance(value, (bool, np.bool_)):
        return Fraction(int(value))
    if isinstance(value, numbers.Rational):
        return Fraction(int(value.numerator), int(value.denominator))
    if isinstance(value, (float, np.floating)):
        if not math.isfinite(float(value)):
            raise DPBanditsError(f"vectors must hold finite numbers, got {value!r}")
        return Fraction(float(value))
    raise DPBanditsError(f"vectors must hold integers, fractions or finite floats, got {value!r}")


def _primitive_integers(vector: Sequence[Fraction]) -> list[int]:
    """The integer vector on the same line: clear denominators, divide by the gcd."""
    scale = math.lcm(*(x.denominator for x in vector))
    ints = [int(x * scale) for x in vector]
    g = math.gcd(*ints)
    return [x // g for x in ints] if g else ints


class Linear(Matroid):
    """The vector (linear) matroid of L vectors over the rationals, in exact arithmetic.

    ``vectors`` is an (L, d) array or a list of L sequences of length d >= 1 of integers,
    fractions or finite floats (a float is read as the exact binary number it holds).

    The batch greedy uses :attr:`integer_matrix`, the (d, L) matrix whose column e is vector e
    scaled to a primitive integer vector (same line, same matroid), and fraction-free
    elimination; :attr:`fits_int64` says whether Hadamard's bound guarantees that all of its
    intermediate values fit in int64 (otherwise the matrix holds Python integers).
    """

    def __init__(self, vectors: Sequence[Sequence[object]] | np.ndarray) -> None:
        try:
            rows = [list(vector) for vector in vectors]
        except TypeError:
            raise DPBanditsError(f"vectors must be a list of L vectors of the same length d >= 1, "
                                 f"got {vectors!r}") from None
        if not rows or len({len(r) for r in rows}) != 1 or len(rows[0]) == 0:
            raise DPBanditsError("vectors must be a non-empty list of vectors of the same length d >= 1")
        self.vectors = tuple(tuple(_as_fraction(x) for x in row) for row in rows)
        self.d = len(rows[0])
        integer_vectors = [_primitive_integers(v) for v in self.vectors]
        super().__init__(len(rows))
        squared_norms = sorted((sum(x * x for x in v) for v in integer_vectors), reverse=True)
        hadamard_squared = math.prod(squared_norms[:self.rank])
        self.fits_int64 = 2 * hadamard_squared < 2 ** 63
        matrix = np.array(integer_vectors, dtype=np.int64 if self.fits_int64 else object).T
        self.integer_matrix = np.ascontiguousarray(matrix)

    def builder(self) -> Builder:
        return _EchelonBuilder(self)

    def __repr__(self) -> str:
        if self.L > 10:
            return f"Linear(L={self.L}, d={self.d}, rank={self.rank})"
        shown = [[str(x) for x in v] for v in self.vectors]
        return f"Linear(L={self.L}, d={self.d}, rank={self.rank}, vectors={shown})"
