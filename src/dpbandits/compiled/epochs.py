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

__all__ = ["release_epoch", "lazy_epoch_pull"]


# [epoch-release]
@njit(cache=True, _nrt=False, inline="always")
def release_epoch(Phi, cell, scale, rng, length=1.0):
    """The epoch of ``cell`` (an index into ``Phi``: ``(run, arm)`` or a run) is over: return its
    sum ``Phi[cell]`` (its mean ``Phi[cell] / length`` when ``length`` is given) plus one fresh
    Lap(``scale``) draw, and start its next epoch at zero."""
    released = Phi[cell] / length + rng.laplace(0.0, scale)
    Phi[cell] = 0.0
    return released


@njit(cache=True, _nrt=False, inline="always")
def lazy_epoch_pull(state, r, j, x, scale):
    """One pull of arm ``j`` in run ``r`` with reward ``x`` on Hu, Huang and Mehta's lazy
    epochs (the reference's :func:`~dpbandits.reference.mechanisms.lazy_epoch_state`): count
    it in N_j and add it to Phi_j; when the epoch's 2^(r_j + 1) pulls are in, release its mean
    into mu~_j with one fresh draw, set O_j to its size and start the next epoch. Returns O_j
    when an epoch ended, else 0.0 (the same operations in the same order as the reference)."""
    state.N[r, j] += 1
    state.Phi[r, j] += x
    if state.N[r, j] != 1 << (state.r[r, j] + 1):
        return 0.0
    O = float(1 << (state.r[r, j] + 1))
    state.O[r, j] = O
    state.mu_tilde[r, j] = release_epoch(state.Phi, (r, j), scale, state.rng) / O
    state.r[r, j] += 1
    state.N[r, j] = 0
    return O
