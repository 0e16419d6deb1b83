"""Compiled continual counters; mirrors :mod:`dpbandits.reference.mechanisms` draw for draw.

Chan, Shi and Song, *Private and continual release of statistics* (ICALP 2010; ACM TISSEC 14(3),
2011): the logarithmic mechanism, the binary (tree) mechanism and the hybrid mechanism, as the
reference builds them (:class:`~dpbandits.reference.mechanisms.LogarithmicCounter`,
:class:`~dpbandits.reference.mechanisms.BinaryCounter`,
:class:`~dpbandits.reference.mechanisms.HybridCounter` and
:func:`~dpbandits.reference.mechanisms.binary_step`).

A counter here is a named tuple over the reference counter's own flat arrays (``hybrid_from``,
``binary_from``, ``logarithmic_from``), so inserting into it updates the reference object in
place. ``insert(counter, where, x, rng)`` adds item ``x[q]`` to counter ``where[q]`` (flat
indices, each at most once per call), as the reference's ``insert`` does for one call.

**Bit-identity.** Every counter draws one Laplace variable per item, in the reference's order:

* within one call, in the order of ``where``, as ``rng.laplace(0, scale, size)`` draws a batch;
* the hybrid counter first draws the logarithmic releases of the counters that reached a power
  of two, then the binary nodes of all the others (two passes over ``where``), because the
  reference draws those two batches one after the other.

The p-sums are added up as NumPy adds them: ``(alpha * lower).sum(axis=1)`` and
``(alpha_hat * set_bits).sum(axis=1)`` reduce each row of width L (the counter's number of
levels) by NumPy's pairwise summation: left to right for L < 8, eight accumulators for
8 <= L <= 128 (the hybrid counter has L = 40), which group the terms differently from a
left-to-right sum once 4 or more of them are nonzero.
:func:`dpbandits.compiled.sums.pairwise_sum` reproduces that grouping; the masked terms are
zeros, and adding a zero changes no nonzero sum, so it skips them. The releases are therefore bit-identical to the
reference's.

**Speed.** The functions allocate nothing and are compiled without reference counting
(``_nrt=False``); the insertions are inlined into the kernels' loops (``inline="always"``), since
a call that passes a named tuple of arrays otherwise costs more than the insertion itself.
"""

from __future__ import annotations

from collections import namedtuple

from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic

from .sums import pairwise_sum

__all__ = ["Hybrid", "Binary", "Logarithmic", "hybrid_from", "binary_from", "logarithmic_from",
           "hybrid_insert", "binary_insert", "logarithmic_insert", "binary_step",
           "is_power_of_two", "floor_log2", "lowest_set_bit"]

Hybrid = namedtuple("Hybrid", [
    "n",            # (size,) items inserted into each counter
    "beta",         # (size,) logarithmic state: items plus the noise drawn at each power of two
    "log_release",  # (size,) L(2^k), the last logarithmic release
    "alpha",        # (size, levels) p-sums of the current binary mechanism
    "alpha_hat",    # (size, levels) the p-sums with their node noise
    "value",        # (size,) each counter's release
    "log_scale",    # 1 / eps_L
    "eps_B",        # the binary part's budget; node scale k / eps_B
])

Binary = namedtuple("Binary", "n alpha alpha_hat value scale horizon")
"""A binary mechanism of ``levels = alpha.shape[1]`` levels, node scale ``levels / eps_B``."""

Logarithmic = namedtuple("Logarithmic", "n beta value scale")
"""A logarithmic mechanism; ``scale = 1 / eps_L``."""


def hybrid_from(counter) -> Hybrid:
    """The compiled view of a reference :class:`HybridCounter` (its arrays, updated in place)."""
    return Hybrid(counter.n, counter.beta, counter.log_release, counter.alpha, counter.alpha_hat,
                  counter._value, 1.0 / counter.eps_L, float(counter.eps_B))


def binary_from(counter) -> Binary:
    """The compiled view of a reference :class:`BinaryCounter` (its arrays, updated in place)."""
    return Binary(counter.n, counter.alpha, counter.alpha_hat, counter._value,
                  float(counter.scale), int(counter.horizon))


def logarithmic_from(counter) -> Logarithmic:
    """The compiled view of a reference :class:`LogarithmicCounter` (updated in place)."""
    return Logarithmic(counter.n, counter.beta, counter._value, 1.0 / counter.epsilon)


@njit(cache=True, _nrt=False)
def is_power_of_two(n):
    return n > 0 and (n & (n - 1)) == 0


@intrinsic
def _leading_zeros(typingctx, n):
    def codegen(context, builder, signature, args):
        return builder.ctlz(args[0], ir.Constant(ir.IntType(1), 0))
    return types.int64(types.int64), codegen


@intrinsic
def _trailing_zeros(typingctx, n):
    def codegen(context, builder, signature, args):
        return builder.cttz(args[0], ir.Constant(ir.IntType(1), 0))
    return types.int64(types.int64), codegen


@njit(cache=True, _nrt=False)
def floor_log2(n):
    """floor(log2 n) of a positive integer, exactly."""
    return 63 - _leading_zeros(n)


@njit(cache=True, _nrt=False)
def lowest_set_bit(n):
    """Index of the lowest set bit of a positive integer."""
    return _trailing_zeros(n)


# [binary-step]
@njit(cache=True, _nrt=False, inline="always")
def binary_step(alpha, alpha_hat, c, tau, x, scale, rng, width):
    """One insertion into the binary mechanism of row c at local time tau; returns B(tau).

    Chan et al., Binary Mechanism: i = lowest set bit of tau; alpha_i = sum_{j<i} alpha_j + x;
    the lower p-sums are cleared; hat alpha_i = alpha_i + Lap(scale). B(tau) is the sum of
    hat alpha_j over the set bits j of tau, which are the only nonzero hat alpha_j left. ``width``
    is the number of levels the reference's arrays have, which fixes NumPy's summation order.
    """
    i = lowest_set_bit(tau)
    p_sum = pairwise_sum(alpha[c], width, i) + x
    for j in range(i):
        alpha[c, j] = 0.0
        alpha_hat[c, j] = 0.0
    alpha[c, i] = p_sum
    alpha_hat[c, i] = p_sum + rng.laplace(0.0, scale)
    top = floor_log2(tau) + 1
    return pairwise_sum(alpha_hat[c], width, top)


# [hybrid-counter]
@njit(cache=True, _nrt=False, inline="always")
def hybrid_insert(H, where, x, rng):
    """Insert ``x[q]`` into hybrid counter ``where[q]`` for every q, as one reference call.

    At n = 2^k the item goes into the logarithmic mechanism only (one Lap(1/eps_L) draw) and a
    fresh binary mechanism starts; at n = 2^k + tau it goes into that binary mechanism (k levels,
    node scale k / eps_B) and the release is L(2^k) + B(tau).
    """
    width = H.alpha.shape[1]
    for q in range(where.size):
        c = where[q]
        H.n[c] += 1
        H.beta[c] += x[q]
        if is_power_of_two(H.n[c]):
            H.beta[c] += rng.laplace(0.0, H.log_scale)
            H.log_release[c] = H.beta[c]
            for j in range(width):
                H.alpha[c, j] = 0.0
                H.alpha_hat[c, j] = 0.0
            H.value[c] = H.log_release[c]
    for q in range(where.size):
        c = where[q]
        n = H.n[c]
        if not is_power_of_two(n):
            k = floor_log2(n)
            tau = n - (1 << k)
            B = binary_step(H.alpha, H.alpha_hat, c, tau, x[q], k / H.eps_B, rng, width)
            H.value[c] = H.log_release[c] + B


@njit(cache=True, _nrt=False, inline="always")
def binary_insert(B, where, x, rng):
    """Insert ``x[q]`` into binary counter ``where[q]`` for every q, as one reference call.

    Returns False, inserting nothing, when a counter already holds ``horizon`` items (the
    reference raises then).
    """
    for q in range(where.size):
        if B.n[where[q]] >= B.horizon:
            return False
    width = B.alpha.shape[1]
    for q in range(where.size):
        c = where[q]
        B.n[c] += 1
        B.value[c] = binary_step(B.alpha, B.alpha_hat, c, B.n[c], x[q], B.scale, rng, width)
    return True


@njit(cache=True, _nrt=False)
def logarithmic_insert(L, where, x, rng):
    """Insert ``x[q]`` into logarithmic counter ``where[q]``; releases at counts 1, 2, 4, ..."""
    for q in range(where.size):
        c = where[q]
        L.n[c] += 1
        L.beta[c] += x[q]
        if is_power_of_two(L.n[c]):
            L.beta[c] += rng.laplace(0.0, L.scale)
            L.value[c] = L.beta[c]
