"""Kernel of the matroid semi-bandits: OMM, CTS, DPUCB-MAT and DPTS-MAT.

Mirrors :mod:`dpbandits.reference.matroid` (``omm.py``, ``cts.py``, ``dpucb_mat.py``,
``dpts_mat.py`` and the private mean estimator of ``common.py``):

* OMM, Kveton, Wen, Ashkan, Eydgahi & Eriksson, *Matroid Bandits* (UAI 2014, arXiv:1403.5045),
  Algorithm 2, with ``alpha`` and ``log_round``;
* CTS with Gaussian priors (Wang & Chen, ICML 2018; Agrawal & Goyal, JACM 2017), the baseline of
  Chandak, Hu & Hegde (2023), Sec. 5, in its three forms ``round0``, ``agrawal-goyal``, ``lazy``;
* DPUCB-MAT and DPTS-MAT, Chandak, Hu & Hegde, *Differentially Private Algorithms for Efficient
  Online Matroid Optimization* (2023), Algorithms 2 and 3, variants ``paper`` and ``corrected``.

Every round each run's scores go through the compiled greedy oracle (Algorithm 1,
:mod:`dpbandits.compiled.matroid_greedy`), and the bases are played through the shared
:func:`~dpbandits.compiled.loop.semi_round`. Round 0, the free observation of the whole w_0, is
:func:`observe_round_zero`.

**Bit-identity.** Trajectories are bit-identical to the reference for every algorithm, variant,
form and tie-break, on every source the loop draws from (Bernoulli, Beta, a fixed table with its
row 0, the movie experiment's row sampler), for any number of runs: the scores are computed with
the reference's operations in its order (``np.sqrt`` and division are correctly rounded, as
their scalar counterparts; the logarithms are of scalars, ``math.log`` on both sides), and every
random number is drawn where the reference draws it, run by run and arm by arm in row-major
order: the Gaussians of CTS and DPTS-MAT (``standard_normal((R, L))``), then the tie keys of the
random tie-break (``random((R, L))``), in ``act``; the round-0 Laplace noise (``(R, L)``) and
the epoch-closing Laplace draws (in the order of the played cells, run by run and in basis
order; the shared :func:`~dpbandits.compiled.epochs.release_epoch`) in ``observe``. The greedy oracle is exact on both sides and so returns the same bases.
Only the four matroid kinds of :mod:`~dpbandits.reference.matroid.matroids` are compiled, and a
linear matroid only when its exact elimination fits in int64 (:func:`unsupported`).

The policy's arrays are updated in place, except those the reference replaces at round 0 (OMM's
and CTS's ``S``, the private ``w_tilde``): the kernel writes round 0 into the arrays it took.
"""

from __future__ import annotations

import math
from collections import namedtuple

import numpy as np
from numba import njit

from ..errors import DPBanditsError
from . import matroid_greedy
from .epochs import release_epoch
from .loop import semi_round
from .matroid_greedy import priority_order, select
from .sums import MAX_TERMS

ALGORITHMS = ("omm", "cts", "dpucb-mat", "dpts-mat")

OMM, CTS, DPUCB_MAT, DPTS_MAT = 0, 1, 2, 3
ROUND0, AGRAWAL_GOYAL, LAZY = 0, 1, 2
_CODES = {"omm": OMM, "cts": CTS, "dpucb-mat": DPUCB_MAT, "dpts-mat": DPTS_MAT}
_FORMS = {"round0": ROUND0, "agrawal-goyal": AGRAWAL_GOYAL, "lazy": LAZY}

State = namedtuple("State", [
    "algorithm",          # OMM, CTS, DPUCB_MAT or DPTS_MAT
    "form",               # CTS's form (ROUND0, AGRAWAL_GOYAL, LAZY)
    "rank",               # the paper's K, the size of every basis
    "alpha",              # OMM's alpha
    "log_previous",       # 1 when OMM's radius uses ln(max(t - 1, 1)) (log_round="t-1")
    "S", "N",             # (R, L) OMM and CTS: sum and number of the observations in use
    "s_e",                # (R, L) completed doublings (CTS lazy, DPUCB-MAT, DPTS-MAT)
    "n_buffer", "sum_buffer",  # (R, L) |buffer_e| and sum(buffer_e)
    "epsilon0",           # eps0 = eps / K
    "round_zero_scale",   # Laplace scale of the round-0 noise (the variant's)
    "T_e", "w_tilde",     # (R, L) T_e and the private means w~_e
    "inv_sqrt_T", "inv_eps_T",  # (R, L) 1 / sqrt(T_e), 1 / (eps0 T_e)
    "scores",             # (R, L) scratch: U_t or theta(t)
    "keys",               # (R, L) scratch: tie keys of the random tie-break
    "order",              # (L,) scratch: the greedy's priority order of one run
    "random_ties",        # 1 for tie_break="random"
    "rng",                # the policy's generator
    "oracle",             # the compiled greedy oracle (matroid_greedy.Oracle)
])


def unsupported(policy) -> str | None:
    """Why the kernel cannot run ``policy``: a matroid the compiled greedy does not know, or a
    basis too large for the loop's NumPy-ordered sum (thousands of base arms)."""
    if policy.rank > MAX_TERMS:
        return f"bases of more than {MAX_TERMS} base arms (rank {policy.rank})"
    return matroid_greedy.unsupported(policy.matroid)


def state_from(policy) -> State:
    """The kernel's state over the reference policy's own arrays and generator."""
    R, L = policy.runs, policy.L
    code = _CODES[policy.name]
    none_f, none_i = np.zeros((0, 0)), np.zeros((0, 0), np.int64)
    S = N = s_e = n_buffer = sum_buffer = T_e = w_tilde = inv_sqrt_T = inv_eps_T = None
    form, alpha, log_previous, epsilon0, round_zero_scale = ROUND0, 0.0, 0, 1.0, 1.0
    if code in (OMM, CTS):
        S, N = policy.S, policy.N
    if code == OMM:
        alpha, log_previous = float(policy.alpha), int(policy.log_round == "t-1")
    if code == CTS:
        form = _FORMS[policy.form]
        if form == LAZY:
            s_e, n_buffer, sum_buffer = policy.s_e, policy.n_buffer, policy.sum_buffer
    if code in (DPUCB_MAT, DPTS_MAT):
        epsilon0, round_zero_scale = float(policy.epsilon0), float(policy.round_zero_scale)
        s_e, n_buffer, sum_buffer = policy.s_e, policy.n_buffer, policy.sum_buffer
        T_e, w_tilde = policy.T_e, policy.w_tilde
        inv_sqrt_T, inv_eps_T = policy.inv_sqrt_T, policy.inv_eps_T
    random_ties = int(policy.tie_break == "random")

    def floats(a):
        return none_f if a is None else a

    def ints(a):
        return none_i if a is None else a

    return State(code, form, int(policy.rank), alpha, log_previous, floats(S), floats(N), ints(s_e),
                 ints(n_buffer), floats(sum_buffer), epsilon0, round_zero_scale, floats(T_e),
                 floats(w_tilde), floats(inv_sqrt_T), floats(inv_eps_T), np.zeros((R, L)),
                 np.zeros((R, L)), np.zeros(L, np.int64), random_ties,
                 policy.rng, matroid_greedy.oracle_from(policy.matroid))


def observe_round_zero(state: State, rows: np.ndarray) -> None:
    """Round 0: the whole w_0 of every run, shape (R, L) (OMM l.1, CTS l.1, Alg. 2/3 l.2).

    A fixed table without its row 0 reaches here as NaN; the reference refuses it, so does this.
    """
    if np.isnan(rows).any():
        raise DPBanditsError("this policy observes a row 0 before round 1: give the table X0")
    _observe_round_zero(state, rows)


@njit(cache=True, _nrt=False)
def _observe_round_zero(state, rows):
    R, L = rows.shape
    if state.algorithm == OMM or state.algorithm == CTS:
        for r in range(R):
            for e in range(L):
                state.S[r, e] = rows[r, e]                                       # [OMM l.1] [CTS l.1]
        return
    for r in range(R):
        for e in range(L):
            state.w_tilde[r, e] = rows[r, e] + state.rng.laplace(0.0, state.round_zero_scale)  # [Alg.2/3 l.2]


@njit(cache=True, _nrt=False)
def _scores(state, t):
    """U_t (OMM, DPUCB-MAT) or theta(t) (CTS, DPTS-MAT) of every run into ``state.scores``."""
    R, L = state.scores.shape
    scores = state.scores
    if state.algorithm == OMM:
        s = max(t - 1, 1) if state.log_previous else t
        c = state.alpha * math.log(s)
        for r in range(R):
            for e in range(L):
                N = state.N[r, e]
                scores[r, e] = state.S[r, e] / N + math.sqrt(c / N)              # [OMM l.3]
    elif state.algorithm == CTS:
        for r in range(R):
            for e in range(L):
                if state.form == AGRAWAL_GOYAL:
                    mean = state.S[r, e] / (state.N[r, e] + 1.0)
                    sd = 1.0 / math.sqrt(state.N[r, e] + 1.0)
                else:
                    mean = state.S[r, e] / state.N[r, e]
                    sd = 1.0 / math.sqrt(state.N[r, e])
                scores[r, e] = mean + sd * state.rng.standard_normal()           # [CTS l.3]
    elif state.algorithm == DPUCB_MAT:
        log_Kt = math.log(state.rank * t)
        radius = math.sqrt(3.0 * log_Kt)
        boost = 3.0 * log_Kt
        for r in range(R):
            for e in range(L):
                scores[r, e] = (state.w_tilde[r, e] + radius * state.inv_sqrt_T[r, e]  # [Alg.2 l.4-6]
                                + boost * state.inv_eps_T[r, e])
    else:
        boost = 3.0 * math.log(state.rank * t)
        for r in range(R):
            for e in range(L):
                w_prime = state.w_tilde[r, e] + boost * state.inv_eps_T[r, e]    # [Alg.3 l.4-5]
                scores[r, e] = w_prime + state.inv_sqrt_T[r, e] * state.rng.standard_normal()  # [Alg.3 l.6]


@njit(cache=True, _nrt=False)
def act(state, t, actions):
    _scores(state, t)
    R, L = state.scores.shape
    if state.random_ties:
        for r in range(R):
            for e in range(L):
                state.keys[r, e] = state.rng.random()
    for r in range(R):
        priority_order(state.scores, state.keys, r, state.random_ties, state.order)
        select(state.oracle, state.order, actions, r)        # [OMM l.4] [CTS l.4] [Alg.2 l.7] [Alg.3 l.8]


@njit(cache=True, _nrt=False)
def observe(state, t, actions, x):
    R, k = actions.shape
    if state.algorithm == OMM or (state.algorithm == CTS and state.form != LAZY):
        for r in range(R):
            for j in range(k):
                e = actions[r, j]
                state.S[r, e] += x[r, j]                                         # [OMM l.6] [CTS l.5]
                state.N[r, e] += 1.0
        return
    for r in range(R):
        for j in range(k):
            e = actions[r, j]
            state.n_buffer[r, e] += 1                                            # [Alg.2 l.9]
            state.sum_buffer[r, e] += x[r, j]
            if state.n_buffer[r, e] == 2 << state.s_e[r, e]:                     # [Alg.2 l.10]
                if state.algorithm == CTS:
                    _close_epoch_exactly(state, r, e)
                else:
                    _close_epoch_privately(state, r, e)


@njit(cache=True, _nrt=False)
def _close_epoch_exactly(state, r, e):
    """CTS ``lazy``: the epoch's exact mean replaces the previous one (no noise)."""
    state.N[r, e] = state.n_buffer[r, e]
    state.S[r, e] = state.sum_buffer[r, e]
    state.s_e[r, e] += 1
    state.n_buffer[r, e] = 0
    state.sum_buffer[r, e] = 0.0


@njit(cache=True, _nrt=False)
def _close_epoch_privately(state, r, e):
    """Alg. 2 l.11-13 (Alg. 3 l.12-14) for base arm e of run r."""
    T = float(2 << state.s_e[r, e])
    state.T_e[r, e] = T                                                          # [Alg.2 l.12]
    released = release_epoch(state.sum_buffer, (r, e), 1.0 / state.epsilon0, state.rng)
    state.w_tilde[r, e] = released / T
    state.s_e[r, e] += 1                                                         # [Alg.2 l.13]
    state.n_buffer[r, e] = 0
    state.inv_sqrt_T[r, e] = 1.0 / math.sqrt(T)
    state.inv_eps_T[r, e] = 1.0 / (state.epsilon0 * T)


@njit(cache=True, _nrt=False)
def run(state, sim, t0, t1):
    for t in range(t0, t1):
        act(state, t, sim.actions)
        semi_round(sim, t)
        observe(state, t, sim.actions, sim.x)
