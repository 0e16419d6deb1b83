"""UCB1, the non-private baseline.

Citation: P. Auer, N. Cesa-Bianchi, P. Fischer. *Finite-time analysis of the multiarmed bandit
problem.* Machine Learning 47, 235-256, 2002. Used as the non-private reference by Tossou and
Dimitrakakis (AAAI 2016, Sec. 4) and Hu et al. (Sec. 6).

Pseudocode (Auer et al., Fig. 1, UCB1)::

    l.1  for t = 1..T:
    l.2      if t <= K: play arm t
    l.3      else: play argmax_a  s_a / n_a + sqrt(2 ln t / n_a)
    l.4      s_{a_t} += r_t ; n_{a_t} += 1

Privacy: none (non-private).

Regret (Auer et al. Thm 1): R(T) <= sum_a 8 ln T / Delta_a + (1 + pi^2/3) sum_a Delta_a.

Deviations:
1. The radius uses ln t with t the current round by default (as Tossou and Dimitrakakis write
   it); ``log_round="t-1"`` uses Auer et al.'s own ln(t - 1), the number of plays so far (Fig. 1:
   "n is the overall number of plays done so far"), as public UCB1 implementations do
   (docs/errata.md#td-ucb-radius).
2. Ties go to the lowest arm by default (docs/errata.md#td-ties); ``tie_break="random"`` is offered.
3. l.2 plays the arms in increasing order by default; ``initial_order="random"`` plays them in a
   uniformly random order per run (as some public implementations do), drawn when the policy is
   built and only then, so the default draws nothing and stays bit-identical.
"""

from __future__ import annotations

import math

import numpy as np

from ..policy import PolicyBase
from ..privacy import PrivacyClaim
from ..domains import OneOf

__all__ = ["UCB1", "INITIAL_ORDERS", "LOG_ROUNDS"]

INITIAL_ORDERS = ("first", "random")
"""Order of the first K pulls: arms 0..K-1 (l.2), or a uniformly random permutation per run."""

LOG_ROUNDS = ("t", "t-1")
"""The argument of the logarithm in the radius of l.3: the current round t, or t - 1, the plays
done so far (deviation 1)."""


class UCB1(PolicyBase):
    """UCB1 of Auer et al. (2002), batch-first."""

    name = "ucb1"
    title = "UCB1"
    paper = "Auer, Cesa-Bianchi & Fischer (MLJ 2002)"
    private = False

    kernel = "ucb1"
    planted_changes = {"radius x 1/2": {"radius_scale": 0.5}, "radius x 2": {"radius_scale": 2.0}}
    parameter_domains = {
        "log_round": OneOf("t", "t-1", text="'t' (ln t of the current round, as Tossou and "
                           "Dimitrakakis write it) or 't-1' (ln(t - 1), the plays so far: Auer et "
                           "al.'s Fig. 1 and public UCB1s)")}

    def __init__(self, K: int, *, runs: int = 1, rng, variant: str | None = None,
                 tie_break: str = "first", initial_order: str = "first",
                 log_round: str = "t") -> None:
        super().__init__(K, runs=runs, rng=rng, variant=variant, tie_break=tie_break)
        self.initial_order = initial_order
        self.log_round = log_round
        self.s = np.zeros((self.runs, self.K))  # s_a: reward sum of arm a
        self.n = np.zeros((self.runs, self.K))  # n_a: pulls of arm a before round t
        # The arm of round t <= K in each run (deviation 3); no draw for the default order.
        self.first_pulls = (np.argsort(self.rng.random((self.runs, self.K)), axis=1)
                            if initial_order == "random" else None)

    @property
    def claim(self) -> PrivacyClaim:
        return PrivacyClaim(None, None, "non-private", "Auer et al. (2002): no privacy claim")

    # --8<-- [start:act-observe]
    def act(self, t: int) -> np.ndarray:
        if t <= self.K:
            if self.first_pulls is not None:
                return self.first_pulls[:, t - 1]                     # [l.2]
            return np.full(self.runs, t - 1)                          # [l.2]
        n = t if self.log_round == "t" else max(t - 1, 1)             # deviation 1
        radius = np.sqrt(2.0 * math.log(n) / self.n)
        if self.radius_scale != 1.0:                                  # a planted variant
            radius = self.radius_scale * radius
        index = self.s / self.n + radius                              # [l.3]
        return self.argmax(index)

    def observe(self, t: int, actions: np.ndarray, feedback: np.ndarray) -> None:
        r = self.check_observation(t, actions, feedback)
        self.s[self._rows, actions] += r                                # [l.4]
        self.n[self._rows, actions] += 1
    # --8<-- [end:act-observe]
