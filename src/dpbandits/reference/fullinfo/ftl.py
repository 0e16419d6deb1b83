"""FTL (Follow-the-Leader), the non-private full-information baseline.

Citation: the classical rule; used as the non-private comparison by B. Hu, Z. Huang, N. A. Mehta,
*Near-Optimal Algorithms for Private Online Learning in a Stochastic Environment*,
arXiv:2102.07929 (2021), Sec. 5, and the journal version (v3), Sec. 3.2. Hu, Huang & Mehta (2021), Sec. 5,
Sec. 3.2. Regret O(log K / Delta_min) on stochastic rewards (Kotlowski 2018).

Pseudocode (``l.N`` counts the statements of the description in order)::

    l.1   round 1: play action 1
    l.2   round t >= 2: play argmax_j S_j(t - 1), S_j(t) = sum_{s <= t} X_j(s) over ALL past rounds
    l.3   observe X(t); S_j <- S_j + X_j(t) for every j

Privacy: none (non-private).

Deviations:
1. Round 1 and tie-breaking are unspecified in the papers; round 1 plays action 1 (index 0) and
   ties go to the lowest index (``tie_break="random"`` breaks them uniformly). Ties are frequent
   with 0/1 rewards, unlike for the noisy algorithms.
"""

from __future__ import annotations

import numpy as np

from ..policy import PolicyBase
from ..privacy import PrivacyClaim

__all__ = ["FTL"]


class FTL(PolicyBase):
    """Follow-the-Leader on cumulative reward sums, batch-first."""

    name = "ftl"
    title = "FTL (Follow-the-Leader)"
    paper = "non-private baseline of Hu, Huang & Mehta (arXiv:2102.07929), Sec. 5"
    feedback = "full"
    private = False

    kernel = "fullinfo"

    def __init__(self, K: int, *, runs: int = 1, rng, variant: str | None = None,
                 tie_break: str = "first") -> None:
        super().__init__(K, runs=runs, rng=rng, variant=variant, tie_break=tie_break)
        self.S = np.zeros((self.runs, self.K))   # S_j(t): reward sum of action j over rounds 1..t

    @property
    def claim(self) -> PrivacyClaim:
        return PrivacyClaim(None, None, "non-private", "Follow-the-Leader: no privacy claim")

    # --8<-- [start:act-observe]
    def act(self, t: int) -> np.ndarray:
        if t == 1:
            return np.zeros(self.runs, dtype=np.int64)                 # [FTL l.1]
        return self.argmax(self.S)                                       # [FTL l.2]

    def observe(self, t: int, actions: np.ndarray, feedback: np.ndarray) -> None:
        self.S += self.check_observation(t, actions, feedback)          # [FTL l.3]
    # --8<-- [end:act-observe]
