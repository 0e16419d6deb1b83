"""Anytime-Lazy-UCB: a lazy, forgetful UCB with one Laplace draw per doubling epoch.

Citation: B. Hu, Z. Huang, N. A. Mehta. *Near-Optimal Algorithms for Private Online Learning in
a Stochastic Environment.* arXiv:2102.07929 (Algorithm 1 and its O(1)-space form, App. A); the
journal version with N. Hegde, arXiv:2102.07929v3, Algorithm 1 (the two versions are the same algorithm; the tags below follow the journal's
line numbers).

Pseudocode (journal Algorithm 1)::

    l.2  init: for each arm j (rounds 1..K): pull j; O_j <- 1; r_j <- 0;
              mu~_j <- X_j + Lap(1/eps); N_j <- 0; Phi_j <- 0
    l.4  for t = K+1, ...: UCB_j(t) <- mu~_j + sqrt(3 ln t / O_j) + 3 ln t / (eps O_j);
              pull J_t in argmax_j UCB_j(t)
    l.5      N_J += 1; Phi_J += X_J(t)
    l.6      if N_J == 2^(r_J + 1):
    l.7          O_J <- 2^(r_J + 1); mu~_J <- (Phi_J + Lap(1/eps)) / O_J; r_J += 1; N_J, Phi_J <- 0

Privacy claim (Theorem 2 in both versions): epsilon-DP for the whole action sequence under the
replacement of one reward vector. True: each reward enters one epoch sum (sensitivity 1),
released once with Lap(1/eps) (l.7, the shared lazy-epoch release
:func:`~dpbandits.reference.mechanisms.release_epoch`); the rest is post-processing and
parallel composition.

Regret (Theorem 3): O(sum_j log T / min{Delta_j, eps}); following the arXiv
version's proof gives R(T) <= sum_j (96 ln T / min{Delta_j, eps} + 6 Delta_j log2 T), the journal's
sum_j 192 ln T / min{Delta_j, eps} (derived in docs/algorithms/anytime-lazy-ucb.md, Regret: Theorem 3).

Deviations:
1. Ties go to the lowest arm by default (docs/errata.md#hj-ties; probability 0 under Laplace noise).
"""

from __future__ import annotations

import math

import numpy as np

from ..declarations import LazyEpoch
from ..mechanisms import lazy_epoch_state, release_epoch
from ..noise import decision, laplace, release
from ..policy import PolicyBase
from ..privacy import Guarantee, PrivacyClaim

__all__ = ["AnytimeLazyUCB"]


class AnytimeLazyUCB(PolicyBase):
    """Anytime-Lazy-UCB of Hu, Huang and Mehta, batch-first."""

    name = "anytime-lazy-ucb"
    title = "Anytime-Lazy-UCB"
    paper = "Hu, Huang & Mehta (arXiv:2102.07929), Alg. 1; journal version Alg. 1"

    kernel = "anytime_lazy_ucb"
    audit_design = LazyEpoch(
        steps=(1,), arm0=(0.0, 1.0), others=1.0, horizon=None,
        why="arm 0's epoch 0 is the reward of round 1, released at once as mu~_0 = X + "
            "Lap(1/eps) (Alg. 1 l.2); arms 1..K-1 pay 1, so the first doubled epoch of the "
            "winner of round K + 1 releases a mean near 1 with half the noise (l.6-l.7) and "
            "its smaller bonus (l.4) puts arm 0's next pull at a threshold on mu~_0 below 0: "
            "an event of exact ratio e^eps in the Laplace tail")
    white_box_statistic = "mu_tilde"
    planted_changes = {"confidence radius sqrt(2 ln t / O_j) for sqrt(3 ln t / O_j) (l.4; "
                       "bonus and noise unchanged)": {"radius_scale": math.sqrt(2.0 / 3.0)}}
    planted_parts = {
        "noise scale alone x 1/2 (every Laplace draw at Lap(1/(2 eps)); bonus unchanged)":
            ("noise scale", {"rng": 0.5}),
        "bonus alone: 3 ln t / (eps O_j) x 1/2 (eps x 2 in the index; noise unchanged)":
            ("bonus", {"epsilon": 2.0, "rng": 2.0}),
    }
    """Planted variants that change one part (what ``validate`` runs to state its power):
    epsilon x 2 moves the noise Lap(1/eps) and the bonus's 3 ln t / (eps O_j) together; these
    scale the Laplace draws alone, or double eps and the draws' scale so that the noise stays
    Lap(1/eps) and only the bonus moves; ``planted_changes`` moves the confidence radius alone
    (the constant 2 of UCB1's radius for the paper's 3). The doubling schedule has no factor to
    plant."""

    def __init__(self, K: int, *, epsilon: float, runs: int = 1, rng, variant: str | None = None,
                 tie_break: str = "first") -> None:
        super().__init__(K, runs=runs, rng=rng, epsilon=epsilon, variant=variant, tie_break=tie_break)
        lazy_epoch_state(self, (self.runs, self.K))     # O_j, r_j, mu~_j, N_j, Phi_j   [l.1]
        self.inv_O = np.ones_like(self.O)    # 1 / O_j and sqrt(1 / O_j), kept for the index
        self.sqrt_inv_O = np.ones_like(self.O)

    @property
    def claim(self) -> PrivacyClaim:
        guarantee = Guarantee(self.epsilon)
        return PrivacyClaim(guarantee, guarantee, "holds",
                            "Hu, Huang & Mehta, Theorem 2 (both versions)",
                            "each reward enters one epoch sum, released once with Lap(1/eps)")

    # --8<-- [start:act]
    def act(self, t: int) -> np.ndarray:
        if t <= self.K:
            return np.full(self.runs, t - 1)                                     # [l.2]
        log_t = math.log(t)
        ucb = self.mu_tilde + self.radius_scale * math.sqrt(3.0 * log_t) * self.sqrt_inv_O  # [l.4]
        ucb += (3.0 * log_t / self.epsilon) * self.inv_O
        return self.argmax(ucb)
    # --8<-- [end:act]

    # --8<-- [start:observe]
    def observe(self, t: int, actions: np.ndarray, feedback: np.ndarray) -> None:
        x = self.check_observation(t, actions, feedback)
        rows = self._rows
        if t <= self.K:
            self.mu_tilde[rows, actions] = release(x, laplace(self.rng, 1.0 / self.epsilon, self.runs))  # [l.2]
            return
        self.N[rows, actions] += 1                                               # [l.5]
        self.Phi[rows, actions] += x
        pulls, epoch = decision(self.N[rows, actions], self.r[rows, actions])   # counts only
        full = pulls == np.left_shift(1, epoch + 1)                              # [l.6]
        if full.any():
            i, j = rows[full], actions[full]
            O = np.left_shift(1, self.r[i, j] + 1).astype(float)                 # [l.7]
            self.O[i, j] = O
            self.inv_O[i, j] = 1.0 / O
            self.sqrt_inv_O[i, j] = np.sqrt(1.0 / O)
            self.mu_tilde[i, j] = release_epoch(self.rng, self.Phi, (i, j), 1.0 / self.epsilon) / O
            self.r[i, j] += 1
            self.N[i, j] = 0
    # --8<-- [end:observe]
