"""Draws that numba's ``np.random.Generator`` does not offer, ported from NumPy's samplers.

Each function consumes the generator's bit stream exactly as the NumPy method it names, so a
kernel that calls it where the reference calls the NumPy method draws the same numbers.
"""

from __future__ import annotations

import math

from numba import njit

__all__ = ["gumbel"]


@njit(cache=True, _nrt=False)
def gumbel(rng, loc, scale):
    """One draw of ``rng.gumbel(loc, scale)`` (max-type Gumbel), as NumPy's ``random_gumbel``.

    NumPy draws ``U = 1 - next_double`` and returns ``loc - scale * log(-log(U))``, rejecting
    ``U == 1`` (numpy/random/src/distributions/distributions.c); ``rng.random()`` is
    ``next_double``, and ``math.log`` is the same C library ``log``.
    """
    while True:
        U = 1.0 - rng.random()
        if U < 1.0:
            return loc - scale * math.log(-math.log(U))
