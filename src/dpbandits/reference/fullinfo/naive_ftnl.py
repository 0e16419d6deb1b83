"""Naive FTNL: the lazy, forgetful leader with each action's epoch sum made (eps/K)-DP on its own.

Citation: B. Hu, Z. Huang, N. A. Mehta. *Near-Optimal Algorithms for Private Online Learning in a
Stochastic Environment.* arXiv:2102.07929 (2021), Sec. 5; journal version (v3), Sec. 5. The
papers describe it in words only (Hu, Huang & Mehta 2021, Sec. 5; journal version, Sec. 5).

Pseudocode (reconstructed from the description; ``l.N`` counts its statements)::

    l.1   epoch 0 = round 1: play action 1
    l.2   epoch s >= 1 (rounds 2^s .. 2^(s+1) - 1): play J^(s-1)
    l.3   during epoch s: G_j <- G_j + X_j(t) for every j
    l.4   at the end of epoch s: G~_j <- G_j + Lap(K/eps) independently for each j;
          J^(s) <- argmax_j G~_j; G_j <- 0

Privacy claim (Sec. 5): eps-DP under replacement of one reward vector (relation ROW). Each G~_j
is (eps/K)-DP because one round moves G_j by at most 1, the K of them compose to eps, the epochs
use disjoint data, and the action is post-processing. The argument holds under whole-vector
replacement (each coordinate has sensitivity 1), so the claim holds.

Regret (stated without proof): O(max{log K / Delta, K log K / eps}).

Deviations:
1. The papers give no pseudocode; the schedule, epoch-0 action and argmax are those of FTNL
   (the papers say "same as FTNL" apart from the noise), so this is FTNL with noise Lap(K/eps).
2. Ties have probability 0; the lowest index wins.
"""

from __future__ import annotations

import numpy as np

from ..declarations import KnownPairs
from ..policy import PolicyBase
from ..privacy import Guarantee, PrivacyClaim
from ..report_noisy_max import EpochRNM, ends_epoch, noisy_argmax
from .rnm_ftnl import first_row_swap

__all__ = ["NaiveFTNL"]


class NaiveFTNL(PolicyBase):
    """Naive FTNL (Lap(K/eps) per action and epoch), batch-first."""

    name = "naive-ftnl"
    title = "Naive FTNL"
    paper = "Hu, Huang & Mehta (arXiv:2102.07929), Sec. 5 (baseline)"
    feedback = "full"

    kernel = "fullinfo"
    known_pairs = KnownPairs(build=first_row_swap, arms=5,
                             source="docs/errata.md#rnm-laplace")
    release_structure = "data-independent: one release per doubling epoch"

    def __init__(self, K: int, *, epsilon: float, runs: int = 1, rng, variant: str | None = None,
                 tie_break: str = "first") -> None:
        super().__init__(K, runs=runs, rng=rng, epsilon=epsilon, variant=variant,
                         tie_break=tie_break)
        self.noise_scale = self.K / self.epsilon
        self.G = np.zeros((self.runs, self.K))            # G_j: this epoch's reward sums (l.3)
        self.J = np.zeros(self.runs, dtype=np.int64)

    @property
    def claim(self) -> PrivacyClaim:
        claimed = Guarantee(self.epsilon)
        return PrivacyClaim(claimed, claimed, "holds",
                            "Hu, Huang & Mehta (arXiv:2102.07929), Sec. 5",
                            "K Laplace releases at eps/K each, on disjoint epochs")

    def trajectory_model(self) -> EpochRNM:
        """The exact law of this algorithm's actions given a fixed table."""
        first = np.zeros(self.K)
        first[0] = 1.0
        return EpochRNM(self.K, first, "laplace", self.noise_scale)

    # --8<-- [start:act-observe]
    def act(self, t: int) -> np.ndarray:
        return self.J.copy()                                                # [Naive l.1, l.2]

    def observe(self, t: int, actions: np.ndarray, feedback: np.ndarray) -> None:
        self.G += self.check_observation(t, actions, feedback)             # [Naive l.3]
        if ends_epoch(t):
            self.J = noisy_argmax(self.rng, self.G, "laplace", self.noise_scale)    # [Naive l.4]
            self.G[:] = 0.0
    # --8<-- [end:act-observe]
