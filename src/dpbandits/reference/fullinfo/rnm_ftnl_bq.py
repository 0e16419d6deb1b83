"""RNM-FTNL(B, Q) of Wu and Wang: Bernoulli resampling and three report-noisy-max noises.

Citation: R. Wu, Y.-X. Wang. *Improved Regret in Stochastic Decision-Theoretic Online Learning
under Differential Privacy* (v1 titled *New Rates in ...*), arXiv:2502.10997 (2025), Algorithm 1,
Theorems 2 and 4, Corollaries 1 and 2.

Pseudocode (Algorithm 1, its line numbers; the paper writes losses, this library rewards)::

    1:  specify B in {0, 1} (resample?) and the noise Q_eps
    2:  input: action set [K], privacy parameter eps
    3:  draw J_0 uniformly from [K]
    4:  for r = 1, ..., ceil(log2(T - 1)) + 1:               # see deviation 2
    5:      G_r <- 0
    6:      for t = 2^(r-1), ..., 2^r - 1:
    7:          play I_t <- J_(r-1)
    8:          receive l(t)
    9-13:       if B = 0: l~(t) <- l(t) else l~_j(t) ~ Bernoulli(l_j(t)) independently
    14:         G_r <- G_r + l~(t)
    16:     J_r <- argmax_j (-G_(r,j) + Q_(r,j)),  Q_(r,j) ~ Q_eps i.i.d.

In reward form (x = 1 - l, Sec. 2) line 16 is argmax_j (S_(r,j) + Q_(r,j)) with S
the epoch's reward sums, and line 12 is x~_j = 1{U_j >= 1 - x_j} with U_j uniform, which is
pathwise the loss form's 1 - 1{U_j < l_j}.

Noises (Table 2): ``Q="laplace"`` Lap(c/eps), ``"exponential"`` Exp(c/eps) (scale),
``"gumbel"`` max-type Gumbel(c/eps); the default is the exponential noise, the one that both
main results (Theorems 2 and 4) use and whose printed scale is wrong. Variant ``paper`` prints
c = 2, 1, 2; variant
``corrected`` (the default) uses c = 2 for all three.

Privacy claim (Theorems 2 and 4): eps-DP under replacement of one loss vector (relation ROW), by
disjoint epochs and "each J_r is eps-DP" (Dwork et al. 2014; Qiao et al. 2021). True for
Lap(2/eps) and Gumbel(2/eps). False for Exp(1/eps) (docs/errata.md#ww-exponential): sums (2, 0) vs (1, 1) at
epoch 2 give P[J = 1] = e^(-2 eps)/2 vs 1/2, a loss of exactly 2 eps; Exp(2/eps) is eps-DP. With
B = 1 the resampling bits are coupled through shared uniforms and the mixture of eps-DP pairs is
eps-DP.

Regret: Theorem 2 (B = 1): O(log K / Delta_min + log^2 K / eps) for all T; Theorem 4 (B = 0,
deterministic rewards, Exp or Gumbel): O(log K / eps).

Exact law: :meth:`RNMFTNLBQ.trajectory_model` gives the exact law of the actions given a fixed
table (uniform J_0, then one RNM per completed epoch; for B = 1 and fractional rewards the
resampled sums are enumerated).

Deviations:
1. Default variant ``corrected``: Exp(2/eps) instead of Exp(1/eps) (docs/errata.md#ww-exponential). For Laplace and
   Gumbel the two variants coincide.
2. Epochs are played while 2^(r-1) <= T and the last is truncated at T, so floor(log2 T) + 1
   epochs are played; the printed loop bound ceil(log2(T - 1)) + 1 is undefined at T = 1 and too
   short at T = 2 (docs/errata.md#ww-loop-bound; see ``report_noisy_max.literal_epoch_count``). The algorithm never
   needs T.
3. eps = infinity (no noise) is not offered: epsilon must be finite and positive.
"""

from __future__ import annotations

import numpy as np

from ..declarations import KnownPairs, TablePair
from ..policy import PolicyBase
from ..privacy import Guarantee, PrivacyClaim, Variant
from ..noise import resample
from ..report_noisy_max import NOISES, EpochRNM, ends_epoch, noisy_argmax

__all__ = ["RNMFTNLBQ", "SCALE_MULTIPLIERS"]

_SOURCE = "Wu & Wang (arXiv:2502.10997), Theorems 2 and 4, Sec. 3.1"

# c in the noise scale c / eps, by variant and noise (Table 2).
SCALE_MULTIPLIERS = {
    "paper": {"laplace": 2.0, "exponential": 1.0, "gumbel": 2.0},
    "corrected": {"laplace": 2.0, "exponential": 2.0, "gumbel": 2.0},
}



def second_epoch_losses(K: int, T: int) -> list[TablePair]:
    """The worked worst case of docs/errata.md#ww-exponential: losses (1,0),(1,0) vs
    (1,0),(0,1) in rounds 2-3 (exactly 2 eps for Exp(1/eps))."""
    X = np.full((T, K), 0.5)
    bad = np.eye(K)[1]                  # reward (0, 1, ...): loss (1, 0, ...) on action 0
    X[1] = bad
    X[2] = bad
    Y = X.copy()
    Y[2] = np.eye(K)[0]
    return [TablePair(X, Y, 3, "docs/errata.md#ww-exponential: rounds 2-3 losses (1,0),(1,0) vs "
                               "(1,0),(0,1)")]


class RNMFTNLBQ(PolicyBase):
    """Wu and Wang's RNM-FTNL(B, Q), batch-first. ``B`` in {0, 1}; ``Q`` one of NOISES."""

    name = "rnm-ftnl-bq"
    title = "RNM-FTNL(B, Q)"
    paper = "Wu & Wang (arXiv:2502.10997), Alg. 1"
    feedback = "full"
    variants = (
        Variant("paper", "noise scales as printed: Lap(2/eps), Exp(1/eps), Gumbel(2/eps); "
                         "Exp(1/eps) is only 2 eps-DP"),
        Variant("corrected", "Lap(2/eps), Exp(2/eps), Gumbel(2/eps): all eps-DP"),
    )
    default_variant = "corrected"

    kernel = "fullinfo"
    known_pairs = KnownPairs(build=second_epoch_losses, arms=2,
                             source="docs/errata.md#ww-exponential")
    release_structure = "data-independent: one release per doubling epoch"

    def __init__(self, K: int, *, epsilon: float, runs: int = 1, rng, variant: str | None = None,
                 B: int = 1, Q: str = "exponential", tie_break: str = "first") -> None:
        super().__init__(K, runs=runs, rng=rng, epsilon=epsilon, variant=variant,
                         tie_break=tie_break)
        self.B, self.Q = int(B), Q
        self.noise_scale = SCALE_MULTIPLIERS[self.variant][Q] / self.epsilon
        self.S = np.zeros((self.runs, self.K))                  # S_r: epoch reward sums (l.14)
        self.J = self.rng.integers(0, self.K, self.runs)        # J_0 uniform (l.3)

    @property
    def claim(self) -> PrivacyClaim:
        claimed = Guarantee(self.epsilon)
        if self.variant == "paper" and self.Q == "exponential":
            return PrivacyClaim(claimed, Guarantee(2 * self.epsilon), "false", _SOURCE,
                                "RNM with Exp(1/eps) under vector replacement: sums (2,0) vs (1,1) "
                                "give P[J=1] = exp(-2 eps)/2 vs 1/2, a loss of exactly 2 eps "
                                "(docs/errata.md#ww-exponential)")
        return PrivacyClaim(claimed, claimed, "holds", _SOURCE,
                            f"RNM with {self.Q} noise at scale 2/eps has hazard rate <= eps/2, so "
                            "one epoch is eps-DP; epochs use disjoint data")

    def trajectory_model(self) -> EpochRNM:
        """The exact law of this algorithm's actions given a fixed table."""
        return EpochRNM(self.K, np.full(self.K, 1.0 / self.K), self.Q, self.noise_scale,
                        resample=self.B == 1)

    # --8<-- [start:act-observe]
    def act(self, t: int) -> np.ndarray:
        return self.J.copy()                                                # [Alg.1 l.7]

    def observe(self, t: int, actions: np.ndarray, feedback: np.ndarray) -> None:
        x = self.check_observation(t, actions, feedback)                   # [Alg.1 l.8]
        if self.B == 1:
            x = resample(self.rng, x)                                       # [Alg.1 l.12]
        self.S += x                                                         # [Alg.1 l.14]
        if ends_epoch(t):
            self.J = noisy_argmax(self.rng, self.S, self.Q, self.noise_scale)   # [Alg.1 l.16]
            self.S[:] = 0.0                                                 # [Alg.1 l.5]
    # --8<-- [end:act-observe]
