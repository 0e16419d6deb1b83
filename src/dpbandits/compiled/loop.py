"""The round loop shared by every kernel: feedback, regret, pull counts and checkpoints.

A kernel is an algorithm's ``act``/``observe`` compiled by numba. It runs inside the same
simulation as :func:`dpbandits.reference.engine.simulate`: for t = 1..T, ``act`` fills the
actions of every run, :func:`bandit_round` (or :func:`full_round`, :func:`semi_round`) draws the
feedback from the reward source exactly as the reference source does and books the regret, and
``observe`` updates the algorithm's state. Each kernel module repeats that short ``run`` loop on
purpose: numba caches only module-level functions on disk, and one shared loop taking ``act``
and ``observe`` as arguments was compiled again in every new process (measured), so the loop is
written out once per kernel. Ties among the maxima of an index are broken by :func:`argmax_tie`,
as the reference's ``PolicyBase.argmax`` does.

**Draw order.** The runs of a block share one generator for the rewards and one for the
algorithm, as in the reference engine. The reference draws a round's rewards for all runs at once
(``rng.random(R) < means[actions]``) and its policies draw a round's noise for all runs at once
(``rng.laplace(0, b, size)`` in run order). A kernel loops over rounds and, inside a round, over
the runs in order, calling the same numba ``Generator`` methods (ports of NumPy's samplers), so it
consumes the same numbers in the same order and its trajectories are bit-identical to the
reference's whenever its arithmetic is the same. Each kernel's module says where that holds.

**No reference counting.** The hot functions are compiled with ``_nrt=False``: numba then does
not count references to the arrays passed from one compiled function to another, which otherwise
costs two atomic operations per array per call (a kernel with the default setting ran at 3e6
rounds a second, 1.4e7 without). These functions therefore never allocate: every array they use
is made in Python (``make_sim``, ``state_from``) and outlives the call.

**Sim.** The loop's arrays travel in one named tuple, :class:`Sim`, built by :func:`make_sim`:
the source (its kind, means, gaps and arrays), the actions and feedback of the current round,
and the outputs (regret at the checkpoints, pull counts, the recorded actions).
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit
from numba.np.random.generator_core import next_uint32
from numba.np.random.random_methods import bounded_lemire_uint64, buffered_bounded_lemire_uint32

from ..errors import DPBanditsError
from ..reference.environments import Bernoulli, BetaArms, Deterministic, RewardSource, Table
from .sums import pairwise_sum

__all__ = ["Sim", "make_sim", "source_kind", "bandit_round", "full_round", "semi_round",
           "argmax_first", "argmax_random", "argmax_tie", "BERNOULLI", "BETA", "TABLE",
           "ROW_SAMPLER"]

BERNOULLI, BETA, TABLE, ROW_SAMPLER = 0, 1, 2, 3
"""Source kinds. A :class:`Deterministic` source is a one-row table read in every round."""

Sim = namedtuple("Sim", [
    "kind",          # source kind (above)
    "means",         # (K,) arm means mu_a
    "gaps",          # (K,) Delta_a = mu_star - mu_a
    "mu_star",       # the best mean (bandit, full) or optimal_value (semi)
    "alpha", "beta",  # (K,) Beta parameters (BETA)
    "X",             # (T or 1, K) reward table (TABLE); rows of the matrix (ROW_SAMPLER)
    "X0",            # (K,) row 0 of a table, for policies that observe it
    "repeat_row",    # 1 when X has one row used in every round (Deterministic)
    "env_rng",       # the block's generator for rewards
    "actions",       # (R,) or (R, k): this round's actions
    "x",             # (R,) or (R, k): this round's feedback for the chosen arms
    "chosen_means",  # (R, k): the means of a semi-bandit's chosen base arms ((R, 0) otherwise)
    "rows",          # (R, K): this round's whole reward vectors (full, semi)
    "pseudo", "realised",           # (R,) running regrets
    "pulls",                         # (R, K) pull counts
    "checkpoints", "cp",             # checkpoint rounds; cp[0] = index of the next one
    "pseudo_at", "realised_at",      # (R, C) regret at the checkpoints
    "record", "actions_seen",        # 1 to record actions into actions_seen (R, T) or (R, T, k)
])


def source_kind(source: RewardSource) -> int | None:
    """The kind code of ``source``, or None when no kernel can draw from it."""
    from ..reference.matroid.environment import MatroidEnvironment, RowSampler
    if isinstance(source, MatroidEnvironment):
        return source_kind(source.source)
    if type(source) is Bernoulli:
        return BERNOULLI
    if type(source) is BetaArms:
        return BETA
    if type(source) in (Table, Deterministic):
        return TABLE
    if type(source) is RowSampler:
        return ROW_SAMPLER
    return None


def make_sim(source: RewardSource, runs: int, T: int, checkpoints: np.ndarray, record: bool,
             env_rng: np.random.Generator, width: int | None = None,
             best: float | None = None) -> Sim:
    """The loop's arrays for one block; ``width`` is the super-arm size of a semi-bandit."""
    from ..reference.matroid.environment import MatroidEnvironment
    base = source.source if isinstance(source, MatroidEnvironment) else source
    kind = source_kind(source)
    if kind is None:
        raise DPBanditsError(f"the compiled backend cannot draw from {source!r}")
    K = source.K
    empty = np.zeros((0, K))
    X, X0, repeat = empty, np.zeros(K), 0
    alpha = beta = np.zeros(K)
    if isinstance(base, Table):
        X = base.X
        X0 = base.X0 if base.X0 is not None else np.full(K, np.nan)
    elif isinstance(base, Deterministic):
        X, X0, repeat = base.means[None, :], base.means, 1      # row 0 is the means too
    elif kind == BETA:
        alpha, beta = base.alpha, base.beta
    elif kind == ROW_SAMPLER:
        X = base.matrix
    means = np.ascontiguousarray(source.means, dtype=float)
    if width is None:
        actions = np.zeros(runs, np.int64)
        x = np.zeros(runs)
        seen = np.zeros((runs, T) if record else (0, 0), np.int32)
        gaps, mu_star = np.asarray(source.gaps, dtype=float), float(source.mu_star)
    else:
        actions = np.zeros((runs, width), np.int64)
        x = np.zeros((runs, width))
        seen = np.zeros((runs, T, width) if record else (0, 0, 0), np.int32)
        gaps, mu_star = np.zeros(K), float(best)
    C = checkpoints.size
    return Sim(kind, means, gaps, mu_star, np.ascontiguousarray(alpha, dtype=float),
               np.ascontiguousarray(beta, dtype=float), np.ascontiguousarray(X, dtype=float),
               np.ascontiguousarray(X0, dtype=float), repeat, env_rng, actions, x,
               np.zeros((runs, 0 if width is None else width)),
               np.zeros((runs, K)), np.zeros(runs), np.zeros(runs), np.zeros((runs, K), np.int64),
               np.asarray(checkpoints, np.int64), np.zeros(1, np.int64), np.empty((runs, C)),
               np.empty((runs, C)), int(record), seen)


@njit(cache=True, _nrt=False)
def _table_row(sim, t):
    return 0 if sim.repeat_row else t - 1


@njit(cache=True, _nrt=False)
def _integer_below(rng, n):
    """``rng.integers(0, n)`` without allocating (numba's scalar ``integers`` allocates).

    The branches of NumPy's ``random_bounded_uint64_fill`` for one draw, through numba's ports
    of its Lemire samplers, so the bit stream is consumed identically.
    """
    span = n - 1
    if span == 0:
        return 0
    if span < 0xFFFFFFFF:
        return np.int64(buffered_bounded_lemire_uint32(rng.bit_generator, np.uint32(span)))
    if span == 0xFFFFFFFF:
        return np.int64(next_uint32(rng.bit_generator))
    return np.int64(bounded_lemire_uint64(rng.bit_generator, np.uint64(span)))


@njit(cache=True, _nrt=False)
def draw_rows(sim, t):
    """Fill ``sim.rows`` with round t's reward vectors (t = 0: row 0 of a table)."""
    R, K = sim.rows.shape
    if sim.kind == BERNOULLI:
        for r in range(R):
            for a in range(K):
                sim.rows[r, a] = 1.0 if sim.env_rng.random() < sim.means[a] else 0.0
    elif sim.kind == BETA:
        for r in range(R):
            for a in range(K):
                sim.rows[r, a] = sim.env_rng.beta(sim.alpha[a], sim.beta[a])
    elif sim.kind == TABLE:
        for r in range(R):
            for a in range(K):
                sim.rows[r, a] = sim.X0[a] if t == 0 else sim.X[_table_row(sim, t), a]
    else:
        n = sim.X.shape[0]
        for r in range(R):
            u = _integer_below(sim.env_rng, n)
            for a in range(K):
                sim.rows[r, a] = sim.X[u, a]


@njit(cache=True, _nrt=False)
def _book(sim, t):
    """Record the round's actions and, at a checkpoint, the regret so far."""
    c = sim.cp[0]
    if c < sim.checkpoints.size and sim.checkpoints[c] == t:
        for r in range(sim.pseudo.shape[0]):
            sim.pseudo_at[r, c] = sim.pseudo[r]
            sim.realised_at[r, c] = sim.realised[r]
        sim.cp[0] = c + 1


@njit(cache=True, _nrt=False)
def _book_action(sim, t, r, a, x):
    """Run r played arm a and obtained x in round t: its feedback, regret, pulls and record."""
    sim.x[r] = x
    sim.pseudo[r] += sim.gaps[a]
    sim.realised[r] += sim.mu_star - x
    sim.pulls[r, a] += 1
    if sim.record:
        sim.actions_seen[r, t - 1] = a


@njit(cache=True, _nrt=False)
def bandit_round(sim, t):
    """Round t of the bandit feedback model: draw the pulled arms' rewards into ``sim.x``."""
    R = sim.actions.shape[0]
    for r in range(R):
        a = sim.actions[r]
        if sim.kind == BERNOULLI:
            x = 1.0 if sim.env_rng.random() < sim.means[a] else 0.0
        elif sim.kind == BETA:
            x = sim.env_rng.beta(sim.alpha[a], sim.beta[a])
        else:
            x = sim.X[_table_row(sim, t), a]
        _book_action(sim, t, r, a, x)
    _book(sim, t)


@njit(cache=True, _nrt=False)
def full_round(sim, t):
    """Round t with full information: draw whole rows into ``sim.rows``; ``sim.x`` is the reward."""
    draw_rows(sim, t)
    for r in range(sim.actions.shape[0]):
        a = sim.actions[r]
        _book_action(sim, t, r, a, sim.rows[r, a])
    _book(sim, t)


@njit(cache=True, _nrt=False)
def semi_round(sim, t):
    """Round t of a semi-bandit: ``sim.x[r, j]`` is the reward of base arm ``actions[r, j]``."""
    draw_rows(sim, t)
    R, k = sim.actions.shape
    for r in range(R):
        for j in range(k):
            e = sim.actions[r, j]
            sim.x[r, j] = sim.rows[r, e]
            sim.pulls[r, e] += 1
            if sim.record:
                sim.actions_seen[r, t - 1, j] = e
        # the reference sums a row with NumPy's pairwise order, which differs from a plain loop
        # from k = 8 terms on
        for j in range(k):
            sim.chosen_means[r, j] = sim.means[sim.actions[r, j]]
        chosen_means = pairwise_sum(sim.chosen_means[r], k, k)
        obtained = pairwise_sum(sim.x[r], k, k)          # x[r, j] = rows[r, actions[r, j]]
        sim.pseudo[r] += sim.mu_star - chosen_means
        sim.realised[r] += sim.mu_star - obtained
    _book(sim, t)


@njit(cache=True, _nrt=False)
def argmax_first(index, r):
    """np.argmax of row r of ``index``: the first maximum, or the first NaN if there is one."""
    K = index.shape[1]
    best = index[r, 0]
    arm = 0
    if best != best:
        return 0
    for a in range(1, K):
        v = index[r, a]
        if v != v:
            return a
        if v > best:
            best = v
            arm = a
    return arm


@njit(cache=True, _nrt=False)
def argmax_random(index, r, rng, keys):
    """The reference's random tie-break for row r: K uniforms, the largest among the maxima.

    Draws K numbers for every run, tied or not, as ``PolicyBase.argmax`` does for the batch.
    """
    K = index.shape[1]
    best = index[r, 0]
    for a in range(1, K):
        if index[r, a] > best:
            best = index[r, a]
    for a in range(K):
        u = rng.random()
        keys[a] = u if index[r, a] == best else -1.0
    arm = 0
    for a in range(1, K):
        if keys[a] > keys[arm]:
            arm = a
    return arm


@njit(cache=True, _nrt=False)
def argmax_tie(index, r, random_ties, rng, keys):
    """The reference's ``PolicyBase.argmax`` for row r: :func:`argmax_random` when
    ``random_ties`` (tie_break="random"; draws K uniforms), else :func:`argmax_first` (no draw)."""
    if random_ties:
        return argmax_random(index, r, rng, keys)
    return argmax_first(index, r)
