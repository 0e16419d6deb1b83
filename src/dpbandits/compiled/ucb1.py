"""Kernel of UCB1; mirrors :mod:`dpbandits.reference.bandit.ucb1` (Auer et al. 2002, Fig. 1).

Bit-identical to the reference: the same index, ``s_a / n_a + sqrt(2 ln n / n_a)`` with
``math.log`` and n = t, or n = max(t - 1, 1) with ``log_round="t-1"``, the same first-maximum (or
random) tie-break, no other randomness.
"""

from __future__ import annotations

import math
from collections import namedtuple

import numpy as np
from numba import njit

from .loop import argmax_tie, bandit_round

ALGORITHMS = ("ucb1",)

State = namedtuple("State", "s n index random_ties log_previous rng keys")


def unsupported(policy) -> str | None:
    """The kernel plays the first K pulls in increasing order (and no planted radius:
    :func:`dpbandits.compiled.unsupported`)."""
    if getattr(policy, "initial_order", "first") != "first":
        return "the UCB1 kernel plays the first K pulls in increasing order (initial_order='first')"
    return None


def state_from(policy) -> State:
    """The kernel's state over the reference policy's own arrays (updated in place)."""
    return State(policy.s, policy.n, np.empty_like(policy.s), int(policy.tie_break == "random"),
                 int(policy.log_round == "t-1"), policy.rng, np.empty(policy.K))


@njit(cache=True, _nrt=False)
def act(state, t, actions):
    R, K = state.s.shape
    log_t = math.log(max(t - 1, 1) if state.log_previous else t)
    for r in range(R):
        if t <= K:
            actions[r] = t - 1                                                   # [l.2]
            continue
        for a in range(K):
            state.index[r, a] = (state.s[r, a] / state.n[r, a]
                                 + math.sqrt(2.0 * log_t / state.n[r, a]))       # [l.3]
        actions[r] = argmax_tie(state.index, r, state.random_ties, state.rng, state.keys)


@njit(cache=True, _nrt=False)
def observe(state, t, actions, x):
    for r in range(actions.shape[0]):
        state.s[r, actions[r]] += x[r]                                           # [l.4]
        state.n[r, actions[r]] += 1


@njit(cache=True, _nrt=False)
def run(state, sim, t0, t1):
    for t in range(t0, t1):
        act(state, t, sim.actions)
        bandit_round(sim, t)
        observe(state, t, sim.actions, sim.x)
