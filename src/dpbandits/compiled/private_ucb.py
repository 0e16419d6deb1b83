"""Kernel of Private-UCB; mirrors :mod:`dpbandits.reference.bandit.private_ucb`.

Mishra & Thakurta, *(Nearly) Optimal Differentially Private Stochastic Multi-Arm Bandits* (UAI
2015), Algorithm 1: UCB on one binary (tree) mechanism per arm at eps/K, with the confidence
relaxation Gamma_t in the index. Both readings of gamma (``gamma_rule`` "t": gamma = t^-4 at
step t; "T": gamma = T^-4) and both logs of the tree depth (``depth_log`` "ln", "log2") are
covered. The trees are the reference's :class:`~dpbandits.reference.mechanisms.BinaryCounter`
arrays, driven by :func:`dpbandits.compiled.counters.binary_insert`.

**Bit-identity.** Bit-identical to the reference: the same Laplace draws in run order, the
p-sums added in NumPy's pairwise order (:mod:`dpbandits.compiled.counters`), Gamma_t evaluated
with the reference's scalar operations in the same order, the same tie-breaks. The index is
evaluated with the reference's operations for the arms that can hold the maximum, the others
being ruled out by a cheaper bound (:mod:`dpbandits.compiled.screen`), so the argmax is the
reference's. As in the reference, a round beyond the horizon T it was built for is an error.
"""

from __future__ import annotations

import math
from collections import namedtuple

import numpy as np
from numba import njit

from ..errors import DPBanditsError
from .counters import binary_from, binary_insert
from .loop import argmax_tie, bandit_round
from .screen import screen

ALGORITHMS = ("private-ucb",)

State = namedtuple("State", [
    "trees",         # Tree_a: one binary mechanism per (run, arm), flat index r K + a
    "T",             # the horizon the algorithm was built for
    "K_depth2",      # K log^2 T: the factor of Gamma_t (l.5)
    "log_KTlogT",    # ln(K T ln T)
    "gamma_at_t",    # 1: gamma = t^-4 (gamma_rule "t"); 0: gamma = T^-4
    "epsilon",
    "where",         # the trees of one insertion
    "inv_n", "sqrt_inv_n",  # (R K,) 1/n_a and sqrt(1/n_a), for screening the arms
    "approx", "magnitude",  # (K,) the screen of one run (see dpbandits.compiled.screen)
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
    inv_n = 1.0 / np.maximum(policy.trees.n, 1)
    return State(binary_from(policy.trees), T, K_depth2, log_KTlogT,
                 int(policy.gamma_rule == "t"), float(policy.epsilon),
                 np.zeros(policy.runs, np.int64), inv_n, np.sqrt(inv_n), np.empty(K),
                 np.empty(K), np.empty((policy.runs, K)), int(policy.tie_break == "random"),
                 policy.rng, np.empty(K))


@njit(cache=True, _nrt=False, inline="always")
def Gamma(state, log_t):
    """Gamma_t = K log^2(T) (ln(K T ln T) + 4 ln(1/gamma)) / eps, gamma = t^-4 or T^-4 (l.5)."""
    log_inv_gamma = 4.0 * (log_t if state.gamma_at_t else math.log(state.T))
    return state.K_depth2 * (state.log_KTlogT + log_inv_gamma) / state.epsilon


@njit(cache=True, _nrt=False, inline="always")
def act(state, t, actions):
    R, K = state.index.shape
    if t > state.T:
        raise DPBanditsError("private-ucb: a round beyond the horizon T it was built for")
    if t <= K:
        for r in range(R):
            actions[r] = t - 1                                                   # [Alg.1 l.4]
        return
    log_t = math.log(t)
    two_log_t = 2.0 * log_t
    sqrt_two_log_t = math.sqrt(two_log_t)
    Gamma_t = Gamma(state, log_t)
    n_all, value = state.trees.n, state.trees.value                             # [Alg.1 l.7]
    for r in range(R):
        for a in range(K):
            mean = value[r * K + a] * state.inv_n[r * K + a]
            radius = sqrt_two_log_t * state.sqrt_inv_n[r * K + a]
            relaxation = Gamma_t * state.inv_n[r * K + a]
            state.approx[a] = mean + radius + relaxation
            state.magnitude[a] = abs(mean) + radius + relaxation
        if screen(state.approx, state.magnitude, state.index, r) > 1:
            for a in range(K):
                if state.index[r, a] == -np.inf:
                    continue
                n = float(n_all[r * K + a])
                state.index[r, a] = (value[r * K + a] / n + math.sqrt(two_log_t / n)  # [Alg.1 l.8]
                                     + Gamma_t / n)
        actions[r] = argmax_tie(state.index, r, state.random_ties, state.rng, state.keys)


@njit(cache=True, _nrt=False, inline="always")
def observe(state, t, actions, x):
    R, K = state.index.shape
    for r in range(R):
        state.where[r] = r * K + actions[r]
    if not binary_insert(state.trees, state.where, x, state.rng):               # [Alg.1 l.4, l.9]
        raise DPBanditsError("private-ucb: a tree holds at most T items")
    for r in range(R):
        c = state.where[r]
        state.inv_n[c] = 1.0 / state.trees.n[c]
        state.sqrt_inv_n[c] = math.sqrt(state.inv_n[c])


@njit(cache=True, _nrt=False)
def run(state, sim, t0, t1):
    for t in range(t0, t1):
        act(state, t, sim.actions)
        bandit_round(sim, t)
        observe(state, t, sim.actions, sim.x)
