"""Thompson Sampling with Beta priors, the non-private baseline of Lazy-DP-TS.

Citation: S. Agrawal, N. Goyal. *Near-optimal regret bounds for Thompson Sampling.* Journal of
the ACM 64(5), 30:1-30:24, 2017. As restated in B. Hu, Z. Huang, N. A. Mehta, N. Hegde,
*Near-Optimal Algorithms for Differentially Private Online Learning in a Stochastic Environment*,
arXiv:2102.07929v3 (undated, 2022 or later), Algorithm 2 (Alg. 2), whose line
numbers the tags follow.

Pseudocode (Algorithm 2)::

    l.2  init: O_j <- 0; muhat_j <- 0 for every arm j
    l.3  for t = 1, 2, ...:
    l.4      for each j: draw theta_j(t) ~ Beta(muhat_j O_j + 1, (1 - muhat_j) O_j + 1)
    l.5      pull J_t in argmax_j theta_j(t); O_J <- O_J + 1; update muhat_J (mean of ALL its
             observations)

With S_j = muhat_j O_j the reward sum, the posterior is Beta(S_j + 1, O_j - S_j + 1): the Beta(1, 1)
prior updated by a Bernoulli likelihood. There is no initialisation phase: round 1 samples from
the prior.

Privacy: none (non-private).

Regret (Agrawal and Goyal 2017, Theorem 1, Bernoulli rewards): for every delta in (0, 1],
R(T) <= (1 + delta) sum_{j: Delta_j > 0} Delta_j ln T / kl(mu_j, mu_1) + O(K / delta^2), hence
O(sum_j log T / Delta_j); and O(sqrt(K T ln T)) instance-independently.

Deviations:
1. Rewards in [0, 1] enter S_j as they are, so the posterior parameters may be real-valued (the
   real-valued generalisation of Algorithm 2, which states Bernoulli rewards). Agrawal and
   Goyal's alternative for bounded rewards (the paper's footnote 4; Sec. 2) feeds
   a Bernoulli(X) draw instead; both agree on {0, 1} rewards.
2. Ties go to the lowest arm by default (docs/errata.md#hj-ties; probability 0 under continuous samples).
"""

from __future__ import annotations

import numpy as np

from ..policy import PolicyBase
from ..privacy import PrivacyClaim

__all__ = ["ThompsonSampling"]


class ThompsonSampling(PolicyBase):
    """Beta-prior Thompson Sampling of Agrawal and Goyal (2017), batch-first."""

    name = "thompson"
    title = "Thompson Sampling (Beta priors)"
    paper = "Agrawal & Goyal (JACM 2017); Hu, Huang, Mehta & Hegde (arXiv:2102.07929v3), Alg. 2"
    private = False

    kernel = "thompson"
    planted_changes = {
        "prior Beta(1/2, 1/2) (Jeffreys) for Beta(1, 1) (l.4; posterior counts unchanged)":
            {"prior": 0.5},
        "posterior draw at twice the counts, Beta(2 S_j + 1, 2 (O_j - S_j) + 1) (l.4; each draw's "
        "spread about 1/sqrt(2) of the posterior's)": {"posterior_weight": 2.0},
    }
    """Planted variants, one per part of l.4 (what ``validate`` runs to state its power): the
    prior alone, and the posterior's counts alone. Random ties (``tie_break=random``) have the
    reference's own law, the draws tying with probability 0."""

    def __init__(self, K: int, *, runs: int = 1, rng, variant: str | None = None,
                 tie_break: str = "first") -> None:
        super().__init__(K, runs=runs, rng=rng, variant=variant, tie_break=tie_break)
        self.O = np.zeros((self.runs, self.K))  # O_j: pulls of arm j so far (l.2)
        self.S = np.zeros((self.runs, self.K))  # S_j = muhat_j O_j: reward sum of arm j (l.2)

    @property
    def claim(self) -> PrivacyClaim:
        return PrivacyClaim(None, None, "non-private",
                            "Agrawal & Goyal (2017): no privacy claim; Hu et al. Alg. 2 is the "
                            "non-private reference")

    # --8<-- [start:act-observe]
    def act(self, t: int) -> np.ndarray:
        w, a = self.posterior_weight, self.prior                 # 1, 1: planted variants only
        theta = self.rng.beta(w * self.S + a, w * (self.O - self.S) + a)         # [Alg.2 l.4]
        return self.argmax(theta)                                                # [Alg.2 l.5]

    def observe(self, t: int, actions: np.ndarray, feedback: np.ndarray) -> None:
        x = self.check_observation(t, actions, feedback)
        self.O[self._rows, actions] += 1                                         # [Alg.2 l.5]
        self.S[self._rows, actions] += x
    # --8<-- [end:act-observe]
