"""Kernel of Lazy-DP-TS; mirrors :mod:`dpbandits.reference.bandit.lazy_dp_ts`.

Hu, Huang, Mehta & Hegde (arXiv:2102.07929v3), Algorithm 3; the tags follow its line numbers.

Bit-identical to the reference, for both bases of the log. The shifted mean
``Clip_[0,1](mu~_j + 3 log(t) / (eps O_j))`` is evaluated in the reference's order of operations
(``3 log t`` once per round with ``math.log`` or ``math.log2``, then one division, one addition
and the clip per arm); the Beta samples of a round are drawn one at a time in the row-major order
of the reference's ``rng.beta`` over the (runs, K) array, every run before any random tie-break;
the Laplace draws come in run order, one per run in rounds 1..K and one per run whose epoch
closed afterwards (the shared :func:`~dpbandits.compiled.epochs.lazy_epoch_pull`), as the
reference's ``laplace(rng, 1/eps, size)`` and ``release_epoch`` draw them.
"""

from __future__ import annotations

import math
from collections import namedtuple

import numpy as np
from numba import njit

from .epochs import lazy_epoch_pull
from .loop import argmax_tie, bandit_round

ALGORITHMS = ("lazy-dp-ts",)

State = namedtuple("State", "epsilon log2 O r mu_tilde N Phi theta random_ties rng keys")


def state_from(policy) -> State:
    """The kernel's state over the reference policy's own arrays (updated in place)."""
    return State(float(policy.epsilon), int(policy.log_base == 2), policy.O, policy.r,
                 policy.mu_tilde, policy.N, policy.Phi, np.empty_like(policy.O),
                 int(policy.tie_break == "random"), policy.rng, np.empty(policy.K))


@njit(cache=True, _nrt=False)
def act(state, t, actions):
    R, K = state.O.shape
    if t <= K:
        for r in range(R):
            actions[r] = t - 1                                                       # [Alg.3 l.2]
        return
    shift = 3.0 * (math.log2(t) if state.log2 else math.log(t))
    for r in range(R):
        for a in range(K):
            O = state.O[r, a]
            mu_plus = min(max(state.mu_tilde[r, a] + shift / (state.epsilon * O), 0.0), 1.0)  # [Alg.3 l.4]
            state.theta[r, a] = state.rng.beta(mu_plus * O + 1.0, (1.0 - mu_plus) * O + 1.0)
    for r in range(R):
        actions[r] = argmax_tie(state.theta, r, state.random_ties, state.rng,
                                state.keys)                                  # [Alg.3 l.5]


@njit(cache=True, _nrt=False)
def observe(state, t, actions, x):
    R, K = state.O.shape
    scale = 1.0 / state.epsilon
    for r in range(R):
        j = actions[r]
        if t <= K:
            state.mu_tilde[r, j] = x[r] + state.rng.laplace(0.0, scale)              # [Alg.3 l.2]
            continue
        lazy_epoch_pull(state, r, j, x[r], scale)                                    # [Alg.3 l.6-l.8]


@njit(cache=True, _nrt=False)
def run(state, sim, t0, t1):
    for t in range(t0, t1):
        act(state, t, sim.actions)
        bandit_round(sim, t)
        observe(state, t, sim.actions, sim.x)
