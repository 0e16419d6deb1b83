"""Kernel of the full-information algorithms; mirrors :mod:`dpbandits.reference.fullinfo`.

One kernel for the five algorithms that see the whole reward row X(t) each round, and
report-noisy-max (:func:`dpbandits.reference.report_noisy_max.noisy_argmax`) shared by three:

* ``ftl``: Follow-the-Leader (:mod:`~dpbandits.reference.fullinfo.ftl`), tags ``[FTL l.N]``.
* ``hedge``: exponential weights, Freund & Schapire (1997) with the anytime rate of
  Cesa-Bianchi & Lugosi (2006), Thm 2.3 (:mod:`~dpbandits.reference.fullinfo.hedge`),
  tags ``[Hedge l.N]``.
* the epoch report-noisy-max algorithms, which play the action J of the last epoch and run RNM on
  each doubling epoch's reward sums: naive FTNL (Hu, Huang & Mehta, arXiv:2102.07929, Sec. 5;
  :mod:`~dpbandits.reference.fullinfo.naive_ftnl`, tags ``[Naive l.N]``), FTNL / RNM-FTNL (same
  paper, Alg. 2-3; journal version Alg. 4; :mod:`~dpbandits.reference.fullinfo.rnm_ftnl`, tags
  ``[Alg.4 l.N]``) and RNM-FTNL(B, Q) of Wu & Wang (arXiv:2502.10997), Alg. 1
  (:mod:`~dpbandits.reference.fullinfo.rnm_ftnl_bq`, tags ``[Alg.1 l.N]``), every variant, both
  B and all three noises Q.

Identity with the reference.

* FTL, naive FTNL, RNM-FTNL and RNM-FTNL(B, Q) are bit-identical: the sums are the same
  additions, and the random numbers come in the reference's order (the random tie-break's K
  uniforms per run; B = 1's uniforms over the (R, K) row in row-major order, each round; at the
  end of an epoch the RNM noise over (R, K) in row-major order). Laplace and exponential noise are
  numba's ports of NumPy's samplers; the Gumbel noise is :func:`dpbandits.compiled.draws.gumbel`,
  a port of NumPy's. J_0 of RNM-FTNL(B, Q) is drawn by the reference policy when the engine builds
  it, before the kernel takes over.
* Hedge: the same learning rate eta_t (``math.sqrt(8.0 * math.log(K) / t)``, evaluated in the same
  order), the same logits, maximum, cumulative sum and uniform draw, but the weights
  ``exp(logit - max)`` are scalar C-library ``exp`` here, whereas NumPy evaluates ``np.exp`` over
  an array with its own SIMD code (AVX-512), which differs from the C library in the last unit in
  the last place for a few percent of arguments. A weight off by one ulp changes the sampled action
  only when the uniform ``u * W`` falls within about one ulp of a boundary of the cumulative
  weights, an event of probability about K * 2^-52 per round. The actions (hence the regret
  and the pull counts) are identical on every run the tests play; the weights agree to 1 ulp.
"""

from __future__ import annotations

import math
from collections import namedtuple

import numpy as np
from numba import njit

from ..reference.report_noisy_max import NOISES
from .draws import gumbel
from .loop import argmax_tie, full_round

ALGORITHMS = ("ftl", "hedge", "naive-ftnl", "rnm-ftnl", "rnm-ftnl-bq")

FTL, HEDGE, EPOCH_RNM = 0, 1, 2
"""The rule a state plays: the leader, exponential weights, or the last epoch's RNM winner."""

LAPLACE, EXPONENTIAL, GUMBEL = (NOISES.index(name) for name in ("laplace", "exponential", "gumbel"))

State = namedtuple("State", [
    "rule",           # FTL, HEDGE or EPOCH_RNM
    "S",              # (R, K) reward sums: all rounds (FTL, Hedge) or this epoch's (G, Phi, S_r)
    "J",              # (R,) the action of the current epoch (EPOCH_RNM)
    "noise",          # RNM noise Q: LAPLACE, EXPONENTIAL or GUMBEL
    "noise_scale",    # the noise's scale (c / eps, K / eps)
    "B",              # 1: Wu and Wang's Bernoulli resampling (Alg. 1 l.12)
    "eta",            # Hedge's fixed learning rate, or 0.0 for the anytime rate
    "eta_numerator",  # 8 ln K, so that eta_t = sqrt(8 ln K / t)
    "random_ties",    # FTL: 1 for tie_break="random"
    "rng",            # the policy's generator
    "keys",           # (K,) scratch: random tie-break keys
    "cdf",            # (K,) scratch: Hedge's cumulative weights
])

_SUMS = {"ftl": "S", "hedge": "S", "naive-ftnl": "G", "rnm-ftnl": "Phi", "rnm-ftnl-bq": "S"}


def state_from(policy) -> State:
    """The kernel's state over the reference policy's own arrays (updated in place)."""
    name, K = policy.name, policy.K
    rule = {"ftl": FTL, "hedge": HEDGE}.get(name, EPOCH_RNM)
    J = np.zeros(policy.runs, np.int64) if rule != EPOCH_RNM else policy.J
    eta = getattr(policy, "eta", None)
    return State(
        rule, getattr(policy, _SUMS[name]), J,
        NOISES.index(getattr(policy, "Q", "laplace")),
        float(getattr(policy, "noise_scale", 1.0)),
        int(getattr(policy, "B", 0)),
        0.0 if eta is None else float(eta),
        8.0 * math.log(K),
        int(policy.tie_break == "random"), policy.rng, np.empty(K), np.empty(K))


@njit(cache=True, _nrt=False)
def rnm_noise(rng, noise, scale):
    """One draw of the RNM noise Q: Lap(scale), Exp(scale) or max-type Gumbel(scale)."""
    if noise == LAPLACE:
        return rng.laplace(0.0, scale)
    if noise == EXPONENTIAL:
        return rng.exponential(scale)
    return gumbel(rng, 0.0, scale)


@njit(cache=True, _nrt=False)
def noisy_argmax(rng, scores, r, noise, scale):
    """RNM on row r of ``scores``: argmax_j (scores_j + Q_j), K fresh draws, lowest index on ties."""
    K = scores.shape[1]
    best = scores[r, 0] + rnm_noise(rng, noise, scale)
    arm = 0
    for a in range(1, K):
        v = scores[r, a] + rnm_noise(rng, noise, scale)
        if v > best:
            best = v
            arm = a
    return arm


@njit(cache=True, _nrt=False)
def ends_epoch(t):
    """Round t is the last of its doubling epoch (t = 2^(e+1) - 1): an RNM call follows."""
    return (t + 1) & t == 0


@njit(cache=True, _nrt=False)
def hedge_cdf(state, t, r):
    """Row r's cumulative weights exp(eta_t S_j - max_i eta_t S_i) into ``state.cdf``."""
    S, cdf = state.S, state.cdf
    K = S.shape[1]
    eta = state.eta if state.eta > 0.0 else math.sqrt(state.eta_numerator / t)
    for a in range(K):
        cdf[a] = eta * S[r, a]                                                  # the logits
    top = cdf[0]
    for a in range(1, K):
        if cdf[a] > top:
            top = cdf[a]
    total = 0.0
    for a in range(K):
        total += math.exp(cdf[a] - top)                                         # [Hedge l.2]
        cdf[a] = total


@njit(cache=True, _nrt=False)
def act(state, t, actions):
    R, K = state.S.shape
    for r in range(R):
        if state.rule == FTL:
            if t == 1:
                actions[r] = 0                                                  # [FTL l.1]
            else:
                actions[r] = argmax_tie(state.S, r, state.random_ties, state.rng,
                                        state.keys)                             # [FTL l.2]
        elif state.rule == HEDGE:
            hedge_cdf(state, t, r)
            u = state.rng.random() * state.cdf[K - 1]
            below = 0
            for a in range(K):
                if state.cdf[a] <= u:
                    below += 1
            actions[r] = min(below, K - 1)                                      # [Hedge l.3]
        else:
            actions[r] = state.J[r]                         # [Naive l.1, l.2] [Alg.4 l.2, l.4] [Alg.1 l.7]


@njit(cache=True, _nrt=False)
def observe(state, t, actions, rows):
    """Add the whole reward rows to the sums; at the end of an epoch, RNM picks the next J."""
    S = state.S
    R, K = S.shape
    resample = state.rule == EPOCH_RNM and state.B == 1
    for r in range(R):
        for a in range(K):
            x = rows[r, a]
            if resample:
                x = 1.0 if state.rng.random() >= 1.0 - x else 0.0               # [Alg.1 l.12]
            S[r, a] += x                # [FTL l.3] [Hedge l.4] [Naive l.3] [Alg.4 l.4] [Alg.1 l.14]
    if state.rule == EPOCH_RNM and ends_epoch(t):
        for r in range(R):
            state.J[r] = noisy_argmax(state.rng, S, r, state.noise,
                                      state.noise_scale)        # [Naive l.4] [Alg.4 l.5] [Alg.1 l.16]
            for a in range(K):
                S[r, a] = 0.0                                   # [Alg.4 l.6] [Alg.1 l.5]


@njit(cache=True, _nrt=False)
def run(state, sim, t0, t1):
    for t in range(t0, t1):
        act(state, t, sim.actions)
        full_round(sim, t)
        observe(state, t, sim.actions, sim.rows)
