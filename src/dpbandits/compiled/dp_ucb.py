"""Kernel of DP-UCB-BOUND and DP-UCB; mirrors :mod:`dpbandits.reference.bandit.dp_ucb_bound` and
:mod:`dpbandits.reference.bandit.dp_ucb`.

Tossou & Dimitrakakis, *Algorithms for Differentially Private Multi-Armed Bandits* (AAAI 2016,
arXiv:1511.08681), Algorithm 1 (DP-UCB-BOUND: UCB on one hybrid mechanism per arm, with the
mechanism's error bound nu_a of eq. (2.2) in the index) and Algorithm 2 (DP-UCB: Algorithm 1 with
nu_a = 0, every mechanism fed at every round, zeros for the arms not played). Both variants
(``corrected``, ``paper``) are the hybrid counter's budget split; both tree-log bases of nu_a
(``tree_log_base`` 2 or e) are covered. The hybrid mechanisms are
:mod:`dpbandits.compiled.counters`, which draw the reference's Laplace variables in its order.

**Bit-identity.** DP-UCB is bit-identical to the reference: the same releases (see
:mod:`dpbandits.compiled.counters`), the same index s_a/n_a + sqrt(2 ln t / n_a) in the same order
of operations, the same tie-breaks. The index is evaluated with the reference's operations for
the arms that can hold the maximum, the others being ruled out by a cheaper bound
(:mod:`dpbandits.compiled.screen`), so the argmax is the reference's.

DP-UCB-BOUND draws the same numbers and releases the same sums. Its nu_a needs log2 n_{a,t} (or
ln n_{a,t}) of every arm's count: the reference takes it with NumPy's ``np.log2`` over the
(runs, K) array, which on a CPU with AVX-512 is a SIMD routine that differs from the scalar libm
``log2`` used here in the last bit for a few counts (about 1 in 20,000 integers; the first is
n = 1621, for ln n = 9170). There nu_a / n_a differs by an ulp, so the index does, and the
action differs only if two arms' indices lie within that ulp of each other, which Laplace noise
makes a probability-zero event; the tests check identical trajectories across such counts.
The constant ln(4 t^4) is computed from the correctly rounded 4 t^4, as Python's ``math.log`` of
the integer does, for t < 9.49e7 (where t^2 < 2^53); beyond, it may differ in the last bit.
"""

from __future__ import annotations

import math
from collections import namedtuple

import numpy as np
from numba import njit

from .counters import hybrid_from, hybrid_insert, is_power_of_two
from .loop import argmax_tie, bandit_round
from .screen import screen

ALGORITHMS = ("dp-ucb-bound", "dp-ucb")

State = namedtuple("State", [
    "H",             # the hybrid mechanisms H_a, one per (run, arm), flat index r K + a
    "n",             # (R, K) n_{a,t}: pulls of arm a before round t
    "bound",         # 1: DP-UCB-BOUND (nu_a in the index); 0: DP-UCB
    "feed_all",      # 1: insert zeros into the arms not played (Alg.2 l.2)
    "inv_eps_L",     # 1 / eps_L
    "eps_B",
    "tree_ln",       # 1: nu_a counts tree levels with ln n (tree_log_base="e"); 0: log2 n
    "w",             # (R, K) nu_a / c_t = [n not a power of 2] log n / eps_B + 1/eps_L
    "inv_n", "sqrt_inv_n",  # (R, K) 1/n_a and sqrt(1/n_a), for screening the arms
    "approx", "magnitude",  # (K,) the screen of one run (see dpbandits.compiled.screen)
    "where", "items",  # the counters and items of one insertion
    "index", "random_ties", "rng", "keys",
])


def state_from(policy) -> State:
    """The kernel's state over the reference policy's own arrays and counters."""
    R, K = policy.n.shape
    bound = int(policy.name == "dp-ucb-bound")
    tree_ln = int(bound and policy._tree_log is np.log)
    feed_all = 1 - bound
    state = State(hybrid_from(policy.H), policy.n, bound, feed_all, 1.0 / policy.eps_L,
                  float(policy.eps_B), tree_ln, np.zeros((R, K)), np.ones((R, K)),
                  np.ones((R, K)), np.empty(K), np.empty(K),
                  np.arange(R * K) if feed_all else np.zeros(R, np.int64),
                  np.zeros(R * K) if feed_all else np.zeros(R),
                  np.empty((R, K)), int(policy.tie_break == "random"), policy.rng, np.empty(K))
    _all_counts_changed(state)
    return state


@njit(cache=True, _nrt=False)
def _all_counts_changed(state):
    """``_count_changed`` for every (run, arm): one compiled call, not R x K calls from Python."""
    R, K = state.n.shape
    for r in range(R):
        for a in range(K):
            _count_changed(state, r, a)


@njit(cache=True, _nrt=False, inline="always")
def _count_changed(state, r, a):
    """Refresh what depends on n_{a,t} only: nu_a(t) / c_t (eq. (2.2) at gamma = t^-4) and the
    screen's 1/n_a and sqrt(1/n_a)."""
    n = state.n[r, a]
    levels = 0.0
    if not is_power_of_two(n) and n > 0:                                         # [Alg.1 l.10]
        tree_log = math.log(n) if state.tree_ln else math.log2(n)
        levels = tree_log / state.eps_B
    state.w[r, a] = levels + state.inv_eps_L                                     # [Alg.1 l.11-13]
    state.inv_n[r, a] = 1.0 / max(n, 1)
    state.sqrt_inv_n[r, a] = math.sqrt(state.inv_n[r, a])


@njit(cache=True, _nrt=False)
def _log_4_t4(t):
    """ln(4 t^4), with 4 t^4 rounded once to a double as Python's math.log(int) does."""
    t2 = float(t * t)
    return math.log(4.0 * (t2 * t2))


@njit(cache=True, _nrt=False, inline="always")
def act(state, t, actions):
    R, K = state.n.shape
    if t <= K:
        for r in range(R):
            actions[r] = t - 1                                                   # [Alg.1 l.5]
        return
    two_log_t = 2.0 * math.log(t)
    sqrt_two_log_t = math.sqrt(two_log_t)
    c = math.sqrt(8.0) * _log_4_t4(t) if state.bound else 0.0
    s = state.H.value.reshape(R, K)                                              # [Alg.1 l.9]
    for r in range(R):
        for a in range(K):
            mean = s[r, a] * state.inv_n[r, a]
            radius = sqrt_two_log_t * state.sqrt_inv_n[r, a]
            nu_term = c * state.w[r, a] * state.inv_n[r, a]
            state.approx[a] = mean + radius + nu_term
            state.magnitude[a] = abs(mean) + radius + nu_term
        if screen(state.approx, state.magnitude, state.index, r) > 1:
            for a in range(K):
                if state.index[r, a] == -np.inf:
                    continue
                n = float(state.n[r, a])
                index = s[r, a] / n + math.sqrt(two_log_t / n)                   # [Alg.1 l.14]
                if state.bound:
                    index += c * state.w[r, a] / n
                state.index[r, a] = index
        actions[r] = argmax_tie(state.index, r, state.random_ties, state.rng, state.keys)


@njit(cache=True, _nrt=False, inline="always")
def observe(state, t, actions, x):
    R, K = state.n.shape
    if state.feed_all:
        for c in range(R * K):
            state.items[c] = 0.0                                                 # [Alg.2 l.2]
        for r in range(R):
            state.items[r * K + actions[r]] = x[r]                               # [Alg.1 l.16]
    else:
        for r in range(R):
            state.where[r] = r * K + actions[r]                                  # [Alg.1 l.6, l.16]
            state.items[r] = x[r]
    hybrid_insert(state.H, state.where, state.items, state.rng)
    for r in range(R):
        state.n[r, actions[r]] += 1
        _count_changed(state, r, actions[r])


@njit(cache=True, _nrt=False)
def run(state, sim, t0, t1):
    for t in range(t0, t1):
        act(state, t, sim.actions)
        bandit_round(sim, t)
        observe(state, t, sim.actions, sim.x)
