"""DP-UCB: UCB on hybrid-mechanism sums, every mechanism fed at every round so all share one noise law.

Citation: A. C. Y. Tossou, C. Dimitrakakis. *Algorithms for Differentially Private Multi-Armed
Bandits.* AAAI 2016 (HAL hal-01234427, arXiv:1511.08681), Algorithm 2, Theorem 3.3 (privacy by
the argument of Theorem 3.1). The hybrid mechanism is Chan,
Shi and Song's (ICALP 2010), see :class:`dpbandits.reference.mechanisms.HybridCounter`.

Pseudocode (Algorithm 2, two lines, numbered in order)::

    l.1   run Algorithm 1 and set nu_a to 0
    l.2   when arm a_t = a is played, insert 0 into all hybrid mechanisms of arms a' != a
          (do not increase n_{a',t})

Spelled out with the lines of Algorithm 1 (tags ``Alg.1`` refer to the statement numbering of
:mod:`dpbandits.reference.bandit.dp_ucb_bound`)::

    Alg.1 l.2    instantiate K hybrid mechanisms H_1..H_K
    Alg.1 l.5    t <= K: play arm a_t = t
    Alg.1 l.14   t > K:  a_t = argmax_a s_a(t)/n_{a,t} + sqrt(2 ln t / n_{a,t})   (s_a(t) from H_a)
    Alg.1 l.16   insert r_t into H_{a_t}; n_{a_t} += 1
    Alg.2 l.2    insert 0 into H_a' for every a' != a_t

After round t every mechanism holds exactly t items, so the noise in every s_a(t) has the same
law ("the scale of the noise will be the same"); the noise of the mean s_a(t)/n_{a,t} still
differs across arms (docs/errata.md#td-same-noise).

Privacy claim (the paper states no privacy theorem for Algorithm 2; Theorem 3.1's argument
applies, Alg. 2): epsilon-DP for the whole action sequence under the change of one
reward (relation ROW). The inserted zeros do not depend on rewards, and each real reward still
enters exactly one mechanism, at position t of its stream. As for Algorithm 1 this needs an
epsilon-DP hybrid mechanism: with the paper's scales Lap(1/eps) and Lap(k/eps) it is only
2 epsilon-DP (docs/errata.md#td-hybrid-budget), so variant ``paper`` is proven 2 eps-DP and its claim is false;
variant ``corrected`` (the default) splits the budget eps/2 + eps/2 as Chan et al. do.

Regret (Theorem 3.3, as stated):
R <= sum_{a: Delta_a > 0} Delta_a max(C^2 (ln C + 7)^2, 8 ln t / Delta_a^2) + Delta_a (1 + 4 zeta(1.5)),
C = 56 (2 + sqrt 3.5) sqrt(ln t) / eps. Its analysis counts log n_{a,t} tree levels although every
mechanism holds t items (docs/errata.md#td-thm33-levels); the ``corrected`` budget split changes constants only.

Deviations:
1. Default variant ``corrected``: hybrid budgets eps_L = eps_B = eps/2 (docs/errata.md#td-hybrid-budget); the
   printed scales are variant ``paper``, proven only 2 eps-DP. The index has no nu_a, so the
   variants differ only in the mechanisms' noise.
2. Zeros are inserted at every round, including the K initial ones (docs/errata.md#td-zero-insertion): "when arm
   a_t = a is played" covers every round and keeps the mechanisms in lockstep.
3. The hybrid mechanism is Chan et al.'s construction (docs/errata.md#td-binary-scale, docs/errata.md#td-tree-items).
4. The radius uses ln t with t the current round, as printed (docs/errata.md#td-ucb-radius).
5. Ties go to the lowest arm by default (docs/errata.md#td-ties; probability 0 under Laplace noise).
6. Rewards outside [0, 1] are refused (rewards lie in [0, 1], Sec. 2).
"""

from __future__ import annotations

import math

import numpy as np

from ..declarations import AuditPreset, HybridItem
from ..policy import PolicyBase
from ..privacy import PrivacyClaim
from .dp_ucb_bound import hybrid_claim, hybrid_sums, hybrid_variants

__all__ = ["DPUCB"]

_SOURCE = ("Tossou & Dimitrakakis (AAAI 2016), Algorithm 2 with the argument of Theorem 3.1 "
           "(no separate privacy theorem is stated)")


class DPUCB(PolicyBase):
    """DP-UCB of Tossou and Dimitrakakis, batch-first."""

    name = "dp-ucb"
    title = "DP-UCB"
    paper = "Tossou & Dimitrakakis (AAAI 2016), Alg. 2"
    variants = hybrid_variants()
    default_variant = "corrected"

    kernel = "dp_ucb"
    audit_design = HybridItem(
        steps=(3, 5), after=5,
        why="item 3 of every arm's hybrid counter (DP-UCB inserts every round, so item = round) "
            "lies in the logarithmic block released at n = 4 and in the binary node released at "
            "n = 3; rounds 4 and 5 read the two releases")
    audit_preset = AuditPreset(
        samples=100_000,
        why="the test sample at which the designed pairs refute the printed variant's claim from "
            "its actions (docs/audit-design.md: 50 000 runs per side refute it at seeds 0 and 1, "
            "20 000 did not at seed 0)")
    white_box_statistic = "H.value"
    release_structure = "data-independent: every arm's mechanism receives one item per round"
    planted_parts = {
        "noise scale alone x 2 (the hybrid mechanisms' budgets x 1/2; the paper's variant is "
        "the noise alone x 1/2)": ("noise scale", {"H.eps_L": 0.5, "H.eps_B": 0.5}),
    }
    """Planted variants that change one part (what ``validate`` runs to state its power): the
    index has no nu_a, so variant ``paper`` already changes the noise alone (x 1/2) and epsilon
    x 2 does too; this one doubles it. ``planted_changes`` moves the radius sqrt(2 ln t / n) alone."""
    planted_changes = {"confidence radius sqrt(3 ln t / n) for sqrt(2 ln t / n) (noise "
                       "unchanged)": {"radius_scale": math.sqrt(1.5)}}

    def __init__(self, K: int, *, epsilon: float, runs: int = 1, rng, variant: str | None = None,
                 tie_break: str = "first") -> None:
        super().__init__(K, runs=runs, rng=rng, epsilon=epsilon, variant=variant,
                         tie_break=tie_break)
        self.H = hybrid_sums(self)                                               # [Alg.1 l.2]
        self.eps_L, self.eps_B = self.H.eps_L, self.H.eps_B
        self.n = np.zeros((self.runs, self.K), np.int64)  # n_{a,t}: pulls of arm a before round t
        self._arms = np.arange(self.K)       # every arm: with self._rows[:, None], every H_a

    @property
    def claim(self) -> PrivacyClaim:
        return hybrid_claim(self, self.H, _SOURCE, data_independent="the inserted zeros")

    # --8<-- [start:index-act-observe]
    def index(self, t: int) -> np.ndarray:
        """s_a(t)/n_{a,t} + sqrt(2 ln t / n_{a,t}) (nu_a = 0), shape (runs, K)."""
        n = self.n.astype(float)
        s = self.H.value
        return s / n + self.radius_scale * np.sqrt(2.0 * math.log(t) / n)       # [Alg.2 l.1]

    def act(self, t: int) -> np.ndarray:
        if t <= self.K:
            return np.full(self.runs, t - 1)                                     # [Alg.1 l.5]
        return self.argmax(self.index(t))                                        # [Alg.1 l.14]

    def observe(self, t: int, actions: np.ndarray, feedback: np.ndarray) -> None:
        r = self.check_observation(t, actions, feedback)
        items = np.zeros_like(r, shape=(self.runs, self.K))                      # [Alg.2 l.2]
        items[self._rows, actions] = r                                           # [Alg.1 l.16]
        self.H.insert((self._rows[:, None], self._arms), items.ravel())          # [Alg.2 l.2]
        self.n[self._rows, actions] += 1
    # --8<-- [end:index-act-observe]
