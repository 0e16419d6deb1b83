"""The greedy basis oracle (Algorithm 1) compiled; mirrors :mod:`dpbandits.reference.matroid.greedy`.

Chandak, Hu & Hegde call Kveton et al.'s (2014) Algorithm 1: order the base arms by descending
score ([Alg.1 l.2]) and scan them, appending each one that keeps the chosen set independent
([Alg.1 l.3-5]). The reference's batch paths (uniform, partition, table, graphic, linear) are all
exact and give the same bases; so does this scan, one run at a time, with one independence test
per matroid kind:

* :class:`~dpbandits.reference.matroid.Uniform`: the first k of the order;
* :class:`~dpbandits.reference.matroid.Partition`: a capacity left per block;
* :class:`~dpbandits.reference.matroid.Graphic`: union-find over the vertices (an edge fits when
  its ends lie in two components);
* :class:`~dpbandits.reference.matroid.Linear`: the reference's fraction-free (Bareiss)
  elimination on its integer matrix, replayed for the one column being tested: column e after
  the j-th pick is the reference's residual column e after step j, the same integers computed by
  the same operations, and it is zero exactly when e is spanned. This is exact in int64 when the
  matroid's Hadamard bound allows it (``Linear.fits_int64``); otherwise the reference computes in
  Python integers and the kernel declines (:func:`unsupported`).

Any other matroid (a user-defined subclass) has only a Python oracle and is declined.

The order is NumPy's: descending score, ties by ascending tie key (``tie_break="random"``, one
uniform per base arm drawn by the policy) and then by ascending index, which is what the
reference's stable ``argsort(-scores)`` and ``lexsort((keys, -scores))`` give. NaN scores, which
the reference rejects with an error, cannot arise from the four algorithms' finite state.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from ..reference.matroid.matroids import Graphic, Linear, Partition, Uniform

__all__ = ["Oracle", "oracle_from", "unsupported", "priority_order", "select",
           "UNIFORM", "PARTITION", "GRAPHIC", "LINEAR"]

UNIFORM, PARTITION, GRAPHIC, LINEAR = 0, 1, 2, 3

Oracle = namedtuple("Oracle", [
    "kind",           # matroid kind (above)
    "rank",           # size of every basis
    "block_of",       # (L,) block of each base arm (PARTITION)
    "capacities",     # (m,) c_j (PARTITION)
    "left",           # (m,) scratch: capacity left in each block
    "heads", "tails",  # (L,) the ends of each edge (GRAPHIC)
    "parent",         # (n,) scratch: union-find forest over the vertices
    "M",              # (d, L) the integer matrix (LINEAR)
    "pivot_rows",     # (rank,) scratch: pivot row of each pick (LINEAR)
    "pivots",         # (rank,) scratch: pivot value of each pick
    "columns",        # (rank, d) scratch: the residual column of each pick
    "v",              # (d,) scratch: the residual column under test
])

_KINDS = {Uniform: UNIFORM, Partition: PARTITION, Graphic: GRAPHIC, Linear: LINEAR}


def unsupported(matroid) -> str | None:
    """Why the compiled greedy cannot run on ``matroid``; None when it can."""
    kind = _KINDS.get(type(matroid))
    if kind is None:
        return (f"the compiled greedy knows the Uniform, Partition, Graphic and Linear matroids, "
                f"not {type(matroid).__name__}")
    if kind == LINEAR and not matroid.fits_int64:
        return ("this linear matroid's exact elimination needs integers beyond int64 (its "
                "Hadamard bound is too large); the reference computes it in Python integers")
    return None


def oracle_from(matroid) -> Oracle:
    """The compiled oracle's arrays for ``matroid`` (one of the kinds :func:`unsupported` allows)."""
    kind = _KINDS[type(matroid)]
    L, rank = matroid.L, matroid.rank
    none = np.zeros(1, np.int64)
    block_of = capacities = heads = tails = parent = none
    M = np.zeros((1, L), np.int64)
    if kind == PARTITION:
        block_of = np.array(matroid.block_of, dtype=np.int64)
        capacities = np.array(matroid.capacities, dtype=np.int64)
    elif kind == GRAPHIC:
        heads = np.array(matroid.heads, dtype=np.int64)
        tails = np.array(matroid.tails, dtype=np.int64)
        parent = np.zeros(matroid.n, np.int64)
    elif kind == LINEAR:
        M = np.array(matroid.integer_matrix, dtype=np.int64)
    d = M.shape[0]
    return Oracle(kind, rank, block_of, capacities, np.zeros_like(capacities), heads, tails, parent,
                  M, np.zeros(rank, np.int64), np.zeros(rank, np.int64), np.zeros((rank, d), np.int64),
                  np.zeros(d, np.int64))


@njit(cache=True, _nrt=False)
def priority_order(scores, keys, r, random_ties, order):
    """[Alg.1 l.2] for run r: the base arms by descending score into ``order`` (a stable sort).

    Ties by ascending ``keys[r]`` when ``random_ties``, then by ascending index (insertion sort:
    an arm moves before an earlier one only when it strictly precedes it).
    """
    L = scores.shape[1]
    for e in range(L):
        i = e
        while i > 0 and _precedes(scores, keys, r, random_ties, e, order[i - 1]):
            order[i] = order[i - 1]
            i -= 1
        order[i] = e


@njit(cache=True, _nrt=False)
def _precedes(scores, keys, r, random_ties, a, b):
    if scores[r, a] != scores[r, b]:
        return scores[r, a] > scores[r, b]
    return random_ties != 0 and keys[r, a] < keys[r, b]


@njit(cache=True, _nrt=False)
def select(oracle, order, bases, r):
    """[Alg.1 l.3-5]: scan ``order`` and write run r's basis, in insertion order, to ``bases[r]``."""
    rank = oracle.rank
    if oracle.kind == UNIFORM:
        for j in range(rank):
            bases[r, j] = order[j]
        return
    _reset(oracle)
    k = 0
    for i in range(order.shape[0]):
        e = order[i]
        if _fits(oracle, e, k):                                                  # [Alg.1 l.4]
            _add(oracle, e, k)
            bases[r, k] = e
            k += 1
            if k == rank:
                return


@njit(cache=True, _nrt=False)
def _reset(oracle):
    if oracle.kind == PARTITION:
        for j in range(oracle.capacities.shape[0]):
            oracle.left[j] = oracle.capacities[j]
    elif oracle.kind == GRAPHIC:
        for u in range(oracle.parent.shape[0]):
            oracle.parent[u] = u


@njit(cache=True, _nrt=False)
def _root(parent, u):
    while parent[u] != u:
        parent[u] = parent[parent[u]]
        u = parent[u]
    return u


@njit(cache=True, _nrt=False)
def _fits(oracle, e, k):
    """Is the chosen set (its first k picks) plus e independent?"""
    if oracle.kind == PARTITION:
        return oracle.left[oracle.block_of[e]] > 0
    if oracle.kind == GRAPHIC:
        return _root(oracle.parent, oracle.heads[e]) != _root(oracle.parent, oracle.tails[e])
    _residual_column(oracle, e, k)
    for i in range(oracle.v.shape[0]):
        if oracle.v[i] != 0:
            return True
    return False


@njit(cache=True, _nrt=False)
def _residual_column(oracle, e, k):
    """Column e of the reference's Bareiss residual after k picks, into ``oracle.v``.

    Step j: v <- (pivot_j v - column_j v[pivot_row_j]) // pivot_{j-1} (no division at j = 0);
    every value is a minor of the integer matrix, so the division is exact.
    """
    v = oracle.v
    for i in range(v.shape[0]):
        v[i] = oracle.M[i, e]
    for j in range(k):
        pivot = oracle.pivots[j]
        at_pivot = v[oracle.pivot_rows[j]]
        for i in range(v.shape[0]):
            value = pivot * v[i] - oracle.columns[j, i] * at_pivot
            if j > 0:
                value //= oracle.pivots[j - 1]
            v[i] = value


@njit(cache=True, _nrt=False)
def _add(oracle, e, k):
    if oracle.kind == PARTITION:
        oracle.left[oracle.block_of[e]] -= 1
    elif oracle.kind == GRAPHIC:
        parent = oracle.parent
        parent[_root(parent, oracle.heads[e])] = _root(parent, oracle.tails[e])
    else:
        v = oracle.v                     # e's residual column, left by _fits
        row = 0
        while v[row] == 0:
            row += 1
        oracle.pivot_rows[k] = row
        oracle.pivots[k] = v[row]
        for i in range(v.shape[0]):
            oracle.columns[k, i] = v[i]
