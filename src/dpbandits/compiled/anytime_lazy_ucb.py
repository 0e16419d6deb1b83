"""Kernel of Anytime-Lazy-UCB; mirrors :mod:`dpbandits.reference.bandit.anytime_lazy_ucb`.

Hu, Huang & Mehta (arXiv:2102.07929), Algorithm 1; the tags follow the journal's line numbers.
Bit-identical to the reference: the index is evaluated in the same order of operations, and the
Laplace draws of a round come in run order, one per run whose epoch closed, as the reference's
:func:`~dpbandits.reference.mechanisms.release_epoch` draws them (the kernel's
:func:`~dpbandits.compiled.epochs.lazy_epoch_pull`, one run at a time).
"""

from __future__ import annotations

import math
from collections import namedtuple

import numpy as np
from numba import njit

from .epochs import lazy_epoch_pull
from .loop import argmax_tie, bandit_round

ALGORITHMS = ("anytime-lazy-ucb",)

State = namedtuple("State", "epsilon O inv_O sqrt_inv_O r mu_tilde N Phi index random_ties rng keys")


def state_from(policy) -> State:
    """The kernel's state over the reference policy's own arrays (updated in place)."""
    return State(float(policy.epsilon), policy.O, policy.inv_O, policy.sqrt_inv_O, policy.r,
                 policy.mu_tilde, policy.N, policy.Phi, np.empty_like(policy.O),
                 int(policy.tie_break == "random"), policy.rng, np.empty(policy.K))


@njit(cache=True, _nrt=False)
def act(state, t, actions):
    R, K = state.O.shape
    log_t = math.log(t)
    radius = math.sqrt(3.0 * log_t)
    noise_term = 3.0 * log_t / state.epsilon
    for r in range(R):
        if t <= K:
            actions[r] = t - 1                                                   # [l.2]
            continue
        for a in range(K):
            state.index[r, a] = (state.mu_tilde[r, a] + radius * state.sqrt_inv_O[r, a]  # [l.4]
                                 + noise_term * state.inv_O[r, a])
        actions[r] = argmax_tie(state.index, r, state.random_ties, state.rng, state.keys)


@njit(cache=True, _nrt=False)
def observe(state, t, actions, x):
    R, K = state.O.shape
    scale = 1.0 / state.epsilon
    for r in range(R):
        j = actions[r]
        if t <= K:
            state.mu_tilde[r, j] = x[r] + state.rng.laplace(0.0, scale)          # [l.2]
            continue
        O = lazy_epoch_pull(state, r, j, x[r], scale)                            # [l.5-l.7]
        if O:
            state.inv_O[r, j] = 1.0 / O
            state.sqrt_inv_O[r, j] = math.sqrt(1.0 / O)


@njit(cache=True, _nrt=False)
def run(state, sim, t0, t1):
    for t in range(t0, t1):
        act(state, t, sim.actions)
        bandit_round(sim, t)
        observe(state, t, sim.actions, sim.x)
