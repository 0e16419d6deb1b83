"""The greedy oracle (Algorithm 1): a maximum-weight basis for any scores, batch-first.

Chandak, Hu & Hegde invoke "Algorithm 1" (Kveton et al. 2014, Algorithm 1, Greedy) on the UCBs,
the posterior samples and the true means; its box is lost from the source text and rebuilt in
Alg. 1::

    1: A <- empty ordered list
    2: order E by descending score x(e_(1)) >= x(e_(2)) >= ... >= x(e_(L))
    3: for i = 1, ..., L:
    4:     if A + e_(i) is independent: append e_(i) to A
    5: return A          # a basis, in insertion order

Every element is scanned, whatever the sign of its score: the output is always a **basis**
(super arms are bases; noisy indices can be negative). Ties are broken by a data-independent
total order, ascending base-arm index (docs/errata.md#chh-greedy-ties), or by caller-supplied tie keys (drawn
from the policy's generator for ``tie_break="random"``). By Rado-Edmonds the output maximises
sum_{e in A} x(e) over all bases; it depends on the scores only through their ranking.

Batch form: scores (R, L) -> bases (R, rank), one basis per row, in insertion order.

Computation. Element e is appended exactly when it is the first element of the order outside
the closure (span) of the set chosen so far, so the batch paths make ``rank`` picks, each of
which marks what is spanned in every run at once (``method=``, all exact and equal):

* ``uniform``: the first k of the order;
* ``partition``: an element is kept when fewer than c_j elements of its block precede it;
* ``table`` (any matroid with L <= 16, the default there): the closure of each chosen set as a
  bitmask, computed by the matroid's own oracle the first time the set occurs and kept in a
  table of 2^L entries on the matroid (a memo: it never changes a result);
* ``graphic``: component labels per run (quick-find), an edge is spanned when its ends share one;
* ``linear``: fraction-free (Bareiss) elimination per run on the integer matrix of
  :class:`~.matroids.Linear`; column e of the residual is zero exactly when e is spanned. The
  residual entries are minors of that matrix, so the arithmetic is exact (int64 when Hadamard's
  bound allows it, Python integers otherwise);
* ``generic``: the matroid's incremental oracle, one run at a time (the only loop over runs;
  used for a user-defined matroid with L > 16).
"""

from __future__ import annotations

import numpy as np

from ...errors import DPBanditsError
from .matroids import Graphic, Linear, Matroid, Partition, Uniform

__all__ = ["METHODS", "priority_order", "greedy", "greedy_generic", "select", "select_generic",
           "optimal_basis", "optimal_value", "basis_value", "pairing_permutation"]


def priority_order(scores: np.ndarray, tie_keys: np.ndarray | None = None) -> np.ndarray:
    """Base arms by descending score, row by row; ties by ascending ``tie_keys``, else index.

    [Alg.1 l.2]: a stable sort of the negated scores keeps equal scores in index order.
    """
    if tie_keys is None:
        return np.argsort(-scores, axis=1, kind="stable")
    return np.lexsort((tie_keys, -scores), axis=-1)


def _check_scores(matroid: Matroid, scores: np.ndarray) -> tuple[np.ndarray, bool]:
    if not isinstance(matroid, Matroid):
        raise DPBanditsError(f"matroid must be a Matroid, got {matroid!r}")
    try:
        x = np.asarray(scores, dtype=float)
    except (TypeError, ValueError):
        raise DPBanditsError("scores must be a numeric array of shape (L,) or (R, L)") from None
    single = x.ndim == 1
    if single:
        x = x[None, :]
    if x.ndim != 2 or x.shape[1] != matroid.L:
        raise DPBanditsError(f"scores must have shape ({matroid.L},) or (R, {matroid.L}), "
                             f"got {np.shape(scores)}")
    if np.isnan(x).any():
        raise DPBanditsError("scores must not contain NaN")
    return x, single


METHODS = ("auto", "generic", "table", "uniform", "partition", "graphic", "linear")
"""Ways to run the greedy: ``auto`` picks the fastest exact one for the matroid."""

TABLE_MAX_L = 16
"""Largest ground set for the closure-table path (a table of 2^L closures, built lazily)."""


def greedy(matroid: Matroid, scores: np.ndarray, *, tie_keys: np.ndarray | None = None,
           method: str = "auto") -> np.ndarray:
    """Algorithm 1 on every row of ``scores``: the greedy basis of each run, in insertion order.

    ``scores`` has shape (L,) or (R, L); the result has shape (rank,) or (R, rank), int64.
    ``method`` chooses the computation (:data:`METHODS`); all give the same bases.
    """
    x, single = _check_scores(matroid, scores)
    if tie_keys is not None:
        keys = np.asarray(tie_keys, dtype=float)
        tie_keys = keys[None, :] if single and keys.ndim == 1 else keys
        if tie_keys.shape != x.shape or np.isnan(tie_keys).any():
            raise DPBanditsError(f"tie_keys must have the shape of the scores, {np.shape(scores)}, "
                                 f"and no NaN")
    bases = select(matroid, priority_order(x, tie_keys), method)
    return bases[0] if single else bases


def greedy_generic(matroid: Matroid, scores: np.ndarray, *,
                   tie_keys: np.ndarray | None = None) -> np.ndarray:
    """:func:`greedy` through the matroid's incremental oracle only, one run at a time."""
    return greedy(matroid, scores, tie_keys=tie_keys, method="generic")


def select(matroid: Matroid, order: np.ndarray, method: str = "auto") -> np.ndarray:
    """[Alg.1 l.3-5] for (R, L) priority orders, by the chosen method."""
    if method == "auto":
        if isinstance(matroid, (Uniform, Partition)):
            method = "uniform" if isinstance(matroid, Uniform) else "partition"
        elif matroid.L <= TABLE_MAX_L:
            method = "table"
        elif isinstance(matroid, Linear):
            method = "linear"
        elif isinstance(matroid, Graphic):
            method = "graphic"
        else:
            method = "generic"
    kinds = {"uniform": Uniform, "partition": Partition, "graphic": Graphic, "linear": Linear}
    if method in kinds and not isinstance(matroid, kinds[method]):
        raise DPBanditsError(f"method {method!r} needs a {kinds[method].__name__} matroid, "
                             f"got {type(matroid).__name__}")
    if method == "uniform":
        return np.ascontiguousarray(order[:, :matroid.rank], dtype=np.int64)
    if method == "partition":
        return _select_partition(matroid, order)
    if method == "graphic":
        return _select_graphic(matroid, order)
    if method == "linear":
        return _select_linear(matroid, order)
    if method == "table":
        return _select_table(matroid, order)
    if method == "generic":
        return select_generic(matroid, order)
    raise DPBanditsError(f"method must be one of {METHODS}, got {method!r}")


def select_generic(matroid: Matroid, order: np.ndarray) -> np.ndarray:
    """[Alg.1 l.3-5] with the incremental oracle, one run at a time."""
    R = order.shape[0]
    bases = np.empty((R, matroid.rank), dtype=np.int64)
    for r in range(R):
        builder = matroid.builder()
        for e in order[r]:
            if builder.add_if_independent(int(e)):                              # [Alg.1 l.4]
                if len(builder.members) == matroid.rank:
                    break
        bases[r] = builder.members
    return bases


def _closure_bits(matroid: Matroid, chosen: int) -> int:
    """The closure (span) of the independent set with bitmask ``chosen``, as a bitmask."""
    members = [e for e in range(matroid.L) if chosen >> e & 1]
    closure = chosen
    for e in range(matroid.L):
        if not chosen >> e & 1 and not matroid.can_add(members, e):
            closure |= 1 << e
    return closure


def _select_table(matroid: Matroid, order: np.ndarray) -> np.ndarray:
    """Closures of the chosen sets as bitmasks, from a table filled lazily by the oracle."""
    if matroid.L > TABLE_MAX_L:
        raise DPBanditsError(f"method 'table' needs L <= {TABLE_MAX_L}, got L = {matroid.L}")
    table = getattr(matroid, "_closure_table", None)
    if table is None:
        table = np.full(1 << matroid.L, -1, dtype=np.int64)
        matroid._closure_table = table  # a memo of the oracle: never changes a result
    R = order.shape[0]
    rows = np.arange(R)
    chosen = np.zeros(R, dtype=np.int64)
    bases = np.empty((R, matroid.rank), dtype=np.int64)
    for k in range(matroid.rank):
        closure = table[chosen]
        if (closure < 0).any():
            for bits in np.unique(chosen[closure < 0]):
                table[bits] = _closure_bits(matroid, int(bits))
            closure = table[chosen]
        spanned = (closure[:, None] >> order) & 1                              # [Alg.1 l.4]
        e = order[rows, np.argmin(spanned, axis=1)]
        bases[:, k] = e
        chosen |= np.left_shift(1, e)
    return bases


def _first_unspanned(spanned: np.ndarray, order: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Per run, the first element of the order that the chosen set does not span."""
    position = np.argmax(~spanned[rows[:, None], order], axis=1)
    return order[rows, position]


def _select_partition(matroid: Partition, order: np.ndarray) -> np.ndarray:
    R = order.shape[0]
    block = matroid.block_of[order]                                            # (R, L)
    in_block = block[:, :, None] == np.arange(len(matroid.capacities))         # (R, L, m)
    rank_in_block = (np.cumsum(in_block, axis=1) * in_block).sum(axis=2) - 1
    keep = rank_in_block < np.asarray(matroid.capacities)[block]               # [Alg.1 l.4]
    positions = np.nonzero(keep)[1].reshape(R, matroid.rank)
    return np.take_along_axis(order, positions, axis=1).astype(np.int64)


def _select_graphic(matroid: Graphic, order: np.ndarray) -> np.ndarray:
    R = order.shape[0]
    rows = np.arange(R)
    labels = np.tile(np.arange(matroid.n), (R, 1))                             # component of each vertex
    bases = np.empty((R, matroid.rank), dtype=np.int64)
    for k in range(matroid.rank):
        spanned = labels[:, matroid.heads] == labels[:, matroid.tails]         # [Alg.1 l.4]
        e = _first_unspanned(spanned, order, rows)
        bases[:, k] = e
        keep = labels[rows, matroid.heads[e]][:, None]
        merge = labels[rows, matroid.tails[e]][:, None]
        labels = np.where(labels == merge, keep, labels)
    return bases


def _select_linear(matroid: Linear, order: np.ndarray) -> np.ndarray:
    R = order.shape[0]
    rows = np.arange(R)
    M = matroid.integer_matrix
    residual = np.repeat(M[:, None, :], R, axis=1)                             # (d, R, L)
    previous_pivot = None
    bases = np.empty((R, matroid.rank), dtype=np.int64)
    for k in range(matroid.rank):
        spanned = ~np.logical_or.reduce(residual != 0, axis=0)                 # [Alg.1 l.4]
        e = _first_unspanned(spanned, order, rows)
        bases[:, k] = e
        if k == matroid.rank - 1:
            break
        column = residual[:, rows, e]                                          # (d, R)
        pivot_row = np.argmax(column != 0, axis=0)
        pivot = column[pivot_row, rows]
        row = residual[pivot_row, rows, :]                                     # (R, L)
        # Bareiss step: every entry becomes a minor one order larger; the division is exact.
        residual = pivot[None, :, None] * residual - column[:, :, None] * row[None, :, :]
        if previous_pivot is not None:
            residual //= previous_pivot[None, :, None]
        previous_pivot = pivot
    return bases


def optimal_basis(matroid: Matroid, means: np.ndarray) -> np.ndarray:
    """A* = Algorithm 1 on the mean weights w_bar, shape (rank,), in insertion order."""
    return greedy(matroid, np.asarray(means, dtype=float).ravel())


def basis_value(bases: np.ndarray, weights: np.ndarray) -> np.ndarray | float:
    """f(A, w) = sum_{e in A} w(e) for one basis (k,) or a batch (R, k); weights (L,) or (R, L)."""
    bases = np.asarray(bases)
    w = np.asarray(weights, dtype=float)
    if bases.ndim == 1:
        return float(w[..., bases].sum(axis=-1)) if w.ndim == 1 else w[:, bases].sum(axis=-1)
    if w.ndim == 1:
        return w[bases].sum(axis=1)
    return np.take_along_axis(w, bases, axis=1).sum(axis=1)


def optimal_value(matroid: Matroid, means: np.ndarray) -> float:
    """f(A*, w_bar): the best expected return of a basis."""
    return float(basis_value(optimal_basis(matroid, means), means))


def pairing_permutation(matroid: Matroid, played: np.ndarray, optimal: np.ndarray) -> np.ndarray:
    """The pairing pi_t of Sec. 4.3 (Chandak, Hu & Hegde's proof of Theorem 2), an analysis device.

    ``played`` = (a^t_1..a^t_K) and ``optimal`` = (a*_1..a*_K) are bases in greedy order. Built
    backwards from k = K: a^t_k is paired with itself when it is in A*, otherwise with the first
    a*_i outside B_k = {a^t_1..a^t_{k-1}} + {a*_pi(k+1)..a*_pi(K)} that keeps B_k independent.
    Returns pi as an array of 0-based positions in ``optimal``.
    """
    played = [int(e) for e in played]
    optimal = [int(e) for e in optimal]
    K = len(played)
    if not (matroid.is_basis(played) and matroid.is_basis(optimal)):
        raise DPBanditsError("played and optimal must be bases of the matroid")
    pi = [-1] * K
    for k in range(K - 1, -1, -1):
        B = played[:k] + [optimal[pi[j]] for j in range(k + 1, K)]
        if played[k] in optimal:
            pi[k] = optimal.index(played[k])
            continue
        pi[k] = next(i for i, a in enumerate(optimal) if a not in B and matroid.can_add(B, a))
    return np.array(pi, dtype=np.int64)
