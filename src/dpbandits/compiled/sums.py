"""NumPy's summation order for float64, so that a kernel's sums equal the reference's bit for bit.

``a.sum(axis=-1)`` in NumPy is not a left-to-right loop: the add reduction sums each row
pairwise (``pairwise_sum`` in numpy/_core/src/umath/loops_utils.h.src). Below 8 terms it adds
left to right; up to 128 it keeps 8 running partial sums, combines them as
``((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))`` and adds the remainder left to right;
above 128 it halves the range (at a multiple of 8) and adds the two halves' sums. A plain loop
therefore differs from NumPy in the last bit for 8 terms or more; :func:`pairwise_sum_at` does not.
"""

from __future__ import annotations

from numba import njit

__all__ = ["pairwise_sum_at"]

_BLOCK = 128

MAX_TERMS = 7184
"""The most terms :func:`pairwise_sum_at` adds: NumPy's recursion unrolled to five halvings
(numba cannot load a recursive function back from its disk cache)."""


@njit(cache=True, _nrt=False)
def pairwise_sum_at(values, index, lo, n):
    """NumPy's pairwise sum of ``values[index[lo]], ..., values[index[lo + n - 1]]``, n <= MAX_TERMS."""
    if n <= _BLOCK:
        return _block(values, index, lo, n)
    half = _half(n)
    return _level4(values, index, lo, half) + _level4(values, index, lo + half, n - half)


@njit(cache=True, _nrt=False)
def _half(n):
    half = n // 2
    return half - half % 8


@njit(cache=True, _nrt=False)
def _level4(values, index, lo, n):          # n <= 3600
    if n <= _BLOCK:
        return _block(values, index, lo, n)
    half = _half(n)
    return _level3(values, index, lo, half) + _level3(values, index, lo + half, n - half)


@njit(cache=True, _nrt=False)
def _level3(values, index, lo, n):          # n <= 1808
    if n <= _BLOCK:
        return _block(values, index, lo, n)
    half = _half(n)
    return _level2(values, index, lo, half) + _level2(values, index, lo + half, n - half)


@njit(cache=True, _nrt=False)
def _level2(values, index, lo, n):          # n <= 912
    if n <= _BLOCK:
        return _block(values, index, lo, n)
    half = _half(n)
    return _level1(values, index, lo, half) + _level1(values, index, lo + half, n - half)


@njit(cache=True, _nrt=False)
def _level1(values, index, lo, n):          # n <= 464
    if n <= _BLOCK:
        return _block(values, index, lo, n)
    half = _half(n)
    return _level0(values, index, lo, half) + _level0(values, index, lo + half, n - half)


@njit(cache=True, _nrt=False)
def _level0(values, index, lo, n):          # n <= 240
    if n <= _BLOCK:
        return _block(values, index, lo, n)
    half = _half(n)
    return _block(values, index, lo, half) + _block(values, index, lo + half, n - half)


@njit(cache=True, _nrt=False)
def _block(values, index, lo, n):
    """NumPy's sum of at most 128 terms: left to right below 8, else 8 running partial sums."""
    if n < 8:
        res = -0.0
        for i in range(lo, lo + n):
            res += values[index[i]]
        return res
    r0 = values[index[lo]]
    r1 = values[index[lo + 1]]
    r2 = values[index[lo + 2]]
    r3 = values[index[lo + 3]]
    r4 = values[index[lo + 4]]
    r5 = values[index[lo + 5]]
    r6 = values[index[lo + 6]]
    r7 = values[index[lo + 7]]
    i = 8
    while i < n - n % 8:
        r0 += values[index[lo + i]]
        r1 += values[index[lo + i + 1]]
        r2 += values[index[lo + i + 2]]
        r3 += values[index[lo + i + 3]]
        r4 += values[index[lo + i + 4]]
        r5 += values[index[lo + i + 5]]
        r6 += values[index[lo + i + 6]]
        r7 += values[index[lo + i + 7]]
        i += 8
    res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while i < n:
        res += values[index[lo + i]]
        i += 1
    return res
