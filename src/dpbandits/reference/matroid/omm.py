"""OMM: Optimistic Matroid Maximization, the non-private UCB1 baseline for matroid bandits.

Citation: B. Kveton, Z. Wen, A. Ashkan, H. Eydgahi, B. Eriksson. *Matroid Bandits: Fast
Combinatorial Optimization with Learning.* UAI 2014, pp. 420-429, arXiv:1403.5045, Algorithm 2.
Used as the UCB baseline by Chandak, Hu & Hegde (2023), Sec. 5 (the
pseudocode is recalled from Kveton et al.; the constants are to be checked against their paper).

Pseudocode (Kveton et al., Algorithm 2; tags use these line numbers)::

    1: observe w_0 ~ P (all L coordinates); w^_e <- w_0(e); N_e <- 1 for all e
    2: for t = 1, 2, ...:
    3:     U_t(e) <- w^_e + sqrt(alpha ln(t) / N_e)     for all e   (alpha = 2: UCB1's c_{t,s})
    4:     A^t <- Greedy(U_t)                            # Algorithm 1
    5:     observe w_t(e) for e in A^t
    6:     w^_e <- mean of all N_e + 1 observations; N_e <- N_e + 1     for e in A^t

Privacy: none; a non-private baseline.

Regret (Kveton et al., Theorem 1, recalled, verify before use): sum_{e not in A*}
16 ln(n) / Delta_{e,min} + (4/3) pi^2 L; O(L ln(n) / Delta) (Chandak et al., Table 1).

Deviations:
1. Kveton et al. write the radius with t - 1 (c_{t-1, N_e}), undefined at t = 1; the default
   uses ln(t) of the current round (docs/errata.md#chh-unreported). ``log_round="t-1"`` gives
   ln(max(t - 1, 1)), ``alpha`` the constant (2 in UCB1).
2. The running mean is kept as the sum S_e and count N_e (w^_e = S_e / N_e).
3. Greedy ties by ascending base-arm index (docs/errata.md#chh-greedy-ties; ties are common with Bernoulli rewards), or
   at random with ``tie_break="random"``.
"""

from __future__ import annotations

import math

import numpy as np

from ..privacy import PrivacyClaim, Variant
from ..domains import Interval
from .common import MatroidPolicy
from .matroids import Matroid

__all__ = ["OMM", "LOG_ROUNDS"]

LOG_ROUNDS = ("t", "t-1")
"""The round in OMM's radius sqrt(alpha ln(.) / N_e): the current t (default) or t - 1."""


class OMM(MatroidPolicy):
    """OMM of Kveton et al. (2014), batch-first; non-private."""

    name = "omm"
    title = "OMM"
    paper = "Kveton et al. (UAI 2014, arXiv:1403.5045), Alg. 2; baseline of Chandak, Hu & Hegde"
    private = False
    variants = (Variant("paper", "Kveton et al.'s OMM: UCB1 radius, running means, round-0 row"),)
    default_variant = "paper"

    kernel = "matroid"
    parameter_domains = {"alpha": Interval(0, None)}

    def __init__(self, K: int, *, runs: int = 1, rng, variant: str | None = None,
                 matroid: Matroid | None = None, tie_break: str = "first", alpha: float = 2.0,
                 log_round: str = "t") -> None:
        super().__init__(K, runs=runs, rng=rng, variant=variant, matroid=matroid,
                         tie_break=tie_break)
        self.alpha = float(alpha)
        self.log_round = log_round
        shape = (self.runs, self.L)
        self.S = np.zeros(shape)   # S_e: sum of all observations of e (round 0 included)
        self.N = np.ones(shape)    # N_e: their number

    @property
    def claim(self) -> PrivacyClaim:
        return PrivacyClaim(None, None, "non-private", "Kveton et al. (2014)",
                            "non-private baseline (UCB1 indices on exact running means)")

    # --8<-- [start:index-act-observe]
    def index(self, t: int) -> np.ndarray:
        """U_t(e) for every run and base arm, shape (runs, L)."""
        s = t if self.log_round == "t" else max(t - 1, 1)
        return self.S / self.N + np.sqrt(self.alpha * math.log(s) / self.N)      # [OMM l.3]

    def act(self, t: int) -> np.ndarray:
        self.require_round_zero()
        return self.basis(self.index(t))                                         # [OMM l.4]

    def observe(self, t: int, actions: np.ndarray | None, feedback: np.ndarray) -> None:
        if t == 0:
            self.S = np.array(self.round_zero(t, actions, feedback), order="C")  # [OMM l.1]
            return
        x = self.semi_feedback(t, actions, feedback)                             # [OMM l.5]
        played = self.cells(actions)                   # state arrays are C-contiguous: flat views
        self.S.reshape(-1)[played] += x.ravel()                                  # [OMM l.6]
        self.N.reshape(-1)[played] += 1.0
    # --8<-- [end:index-act-observe]
