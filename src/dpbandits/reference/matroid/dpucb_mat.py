"""DPUCB-MAT: differentially private UCB for matroid bandits, lazy and forgetful per base arm.

Citation: K. Chandak, B. Hu, N. Hegde. *Differentially Private Algorithms for Efficient Online
Matroid Optimization.* Preprint, 2023 (also Chandak's MSc thesis, University of Alberta, 2023);
no arXiv id is printed. Algorithm 2, Theorems 1 and 2.

Pseudocode (Algorithm 2, the paper's line numbers; K = rank, eps0 = eps / K)::

     2: observe w_0(e) for ALL e; T_e <- 1; s_e <- 0; w~_e <- w_0(e) + Lap(1/eps0); buffer_e <- {}
     3: for t = 1, 2, ...:
     4-6:   U_t(e) <- w~_e + sqrt(3 ln(K t) / T_e) + 3 ln(K t) / (eps0 T_e)     for all e
     7:     A^t <- Greedy(U_t)                                      # Algorithm 1
     8:     play A^t
     9:     observe w_t(e) and add it to buffer_e for e in A^t
    10:     B^t <- {e in A^t : |buffer_e| = 2^(s_e + 1)}
    11-12:  for e in B^t: T_e <- 2^(s_e + 1); w~_e <- (sum(buffer_e) + Lap(1/eps0)) / T_e
    13:     s_e <- s_e + 1; buffer_e <- {}

Privacy claim (Theorem 1): eps-DP for the sequence of played bases when one whole weight vector
w_s may be replaced (relation ROW). The proof (only A^s reads w_s; each reward enters one epoch
sum released once with Lap(K/eps); basic composition over K arms) is sound for rows s >= 1 but
does not cover row 0, which line 2 reads in all L coordinates (docs/errata.md#chh-round0). Variant
``paper`` is therefore only L' eps / K-DP for rows 0..n (L' = non-loop base arms; 4 on the
synthetic instance at eps = 2) and the claim is false whenever L' > K: on the synthetic instance
the first decision alone loses 2.243 > 2 (docs/errata.md#chh-round0). Variant ``corrected`` (the default)
adds Lap(L/eps) to the L round-0 values, which makes the row-0 release eps-DP (L1 sensitivity
L); a change in one row never touches another, so the algorithm is eps-DP for rows 0..n.
:func:`~.common.round_zero_claim` returns the claim object.

Regret (Theorem 2, O-only): R_n <= sum_{e not in A*, Delta_{e,min} > 0}
O(ln(Kn) / Delta_{e,min} + min{K, log2(Kn)} ln(Kn) / (eps / K)); Thm 2 derives
the explicit sum_e G_e^(24) + L F_K(n) for the printed algorithm.

Lines l.2 and l.9-13 (the private mean estimator DPUCB-MAT and DPTS-MAT share, Sec. 3-4) are implemented once, in ``PrivateMatroidPolicy.observe_private_means`` (``common.py``), with the variants and the claim.
Line 2 there does not read the round-0 weight of a loop (deviation 6).

Deviations:
1. Default variant ``corrected``: round-0 noise Lap(L/eps) instead of Lap(K/eps), and while
   T_e = 1 the privacy term of U_t(e) uses eps / L in place of eps0, so that the larger initial
   noise cannot starve an arm for n^(1 - 3K/L) rounds (docs/errata.md#chh-round0, its regret caveat; this
   is post-processing). ``paper`` is the printed algorithm.
2. Round 0 is a free full-information observation supplied by the engine
   (``observe(0, None, w0)``), not a played basis and not counted in regret (docs/errata.md#chh-round0-full-info).
3. Greedy ties are broken by ascending base-arm index (docs/errata.md#chh-greedy-ties; probability 0 under Laplace
   noise), or at random with ``tie_break="random"``. The basis is returned in insertion order;
   releasing that order is post-processing.
4. The buffer of each arm is kept as (count, sum), which is all line 12 reads.
5. Weights must lie in [0, 1] (docs/errata.md#chh-reward-range) and are checked; eps = infinity is not offered (for
   large eps the algorithm is near non-private but is not OMM, docs/errata.md#chh-large-eps).
6. A loop's w_0(e) is not read: its w~_e is its round-0 noise alone. Greedy never picks a loop
   (it is spanned by the empty set), so the bases played are the printed algorithm's for every
   w_0 and noise, with the same draws; the row-0 release reads L' values, not L (``common.py``).
"""

from __future__ import annotations

import math

import numpy as np

from .common import PrivateMatroidPolicy, round_zero_variants

__all__ = ["DPUCBMAT"]


class DPUCBMAT(PrivateMatroidPolicy):
    """DPUCB-MAT of Chandak, Hu and Hegde, batch-first."""

    name = "dpucb-mat"
    title = "DPUCB-MAT"
    paper = "Chandak, Hu & Hegde (2023), Alg. 2"
    source = "Chandak, Hu & Hegde (2023), Theorem 1"
    variants = round_zero_variants("privacy term")

    # --8<-- [start:index-act-observe]

    kernel = "matroid"
    def index(self, t: int) -> np.ndarray:
        """U_t(e) for every run and base arm, shape (runs, L) (Alg. 2 l.5, eq. (3))."""
        log_Kt = math.log(self.rank * t)
        return (self.w_tilde + math.sqrt(3.0 * log_Kt) * self.inv_sqrt_T          # [Alg.2 l.4-6]
                + (3.0 * log_Kt) * self.inv_eps_T)

    def act(self, t: int) -> np.ndarray:
        self.require_round_zero()
        return self.basis(self.index(t))                                         # [Alg.2 l.7-8]

    def observe(self, t: int, actions: np.ndarray | None, feedback: np.ndarray) -> None:
        self.observe_private_means(t, actions, feedback)   # [Alg.2 l.2, l.9-13]
    # --8<-- [end:index-act-observe]
