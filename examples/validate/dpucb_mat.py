"""DPUCB-MAT (Chandak, Hu & Hegde, Algorithm 2), variant ``corrected``, for one run.

Written from docs/algorithms/dpucb-mat.md in plain numpy, with nothing from dpbandits but the
matroid it is given and the run's generator. K is the matroid's rank, L its number of base arms,
eps0 = eps / K:

     2: observe w_0(e) for all e; T_e <- 1; s_e <- 0; buffer_e <- {};
        w~_e <- w_0(e) + Lap(L/eps)               (corrected: Lap(L/eps) in place of Lap(1/eps0))
   4-6: U_t(e) <- w~_e + sqrt(3 ln(K t) / T_e) + 3 ln(K t) / (eps_e T_e),
        eps_e = eps / L while T_e = 1 (corrected), eps0 afterwards
   7-8: A^t <- Greedy(U_t) (Algorithm 1): base arms by decreasing U_t, ties to the lower index,
        each kept when it keeps the set independent; play A^t
     9: observe w_t(e) and add it to buffer_e, for e in A^t
 10-12: for e in A^t with |buffer_e| = 2^(s_e + 1): T_e <- 2^(s_e + 1);
        w~_e <- (sum(buffer_e) + Lap(1/eps0)) / T_e
    13: s_e <- s_e + 1; buffer_e <- {}

The buffer of an arm is kept as its count and sum, which is all line 12 reads. The protocol is
that of examples/validate/omm.py: ``observe(0, None, w0)`` brings the free round-0 row, then
``act(t)`` returns a basis and ``observe(t, arms, rewards)`` the weights of its base arms.

    dpbandits validate --python examples/validate/dpucb_mat.py:DPUCBMat --against dpucb-mat \\
        --variant corrected --epsilon 1
"""

import math

import numpy as np


class DPUCBMat:
    """One run of DPUCB-MAT (variant ``corrected``) on ``matroid`` at privacy level ``epsilon``."""

    def __init__(self, matroid, epsilon, rng):
        self.matroid, self.rng = matroid, rng
        self.L, self.K = matroid.L, matroid.rank
        self.eps0 = epsilon / self.K                       # eps0 = eps / K
        self.eps_initial = epsilon / self.L                # round-0 budget (corrected)
        self.T = np.ones(self.L)                           # T_e
        self.s = np.zeros(self.L, dtype=np.int64)          # s_e
        self.w = np.zeros(self.L)                          # w~_e
        self.count = np.zeros(self.L, dtype=np.int64)      # |buffer_e|
        self.total = np.zeros(self.L)                      # sum(buffer_e)
        self.eps_index = np.full(self.L, self.eps_initial)  # eps_e in the privacy term

    def act(self, t):
        log_Kt = math.log(self.K * t)
        U = (self.w + np.sqrt(3.0 * log_Kt / self.T)
             + 3.0 * log_Kt / (self.eps_index * self.T))                        # lines 4-6
        basis = []
        for e in sorted(range(self.L), key=lambda e: (-U[e], e)):               # lines 7-8
            if self.matroid.is_independent(basis + [e]):
                basis.append(e)
                if len(basis) == self.K:
                    break
        return basis

    def observe(self, t, arms, rewards):
        if t == 0:                                                              # line 2
            self.w = np.asarray(rewards, dtype=float) + self.rng.laplace(
                0.0, 1.0 / self.eps_initial, self.L)
            return
        for e, x in zip(arms, rewards):
            self.count[e] += 1                                                  # line 9
            self.total[e] += float(x)
            if self.count[e] == 2 ** (self.s[e] + 1):                           # line 10
                T = 2.0 ** (self.s[e] + 1)                                      # lines 11-12
                self.T[e] = T
                self.w[e] = (self.total[e] + self.rng.laplace(0.0, 1.0 / self.eps0)) / T
                self.eps_index[e] = self.eps0
                self.s[e] += 1                                                  # line 13
                self.count[e], self.total[e] = 0, 0.0
