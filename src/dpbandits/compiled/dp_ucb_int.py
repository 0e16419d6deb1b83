"""Kernel of DP-UCB-INT; mirrors :mod:`dpbandits.reference.bandit.dp_ucb_int`.

Tossou & Dimitrakakis, *Algorithms for Differentially Private Multi-Armed Bandits* (AAAI 2016,
arXiv:1511.08681), Algorithm 3: a UCB that re-releases an arm's noisy mean, at Laplace scale
n^(v/2 - 1), only when its count n_a reaches a release point. Every configuration of the
reference is covered: both variants (``corrected``: one release per release point; ``paper``:
fresh noise at every step while n_a sits at a release point), the three interval rules
(``constant`` f = ceil(1/eps), Lemma B.1's ``x`` and ``y`` series, computed here with the
reference's scalar arithmetic as each point is reached), both bonus rules (``frozen``,
``fresh``), every v.

**Bit-identity.** The kernel draws the reference's Laplace variables in its order (the due arms
of a round in row-major (run, arm) order, as ``np.nonzero`` lists them), reaches the same release
points and evaluates the means and bonuses with the same operations, so the trajectories are
the reference's. One number can differ in its last bit: the reference computes the noise scale
n^(v/2 - 1) with NumPy's ``**`` over an array, which on a CPU with AVX-512 is a SIMD routine that
differs from the scalar libm ``pow`` used here for about 5% of counts (the first is n = 50 at
v = 1.1). There the released mean differs by about an ulp of the noise, and an action differs
only if two arms' indices lie within that of each other, a probability-zero event under
Laplace noise; the tests check identical trajectories across many such releases.
"""

from __future__ import annotations

import math
from collections import namedtuple

import numpy as np
from numba import njit

from .loop import argmax_tie, bandit_round

ALGORITHMS = ("dp-ucb-int",)

CONSTANT, X_RULE, Y_RULE = 0, 1, 2
_RULES = {"constant": CONSTANT, "x": X_RULE, "y": Y_RULE}

State = namedtuple("State", [
    "s", "n",                 # (R, K) s_a and n_{a,t}
    "reached",                # (R, K) release points n_a has reached
    "next_point",             # (R, K) the next release point of each arm
    "at_point",               # (R, K) n_a is a release point (l.8)
    "last_release",           # (R, K) n_a at the arm's last release
    "releases",               # (R, K) releases (Laplace draws) so far
    "mean_hat", "x_hat",      # (R, K) s_a/n_a + Lap at the last release; x_hat_a of l.9
    "f0",                     # W_1: the round-robin start lasts K f0 steps
    "once_per_point",         # 1: variant corrected; 0: paper
    "fresh_bonus",            # 1: bonus "fresh"; 0: "frozen"
    "interval", "epsilon", "exponent",   # the release rule (g(i) = i^-exponent for x and y)
    "noise_power",            # v/2 - 1: the Laplace scale is n^(v/2 - 1)
    "released_round",         # [the round whose releases are done]
    "index", "random_ties", "rng", "keys",
])


def state_from(policy) -> State:
    """The kernel's state over the reference policy's own arrays."""
    interval = _RULES[policy.interval]
    exponent = policy.v / 2.0 if policy.interval == "x" else policy.v
    return State(policy.s, policy.n, policy.reached, policy.next_point, policy.at_point,
                 policy.last_release, policy.releases, policy.mean_hat, policy.x_hat,
                 int(policy.f0), int(policy.variant == "corrected"),
                 int(policy.bonus == "fresh"), interval, float(policy.epsilon), exponent,
                 policy.v / 2.0 - 1.0, np.array([policy._released_round], np.int64),
                 np.empty_like(policy.s), int(policy.tie_break == "random"), policy.rng,
                 np.empty(policy.K))


@njit(cache=True, _nrt=False)
def next_release_point(state, W):
    """The release point after W (Alg.3 l.2 for ``constant``; Lemma B.1 for ``x``, ``y``).

    ``constant``: W + ceil(1/eps). ``x``/``y``: the least w > W with
    sum_{i=W+1}^{w} g(i) >= g(w)/eps, summed left to right as the reference does.
    """
    if state.interval == CONSTANT:
        return W + int(math.ceil(1.0 / state.epsilon))
    total = 0.0
    w = W
    while True:
        w += 1
        g = float(w) ** -state.exponent
        total += g
        if total >= g / state.epsilon:
            return w


@njit(cache=True, _nrt=False, inline="always")
def _release(state, t):
    """Lines 7-9: refresh x_hat of the arms whose count is due for a release."""
    R, K = state.n.shape
    two_log_t = 2.0 * math.log(t)
    for i in range(R):                                                           # [Alg.3 l.7]
        for a in range(K):
            n = state.n[i, a]
            due = state.at_point[i, a]                                           # [Alg.3 l.8]
            if state.once_per_point:
                due = due and state.last_release[i, a] != n
            if not due:
                continue
            noise = state.rng.laplace(0.0, float(n) ** state.noise_power)
            state.mean_hat[i, a] = state.s[i, a] / n + noise                     # [Alg.3 l.9]
            state.x_hat[i, a] = state.mean_hat[i, a] + math.sqrt(two_log_t / n)
            state.last_release[i, a] = n
            state.releases[i, a] += 1


@njit(cache=True, _nrt=False, inline="always")
def act(state, t, actions):
    R, K = state.n.shape
    if t <= K * state.f0:                                                        # [Alg.3 l.4]
        for r in range(R):
            actions[r] = (t - 1) % K                                             # [Alg.3 l.5]
        return
    if t != state.released_round[0]:    # one pass of l.7-9 per round, however often act(t) runs
        _release(state, t)
        state.released_round[0] = t
    if state.fresh_bonus:
        two_log_t = 2.0 * math.log(t)
        for r in range(R):
            for a in range(K):
                state.index[r, a] = state.mean_hat[r, a] + math.sqrt(two_log_t / state.n[r, a])
        index = state.index
    else:
        index = state.x_hat
    for r in range(R):
        actions[r] = argmax_tie(index, r, state.random_ties, state.rng, state.keys)  # [Alg.3 l.10]


@njit(cache=True, _nrt=False, inline="always")
def observe(state, t, actions, x):
    for i in range(actions.shape[0]):
        a = actions[i]
        state.s[i, a] += x[i]                              # [Alg.3 l.11], in both phases (dev. 2)
        state.n[i, a] += 1
        hit = state.n[i, a] == state.next_point[i, a]
        state.at_point[i, a] = hit
        if hit:
            state.reached[i, a] += 1
            state.next_point[i, a] = next_release_point(state, state.next_point[i, a])


@njit(cache=True, _nrt=False)
def run(state, sim, t0, t1):
    for t in range(t0, t1):
        act(state, t, sim.actions)
        bandit_round(sim, t)
        observe(state, t, sim.actions, sim.x)
