"""NumPy's summation order for float64, so that a kernel's sums equal the reference's bit for bit.

``a.sum(axis=-1)`` in NumPy is not a left-to-right loop: the add reduction sums each row
pairwise (``pairwise_sum`` in numpy/_core/src/umath/loops_utils.h.src). Below 8 terms it adds
left to right; up to 128 it keeps 8 running partial sums, combines them as
``((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))`` and adds the remainder left to right;
above 128 it halves the range (at a multiple of 8) and adds the two halves' sums. A plain loop
therefore differs from NumPy in the last bit for 8 terms or more; :func:`pairwise_sum` does not.
It is the one implementation of that order: the semi-bandit round sums the chosen base arms'
means and rewards with it (:func:`dpbandits.compiled.loop.semi_round`), the counters their
p-sums (:mod:`dpbandits.compiled.counters`), whose masked terms are exact zeros it skips.
"""

from __future__ import annotations

from numba import njit

__all__ = ["pairwise_sum", "MAX_TERMS"]

_BLOCK = 128

MAX_TERMS = 7184
"""The most terms :func:`pairwise_sum` adds: NumPy's recursion unrolled to five halvings
(numba cannot load a recursive function back from its disk cache)."""


@njit(cache=True, _nrt=False)
def pairwise_sum(values, n, top):
    """NumPy's pairwise sum of ``values[0], ..., values[n - 1]`` (a 1-D array), n <= MAX_TERMS,
    given that ``values[top:n]`` are zeros: those are skipped (adding a zero to a nonzero
    partial sum changes nothing), so ``top = n`` sums every term."""
    if n <= _BLOCK:
        return _block(values, 0, n, top)
    half = _half(n)
    return _level4(values, 0, half, top) + _level4(values, half, n - half, top)


@njit(cache=True, _nrt=False)
def _half(n):
    half = n // 2
    return half - half % 8

@njit(cache=True, _nrt=False)
def _level4(values, lo, n, top):          # n <= 3600
    if n <= _BLOCK:
        return _block(values, lo, n, top)
    half = _half(n)
    return _level3(values, lo, half, top) + _level3(values, lo + half, n - half, top)


@njit(cache=True, _nrt=False)
def _level3(values, lo, n, top):          # n <= 1808
    if n <= _BLOCK:
        return _block(values, lo, n, top)
    half = _half(n)
    return _level2(values, lo, half, top) + _level2(values, lo + half, n - half, top)


@njit(cache=True, _nrt=False)
def _level2(values, lo, n, top):          # n <= 912
    if n <= _BLOCK:
        return _block(values, lo, n, top)
    half = _half(n)
    return _level1(values, lo, half, top) + _level1(values, lo + half, n - half, top)


@njit(cache=True, _nrt=False)
def _level1(values, lo, n, top):          # n <= 464
    if n <= _BLOCK:
        return _block(values, lo, n, top)
    half = _half(n)
    return _level0(values, lo, half, top) + _level0(values, lo + half, n - half, top)


@njit(cache=True, _nrt=False)
def _level0(values, lo, n, top):          # n <= 240
    if n <= _BLOCK:
        return _block(values, lo, n, top)
    half = _half(n)
    return _block(values, lo, half, top) + _block(values, lo + half, n - half, top)


@njit(cache=True, _nrt=False)
def _block(values, lo, n, top):
    """NumPy's sum of values[lo : lo + n], n <= 128: left to right below 8 terms, else 8 running
    partial sums; terms at or beyond ``top`` are exact zeros and are skipped."""
    hi = min(lo + n, top)
    if n < 8:
        res = -0.0 if hi == lo + n else 0.0      # a skipped zero would turn -0.0 into 0.0
        for i in range(lo, hi):
            res += values[i]
        return res
    r0 = values[lo] if lo < top else 0.0
    r1 = values[lo + 1] if lo + 1 < top else 0.0
    r2 = values[lo + 2] if lo + 2 < top else 0.0
    r3 = values[lo + 3] if lo + 3 < top else 0.0
    r4 = values[lo + 4] if lo + 4 < top else 0.0
    r5 = values[lo + 5] if lo + 5 < top else 0.0
    r6 = values[lo + 6] if lo + 6 < top else 0.0
    r7 = values[lo + 7] if lo + 7 < top else 0.0
    blocks = lo + n - n % 8
    i = lo + 8
    while i < min(blocks, top):
        r0 += values[i] if i < top else 0.0
        r1 += values[i + 1] if i + 1 < top else 0.0
        r2 += values[i + 2] if i + 2 < top else 0.0
        r3 += values[i + 3] if i + 3 < top else 0.0
        r4 += values[i + 4] if i + 4 < top else 0.0
        r5 += values[i + 5] if i + 5 < top else 0.0
        r6 += values[i + 6] if i + 6 < top else 0.0
        r7 += values[i + 7] if i + 7 < top else 0.0
        i += 8
    res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    for i in range(blocks, hi):
        res += values[i]
    return res
