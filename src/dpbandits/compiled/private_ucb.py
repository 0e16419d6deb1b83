"""Kernel of Private-UCB; mirrors :mod:`dpbandits.reference.bandit.private_ucb`.

Mishra & Thakurta, *(Nearly) Optimal Differentially Private Stochastic Multi-Arm Bandits* (UAI
2015), Algorithm 1: UCB on one binary (tree) mechanism per arm at eps/K, with the confidence
relaxation Gamma_t in the index. Both readings of gamma (``gamma_rule`` "t": gamma = t^-4 at
step t; "T": gamma = T^-4) and both logs of the tree depth (``depth_log`` "ln", "log2") are
covered. The trees are the reference's :class:`~dpbandits.reference.mechanisms.BinaryCounter`
arrays, driven by :func:`dpbandits.compiled.counters.binary_insert`.

**Bit-identity.** Bit-identical to the reference: the same Laplace draws in run order, the
p-sums added in NumPy's pairwise order (:mod:`dpbandits.compiled.counters`), Gamma_t evaluated
with the reference's scalar operations in the same order, the same index and tie-breaks. As in
the reference, a round beyond the horizon T the algorithm was built for is an error.
"""

from __future__ import annotations

import math
from collections import namedtuple

import numpy as np
from numba import njit

from ..errors import DPBanditsError
from .counters import binary_from, binary_insert
from .loop import argmax_first, argmax_random, bandit_round

ALGORITHMS = ("private-ucb",)

State = namedtuple("State", [
    "trees",         # Tree_a: one binary mechanism per (run, arm), flat index r K + a
    "T",             # the horizon the algorithm was built for
    "K_depth2",      # K log^2 T: the factor of Gamma_t (l.5)
    "log_KTlogT",    # ln(K T ln T)
    "gamma_at_t",    # 1: gamma = t^-4 (gamma_rule "t"); 0: gamma = T^-4
    "epsilon",
    "where",         # the trees of one insertion
    "index", "random_ties", "rng", "keys",
])


def state_from(policy) -> State:
    """The kernel's state over the reference policy's own trees."""
    K, T = policy.K, policy.T
    K_depth2 = log_KTlogT = 0.0
    if T >= 2:                  # Gamma_t is needed from round K + 1 > 2 on
        depth = math.log(T) if policy.depth_log == "ln" else math.log2(T)
        K_depth2 = K * depth ** 2
        log_KTlogT = math.log(K * T * math.log(T))
    return State(binary_from(policy.trees), T, K_depth2, log_KTlogT,
                 int(policy.gamma_rule == "t"), float(policy.epsilon),
                 np.zeros(policy.runs, np.int64), np.empty((policy.runs, K)),
                 int(policy.tie_break == "random"), policy.rng, np.empty(K))


@njit(cache=True)
def Gamma(state, t):
    """Gamma_t = K log^2(T) (ln(K T ln T) + 4 ln(1/gamma)) / eps, gamma = t^-4 or T^-4 (l.5)."""
    log_inv_gamma = 4.0 * math.log(t if state.gamma_at_t else state.T)
    return state.K_depth2 * (state.log_KTlogT + log_inv_gamma) / state.epsilon


@njit(cache=True)
def act(state, t, actions):
    R, K = state.index.shape
    if t > state.T:
        raise DPBanditsError("private-ucb: a round beyond the horizon T it was built for")
    if t <= K:
        for r in range(R):
            actions[r] = t - 1                                                   # [Alg.1 l.4]
        return
    two_log_t = 2.0 * math.log(t)
    Gamma_t = Gamma(state, t)
    n_all, value = state.trees.n, state.trees.value
    for r in range(R):
        for a in range(K):
            n = float(n_all[r * K + a])
            state.index[r, a] = (value[r * K + a] / n + math.sqrt(two_log_t / n)  # [Alg.1 l.7-8]
                                 + Gamma_t / n)
        if state.random_ties:
            actions[r] = argmax_random(state.index, r, state.rng, state.keys)
        else:
            actions[r] = argmax_first(state.index, r)


@njit(cache=True)
def observe(state, t, actions, x):
    R, K = state.index.shape
    for r in range(R):
        state.where[r] = r * K + actions[r]
    if not binary_insert(state.trees, state.where, x, state.rng):               # [Alg.1 l.4, l.9]
        raise DPBanditsError("private-ucb: a tree holds at most T items")


@njit(cache=True)
def run(state, sim, t0, t1):
    for t in range(t0, t1):
        act(state, t, sim.actions)
        bandit_round(sim, t)
        observe(state, t, sim.actions, sim.x)
