"""Kernel of AdaP-KLUCB and AdaP-UCB; mirrors :mod:`dpbandits.reference.bandit.adap_klucb`.

Azize & Basu (NeurIPS 2022, arXiv:2209.02570), Algorithm 1 with the KL-UCB index or the
AdaP-UCB index of eq. (7); the tags follow Algorithm 1's line numbers.

The randomness is consumed as in the reference: the random tie-break draws K uniforms for each
run that starts an episode, in run order (the reference's ``rng.random((m, K))`` over those
runs), and the Laplace draws come in run order, one per run in rounds 1..K and one per run whose
episode ended afterwards (the reference's ``laplace(rng, scale, size)`` and
``release_epoch``; here the shared :func:`~dpbandits.compiled.epochs.release_epoch`).

Where bit-identity holds and where it does not:

* ``index="ucb"`` (eq. (7)): bit-identical. The index is evaluated in the reference's order of
  operations with ``math.log`` (the reference's scalar) and ``sqrt`` (correctly rounded in both).
* ``index="kl"``: the same numerical method, step for step: bisection on q in [p, 1] with the
  reference's 60 halvings, keeping the lower end whose kl(p, q) is at most d, with kl written
  with ``log1p`` in q - p exactly as :func:`~dpbandits.reference.bandit.adap_klucb.bernoulli_kl`
  writes it. But the reference evaluates ``np.log1p`` on arrays, which NumPy computes on CPUs
  with AVX-512 with its own SIMD routines, and these differ from the scalar libm ``log1p`` used
  here in the last bit for several percent of arguments. A last-bit difference in kl(p, q) flips a bisection step
  only when kl(p, q) lies within an ulp of d, which happens in the last few of the 60 halvings, so
  the two indexes may differ by a few ulps (at most 3 on the tests' 100 000 draws of (p, d),
  where 3 % of them differ at all). The chosen arm can differ only when two arms' indexes lie
  within those few ulps of each other (exact ties, as at the index's saturation at 1 when p = 1,
  are ties in both implementations alike). The tests find the trajectories (actions, pulls,
  regrets) identical on every run they check, and bound the index difference by 4 ulps.
"""

from __future__ import annotations

import math
from collections import namedtuple

import numpy as np
from numba import njit

from ..reference.bandit.adap_klucb import _BISECTION_STEPS as BISECTION_STEPS
from .epochs import release_epoch
from .loop import argmax_tie, bandit_round

ALGORITHMS = ("adap-klucb",)

State = namedtuple("State", "epsilon alpha kl init_episode_size N n mu_tilde arm length left total "
                            "index random_ties rng keys")


def state_from(policy) -> State:
    """The kernel's state over the reference policy's own arrays (updated in place)."""
    return State(float(policy.epsilon), float(policy.alpha), int(policy.index_kind == "kl"),
                 float(policy.init_episode_size), policy.N, policy.n, policy.mu_tilde, policy.arm,
                 policy.length, policy.left, policy.total, np.empty_like(policy.mu_tilde),
                 int(policy.tie_break == "random"), policy.rng, np.empty(policy.K))


@njit(cache=True, _nrt=False)
def bernoulli_kl(p, q):
    """kl(p, q) with log1p in q - p, term by term as the reference's ``bernoulli_kl``."""
    x = q - p
    ones = 0.0
    if p > 0.0:
        ratio = x / p
        # x / p overflows only for subnormal p; there p ln(p/q) is computed directly (q > 0).
        ones = -p * math.log1p(ratio) if math.isfinite(ratio) else p * (math.log(p) - math.log(q))
    zeros = 0.0
    if p < 1.0:
        zeros = -(1.0 - p) * math.log1p(-x / (1.0 - p))
    return ones + zeros


@njit(cache=True, _nrt=False)
def kl_ucb_index(p, d):
    """max{q in [p, 1] : kl(p, q) <= d} by the reference's bisection (lower end kept)."""
    low = p
    high = 1.0
    for _ in range(BISECTION_STEPS):
        mid = 0.5 * (low + high)
        if bernoulli_kl(p, mid) <= d:
            low = mid
        else:
            high = mid
    return low


@njit(cache=True, _nrt=False)
def _fill_index(state, r, t):
    """I_a(t_l - 1, alpha) with t_l = t for every arm of run r, into ``state.index[r]``."""
    K = state.index.shape[1]
    alpha_log_t = state.alpha * math.log(t)
    alpha_log_2t = state.alpha * math.log(2 * t)
    for a in range(K):
        mu, n = state.mu_tilde[r, a], state.n[r, a]
        if state.kl:
            shifted = min(max(mu + alpha_log_t / (state.epsilon * n), 0.0), 1.0)
            state.index[r, a] = kl_ucb_index(shifted, alpha_log_t / n)
        else:
            state.index[r, a] = (mu + math.sqrt(alpha_log_2t / (2.0 * n))          # eq. (7)
                                 + alpha_log_t / (state.epsilon * n))


@njit(cache=True, _nrt=False)
def act(state, t, actions):
    R, K = state.N.shape
    for r in range(R):
        if t <= K:
            actions[r] = t - 1                                                   # [Alg.1 l.3]
            continue
        if state.left[r] == 0:                                                   # [Alg.1 l.5]
            _fill_index(state, r, t)                                             # [Alg.1 l.6]
            chosen = argmax_tie(state.index, r, state.random_ties, state.rng, state.keys)
            state.arm[r] = chosen                                                # [Alg.1 l.7]
            state.length[r] = state.N[r, chosen]
            state.left[r] = state.N[r, chosen]
            state.total[r] = 0.0
        actions[r] = state.arm[r]


@njit(cache=True, _nrt=False)
def observe(state, t, actions, x):
    R, K = state.N.shape
    for r in range(R):
        if t <= K:
            a = actions[r]
            n0 = state.init_episode_size                                         # deviation 1
            state.N[r, a] = 1                                                    # [Alg.1 l.3]
            state.n[r, a] = n0
            state.mu_tilde[r, a] = x[r] + state.rng.laplace(0.0, 1.0 / (state.epsilon * n0))
            continue
        j = state.arm[r]
        state.N[r, j] += 1                                                       # [Alg.1 l.7]
        state.total[r] += x[r]
        state.left[r] -= 1
        if state.left[r] == 0:
            n = float(state.length[r])
            state.mu_tilde[r, j] = release_epoch(state.total, r,                 # Lemma 1
                                                 1.0 / (state.epsilon * n), state.rng, n)
            state.n[r, j] = n


@njit(cache=True, _nrt=False)
def run(state, sim, t0, t1):
    for t in range(t0, t1):
        act(state, t, sim.actions)
        bandit_round(sim, t)
        observe(state, t, sim.actions, sim.x)
