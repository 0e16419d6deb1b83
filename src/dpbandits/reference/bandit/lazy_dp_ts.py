"""Lazy-DP-TS: Thompson Sampling on a shifted, clipped private mean, one Laplace draw per epoch.

Citation: B. Hu, Z. Huang, N. A. Mehta, N. Hegde. *Near-Optimal Algorithms for Differentially
Private Online Learning in a Stochastic Environment.* arXiv:2102.07929v3 (v1 2021; v3 is
undated, 2022 or later), Algorithm 3, Theorems 4 and 5; first in B. Hu and N. Hegde, UAI 2022.
Alg. 3. The epoch schedule is Anytime-Lazy-UCB's (Sec. 3).

Pseudocode (Algorithm 3, the paper's line numbers)::

    l.2  init: for each arm j (rounds 1..K): pull j; O_j <- 1; r_j <- 0;
             mu~_j <- X_j + Lap(1/eps); N_j <- 0; Phi_j <- 0
    l.3  for t = K+1, K+2, ...:
    l.4      for each j: mu+_j <- Clip_[0,1](mu~_j + 3 ln(t) / (eps O_j));
                 draw theta_j(t) ~ Beta(mu+_j O_j + 1, (1 - mu+_j) O_j + 1)
    l.5      pull J_t in argmax_j theta_j(t)
    l.6      N_J += 1; Phi_J += X_J(t)
    l.7      if N_J == 2^(r_J + 1):
    l.8          O_J <- 2^(r_J + 1); mu~_J <- (Phi_J + Lap(1/eps)) / O_J; r_J += 1; N_J, Phi_J <- 0

The paper's shifted mean mu+_j is written mu_{j,O_j}; docs/errata.md#hj-names calls it mu-check.

Privacy claim (Theorem 4): epsilon-DP for the whole action sequence under the replacement of one
reward vector (relation ROW). True: lines 6-8 release each epoch sum once with Lap(1/eps) (the
shared lazy-epoch release :func:`~dpbandits.reference.mechanisms.release_epoch`), each reward
enters one epoch sum of the arm pulled (sensitivity 1); lines 4-5 read only the released means
and fresh internal randomness (post-processing).

Regret (Theorem 5): O(sum_{j: Delta_j > 0} log T / min{Delta_j, eps}) and
O(sqrt(K T log T) + K log T / eps); following the proof gives the explicit private part
576 ln T / (Delta_j min{eps, Delta_j}) pulls, the non-private part having no explicit constant.

Deviations:
1. The shift uses the natural log, ln t (docs/errata.md#hj-log: the algorithm prints "log", its proofs and
   App. C.1 use ln). ``log_base=2`` gives the base-2 reading, which keeps the order of regret
   but needs about 88 instead of 72 in Lemma 20's d_j.
2. Rewards in [0, 1] are used as they come; the paper states Bernoulli rewards and points to
   Agrawal and Goyal's Bernoulli(X) trick for bounded ones (its footnote 4). Its Beta parameters are real-valued anyway, and the privacy proof needs only
   sensitivity 1.
3. Ties go to the lowest arm by default (docs/errata.md#hj-ties; probability 0 under continuous samples).
4. Beta samples come from one stream (``rng``) in round order, K per round, not from noise
   indexed by (arm, round): same law; coupling by slot is for tests.
"""

from __future__ import annotations

import math

import numpy as np

from ..declarations import LazyEpoch
from ..mechanisms import lazy_epoch_state, release_epoch
from ..noise import decision, laplace, release
from ..policy import PolicyBase
from ..privacy import Guarantee, PrivacyClaim

__all__ = ["LazyDPTS", "LOG_BASES"]

LOG_BASES = ("e", 2)
"""Bases of the log in the optimistic shift 3 log(t) / (eps O_j): natural (default) or 2."""


class LazyDPTS(PolicyBase):
    """Lazy-DP-TS of Hu, Huang, Mehta and Hegde, batch-first."""

    name = "lazy-dp-ts"
    title = "Lazy-DP-TS"
    paper = "Hu, Huang, Mehta & Hegde (arXiv:2102.07929v3), Alg. 3"

    kernel = "lazy_dp_ts"
    audit_design = LazyEpoch(
        steps=(32, 36, 48), arm0=(0.0,), others=1.0, horizon=96,
        why="the shifted mean Clip(mu~_j + 3 ln t / (eps O_j)) (Alg. 3 l.4) is 1 for every "
            "arm, and the Beta draws data-independent, until an epoch is long enough that "
            "the shift falls below 1 - mu~_j: with K = 2 both arms are pulled alike until "
            "about round 32 and then fill their epochs of 16 pulls (rounds 32 to 48 hold "
            "pulls 16 to 24 of each arm); arm 0 pays 0, so its epoch-16 mean (moved by 1/16 "
            "by the changed reward) is released unclipped near round 64 and read by every "
            "Beta draw up to T = 96; arm 1 pays 1 and stays clipped")
    white_box_statistic = "mu_tilde"
    planted_parts = {
        "noise scale alone x 1/2 (every Laplace draw at Lap(1/(2 eps)); shift unchanged)":
            ("noise scale", {"rng": 0.5}),
        "bonus alone: the shift 3 log t / (eps O_j) x 1/2 (eps x 2 in l.4; noise unchanged)":
            ("bonus", {"epsilon": 2.0, "rng": 2.0}),
    }
    """Planted variants that change one part (what ``validate`` runs to state its power):
    epsilon x 2 moves the noise Lap(1/eps) and the optimistic shift of l.4 together; these
    scale the Laplace draws alone (the Beta draws are untouched), or double eps and the Laplace
    draws' scale so that only the shift moves. ``planted_changes`` moves one part of the Beta
    draw of l.4 alone: its prior, or the weight of its counts O_j. The doubling schedule has no
    factor to plant."""
    planted_changes = {
        "prior Beta(1/2, 1/2) (Jeffreys) for Beta(1, 1) (l.4; shift, noise and counts "
        "unchanged)": {"prior": 0.5},
        "posterior draw at twice the counts, Beta(2 mu+_j O_j + 1, 2 (1 - mu+_j) O_j + 1) (l.4; "
        "shift and noise unchanged)": {"posterior_weight": 2.0},
    }

    def __init__(self, K: int, *, epsilon: float, runs: int = 1, rng, variant: str | None = None,
                 tie_break: str = "first", log_base: str | int = "e") -> None:
        super().__init__(K, runs=runs, rng=rng, epsilon=epsilon, variant=variant,
                         tie_break=tie_break)
        self.log_base = "e" if log_base == "e" else 2
        self._log = math.log if self.log_base == "e" else math.log2
        lazy_epoch_state(self, (self.runs, self.K))  # O_j, r_j, mu~_j, N_j, Phi_j  [Alg.3 l.2, l.8]

    @property
    def claim(self) -> PrivacyClaim:
        guarantee = Guarantee(self.epsilon)
        return PrivacyClaim(guarantee, guarantee, "holds",
                            "Hu, Huang, Mehta & Hegde (arXiv:2102.07929v3), Theorem 4",
                            "each reward enters one epoch sum, released once with Lap(1/eps); "
                            "the Beta sampling is post-processing")

    # --8<-- [start:act-observe]
    def shifted_mean(self, t: int) -> np.ndarray:
        """``mu+_j(t) = Clip_[0,1](mu~_j + 3 log(t) / (eps O_j))`` for every run and arm (l.4)."""
        return np.clip(self.mu_tilde + 3.0 * self._log(t) / (self.epsilon * self.O), 0.0, 1.0)

    def act(self, t: int) -> np.ndarray:
        if t <= self.K:
            return np.full(self.runs, t - 1)                                     # [Alg.3 l.2]
        mu_plus = self.shifted_mean(t)                                           # [Alg.3 l.4]
        w, a = self.posterior_weight, self.prior                 # 1, 1: planted variants only
        theta = self.rng.beta(w * mu_plus * self.O + a, w * (1.0 - mu_plus) * self.O + a)
        return self.argmax(theta)                                                # [Alg.3 l.5]

    def observe(self, t: int, actions: np.ndarray, feedback: np.ndarray) -> None:
        x = self.check_observation(t, actions, feedback)
        rows = self._rows
        if t <= self.K:
            L = laplace(self.rng, 1.0 / self.epsilon, self.runs)
            self.mu_tilde[rows, actions] = release(x, L)                                # [Alg.3 l.2]
            return
        self.N[rows, actions] += 1                                               # [Alg.3 l.6]
        self.Phi[rows, actions] += x
        pulls, epoch = decision(self.N[rows, actions], self.r[rows, actions])   # counts only
        full = pulls == np.left_shift(1, epoch + 1)                              # [Alg.3 l.7]
        if full.any():
            i, j = rows[full], actions[full]
            O = np.left_shift(1, self.r[i, j] + 1).astype(float)                 # [Alg.3 l.8]
            self.O[i, j] = O
            self.mu_tilde[i, j] = release_epoch(self.rng, self.Phi, (i, j), 1.0 / self.epsilon) / O
            self.r[i, j] += 1
            self.N[i, j] = 0
    # --8<-- [end:act-observe]
