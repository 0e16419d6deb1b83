"""Hybrid-UCB: a UCB that recomputes its private mean from all observations after every pull.

Citation: B. Hu, Z. Huang, N. A. Mehta. *Near-Optimal Algorithms for Private Online Learning in
a Stochastic Environment.* arXiv:2102.07929v2 (v1 February 2021; v2 is undated and cites work
of 2022), Algorithm 4, Appendix E, Theorem 5. The journal version (v3) drops Hybrid-UCB.
Alg. 4, App. E.

Pseudocode (Algorithm 4; the paper prints no line numbers, so ``l.N`` counts its statements in
order). ``log`` is base 2 (docs/errata.md#hhm-log-base)::

    l.1   input: arm set A (|A| = K), privacy parameter eps
    l.2   init: for each arm j (round t = j): pull j; F_j^(0) <- {X_j(j)};
              mu~_{j,1} <- sum F_j^(0) + Lap(1/(0.5 eps))          # this draw is Z_j^(0) (docs/errata.md#hhm-init-draw)
    l.3       O_j <- 1; r_j <- 1; empty tree B_j^(1) with 2 leaves, empty array F_j^(1) of size 2
    l.4   for t = K+1, K+2, ...:
    l.5       mubar_j(t) <- mu~_j + sqrt(3 log t / O_j)
                            + 6 sqrt(8) log(t) floor(log(O_j + 1)) / (eps O_j)          (35)
              pull J_t in argmax_j mubar_j(t)
    l.6       O_J <- O_J + 1; insert X_J(t) into the left-most empty leaf of B_J^(r_J) and
              the left-most empty slot of F_J^(r_J)
    l.7       F~_{J,0:r_J-1} <- sum_{r' < r_J} (sum F_J^(r') + Z_J^(r'))                    (32)
                  with Z ~ Lap(1/(0.5 eps))
    l.8       B~_{J,r_J} <- sum B_J^(r_J) + sum_{v in S} Y_J^(v)                            (33)
                  with Y ~ Lap(log(2^r_J) / (0.5 eps)), S the p-sum nodes of the prefix
    l.9       mu~_{J,O_J} <- (F~_{J,0:r_J-1} + B~_{J,r_J}) / O_J                            (34)
    l.10      if O_J == sum_{r=0}^{r_J} 2^r  (= 2^(r_J+1) - 1, tree r_J full):
    l.11          r_J <- r_J + 1; new empty tree B_J^(r_J) with 2^r_J leaves and array F_J^(r_J)

The tree is Chan, Shi and Song's binary mechanism: tree r has leaves 1..2^r and levels 0..r;
node (l, i) covers leaves (i-1) 2^l + 1 .. i 2^l and is noised once, when its block completes;
the prefix of tau leaves is released as one node per set bit of tau (popcount(tau) <= r nodes,
the root alone at tau = 2^r). Arm j's n-th observation (the init pull is n = 1) lies in array
r = floor(log2 n) and, for n >= 2, in leaf n - 2^r + 1 of tree r.

Privacy claim (Theorem 5; proof App. E.3.1): epsilon-DP for the whole action sequence under the
replacement of one reward vector (relation ROW), by composing Algorithm 1 at 0.5 eps (the arrays)
with the tree mechanism at 0.5 eps. The array half holds: each observation enters one array,
released once with Lap(2/eps) (an array is an epoch of the shared lazy-epoch release,
:func:`~dpbandits.reference.mechanisms.release_epoch`). The tree half fails as printed (docs/errata.md#hhm-hybrid-tree): tree r has r + 1
levels and its root is released, so leaf 1 lies in r + 1 released nodes and at node scale 2r/eps
the tree releases are (r + 1) eps / (2r)-DP, not eps/2. Composing per observation, leaf 1 of
tree r costs (1/2 + (r+1)/(2r)) eps, worst at r = 1 (an arm's second observation): 1.5 eps is
the guarantee proven for variant ``paper``. The released noisy sums do lose 1.5 eps there (the
Laplace bound is tight for them); the actions are a function of them, and no event on the actions
reaching that loss is computed here. Variant ``corrected`` (the default) uses node scale
2(r + 1)/eps, which makes every observation's total at most eps, attained at observations 2^r.

Regret (Theorem 5): O(sum_{j: Delta_j > 0} max{log T / Delta_j,
(log T / eps) log(log T / (eps Delta_j))}); the ``corrected`` node scale is at most twice the
paper's, which changes only constants.

Deviations:
1. Default variant ``corrected``: tree-node noise Lap(2(r+1)/eps) instead of Lap(2r/eps)
   (docs/errata.md#hhm-hybrid-tree); the printed scale is variant ``paper``, proven only 1.5 eps-DP.
2. Every Z and Y is drawn once and reused in every later release (docs/errata.md#hhm-noise-reuse); the paper's
   notation implies it but never says so, and fresh draws per release would void the privacy
   argument. Z_j^(r) is drawn when array r fills rather than at its first use by (32) at the next
   update: the same variable, drawn at a time that depends on nothing but the pull count.
3. The init draw is Z_j^(0) (docs/errata.md#hhm-init-draw), not a separate variable.
4. The partition follows Algorithm 4 (first group 2^floor(log2 O) - 1 observations), not the
   formula in section 4.2 of the paper (docs/errata.md#hhm-first-group).
5. Ties go to the lowest arm by default (docs/errata.md#hhm-ties; probability 0 under Laplace noise).
"""

from __future__ import annotations

import math

import numpy as np

from ...errors import DPBanditsError
from ..declarations import HybridItem
from ..mechanisms import binary_step, release_epoch
from ..noise import decision, laplace, release
from ..policy import PolicyBase
from ..privacy import Guarantee, PrivacyClaim, Variant
from ..sight import for_a_check

__all__ = ["HybridUCB"]

_SOURCE = "Hu, Huang & Mehta (arXiv:2102.07929v2), Theorem 5 (proof App. E.3.1)"


class HybridUCB(PolicyBase):
    """Hybrid-UCB of Hu, Huang and Mehta, batch-first."""

    name = "hybrid-ucb"
    title = "Hybrid-UCB"
    paper = "Hu, Huang & Mehta (arXiv:2102.07929v2), Alg. 4"
    variants = (
        Variant("paper", "tree-node noise Lap(2r/eps) as printed; 1.5 eps-DP (docs/errata.md#hhm-hybrid-tree)"),
        Variant("corrected", "tree-node noise Lap(2(r+1)/eps): r+1 released levels, eps-DP"),
    )
    default_variant = "corrected"

    kernel = "hybrid_ucb"
    audit_design = HybridItem(
        steps=(3, 4), after=4,
        why="with K = 2 the reward of round 3 is the second observation of its arm: leaf 1 of "
            "tree 1, in two released tree nodes and one array")
    white_box_statistic = "mu_tilde"
    planted_parts = {
        "noise scale alone x 1/2 (arrays and tree nodes at half their Laplace scale; bonus "
        "unchanged)": ("noise scale", {"rng": 0.5}),
        "bonus alone: 6 sqrt 8 log2(t) r_j / (eps O_j) x 1/2 (eps x 2 in eq. (35); noise "
        "unchanged)": ("bonus", {"epsilon": 2.0, "rng": 2.0, "_array_scale": 0.5}),
    }
    """Planted variants that change one part (what ``validate`` runs to state its power):
    epsilon x 2 moves the noise (arrays Lap(2/eps), nodes Lap(2(r+1)/eps)) and the index's
    privacy term together; these scale every Laplace draw alone, or double eps and keep every
    scale (the nodes read eps, the arrays' scale was fixed at the start); ``planted_changes``
    moves the radius sqrt(3 log2 t / O_j) alone. The tree and array schedule has no factor to
    plant."""
    planted_changes = {"confidence radius sqrt(2 log2 t / O_j) for sqrt(3 log2 t / O_j) "
                       "(eq. (35); bonus and noise unchanged)": {"radius_scale": math.sqrt(2.0 / 3.0)}}

    def __init__(self, K: int, *, epsilon: float, runs: int = 1, rng, variant: str | None = None,
                 tie_break: str = "first") -> None:
        super().__init__(K, runs=runs, rng=rng, epsilon=epsilon, variant=variant,
                         tie_break=tie_break)
        shape = (self.runs, self.K)
        self.O = np.zeros(shape, np.int64)    # O_j: observations of arm j so far (l.3, l.6)
        self.r = np.ones(shape, np.int64)     # r_j: tree and array of the next observation (l.11)
        self.F_tilde = np.zeros(shape)        # F~_{j,0:r_j-1}: noisy sum of full arrays, eq. (32)
        self.F_sum = np.zeros(shape)          # sum F_j^(r_j): true sum of the array being filled
        self.B_tilde = np.zeros(shape)        # B~_{j,r_j}: noisy prefix sum of tree r_j, eq. (33)
        self.mu_tilde = np.zeros(shape)       # mu~_{j,O_j}: the private mean, eq. (34)
        # Chan et al.'s p-sums alpha of tree r_j by level, and alpha_hat with their persistent
        # node noise Y; the level axis (tree r has r + 1 levels) grows in act(t) with the round
        # alone (observe(t) follows act(t), as in every run of a policy).
        self.alpha = np.zeros(shape + (2,))
        self.alpha_hat = np.zeros(shape + (2,))
        self._array_scale = 2.0 / self.epsilon                     # Lap(1/(0.5 eps))
        self._level_offset = 0 if self.variant == "paper" else 1   # deviation 1

    @property
    def claim(self) -> PrivacyClaim:
        claimed = Guarantee(self.epsilon)
        if self.variant == "corrected":
            return PrivacyClaim(claimed, claimed, "holds", _SOURCE,
                                "each observation: one array at Lap(2/eps) (eps/2) and at most "
                                "r+1 tree nodes at Lap(2(r+1)/eps) (eps/2)")
        return PrivacyClaim(claimed, Guarantee(1.5 * self.epsilon), "false", _SOURCE,
                            "tree r has r+1 levels and releases its root: leaf 1 lies in r+1 "
                            "nodes at Lap(2r/eps) plus one array at Lap(2/eps), so the released "
                            "noisy sums lose (1/2 + (r+1)/(2r)) eps, 1.5 eps at r = 1 "
                            "(docs/errata.md#hhm-hybrid-tree); the paper's proof composes an "
                            "eps/2 tree that is not eps/2-DP")

    def node_scale(self, r: np.ndarray) -> np.ndarray:
        """Laplace scale of every node of tree r: 2r/eps (paper) or 2(r+1)/eps (corrected)."""
        return 2.0 * (r + self._level_offset) / self.epsilon

    # --8<-- [start:index]
    def index(self, t: int) -> np.ndarray:
        """mubar_j(t) of eq. (35) for every run and arm, base-2 logs (docs/errata.md#hhm-log-base).

        floor(log2(O_j + 1)) equals r_j at all times: O_j runs over 2^r_j .. 2^(r_j+1) - 2 while
        tree r_j fills, and r_j is incremented exactly when O_j reaches 2^(r_j+1) - 1.
        """
        log_t = math.log2(t)
        O = self.O.astype(float)
        return (self.mu_tilde + self.radius_scale * np.sqrt(3.0 * log_t / O)
                + 6.0 * math.sqrt(8.0) * log_t * self.r / (self.epsilon * O))

    # --8<-- [end:index]

    # --8<-- [start:act-observe]
    def act(self, t: int) -> np.ndarray:
        self._make_room((t + 1).bit_length())     # r_j + 1 levels: r_j <= log2(O_j + 1), O_j <= t
        if t <= self.K:
            return np.full(self.runs, t - 1)                                     # [Alg.4 l.2]
        return self.argmax(self.index(t))                                        # [Alg.4 l.5]

    def observe(self, t: int, actions: np.ndarray, feedback: np.ndarray) -> None:
        x = self.check_observation(t, actions, feedback)
        rows, j = self._rows, actions
        if t <= self.K:
            if (for_a_check(actions) != t - 1).any():
                raise DPBanditsError(f"Hybrid-UCB pulls arm {t - 1} in round {t} (Alg. 4 l.2); "
                                     f"another arm is refused there")
            Z0 = laplace(self.rng, self._array_scale, self.runs)
            self.F_tilde[rows, j] = release(x, Z0)                                       # [Alg.4 l.2]
            self.mu_tilde[rows, j] = self.F_tilde[rows, j]
            self.O[rows, j] = 1                                                  # [Alg.4 l.3]
            return
        self.O[rows, j] += 1                                                     # [Alg.4 l.6]
        self.F_sum[rows, j] += x
        r = self.r[rows, j]
        tau = self.O[rows, j] - np.left_shift(1, r) + 1     # leaves of tree r now filled
        alpha, alpha_hat = self.alpha[rows, j], self.alpha_hat[rows, j]
        scale = self.node_scale(r)
        B_tilde = binary_step(alpha, alpha_hat, tau, x, scale, self.rng)       # [Alg.4 l.8]
        self.alpha[rows, j], self.alpha_hat[rows, j] = alpha, alpha_hat
        self.B_tilde[rows, j] = B_tilde
        self.mu_tilde[rows, j] = (self.F_tilde[rows, j] + B_tilde) / self.O[rows, j]  # [Alg.4 l.9]
        filled, leaves = decision(tau, np.left_shift(1, r))     # counts only, never rewards
        full = filled == leaves                                                  # [Alg.4 l.10]
        if full.any():
            # Array r is full with the tree: its Z^(r) is drawn once, now (deviation 2), so that
            # F~ already holds arrays 0..r when (32) is next needed, at the arm's next update.
            i, jf = rows[full], j[full]
            self.F_tilde[i, jf] += release_epoch(self.rng, self.F_sum, (i, jf),   # [Alg.4 l.7]
                                                 self._array_scale)
            self.r[i, jf] += 1                                                   # [Alg.4 l.11]
            self.alpha[i, jf] = 0.0
            self.alpha_hat[i, jf] = 0.0
            self.B_tilde[i, jf] = 0.0

    # --8<-- [end:act-observe]

    def _make_room(self, levels: int) -> None:
        """Give the p-sum arrays at least ``levels`` levels (tree r needs r + 1), by zeros at the
        end (a function of the round alone, so that every arm's slot keeps its values)."""
        have = self.alpha.shape[-1]
        if levels > have:
            room = np.zeros(self.alpha.shape[:-1] + (max(levels, 2 * have) - have,))
            self.alpha = np.concatenate([self.alpha, room], axis=-1)
            self.alpha_hat = np.concatenate([self.alpha_hat, room], axis=-1)
