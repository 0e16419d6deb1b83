"""The reference's argmax of a UCB index with few exact evaluations of the index.

An index such as s_a/n_a + sqrt(2 ln t / n_a) + c_t/n_a costs three divisions and a square root
per arm and round, which is most of a round of a kernel. The kernels of the counter-based UCB
algorithms therefore evaluate, for every arm, a cheap approximation A_a from cached 1/n_a and
sqrt(1/n_a) (multiplications only) and the sum M_a of the magnitudes of its terms. The exact
index I_a (the reference's operations, in its order) and A_a are each within a few rounding
errors (units of 2^-53) of M_a from the real-number index, so |I_a - A_a| <= TOL M_a with
TOL = 1e-12, far above those few units. An arm with A_a + TOL M_a < max_b (A_b - TOL M_b)
therefore has I_a below the maximum of the I_b; the kernel evaluates I_a exactly for the other
arms (the candidates) and puts -inf for the screened ones, so that the argmax, with either
tie-break (the random one draws its K numbers whatever the index), is the reference's. When a
single arm survives (the usual case) it is the argmax whatever its exact index, which is then
not evaluated.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["TOL", "screen"]

TOL = 1e-12
"""Bound on |I_a - A_a| / M_a; the true bound is a few times 2^-53 (about 1e-15)."""


@njit(cache=True, _nrt=False, inline="always")
def screen(approx, magnitude, index, r):
    """Row r of ``index``: -inf for the arms that cannot hold the maximum, A_a for the others.

    Returns how many arms survive; when more than one does, the kernel overwrites their A_a with
    the exact index. An arm is screened out when A_a + TOL M_a < max_b (A_b - TOL M_b).
    """
    floor = -np.inf
    for a in range(approx.size):
        floor = max(floor, approx[a] - TOL * magnitude[a])
    kept = 0
    for a in range(approx.size):
        if approx[a] + TOL * magnitude[a] < floor:
            index[r, a] = -np.inf
        else:
            index[r, a] = approx[a]
            kept += 1
    return kept
