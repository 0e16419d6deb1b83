"""Hedge (exponential weights), the non-private randomised full-information baseline.

Citation: Y. Freund, R. E. Schapire. *A decision-theoretic generalization of on-line learning and
an application to boosting.* JCSS 55(1), 1997. The anytime learning rate is that of
N. Cesa-Bianchi, G. Lugosi, *Prediction, Learning, and Games*, CUP 2006, Theorem 2.3.

Pseudocode (``l.N`` counts the statements in order)::

    l.1   S_j <- 0 for every action j
    l.2   round t: eta_t <- sqrt(8 ln K / t) (or a fixed eta); w_j <- exp(eta_t S_j)
    l.3   draw I_t with P[I_t = j] = w_j / sum_i w_i and play it
    l.4   observe X(t); S_j <- S_j + X_j(t) for every j

Regret: with eta_t = sqrt(8 ln K / t) the expected regret against any fixed action is at most
2 sqrt((T/2) ln K) + sqrt(ln K / 8) for rewards in [0, 1] (Cesa-Bianchi and Lugosi, Thm 2.3).

Privacy: none (non-private). Hedge with a suitable eta is differentially private in some
settings, but no paper of this library claims so; it is the non-private reference here.

Deviations:
1. The learner of decision-theoretic online learning may play the weight vector itself; this
   implementation draws one action from it (the engine scores actions), so the pseudo-regret of
   each run is that of the sampled actions, whose mean equals the weighted play's.
"""

from __future__ import annotations

import math

import numpy as np

from ...limits import MAX_HORIZON
from ..policy import PolicyBase
from ..privacy import PrivacyClaim
from ..domains import Interval

__all__ = ["Hedge", "MAX_ETA"]

MAX_ETA = 1e299
"""Largest fixed learning rate: the logits eta S_j stay finite (S_j <= T <= ``MAX_HORIZON`` =
1e9, so eta S_j <= 1e308 < 1.8e308). Beyond it eta S_j overflows to inf, inf - inf is NaN and
every draw would silently be action 0; within it the weights are exact up to rounding."""


class Hedge(PolicyBase):
    """Exponential weights over K actions, batch-first; ``eta=None`` is the anytime rate."""

    name = "hedge"
    title = "Hedge (exponential weights)"
    paper = "Freund & Schapire (1997); anytime rate of Cesa-Bianchi & Lugosi (2006), Thm 2.3"
    feedback = "full"
    private = False

    kernel = "fullinfo"
    parameter_domains = {"eta": Interval(0, MAX_ETA, closed="high",
                                         note="larger rates overflow the logits eta S_j",
                                         unset="the anytime rate sqrt(8 ln(K) / t)")}

    def __init__(self, K: int, *, runs: int = 1, rng, variant: str | None = None,
                 eta: float | None = None, tie_break: str = "first") -> None:
        super().__init__(K, runs=runs, rng=rng, variant=variant, tie_break=tie_break)
        self.eta = None if eta is None else float(eta)
        self.S = np.zeros((self.runs, self.K))   # S_j: cumulative reward of action j

    @property
    def claim(self) -> PrivacyClaim:
        return PrivacyClaim(None, None, "non-private", "Hedge: no privacy claim in these papers")

    # --8<-- [start:act-observe]
    def learning_rate(self, t: int) -> float:
        """eta_t = sqrt(8 ln K / t), or the fixed eta."""
        return self.eta if self.eta is not None else math.sqrt(8.0 * math.log(self.K) / t)

    def act(self, t: int) -> np.ndarray:
        logits = self.learning_rate(t) * self.S                              # [Hedge l.2]
        w = np.exp(logits - logits.max(axis=1, keepdims=True))
        cdf = np.cumsum(w, axis=1)
        u = self.rng.random(self.runs)[:, None] * cdf[:, -1:]
        return np.minimum((cdf <= u).sum(axis=1), self.K - 1)                # [Hedge l.3]

    def observe(self, t: int, actions: np.ndarray, feedback: np.ndarray) -> None:
        self.S += self.check_observation(t, actions, feedback)              # [Hedge l.4]
    # --8<-- [end:act-observe]
