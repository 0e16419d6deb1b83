"""CTS with Gaussian priors, adapted to matroid bandits: the non-private Thompson baseline.

Citation: S. Wang, W. Chen. *Thompson Sampling for Combinatorial Semi-Bandits.* ICML 2018 (CTS,
with Beta priors); Gaussian Thompson sampling as in S. Agrawal, N. Goyal, *Near-Optimal Regret
Bounds for Thompson Sampling*, JACM 64(5), 2017. Chandak, Hu & Hegde (2023) compare DPTS-MAT with
"the non-private CTS ... with Gaussian priors", "adapted to the matroid bandit setting", and give
no pseudocode; we take the reading below (DPTS-MAT without noise, boost
or laziness) and asks for its alternatives as options.

Pseudocode (our reading, form ``round0``; tags use these line numbers)::

    1: observe w_0 (all L coordinates); S_e <- w_0(e); N_e <- 1
    2: for t = 1, 2, ...:
    3:     theta_e(t) ~ Normal(mean S_e / N_e, variance 1 / N_e)   independently for all e
    4:     A^t <- Greedy(theta(t))                                  # Algorithm 1
    5:     observe w_t(e) for e in A^t; S_e <- S_e + w_t(e); N_e <- N_e + 1

Forms (``form=``):

``round0`` (default)
    as above: the round-0 row is the prior, the posterior uses every observation.
``agrawal-goyal``
    Agrawal and Goyal's Gaussian TS: prior Normal(0, 1), no round 0; theta_e ~
    Normal(S_e / (N_e + 1), 1 / (N_e + 1)).
``lazy``
    DPTS-MAT's epochs with eps = infinity (no noise, no boost): theta_e ~ Normal(mean of the
    last completed epoch, 1 / T_e), epochs of 1 (round 0), 2, 4, 8, ... observations.

Privacy: none; a non-private baseline.

Regret: Wang and Chen's CTS has O(L ln(n) / Delta) + O~(L / Delta^4) on matroids (with Beta
priors; Chandak et al., Table 1); no bound is stated for this Gaussian adaptation.

Deviations:
1. The form of the baseline is not given by the paper (docs/errata.md#chh-unreported); ``round0`` is the
   recommended reading, the others are options.
2. theta is drawn as mean + Normal(0, 1) * sd, all L arms of all runs each round, row-major.
3. Greedy ties by ascending base-arm index (probability 0 here) or at random.
"""

from __future__ import annotations

import numpy as np

from ..privacy import PrivacyClaim, Variant
from .common import MatroidPolicy
from .matroids import Matroid

__all__ = ["CTS", "FORMS"]

FORMS = ("round0", "agrawal-goyal", "lazy")
"""The readings of the Gaussian CTS baseline (Sec. 5)."""


class CTS(MatroidPolicy):
    """Gaussian-prior combinatorial Thompson sampling on a matroid, batch-first; non-private."""

    name = "cts"
    title = "CTS (Gaussian priors)"
    paper = "Wang & Chen (ICML 2018), adapted with Gaussian priors; baseline of Chandak, Hu & Hegde"
    private = False
    variants = (Variant("paper", "Gaussian TS with greedy oracle (Sec. 5 reading)"),)
    default_variant = "paper"

    kernel = "matroid"

    def __init__(self, K: int, *, runs: int = 1, rng, variant: str | None = None,
                 matroid: Matroid | None = None, tie_break: str = "first",
                 form: str = "round0") -> None:
        super().__init__(K, runs=runs, rng=rng, variant=variant, matroid=matroid,
                         tie_break=tie_break)
        self.form = form
        self.observes_round_zero = form != "agrawal-goyal"
        shape = (self.runs, self.L)
        self.S = np.zeros(shape)   # S_e: sum of the observations in use
        self.N = np.ones(shape) if self.observes_round_zero else np.zeros(shape)  # N_e (T_e if lazy)
        if form == "lazy":
            self.s_e = np.zeros(shape, np.int64)       # completed doublings
            self.n_buffer = np.zeros(shape, np.int64)  # observations of the current epoch
            self.sum_buffer = np.zeros(shape)

    @property
    def claim(self) -> PrivacyClaim:
        return PrivacyClaim(None, None, "non-private", "Wang & Chen (2018); Agrawal & Goyal (2017)",
                            f"non-private baseline (Gaussian Thompson sampling, form {self.form!r})")

    # --8<-- [start:posterior-act-observe]
    def posterior(self) -> tuple[np.ndarray, np.ndarray]:
        """Mean and standard deviation of every theta_e, each of shape (runs, L)."""
        if self.form == "agrawal-goyal":
            return self.S / (self.N + 1.0), 1.0 / np.sqrt(self.N + 1.0)
        return self.S / self.N, 1.0 / np.sqrt(self.N)

    def act(self, t: int) -> np.ndarray:
        self.require_round_zero()
        mean, sd = self.posterior()
        theta = mean + sd * self.rng.standard_normal(mean.shape)                 # [CTS l.3]
        return self.basis(theta)                                                 # [CTS l.4]

    def observe(self, t: int, actions: np.ndarray | None, feedback: np.ndarray) -> None:
        if t == 0:
            self.S = np.array(self.round_zero(t, actions, feedback), order="C")  # [CTS l.1]
            return
        x = self.semi_feedback(t, actions, feedback).ravel()
        played = self.cells(actions)                   # state arrays are C-contiguous: flat views
        S, N = self.S.reshape(-1), self.N.reshape(-1)
        if self.form != "lazy":
            S[played] += x                                                       # [CTS l.5]
            N[played] += 1.0
            return
    # --8<-- [end:posterior-act-observe]
        n_buffer, sum_buffer = self.n_buffer.reshape(-1), self.sum_buffer.reshape(-1)
        n_buffer[played] += 1
        sum_buffer[played] += x
        full = n_buffer[played] == np.left_shift(2, self.s_e.reshape(-1)[played])
        if full.any():
            done = played[full]
            N[done] = n_buffer[done]       # T_e <- 2^(s_e + 1): the epoch replaces the
            S[done] = sum_buffer[done]     # previous one (no noise)
            self.s_e.reshape(-1)[done] += 1
            n_buffer[done] = 0
            sum_buffer[done] = 0.0
