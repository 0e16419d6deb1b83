"""Interval arithmetic over rewards in [0, 1]: how far a reward-derived value can move when one
cell of the table changes, on every table with entries in [0, 1]
(docs/accountant.md#how-sensitivities-are-bounded).

In an enumeration's tracing mode (the lockstep tracer of :mod:`dpbandits.accountant.lockstep`,
whose probes move a cell across the whole range), a value that went through a nonlinear map of
a reward-derived value carries a :class:`Shadow` on its :class:`~.watched.Watched` array: per
element, its range over every table with entries in [0, 1] (``lo``, ``hi``; the released
values the execution depends on held fixed, as the alignment holds them) and, per probed cell,
a bound on its change when that cell alone moves anywhere in [0, 1] (``s``). A value without a
shadow is affine in the rewards (every map it went through keeps affinity): its shadow is read
off the lockstep runs (:func:`seed`), exactly. The rules of :func:`ufunc` and :func:`function`
compute the shadow of a result from its inputs'; a map with no rule gives an unbounded shadow
and is recorded with its line (the proof then covers {0, 1} tables only). Outside such a
tracer nothing here runs.
"""

from __future__ import annotations

import math

import numpy as np

from .arguments import flat as _flat

__all__ = ["Shadow", "Lost", "seed", "ufunc", "function", "index", "assign", "own", "reshaped",
           "per_group"]


class Shadow:
    """Per element of an array: ``lo``, ``hi`` (its range; the array's shape) and ``s`` (shape
    (P,) + the array's shape: for each probed cell, a bound on the change of the element when
    that cell moves within [0, 1]); ``why`` names the maps with a rule it went through."""

    __slots__ = ("lo", "hi", "s", "why")

    def __init__(self, lo, hi, s, why: tuple[str, ...] = ()) -> None:
        self.lo, self.hi, self.s, self.why = lo, hi, s, why

    def copy(self) -> "Shadow":
        return Shadow(self.lo.copy(), self.hi.copy(), self.s.copy(), self.why)


class Lost:
    """The shadow of a view the interval arithmetic could not map (an array method that
    reorders elements): unbounded where used, with ``note``."""

    __slots__ = ("note",)

    def __init__(self, note: str) -> None:
        self.note = note


def _cells(tracer) -> int:
    return tracer.size - 1


def seed(tracer, x, site=None) -> Shadow:
    """The shadow of ``x``: its own, or, for a value without one (affine in the rewards), read
    off the lockstep runs: within each table's group, the change d_p of each element when
    probe p moves its cell across [0, 1] is the element's coefficient on that cell, so its
    range is v + sum of min(0, d_p) .. v + sum of max(0, d_p) and its bound |d_p|."""
    iv = getattr(x, "_iv", None)
    if isinstance(iv, Shadow) and iv.lo.shape == np.shape(x):
        return iv
    v = np.asarray(x, dtype=float)
    P = _cells(tracer)
    if isinstance(iv, Lost):
        note = f"{iv.note} ({site()})" if site is not None else iv.note
        tracer.unfollowed(note)
        return unbounded(P, v.shape, np.ones((P,) + v.shape, bool), (note,))
    if v.size == 0 or v.size % tracer.runs:
        return Shadow(v, v, np.zeros((P,) + v.shape))
    G, S = tracer.groups, tracer.size
    g = v.reshape(G, S, -1)
    with np.errstate(all="ignore"):
        d = g[:, 1:, :] - g[:, :1, :]                       # (G, P, m)
        d[np.isnan(g[:, 1:, :]) & np.isnan(g[:, :1, :])] = 0.0
        d[np.isnan(d)] = np.inf
        probe = tracer._noise_probe()
        if probe is not None:
            d[:, probe] = 0.0                               # not a cell of the table
        lo = g[:, 0, :] + np.minimum(d, 0.0).sum(axis=1)
        hi = g[:, 0, :] + np.maximum(d, 0.0).sum(axis=1)
    m = g.shape[2]
    lo = np.repeat(lo[:, None, :], S, axis=1).reshape(v.shape)
    hi = np.repeat(hi[:, None, :], S, axis=1).reshape(v.shape)
    s = np.repeat(np.abs(d).transpose(1, 0, 2)[:, :, None, :], S, axis=2).reshape((P,) + v.shape)
    if m == 0:
        s = np.zeros((P,) + v.shape)
    return Shadow(lo, hi, s)


def unbounded(P: int, shape, where, why: tuple[str, ...]) -> Shadow:
    """No bound: any value, an infinite change for the cells in ``where`` ((P,) + shape)."""
    return Shadow(np.full(shape, -np.inf), np.full(shape, np.inf),
                  np.where(where, np.inf, 0.0), why)


def _to(sh: Shadow, shape) -> Shadow:
    """``sh`` broadcast to ``shape`` (read-only views)."""
    shape = tuple(shape)
    if sh.lo.shape == shape:
        return sh
    P = sh.s.shape[0]
    s = sh.s.reshape((P,) + (1,) * (len(shape) - sh.lo.ndim) + sh.lo.shape)
    return Shadow(np.broadcast_to(sh.lo, shape), np.broadcast_to(sh.hi, shape),
                  np.broadcast_to(s, (P,) + shape), sh.why)


def own(sh: Shadow) -> Shadow:
    """``sh`` in arrays of its own (writable), ready to be attached to an array."""
    return Shadow(np.array(sh.lo, dtype=float), np.array(sh.hi, dtype=float),
                  np.array(sh.s, dtype=float), sh.why)


def _moving(sh: Shadow) -> bool:
    return bool(np.any(sh.s > 0))


def _capped(lo, hi, s, why) -> Shadow:
    """A rule's result, its bound capped by the width of its range (any two values in the range
    differ by at most that), non-numbers made unbounded."""
    with np.errstate(all="ignore"):
        bad = np.isnan(lo) | np.isnan(hi)
        lo = np.where(bad, -np.inf, lo)
        hi = np.where(bad, np.inf, hi)
        s = np.where(np.isnan(s), np.inf, s)
        s = np.minimum(s, (hi - lo)[None])
        s = np.where(np.isnan(s), np.inf, s)
    return Shadow(np.asarray(lo, float), np.asarray(hi, float), np.asarray(s, float), why)


def _mul0(a, b):
    """a * b with 0 * inf = 0 (a value that is exactly 0 times any value)."""
    with np.errstate(all="ignore"):
        out = a * b
    return np.where((a == 0) | (b == 0), 0.0, out)


def _magnitude(sh: Shadow):
    return np.maximum(np.abs(sh.lo), np.abs(sh.hi))


def _monotone(sh: Shadow, f, slope):
    """A nondecreasing map ``f`` whose derivative on [lo, hi] is at most ``slope(lo, hi)``."""
    with np.errstate(all="ignore"):
        return f(sh.lo), f(sh.hi), _mul0(slope(sh.lo, sh.hi)[None], sh.s)


def _power(a: Shadow, p):
    """a ** p for a public exponent ``p`` (a scalar); None when no rule applies."""
    p = float(p)
    M = _magnitude(a)
    with np.errstate(all="ignore"):
        if p == 0.0:
            one = np.ones_like(a.lo)
            return one, one, np.zeros_like(a.s)
        if p.is_integer() and p > 0:
            n = int(p)
            ends = np.stack([a.lo ** n, a.hi ** n])
            lo, hi = ends.min(axis=0), ends.max(axis=0)
            if n % 2 == 0:
                lo = np.where((a.lo <= 0) & (a.hi >= 0), 0.0, lo)
            return lo, hi, _mul0((n * M ** (n - 1))[None], a.s)
        if np.any(a.lo < 0) or (p < 0 and np.any(a.lo <= 0)):
            return None
        ends = np.stack([a.lo ** p, a.hi ** p])
        slope = np.maximum(abs(p) * a.lo ** (p - 1), abs(p) * a.hi ** (p - 1))
        return ends.min(axis=0), ends.max(axis=0), _mul0(slope[None], a.s)


_ROUNDING = {np.floor: "floor", np.ceil: "ceil", np.rint: "round", np.trunc: "round"}
_INCREASING = {
    np.sqrt: (lambda lo: lo >= 0, lambda lo, hi: 0.5 / np.sqrt(lo)),
    np.exp: (None, lambda lo, hi: np.exp(hi)),
    np.exp2: (None, lambda lo, hi: math.log(2.0) * np.exp2(hi)),
    np.expm1: (None, lambda lo, hi: np.exp(hi)),
    np.log: (lambda lo: lo > 0, lambda lo, hi: 1.0 / lo),
    np.log2: (lambda lo: lo > 0, lambda lo, hi: 1.0 / (lo * math.log(2.0))),
    np.log10: (lambda lo: lo > 0, lambda lo, hi: 1.0 / (lo * math.log(10.0))),
    np.log1p: (lambda lo: lo > -1, lambda lo, hi: 1.0 / (1.0 + lo)),
}
"""Increasing maps: (the domain their range must lie in, their largest slope on [lo, hi])."""
AFFINE = frozenset({np.add, np.subtract, np.negative, np.positive, np.conjugate})
_PLAIN_KEYWORDS = frozenset({"out", "axis", "keepdims", "dtype", "casting", "subok"})
"""Keywords of a ufunc call that do not change which values are combined."""


def _constant(sh: Shadow) -> bool:
    return not _moving(sh) and bool(np.all(sh.lo == sh.hi))


def _rounded(a: Shadow, kind: str):
    """floor, ceil: |f(a) - f(b)| <= ceil(|a - b|); round half to even and trunc move a value
    by less than 1, so |f(a) - f(b)| <= floor(|a - b|) + 1 (where the value moves at all)."""
    f = np.floor if kind == "floor" else np.ceil if kind == "ceil" else np.rint
    with np.errstate(all="ignore"):
        s = np.ceil(a.s) if kind in ("floor", "ceil") else np.where(a.s > 0, np.floor(a.s) + 1, 0.0)
        return f(a.lo), f(a.hi), s


def _call(name: str, fn, ins: list[Shadow]):
    """(lo, hi, s) of ``fn`` on shadows broadcast alike; None when no rule applies."""
    a = ins[0]
    b = ins[1] if len(ins) > 1 else None
    if fn is np.add:
        return a.lo + b.lo, a.hi + b.hi, a.s + b.s
    if fn is np.subtract:
        return a.lo - b.hi, a.hi - b.lo, a.s + b.s
    if fn is np.negative:
        return -a.hi, -a.lo, a.s
    if fn in (np.positive, np.conjugate):
        return a.lo, a.hi, a.s
    if fn is np.multiply:
        with np.errstate(all="ignore"):
            ends = np.stack([_mul0(a.lo, b.lo), _mul0(a.lo, b.hi), _mul0(a.hi, b.lo),
                             _mul0(a.hi, b.hi)])
        s = _mul0(_magnitude(a)[None], b.s) + _mul0(_magnitude(b)[None], a.s)
        return ends.min(axis=0), ends.max(axis=0), s
    if fn in (np.true_divide, np.floor_divide):
        if not _constant(b) or np.any(b.lo == 0):
            return None                 # by a reward-derived value, or by zero: no rule
        with np.errstate(all="ignore"):
            inv = 1.0 / b.lo
        q = _call(name, np.multiply, [a, Shadow(inv, inv, np.zeros_like(b.s))])
        return q if fn is np.true_divide else _rounded(Shadow(*q), "floor")
    if fn in _ROUNDING:
        return _rounded(a, _ROUNDING[fn])
    if fn is np.square:
        return _power(a, 2)
    if fn is np.power:
        if not _constant(b) or np.unique(b.lo).size != 1:
            return None
        return _power(a, b.lo.flat[0])
    if fn in (np.absolute, np.fabs):
        lo = np.where(a.lo >= 0, a.lo, np.where(a.hi <= 0, -a.hi, 0.0))
        return lo, _magnitude(a), a.s
    if fn in (np.maximum, np.fmax):
        return np.maximum(a.lo, b.lo), np.maximum(a.hi, b.hi), np.maximum(a.s, b.s)
    if fn in (np.minimum, np.fmin):
        return np.minimum(a.lo, b.lo), np.minimum(a.hi, b.hi), np.maximum(a.s, b.s)
    if fn in _INCREASING:
        domain, slope = _INCREASING[fn]
        if domain is not None and not np.all(domain(a.lo)):
            return None
        lo, hi, s = _monotone(a, fn, slope)
        if fn is np.sqrt:               # |sqrt(u) - sqrt(v)| <= sqrt(|u - v|) for u, v >= 0
            s = np.minimum(s, np.sqrt(a.s))
        return lo, hi, s
    return None


def ufunc(tracer, fn, method: str, inputs: tuple, kwargs: dict, shape, site,
          watched: list) -> Shadow | None:
    """The shadow of ``fn``'s result (``shape``) on ``inputs``, or None when it needs none (an
    affine map of values without shadows). A nonlinear map of a reward-derived value with a
    rule adds its name and line (``site()``) to the result's ``why``; one with no rule is
    recorded by the tracer (``unfollowed``) and its result is unbounded. ``watched``: the
    inputs the tracer follows (only those can be reward-derived)."""
    shadowed = False
    for x in inputs:                    # a loop, not a generator: this runs on every ufunc
        if getattr(x, "_iv", None) is not None:
            shadowed = True
            break
    if not shadowed:
        if fn in AFFINE and (method == "__call__" or fn is np.add):
            return None                 # affine: the lockstep runs give its shadow exactly
        if method == "__call__" and fn in (np.multiply, np.true_divide):
            moving = [x for x in watched if tracer.moves(x)]
            if not moving or (len(moving) == 1 and not (fn is np.true_divide
                                                        and moving[0] is inputs[-1])):
                return None             # scaled by a public value: affine
        elif not any(tracer.moves(x) for x in watched):
            return None
    ins = [seed(tracer, x, site) for x in inputs]
    name = f"np.{fn.__name__}" + (f".{method}" if method != "__call__" else "")
    why = tuple(dict.fromkeys(w for sh in ins for w in sh.why))
    P = _cells(tracer)
    out = None
    extra = {k for k, v in kwargs.items() if k not in _PLAIN_KEYWORDS
             and not (k == "where" and v is True) and not (k == "initial" and v is np._NoValue)}
    if method == "__call__" and not extra:
        out = _call(name, fn, [_to(sh, shape) for sh in ins])
    elif method in ("reduce", "accumulate") and not extra and len(ins) == 1 \
            and fn in (np.add, np.maximum, np.minimum, np.fmax, np.fmin):
        out = _reduced(fn, method, ins[0], kwargs)
        if out is not None and tuple(np.shape(out[0])) != tuple(shape):
            out = None
    if out is None:
        note = f"{name} of a reward-derived value ({site()})"
        tracer.unfollowed(note)
        cells = np.zeros(P, bool)
        for sh in ins:
            cells |= (sh.s > 0).reshape(P, -1).any(axis=1)
        touched = np.broadcast_to(cells.reshape((P,) + (1,) * len(shape)), (P,) + tuple(shape))
        return unbounded(P, shape, touched, why + (note,))
    if fn not in AFFINE and any(_moving(sh) for sh in ins):
        why += (f"{name} of a reward-derived value ({site()})",)
    return _capped(*out, why)


def _reduced(fn, method: str, a: Shadow, kwargs: dict):
    axis = kwargs.get("axis", 0)
    keep = bool(kwargs.get("keepdims", False))
    axes = axis if isinstance(axis, tuple) else (axis,)
    if any(x is None for x in axes):
        return None
    shifted = tuple(x + 1 if x >= 0 else x for x in axes)
    kw = {"keepdims": keep} if method == "reduce" else {}
    if method == "accumulate":
        if len(axes) != 1:
            return None
        acc = fn.accumulate
        return acc(a.lo, axis=axes[0]), acc(a.hi, axis=axes[0]), \
            (np.add if fn is np.add else np.maximum).accumulate(a.s, axis=shifted[0])
    red = fn.reduce
    s_red = np.add.reduce if fn is np.add else np.maximum.reduce
    return red(a.lo, axis=axes, **kw), red(a.hi, axis=axes, **kw), s_red(a.s, axis=shifted, **kw)


_SELECTIONS = frozenset({np.copy, np.reshape, np.ravel, np.transpose, np.squeeze, np.broadcast_to,
                         np.atleast_1d, np.atleast_2d, np.expand_dims, np.take,
                         np.take_along_axis, np.repeat, np.tile, np.flip, np.swapaxes,
                         np.moveaxis, np.roll, np.sum, np.mean, np.cumsum, np.max, np.min,
                         np.amax, np.amin})
"""Array functions of their first argument that select elements, or combine them with
nonnegative weights (a sum, a mean) or by a maximum or minimum: the function applied to the
ranges' ends gives the result's range, and applied to each cell's bounds, the result's bounds
(the maximum and minimum are 1-Lipschitz, sums add the bounds)."""
_LISTS = frozenset({np.concatenate, np.stack, np.hstack, np.vstack, np.column_stack})
_PUBLIC = frozenset({np.zeros_like, np.ones_like, np.empty_like, np.full_like})


def function(tracer, fn, args: tuple, kwargs: dict, result, moving: list, site) -> Shadow | None:
    """The shadow of an array function's result (a selection, a sum or mean, a maximum or
    minimum, a stack, ``np.where`` on a public condition, ``np.clip``, ``np.round``), or None
    when it needs none (no input carries a shadow, and ``moving``, the reward-derived inputs
    of a nonlinear function, is empty); no rule: unbounded, recorded as in :func:`ufunc`."""
    shadowed = [a for a in _flat(list(args) + list(kwargs.values()))
                if getattr(a, "_iv", None) is not None]
    if not isinstance(result, np.ndarray) or result.dtype.kind != "f" or fn in _PUBLIC:
        return None
    if not shadowed and not moving:
        return None                     # affine, or no reward-derived value: none needed
    name = f"np.{fn.__name__}"
    out = None
    P = _cells(tracer)
    try:
        if "out" not in kwargs and "where" not in kwargs and "initial" not in kwargs:
            out = _function(tracer, fn, args, kwargs, P, site)
    except (TypeError, ValueError, IndexError):
        out = None
    if out is not None and out.lo.shape != result.shape:
        out = None
    if out is None:
        note = f"{name} of a reward-derived value ({site()})"
        tracer.unfollowed(note)
        return unbounded(P, result.shape, np.ones((P,) + result.shape, bool), (note,))
    if fn in (np.clip, np.round, np.around, np.max, np.min, np.amax, np.amin) and _moving(out):
        out.why += (f"{name} of a reward-derived value ({site()})",)
    return out




def _function(tracer, fn, args, kwargs, P, site) -> Shadow | None:
    if fn in _SELECTIONS:
        a = seed(tracer, args[0], site)
        rest = args[1:]
        s = np.stack([fn(a.s[p], *rest, **kwargs) for p in range(P)]) if P else None
        lo, hi = fn(a.lo, *rest, **kwargs), fn(a.hi, *rest, **kwargs)
        return _capped(lo, hi, s if s is not None else np.zeros((0,) + np.shape(lo)), a.why)
    if fn in _LISTS:
        parts = [seed(tracer, x, site) for x in args[0]]
        why = tuple(dict.fromkeys(w for sh in parts for w in sh.why))
        lo = fn([sh.lo for sh in parts], *args[1:], **kwargs)
        hi = fn([sh.hi for sh in parts], *args[1:], **kwargs)
        s = np.stack([fn([sh.s[p] for sh in parts], *args[1:], **kwargs) for p in range(P)])
        return _capped(lo, hi, s.reshape((P,) + np.shape(lo)), why)
    if fn is np.where and len(args) == 3:
        cond = np.asarray(args[0])
        a, b = seed(tracer, args[1], site), seed(tracer, args[2], site)
        shape = np.broadcast_shapes(cond.shape, a.lo.shape, b.lo.shape)
        a, b = _to(a, shape), _to(b, shape)
        return Shadow(np.where(cond, a.lo, b.lo), np.where(cond, a.hi, b.hi),
                      np.where(cond[None], a.s, b.s), tuple(dict.fromkeys(a.why + b.why)))
    if fn is np.clip:
        lo_b = args[1] if len(args) > 1 else kwargs.get("a_min", kwargs.get("min"))
        hi_b = args[2] if len(args) > 2 else kwargs.get("a_max", kwargs.get("max"))
        x = seed(tracer, args[0], site)
        shape = x.lo.shape
        for bound, f in ((lo_b, np.maximum), (hi_b, np.minimum)):
            if bound is not None:
                b = seed(tracer, bound, site)
                shape = np.broadcast_shapes(shape, b.lo.shape)
                x = _capped(*_call("np.clip", f, [_to(x, shape), _to(b, shape)]),
                            tuple(dict.fromkeys(x.why + b.why)))
        return x
    if fn in (np.round, np.around):
        decimals = args[1] if len(args) > 1 else kwargs.get("decimals", 0)
        a = seed(tracer, args[0], site)
        c = 10.0 ** decimals
        scaled = Shadow(a.lo * c, a.hi * c, a.s * c)
        lo, hi, s = _rounded(scaled, "round")
        return _capped(lo / c, hi / c, s / c, a.why)
    return None


def index(sh, key):
    """The shadow of ``array[key]`` (views of ``sh``'s arrays where the key is basic)."""
    if isinstance(sh, Lost):
        return sh
    keys = key if isinstance(key, tuple) else (key,)
    return Shadow(sh.lo[key], sh.hi[key], sh.s[(slice(None),) + keys], sh.why)


def assign(target: Shadow, key, value: Shadow) -> None:
    """Write ``value``'s shadow into ``target``'s at ``key`` (numpy's broadcasting)."""
    region = target.lo[key].shape
    v = _to(value, region)
    keys = key if isinstance(key, tuple) else (key,)
    target.lo[key] = v.lo
    target.hi[key] = v.hi
    target.s[(slice(None),) + keys] = v.s
    target.why = tuple(dict.fromkeys(target.why + value.why))


def reshaped(sh, method: str, *args, **kwargs):
    """The shadow of ``array.method(*args)`` for a reshaping method (reshape, ravel, flatten,
    transpose, squeeze), or a :class:`Lost` where the arguments are not understood."""
    if isinstance(sh, Lost):
        return sh
    P = sh.s.shape[0]
    lo = getattr(sh.lo, method)(*args, **kwargs)
    hi = getattr(sh.hi, method)(*args, **kwargs)
    s = np.stack([getattr(sh.s[p], method)(*args, **kwargs) for p in range(P)]) if P else \
        np.zeros((0,) + lo.shape)
    return Shadow(lo, hi, s, sh.why)


def per_group(tracer, sh: Shadow, shape) -> np.ndarray:
    """The bound of each element of a released value on each probed cell, per table group:
    (G, P, m), the noise probe's cell set to 0."""
    sh = _to(sh, shape)
    P = _cells(tracer)
    s = np.asarray(sh.s, dtype=float).reshape(P, tracer.groups, tracer.size, -1)[:, :, 0, :]
    out = s.transpose(1, 0, 2).copy()
    probe = tracer._noise_probe()
    if probe is not None:
        out[:, probe] = 0.0
    return out
