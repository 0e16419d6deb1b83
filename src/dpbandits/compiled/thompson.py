"""Kernel of Thompson Sampling; mirrors :mod:`dpbandits.reference.bandit.thompson`.

Agrawal & Goyal (JACM 2017), as restated by Hu, Huang, Mehta & Hegde (arXiv:2102.07929v3),
Algorithm 2; the tags follow its line numbers.

Bit-identical to the reference. The reference draws a round's samples as one
``rng.beta(S + 1, O - S + 1)`` over the (runs, K) array, in row-major order; the kernel draws them
one at a time in the same order (numba's ``beta`` is a port of NumPy's), with the same parameters
``S + 1`` and ``O - S + 1``. With ``tie_break="random"`` the reference then draws the (runs, K)
uniforms of the tie-break after all the samples, so the kernel samples every run first and breaks
ties afterwards, run by run.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from .loop import argmax_tie, bandit_round

ALGORITHMS = ("thompson",)

State = namedtuple("State", "O S theta random_ties rng keys")


def state_from(policy) -> State:
    """The kernel's state over the reference policy's own arrays (updated in place)."""
    return State(policy.O, policy.S, np.empty_like(policy.O), int(policy.tie_break == "random"),
                 policy.rng, np.empty(policy.K))


@njit(cache=True, _nrt=False)
def act(state, t, actions):
    R, K = state.O.shape
    for r in range(R):
        for a in range(K):
            state.theta[r, a] = state.rng.beta(state.S[r, a] + 1.0,                      # [Alg.2 l.4]
                                               state.O[r, a] - state.S[r, a] + 1.0)
    for r in range(R):
        actions[r] = argmax_tie(state.theta, r, state.random_ties, state.rng,
                                state.keys)                                  # [Alg.2 l.5]


@njit(cache=True, _nrt=False)
def observe(state, t, actions, x):
    for r in range(actions.shape[0]):
        state.O[r, actions[r]] += 1                                                      # [Alg.2 l.5]
        state.S[r, actions[r]] += x[r]


@njit(cache=True, _nrt=False)
def run(state, sim, t0, t1):
    for t in range(t0, t1):
        act(state, t, sim.actions)
        bandit_round(sim, t)
        observe(state, t, sim.actions, sim.x)
