"""OMM (Kveton et al., UAI 2014, Algorithm 2) for one run, as a semi-bandit candidate.

Optimistic Matroid Maximization, the non-private baseline of Chandak, Hu & Hegde (Sec. 5),
written from docs/algorithms/omm.md with nothing from dpbandits but the matroid it is given:

    1: observe w_0 (all L coordinates); w^_e <- w_0(e); N_e <- 1 for all e
    3: U_t(e) <- w^_e + sqrt(alpha ln(t) / N_e)          (alpha = 2: UCB1's radius)
    4: A^t <- Greedy(U_t): base arms by decreasing U_t, ties to the lower index, each kept
       when it keeps the set independent
    5: observe w_t(e) for e in A^t
    6: w^_e <- mean of its N_e + 1 observations; N_e <- N_e + 1   for e in A^t

The protocol (dpbandits.audit.adapters.SemiPolicyMechanism): the class is built once per run;
a parameter named ``matroid`` gets the matroid whose bases it must play. ``observe(0, None,
w0)`` brings the free round-0 row; then every round ``act(t)`` returns a basis and
``observe(t, arms, rewards)`` brings the weights of the played base arms, ``arms`` sorted and
``rewards`` in that order.

    dpbandits validate --python examples/validate/omm.py:OMM --against omm
    dpbandits validate --python examples/validate/omm.py:WrongRadius --against omm

``WrongRadius`` is the same algorithm with alpha = 0.5 in the radius, the kind of slip
``validate`` is there to catch.
"""

import math


class OMM:
    """One run of OMM on ``matroid`` (its ``L`` base arms, ``rank`` and ``is_independent``)."""

    def __init__(self, matroid, alpha=2.0):
        self.matroid = matroid
        self.alpha = alpha
        self.S = [0.0] * matroid.L      # sum of every observation of e, round 0 included
        self.N = [1] * matroid.L        # their number

    def act(self, t):
        L = self.matroid.L
        U = [self.S[e] / self.N[e] + math.sqrt(self.alpha * math.log(t) / self.N[e])
             for e in range(L)]                                                  # line 3
        basis = []
        for e in sorted(range(L), key=lambda e: (-U[e], e)):                     # line 4
            if self.matroid.is_independent(basis + [e]):
                basis.append(e)
                if len(basis) == self.matroid.rank:
                    break
        return basis

    def observe(self, t, arms, rewards):
        if t == 0:
            self.S = [float(w) for w in rewards]                                 # line 1
            return
        for e, w in zip(arms, rewards):                                          # lines 5-6
            self.S[e] += float(w)
            self.N[e] += 1


class WrongRadius(OMM):
    """OMM with alpha = 0.5 instead of UCB1's 2: explores too little."""

    def __init__(self, matroid):
        super().__init__(matroid, alpha=0.5)
