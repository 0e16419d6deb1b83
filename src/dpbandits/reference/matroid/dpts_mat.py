"""DPTS-MAT: differentially private Thompson sampling for matroid bandits (Gaussian posteriors).

Citation: K. Chandak, B. Hu, N. Hegde. *Differentially Private Algorithms for Efficient Online
Matroid Optimization.* Preprint, 2023 (also Chandak's MSc thesis, University of Alberta, 2023);
no arXiv id is printed. Algorithm 3 (misspelt DPST-MAT and DPIS-MAT in places, docs/errata.md#chh-names),
Theorems 3 and 4.

Pseudocode (Algorithm 3, the paper's line numbers; K = rank, eps0 = eps / K)::

     2: observe w_0(e) for ALL e; T_e <- 1; s_e <- 0; w~_e <- w_0(e) + Lap(1/eps0); buffer_e <- {}
     3: for t = 1, 2, ...:
     4-5:   w'_e(t) <- w~_e + 3 ln(K t) / (eps0 T_e)                     for all e
     6:     theta_e(t) ~ Normal(mean w'_e(t), variance 1 / T_e)          independently for all e
     8:     A^t <- Greedy(theta(t))                                       # Algorithm 1
     9:     play A^t
    10:     observe w_t(e) and add it to buffer_e for e in A^t
    11:     B^t <- {e in A^t : |buffer_e| = 2^(s_e + 1)}
    12-13:  for e in B^t: T_e <- 2^(s_e + 1); w~_e <- (sum(buffer_e) + Lap(1/eps0)) / T_e
    14:     s_e <- s_e + 1; buffer_e <- {}

Privacy claim (Theorem 3): eps-DP under the replacement of one weight vector (relation ROW), by
Theorem 1's argument: the observations are processed exactly as in Algorithm 2, and lines 4-9
(boost, Gaussian draws from data-independent randomness, greedy) are post-processing. The same
round-0 gap applies (docs/errata.md#chh-round0): variant ``paper`` is only L' eps / K-DP for rows 0..n
(L' = non-loop base arms) and its claim is false when L' > K; variant ``corrected`` (default)
uses Lap(L/eps) at round 0 and is eps-DP for rows 0..n. See
:func:`~.common.round_zero_claim`.

Regret (Theorem 4, O-only): Theorem 2's bound plus sum_{k: Delta_{min,k} > 0}
O(ln(Kn) / Delta_{min,k}); Thm 4 makes the V-term explicit with c = 72.

Lines l.2 and l.10-14 (the private mean estimator DPUCB-MAT and DPTS-MAT share, Sec. 3-4) are implemented once, in ``PrivateMatroidPolicy.observe_private_means`` (``common.py``), with the variants and the claim.
Line 2 there does not read the round-0 weight of a loop (deviation 6).

Deviations:
1. Default variant ``corrected``: round-0 noise Lap(L/eps) instead of Lap(K/eps), and while
   T_e = 1 the boost uses eps / L in place of eps0 (docs/errata.md#chh-round0; post-processing).
2. Round 0 is a free full-information observation supplied by the engine (docs/errata.md#chh-round0-full-info).
3. theta is drawn as w' + Normal(0, 1) / sqrt(T_e) from one stream, all L arms of all runs each
   round in row-major (run, arm) order (the paper is silent on draw order); variance 1 / T_e
   (docs/errata.md#chh-gaussian-variance).
4. Greedy ties by ascending base-arm index (probability 0 here) or at random
   (``tie_break="random"``); the basis is returned in insertion order.
5. Buffers kept as (count, sum); weights must lie in [0, 1] (docs/errata.md#chh-reward-range); no eps = infinity.
6. A loop's w_0(e) is not read: its w~_e is its round-0 noise alone. Greedy never picks a loop,
   so the bases played are the printed algorithm's for every w_0 and noise, with the same draws
   (``common.py``).
"""

from __future__ import annotations

import math

import numpy as np

from .common import PrivateMatroidPolicy, round_zero_variants

__all__ = ["DPTSMAT"]


class DPTSMAT(PrivateMatroidPolicy):
    """DPTS-MAT of Chandak, Hu and Hegde, batch-first."""

    name = "dpts-mat"
    title = "DPTS-MAT"
    paper = "Chandak, Hu & Hegde (2023), Alg. 3"
    source = "Chandak, Hu & Hegde (2023), Theorem 3"
    variants = round_zero_variants("boost with")

    # --8<-- [start:boost-sample-act]

    kernel = "matroid"
    def boosted_mean(self, t: int) -> np.ndarray:
        """w'_e(t), the posterior mean, for every run and base arm (Alg. 3 l.5)."""
        return self.w_tilde + (3.0 * math.log(self.rank * t)) * self.inv_eps_T   # [Alg.3 l.4-5]

    def act(self, t: int) -> np.ndarray:
        self.require_round_zero()
        w_prime = self.boosted_mean(t)
        theta = w_prime + self.inv_sqrt_T * self.rng.standard_normal(w_prime.shape)  # [Alg.3 l.6]
        return self.basis(theta)                                                 # [Alg.3 l.8-9]

    def observe(self, t: int, actions: np.ndarray | None, feedback: np.ndarray) -> None:
        self.observe_private_means(t, actions, feedback)   # [Alg.3 l.2, l.10-14]
    # --8<-- [end:boost-sample-act]
