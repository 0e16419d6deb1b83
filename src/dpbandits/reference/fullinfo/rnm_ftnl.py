"""FTNL / RNM-FTNL: follow the noisy leader of the last epoch, chosen by report-noisy-max.

Citation: B. Hu, Z. Huang, N. A. Mehta. *Near-Optimal Algorithms for Private Online Learning in a
Stochastic Environment.* arXiv:2102.07929 (2021): "FTNL", Algorithms 2 and 3, Theorems 6-7; and
B. Hu, Z. Huang, N. A. Mehta, N. Hegde, journal version (arXiv:2102.07929v3): "RNM-FTNL",
Algorithm 4, Theorems 8-9. The two are the same algorithm.

Pseudocode (Algorithm 4 of the journal version, its line numbers)::

    1: input: action set [K], privacy parameter eps
    2: epoch 0 = round 1: play action 1, observe X(1); J <- argmax_j (X_j(1) + Lap_j(1/eps));
       s <- 1; Phi_j <- 0 for all j
    3: while rounds remain:
    4:     play J for 2^s rounds (rounds 2^s .. 2^(s+1) - 1); add X_j(t) to Phi_j for ALL j
    5:     J <- argmax_j (Phi_j + Lap_j(1/eps))        # K fresh draws on this epoch's sums only
    6:     s <- s + 1; Phi_j <- 0 for all j
    7: end while

Privacy claim (Theorem 6 / Theorem 8): eps-DP for the whole action sequence when one whole reward
vector may be replaced (relation ROW). The proof composes nothing: a change in epoch s moves only
that epoch's sums, hence only J for epoch s + 1, and it cites Dwork and Roth's Claim 3.9 (RNM with
Lap(1/eps) is eps-DP). That claim is for monotone neighbours; here the K sums can move by +-1 in
opposite directions, and RNM with Lap(1/eps) is then only 2 eps-DP (docs/errata.md#rnm-laplace). Counterexample (K = 5, eps = 1, epoch 0): X(1) = (1,0,0,0,0) vs (0,1,1,1,1), event "action
1 at round 2", probabilities 0.43566 vs 0.07503, privacy loss 1.759 > 1. Variant ``paper`` is
therefore claimed eps-DP but proven 2 eps-DP; variant ``corrected`` (the default) uses Lap(2/eps),
which the same hazard-rate argument makes eps-DP (Wu & Wang, Sec. 3.1).

Regret (Theorem 7 / Theorem 9): at most
sum_{k: J_k nonempty} 256 (1 + ln |J_k|) / min(Delta_(k), eps) (+1), with the brackets J_k of
gaps in [2^(k-1) Delta_min, 2^k Delta_min); the corrected variant satisfies it with eps / 2.

Exact law: :meth:`RNMFTNL.trajectory_model` gives the exact law of the actions given a fixed
table (epoch-0 action 1 with probability 1, then one Laplace RNM per completed epoch).

Deviations:
1. Default variant ``corrected``: Lap(2/eps) instead of Lap(1/eps) (docs/errata.md#rnm-laplace); the printed
   scale is variant ``paper``.
2. Epoch 0 plays action 1 (index 0), following Algorithm 2/4, not the Sec. 5.1 text (docs/errata.md#hhm-epoch0,
   docs/errata.md#hj-epoch0-action).
3. Ties in the argmax have probability 0; the lowest index wins (docs/errata.md#hj-ties).
"""

from __future__ import annotations

import numpy as np

from ..declarations import KnownPairs, TablePair
from ..policy import PolicyBase
from ..privacy import Guarantee, PrivacyClaim, Variant
from ..report_noisy_max import EpochRNM, ends_epoch, noisy_argmax

__all__ = ["RNMFTNL"]

_SOURCE = "Hu, Huang & Mehta (arXiv:2102.07929), Theorem 6; journal version (v3), Theorem 8"



def first_row_swap(K: int, T: int) -> list[TablePair]:
    """The worked worst case of docs/errata.md#rnm-laplace, shared with the naive FTNL: X(1) = e_1
    vs 1 - e_1 at epoch 0 on a table of halves (loss 1.759 at K = 5 for Lap(1/eps))."""
    X = np.full((T, K), 0.5)
    e0 = np.eye(K)[0]
    X[0], Y = e0, X.copy()
    Y[0] = 1 - e0
    return [TablePair(X, Y, 1, "docs/errata.md#rnm-laplace: round 1 e_1 vs 1 - e_1")]


class RNMFTNL(PolicyBase):
    """FTNL / RNM-FTNL of Hu et al., batch-first."""

    name = "rnm-ftnl"
    title = "FTNL / RNM-FTNL"
    paper = "Hu, Huang & Mehta (arXiv:2102.07929), Alg. 2-3; journal (v3) Alg. 4"
    feedback = "full"
    variants = (
        Variant("paper", "RNM noise Lap(1/eps) as printed; 2 eps-DP under vector replacement"),
        Variant("corrected", "RNM noise Lap(2/eps): eps-DP under vector replacement"),
    )
    default_variant = "corrected"

    kernel = "fullinfo"
    known_pairs = KnownPairs(build=first_row_swap, arms=5,
                             source="docs/errata.md#rnm-laplace")
    release_structure = "data-independent: one release per doubling epoch"

    def __init__(self, K: int, *, epsilon: float, runs: int = 1, rng, variant: str | None = None,
                 tie_break: str = "first") -> None:
        super().__init__(K, runs=runs, rng=rng, epsilon=epsilon, variant=variant,
                         tie_break=tie_break)
        self.noise_scale = (1.0 if self.variant == "paper" else 2.0) / self.epsilon
        self.Phi = np.zeros((self.runs, self.K))          # Phi_j: this epoch's reward sums (l.4)
        self.J = np.zeros(self.runs, dtype=np.int64)      # J: the action of the current epoch

    @property
    def claim(self) -> PrivacyClaim:
        claimed = Guarantee(self.epsilon)
        if self.variant == "corrected":
            return PrivacyClaim(claimed, claimed, "holds", _SOURCE,
                                "RNM with Lap(2/eps) on sums of l_inf-sensitivity 1; epochs use "
                                "disjoint data")
        return PrivacyClaim(claimed, Guarantee(2 * self.epsilon), "false", _SOURCE,
                            "RNM with Lap(1/eps) is eps-DP only for monotone neighbours; replacing "
                            "a whole reward vector moves sums in opposite directions: K = 5, "
                            "eps = 1, epoch 0 loses 1.759 (docs/errata.md#rnm-laplace)")

    def trajectory_model(self) -> EpochRNM:
        """The exact law of this algorithm's actions given a fixed table."""
        first = np.zeros(self.K)
        first[0] = 1.0
        return EpochRNM(self.K, first, "laplace", self.noise_scale)

    # --8<-- [start:act-observe]
    def act(self, t: int) -> np.ndarray:
        return self.J.copy()                                                # [Alg.4 l.2, l.4]

    def observe(self, t: int, actions: np.ndarray, feedback: np.ndarray) -> None:
        self.Phi += self.check_observation(t, actions, feedback)           # [Alg.4 l.4]
        if ends_epoch(t):
            self.J = noisy_argmax(self.rng, self.Phi, "laplace", self.noise_scale)  # [Alg.4 l.5]
            self.Phi[:] = 0.0                                               # [Alg.4 l.6]
    # --8<-- [end:act-observe]
