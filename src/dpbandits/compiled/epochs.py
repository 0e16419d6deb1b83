"""The compiled lazy-epoch release; mirrors :func:`dpbandits.reference.mechanisms.release_epoch`.

Every kernel whose algorithm sums its observations over epochs and releases each epoch's sum
once, with one fresh Laplace draw, at the epoch's end calls :func:`release_epoch` there:
Anytime-Lazy-UCB (Alg. 1 l.7), Lazy-DP-TS (Alg. 3 l.8), Hybrid-UCB's arrays (Alg. 4 l.7),
DPUCB-MAT and DPTS-MAT (Alg. 2 l.12, Alg. 3 l.13), DP-SE (l.7) and AdaP-KLUCB (Lemma 1). The
reference's function says why the release is private; this one releases one cell, where the
reference releases a batch of cells: a kernel loops over the runs of a round in order, so the
draws come in the order of the reference's batch.

**Bit-identity.** ``Phi[cell] / length + rng.laplace(0.0, scale)`` is the reference's
``release(Phi[ends] / length, laplace(rng, scale, n))`` for one cell: one draw of numba's port of
NumPy's Laplace sampler, one division and one addition in the same order. The default
``length = 1.0`` releases the sum itself (``x / 1.0`` is ``x`` exactly).

**Speed.** Inlined into the kernels' loops (``inline="always"``) and compiled without reference
counting (``_nrt=False``), as the counters are: it allocates nothing.
"""

from __future__ import annotations

from numba import njit

__all__ = ["release_epoch"]


# [epoch-release]
@njit(cache=True, _nrt=False, inline="always")
def release_epoch(Phi, cell, scale, rng, length=1.0):
    """The epoch of ``cell`` (an index into ``Phi``: ``(run, arm)`` or a run) is over: return its
    sum ``Phi[cell]`` (its mean ``Phi[cell] / length`` when ``length`` is given) plus one fresh
    Lap(``scale``) draw, and start its next epoch at zero."""
    released = Phi[cell] / length + rng.laplace(0.0, scale)
    Phi[cell] = 0.0
    return released
