"""Kernel of Hybrid-UCB; mirrors :mod:`dpbandits.reference.bandit.hybrid_ucb`.

Hu, Huang & Mehta, *Near-Optimal Algorithms for Private Online Learning in a Stochastic
Environment* (arXiv:2102.07929v2), Algorithm 4: each arm's private mean from noisy sums of its
full arrays (eq. (32)) plus the binary mechanism's release over the tree being filled (eq. (33)).
Both variants are covered (``paper``: node noise Lap(2r/eps); ``corrected``: Lap(2(r+1)/eps)).

**Bit-identity.** Bit-identical to the reference. A round draws, in run order, one tree-node
Laplace variable per run (as the reference's batched ``binary_step``), then one Z per run whose
array just filled, as the reference does. The tree's p-sums are added in NumPy's pairwise order
over the reference's level axis, whose width grows as the reference's ``_make_room`` grows it
(2, 4, 8, ...: the same for all runs of a block, so it is kept here as one number); the kernel's
own p-sum arrays have room for 64 levels. The index is evaluated with the reference's operations
for the arms that can hold the maximum, the others being ruled out by a cheaper bound
(:mod:`dpbandits.compiled.screen`), so the argmax is the reference's.
"""

from __future__ import annotations

import math
from collections import namedtuple

import numpy as np
from numba import njit

from .counters import binary_step
from .epochs import release_epoch
from .loop import argmax_tie, bandit_round
from .screen import screen

ALGORITHMS = ("hybrid-ucb",)

_LEVELS = 64   # tree r has r + 1 levels; an arm would need 2^63 observations to fill 64

State = namedtuple("State", [
    "O",             # (R, K) O_j: observations of arm j so far
    "r",             # (R, K) r_j: the tree and array of the next observation
    "F_tilde",       # (R, K) F~_{j,0:r_j-1}, eq. (32)
    "F_sum",         # (R, K) true sum of the array being filled
    "B_tilde",       # (R, K) B~_{j,r_j}, eq. (33)
    "mu_tilde",      # (R, K) mu~_{j,O_j}, eq. (34)
    "alpha", "alpha_hat",   # (R K, 64) p-sums of tree r_j and their node noise Y
    "width",         # [levels of the reference's p-sum arrays], which fixes NumPy's sum order
    "array_scale",   # 2 / eps: Lap(1/(0.5 eps))
    "level_offset",  # 0 (paper) or 1 (corrected): node scale 2(r + offset)/eps
    "epsilon",
    "full",          # (R,) 1 where the run's tree just filled
    "inv_O", "sqrt_inv_O", "inv_eps_O",  # (R, K) 1/O_j, sqrt(1/O_j), 1/(eps O_j): for screening
    "approx", "magnitude",  # (K,) the screen of one run (see dpbandits.compiled.screen)
    "index", "random_ties", "rng", "keys",
])


def state_from(policy) -> State:
    """The kernel's state over the reference policy's arrays (the p-sums are the kernel's own)."""
    R, K = policy.O.shape
    alpha = np.zeros((R * K, _LEVELS))
    alpha_hat = np.zeros((R * K, _LEVELS))
    have = policy.alpha.shape[-1]
    alpha[:, :have] = policy.alpha.reshape(R * K, have)
    alpha_hat[:, :have] = policy.alpha_hat.reshape(R * K, have)
    O = np.maximum(policy.O, 1)
    return State(policy.O, policy.r, policy.F_tilde, policy.F_sum, policy.B_tilde,
                 policy.mu_tilde, alpha, alpha_hat, np.array([have], np.int64),
                 float(policy._array_scale), int(policy._level_offset), float(policy.epsilon),
                 np.zeros(R, np.int64), 1.0 / O, np.sqrt(1.0 / O), 1.0 / (policy.epsilon * O),
                 np.empty(K), np.empty(K), np.empty((R, K)), int(policy.tie_break == "random"),
                 policy.rng, np.empty(K))


@njit(cache=True, _nrt=False, inline="always")
def _count_changed(state, i, j):
    """Refresh the screen's 1/O_j, sqrt(1/O_j) and 1/(eps O_j) after O_j changed."""
    O = state.O[i, j]
    state.inv_O[i, j] = 1.0 / O
    state.sqrt_inv_O[i, j] = math.sqrt(state.inv_O[i, j])
    state.inv_eps_O[i, j] = 1.0 / (state.epsilon * O)


@njit(cache=True, _nrt=False, inline="always")
def act(state, t, actions):
    R, K = state.O.shape
    if t <= K:
        for i in range(R):
            actions[i] = t - 1                                                   # [Alg.4 l.2]
        return
    log_t = math.log2(t)
    radius = 3.0 * log_t
    sqrt_radius = math.sqrt(radius)
    tree_term = 6.0 * math.sqrt(8.0) * log_t
    for i in range(R):
        for j in range(K):
            mu = state.mu_tilde[i, j]
            confidence = sqrt_radius * state.sqrt_inv_O[i, j]
            noise_term = tree_term * state.r[i, j] * state.inv_eps_O[i, j]
            state.approx[j] = mu + confidence + noise_term
            state.magnitude[j] = abs(mu) + confidence + noise_term
        if screen(state.approx, state.magnitude, state.index, i) > 1:
            for j in range(K):
                if state.index[i, j] == -np.inf:
                    continue
                O = float(state.O[i, j])
                state.index[i, j] = (state.mu_tilde[i, j] + math.sqrt(radius / O)   # [Alg.4 l.5]
                                     + tree_term * state.r[i, j] / (state.epsilon * O))
        actions[i] = argmax_tie(state.index, i, state.random_ties, state.rng, state.keys)


@njit(cache=True, _nrt=False, inline="always")
def observe(state, t, actions, x):
    R, K = state.O.shape
    if t <= K:
        for i in range(R):
            j = actions[i]
            state.F_tilde[i, j] = x[i] + state.rng.laplace(0.0, state.array_scale)  # [Alg.4 l.2]
            state.mu_tilde[i, j] = state.F_tilde[i, j]
            state.O[i, j] = 1                                                    # [Alg.4 l.3]
            _count_changed(state, i, j)
        return
    width = state.width[0]
    any_full = False
    for i in range(R):
        j = actions[i]
        state.O[i, j] += 1                                                       # [Alg.4 l.6]
        _count_changed(state, i, j)
        state.F_sum[i, j] += x[i]
        r = state.r[i, j]
        tau = state.O[i, j] - (1 << r) + 1          # leaves of tree r now filled
        scale = 2.0 * (r + state.level_offset) / state.epsilon
        B_tilde = binary_step(state.alpha, state.alpha_hat, i * K + j, tau, x[i], scale,
                              state.rng, width)                                  # [Alg.4 l.8]
        state.B_tilde[i, j] = B_tilde
        state.mu_tilde[i, j] = (state.F_tilde[i, j] + B_tilde) / state.O[i, j]  # [Alg.4 l.9]
        state.full[i] = tau == (1 << r)                                          # [Alg.4 l.10]
        any_full |= tau == (1 << r)
    if not any_full:
        return
    levels = 0
    for i in range(R):
        if state.full[i]:
            j = actions[i]
            state.F_tilde[i, j] += release_epoch(state.F_sum, (i, j), state.array_scale,
                                                 state.rng)                      # [Alg.4 l.7]
            state.r[i, j] += 1                                                   # [Alg.4 l.11]
            for level in range(_LEVELS):
                state.alpha[i * K + j, level] = 0.0
                state.alpha_hat[i * K + j, level] = 0.0
            state.B_tilde[i, j] = 0.0
            levels = max(levels, state.r[i, j] + 1)
    if levels > width:              # the reference's _make_room
        state.width[0] = max(levels, 2 * width)


@njit(cache=True, _nrt=False)
def run(state, sim, t0, t1):
    for t in range(t0, t1):
        act(state, t, sim.actions)
        bandit_round(sim, t)
        observe(state, t, sim.actions, sim.x)
