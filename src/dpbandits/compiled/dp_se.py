"""Kernel of DP-SE; mirrors :mod:`dpbandits.reference.bandit.dp_se`.

Sajed & Sheffet (ICML 2019, arXiv:1905.09383), DP-SE, as reconstructed in Hu, Huang & Mehta
(arXiv:2102.07929), Sec. 6; the tags ``l.N`` number the statements of that pseudocode, as in the
reference.

Bit-identical to the reference, for both roundings, both pull orders and any beta. The epoch
length R_e of l.5 and the threshold 2 (h_e + c_e) of l.8-l.9 depend only on the epoch e and the
size |S| of the active set, so ``state_from`` tabulates them for every (e, |S|) a run can reach
within the horizon with the reference's own functions (:func:`~dpbandits.reference.bandit.dp_se.
epoch_length`, :func:`~dpbandits.reference.bandit.dp_se.elimination_threshold`): NumPy's vector
``log`` may differ from the scalar libm ``log`` in the last bit, and the table sidesteps that. The
Laplace draws at an epoch's end come one per (run, active arm) in run-then-arm order, as the
reference's :func:`~dpbandits.reference.mechanisms.release_epoch` over ``np.nonzero(active)``
draws them (the kernel's :func:`~dpbandits.compiled.epochs.release_epoch` on means).

An epoch length the reference refuses (above 2^62 pulls) is marked -1 in the table and refused
when a run reaches it, with the reference's error type.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from ..errors import DPBanditsError
from ..reference.bandit.dp_se import elimination_threshold, epoch_length
from .epochs import release_epoch
from .loop import bandit_round

ALGORITHMS = ("dp-se",)

State = namedtuple("State", "epsilon T blocks active n_active e R pos sums mu_tilde "
                            "R_table threshold_table rng")


def schedule_tables(policy) -> tuple[np.ndarray, np.ndarray]:
    """R_e (l.5) and 2 (h_e + c_e) (l.8) for every epoch e a run can reach and every |S| <= K.

    Row e, column |S|; rows up to one past the last epoch that can end by round T (each epoch
    of a run that is not done pulls at least 2 R_e(2) times, R_e growing with |S|). A length the
    reference refuses is -1 (its threshold NaN).
    """
    K, T = policy.K, policy.T
    lengths = [np.zeros(K + 1, np.int64)]
    e, rounds = 1, 0
    while True:
        lengths.append(_lengths_of_epoch(policy, e))
        if lengths[e][2] < 0:
            break
        rounds += 2 * int(lengths[e][2])
        if rounds > T:
            break
        e += 1
    R_table = np.stack(lengths)
    E, S = np.meshgrid(np.arange(R_table.shape[0]), np.arange(K + 1), indexing="ij")
    reachable = (E >= 1) & (S >= 2) & (R_table > 0)
    threshold_table = np.full(R_table.shape, np.nan)
    threshold_table[reachable] = elimination_threshold(E[reachable], S[reachable],
                                                       R_table[reachable], policy.epsilon,
                                                       policy.beta)
    return R_table, threshold_table


def _lengths_of_epoch(policy, e: int) -> np.ndarray:
    row = np.full(policy.K + 1, -1, np.int64)
    sizes = np.arange(2, policy.K + 1)
    try:
        row[2:] = epoch_length(np.full(sizes.size, e), sizes, policy.epsilon, policy.beta,
                               policy.rounding)
    except DPBanditsError:
        for S in sizes:
            try:
                row[S] = epoch_length(e, S, policy.epsilon, policy.beta, policy.rounding)
            except DPBanditsError:
                pass
    return row


def state_from(policy) -> State:
    """The kernel's state over the reference policy's own arrays (updated in place)."""
    R_table, threshold_table = schedule_tables(policy)
    return State(float(policy.epsilon), int(policy.T), int(policy.order == "blocks"),
                 policy.active, policy.n_active, policy.e, policy.R, policy.pos, policy.sums,
                 policy.mu_tilde, R_table, threshold_table, policy.rng)


@njit(cache=True, _nrt=False)
def act(state, t, actions):
    if t > state.T:
        raise DPBanditsError("DP-SE was built for a shorter horizon T than the simulation's")
    R, K = state.active.shape
    for r in range(R):
        if state.n_active[r] == 1:
            slot = 0                                                             # [l.10]
        elif state.blocks:
            slot = state.pos[r] // state.R[r]                                    # [l.6]
        else:
            slot = state.pos[r] % state.n_active[r]                              # [l.6]
        rank = 0
        for a in range(K):
            rank += state.active[r, a]
            if rank > slot:
                actions[r] = a
                break


@njit(cache=True, _nrt=False)
def observe(state, t, actions, x):
    for r in range(actions.shape[0]):
        if state.n_active[r] == 1:
            continue
        state.sums[r, actions[r]] += x[r]                                        # [l.6]
        state.pos[r] += 1
        if state.pos[r] == state.n_active[r] * state.R[r]:
            _end_epoch(state, r)


@njit(cache=True, _nrt=False)
def _end_epoch(state, r):
    """Release run r's epoch means, eliminate, and start its next epoch."""
    K = state.active.shape[1]
    e, S, R_e = state.e[r], state.n_active[r], state.R[r]
    scale = 1.0 / (state.epsilon * R_e)
    best = -np.inf
    for a in range(K):
        if state.active[r, a]:
            mu = release_epoch(state.sums, (r, a), scale, state.rng, R_e)        # [l.7]
            state.mu_tilde[r, a] = mu
            best = max(best, mu)
    threshold = state.threshold_table[e, S]                                      # [l.8]
    kept = 0
    for a in range(K):
        if state.active[r, a]:
            keep = best - state.mu_tilde[r, a] <= threshold                      # [l.9]
            state.active[r, a] = keep
            kept += keep
    state.n_active[r] = kept
    state.pos[r] = 0
    state.e[r] = e + 1                                                           # [l.4]
    if kept > 1:                                                                 # [l.3]
        if e + 1 >= state.R_table.shape[0] or state.R_table[e + 1, kept] < 0:
            raise DPBanditsError("the epoch length exceeds 2^62 pulls; "
                                 "epsilon or beta is too small for DP-SE")
        state.R[r] = state.R_table[e + 1, kept]                                  # [l.5]


@njit(cache=True, _nrt=False)
def run(state, sim, t0, t1):
    for t in range(t0, t1):
        act(state, t, sim.actions)
        bandit_round(sim, t)
        observe(state, t, sim.actions, sim.x)
