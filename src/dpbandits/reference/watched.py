"""Watched arrays: the tracing mode's check of the information flow and of the noise laws.

In tracing mode (:func:`dpbandits.reference.noise.tracing`) the policy's float state, its
feedback and every noise draw are :class:`Watched` arrays (a draw is a :class:`Draw`), whose
operations report to the active tracer (:mod:`dpbandits.reference.tracer`): a read of a value
that differs across the lockstep runs (a predicate, an argmax, a branch, an index, a conversion),
a nonlinear map of one (or, in an enumeration, the interval shadow of its result:
docs/accountant.md#how-sensitivities-are-bounded), and any operation on a draw other than those
that keep its law (docs/accountant.md#what-a-proof-is). Outside tracing mode nothing here runs: the reference's
arrays are plain.
"""

from __future__ import annotations

import os
import sys

import numpy as np

from . import intervals
from .arguments import flat

__all__ = ["Watched", "Draw", "watch", "ACTIVE"]

ACTIVE = None
"""The tracer of the current tracing block, or None (set by :func:`noise.tracing`)."""

_HERE = os.path.dirname(os.path.abspath(__file__))
_OURS = {os.path.join(_HERE, name)
         for name in ("watched.py", "forms.py", "formed.py", "tracer.py", "symbolic.py",
                      "noise.py", "intervals.py", "tagged.py", "locality.py", "sight.py")}


def moved_out(values, how: str) -> None:
    """A followed value leaves the tracers' classes (set by :mod:`dpbandits.reference.sight`,
    which is imported with the noise source)."""


_ACCOUNTANT = os.path.join(os.path.dirname(_HERE), "accountant") + os.sep
"""The accountant's package: its tracers' code, never the traced code."""

_SKIPPED: dict[str, bool] = {}
"""Per file name: whether :func:`_site` passes over its frames (ours or numpy's)."""


def _skipped(filename: str) -> bool:
    known = _SKIPPED.get(filename)
    if known is None:
        path = os.path.abspath(filename)
        known = _SKIPPED[filename] = (path in _OURS or path.startswith(_ACCOUNTANT)
                                      or f"{os.sep}numpy{os.sep}" in filename)
    return known


def _site() -> str:
    """The first line outside numpy and this module on the stack: where a read happened."""
    f = sys._getframe(2)
    while f is not None and _skipped(f.f_code.co_filename):
        f = f.f_back
    if f is None:
        return "an unknown line"
    return f"{os.path.basename(f.f_code.co_filename)}:{f.f_lineno}"


_READS = frozenset({np.greater, np.greater_equal, np.less, np.less_equal, np.equal,
                    np.not_equal, np.logical_and, np.logical_or, np.logical_xor, np.logical_not,
                    np.bitwise_and, np.bitwise_or, np.bitwise_xor, np.invert, np.isnan,
                    np.isinf, np.isfinite, np.signbit, np.sign, np.heaviside})
"""Ufuncs whose result says something about where a value lies (a predicate): reading an
unreleased reward-derived value through one is a leak, whatever the outcome."""
_AFFINE = frozenset({np.add, np.subtract, np.negative, np.positive, np.conjugate})
"""Ufuncs that keep a statistic affine in each reward (with multiplication and division by a
value that is not itself reward-derived)."""
_SCALINGS = frozenset({np.multiply, np.true_divide})
_READ_FUNCTIONS = frozenset({np.argmax, np.argmin, np.argsort, np.sort, np.nonzero,
                             np.flatnonzero, np.unique, np.searchsorted, np.count_nonzero,
                             np.array_equal, np.isclose, np.allclose, np.any, np.all,
                             np.argwhere})
AFFINE_FUNCTIONS = frozenset({np.concatenate, np.stack, np.hstack, np.vstack, np.column_stack,
                              np.copy, np.reshape, np.ravel, np.broadcast_to, np.atleast_1d,
                              np.atleast_2d, np.squeeze, np.expand_dims, np.take,
                              np.take_along_axis, np.repeat, np.tile, np.flip, np.transpose,
                              np.swapaxes, np.moveaxis, np.sum, np.mean, np.cumsum, np.dot,
                              np.matmul, np.inner, np.where, np.zeros_like, np.empty_like,
                              np.diff, np.roll, np.append, np.insert, np.delete, np.select,
                              np.full_like, np.ones_like, np.average, np.trace, np.outer})
"""Array functions that keep each element an affine map of the inputs' (a selection, a shape,
an affine reduction), the products among them when at most one input is reward-derived. Every
other array function of a reward-derived value is a nonlinear map: a list of affine functions,
not of nonlinear ones, so that a function nobody listed (``np.prod``, ``np.einsum``, ``np.var``)
cannot pass as affine."""
_STRUCTURE = frozenset({np.shape, np.ndim, np.size, np.result_type, np.iscomplexobj,
                        np.isrealobj, np.shares_memory, np.may_share_memory})
"""Array functions that read an array's structure, not its values: no map of the values."""
_PRODUCTS = frozenset({np.dot, np.matmul, np.inner, np.outer})
"""The affine functions that are bilinear: a product when two inputs are reward-derived."""


def nonlinear_function(func, moving: int) -> bool:
    """Whether array function ``func`` with ``moving`` reward-derived inputs is a nonlinear map
    of them (:data:`AFFINE_FUNCTIONS`)."""
    if moving == 0 or func in _STRUCTURE:
        return False
    return func not in AFFINE_FUNCTIONS or (func in _PRODUCTS and moving > 1)


def _watched_in(args, kwargs) -> list:
    """The watched arrays among an array function's arguments, inside lists and tuples too
    (``np.stack([x, 1 - x])``)."""
    return [a for a in flat(list(args) + list(kwargs.values())) if isinstance(a, Watched)]


def _unwrap(x):
    if isinstance(x, Watched):
        return x.view(np.ndarray)
    if isinstance(x, (tuple, list)):
        # a loop, not a generator of recursive calls: this runs on every operation of a traced
        # policy, under the coverage's trace function, where each Python call costs
        items = []
        for v in x:
            if isinstance(v, Watched):
                v = v.view(np.ndarray)
            elif isinstance(v, (tuple, list)):
                v = _unwrap(v)
            items.append(v)
        return type(x)(items)
    return x


def _wrap(result):
    if isinstance(result, np.ndarray) and type(result) is np.ndarray:
        return result.view(Watched)
    if isinstance(result, tuple):
        return tuple(_wrap(r) for r in result)
    return result


class Watched(np.ndarray):
    """An array of a traced policy's state or feedback (tracing mode only): its operations are
    checked for reads of unreleased reward-derived values (information flow).

    A value is reward-derived on a trace when it differs across the lockstep runs (every probe
    run has one cell of the table moved). A predicate (a comparison, a sign, a logical
    operation), an argmax or sort, a branch (``bool``), an index or a conversion to a Python
    number of such a value is a read: a leak of the cells it differs in, found the first time
    the read happens, whatever its outcome. A nonlinear map (floor, a square, a maximum, a
    product of two reward-derived values) is recorded: the statistic is then not affine in the
    rewards. Under a tracer with ``intervals`` (an enumeration's), the result carries instead
    an interval shadow (``_iv``, :mod:`~dpbandits.reference.intervals`) that bounds its change
    on every table in [0, 1], and only a map with no rule is recorded. Results stay
    :class:`Watched`; a value moved into a Python number or into a fresh plain array is no longer
    followed (docs/accountant.md#what-the-tracer-cannot-see)."""

    _followed = True
    """Arrays of this class are followed by the tracers (:mod:`~dpbandits.reference.sight`)."""

    _iv = None
    """The interval shadow (:class:`~dpbandits.reference.intervals.Shadow`) of a value that went
    through a nonlinear map, under a tracer with ``intervals``; None: affine in the rewards."""

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        tracer = ACTIVE
        formed = getattr(tracer, "array_class", None)     # Formed under a symbolic tracer
        if (formed is not None and type(self) is not formed
                and any(isinstance(x, formed) for x in inputs + tuple(kwargs.get("out", ())))):
            return NotImplemented       # the forms' class computes the forms too
        draws, watched, plain = [], [], []      # one loop, no comprehension: see _unwrap
        for x in inputs:
            if isinstance(x, Watched):
                (draws if isinstance(x, Draw) else watched).append(x)
                plain.append(x.view(np.ndarray))
            else:
                plain.append(_unwrap(x) if isinstance(x, (tuple, list)) else x)
        out = kwargs.get("out", ())
        if out:
            if tracer is not None and tracer.intervals:
                _before_writing(tracer, ufunc, inputs, out)
            kwargs["out"] = tuple(_unwrap(o) for o in out)
        result = getattr(ufunc, method)(*plain, **kwargs)
        if tracer is None:
            return _wrap(result) if not out else (out[0] if len(out) == 1 else out)
        if draws:
            kept = tracer.noise_operation(ufunc, method, inputs, draws, result)
            if kept is not None:
                return kept if not out else (out[0] if len(out) == 1 else out)
        if watched:
            across = method == "reduce" and kwargs.get("axis", 0) in (None, 0)
            name = f"np.{ufunc.__name__}" + (f".{method}" if method != "__call__" else "")
            if ufunc in _READS or (across and np.ndim(inputs[0]) >= 1):
                what = ("a reduction across the lockstep runs" if across and ufunc not in _READS
                        else f"a predicate ({name})")
                for x in watched:
                    tracer.read(x, what)
            elif tracer.intervals and ufunc.nout == 1:
                target = out[0] if out else None
                shaped = target if target is not None else result
                shape = shaped.shape if isinstance(shaped, np.ndarray) else np.shape(shaped)
                sh = intervals.ufunc(tracer, ufunc, method, inputs, kwargs, shape, _site,
                                     watched)
                if sh is not None:
                    if target is not None:
                        _attach(tracer, target, sh, name)
                    elif isinstance(result, np.ndarray):
                        result = result.view(Watched)
                        result._iv = intervals.own(sh)
            elif ufunc in _SCALINGS and method == "__call__" and len(inputs) == 2:
                moving = [x for x in inputs if isinstance(x, Watched) and tracer.moves(x)]
                if len(moving) == 2 or (ufunc is np.true_divide and moving
                                        and moving[-1] is inputs[1]):
                    tracer.nonlinear(name, *moving)
            elif ufunc not in _AFFINE:
                tracer.nonlinear(name, *watched)
        if out:
            return out[0] if len(out) == 1 else out
        return _wrap(result)

    def __array_function__(self, func, types, args, kwargs):
        tracer = ACTIVE
        formed = getattr(tracer, "array_class", None)
        if formed is not None and type(self) is not formed and formed in types:
            return NotImplemented
        plain_args = _unwrap(args)
        plain_kwargs = {k: _unwrap(v) for k, v in kwargs.items()}
        if tracer is not None:
            flat = [a for a in list(args) + list(kwargs.values()) if isinstance(a, Watched)]
            if any(isinstance(a, Draw) for a in flat):
                for d in flat:
                    if isinstance(d, Draw):
                        tracer.draw_read(d, f"np.{func.__name__}")
            name = f"np.{func.__name__}"
            moving, nonlinear = [], False
            if func is np.where and len(args) >= 1 and isinstance(args[0], Watched):
                tracer.read(args[0], "a selection (np.where) on a reward-derived condition")
            elif func in _READ_FUNCTIONS:
                for x in flat:
                    tracer.read(x, f"a read ({name})")
            else:
                moving = [x for x in _watched_in(args, kwargs) if tracer.moves(x)]
                nonlinear = nonlinear_function(func, len(moving))
                if nonlinear and not tracer.intervals:
                    tracer.nonlinear(name, *moving)
            if tracer.intervals and func not in _READ_FUNCTIONS:
                result = _wrap(func(*plain_args, **plain_kwargs))
                if isinstance(result, Watched) and not isinstance(result, Draw):
                    moving = moving if nonlinear else []
                    sh = intervals.function(tracer, func, args, kwargs, result, moving, _site)
                    if sh is not None:
                        result._iv = intervals.own(sh)
                return result
        return _wrap(func(*plain_args, **plain_kwargs))

    def view(self, *args, **kwargs):  # type: ignore[override]
        if ACTIVE is not None and to_plain(args, kwargs):
            moved_out([self], ".view(np.ndarray)")
        return np.ndarray.view(self, *args, **kwargs)

    def __iter__(self):
        if ACTIVE is not None:
            moved_out([self], "iteration")
        return np.ndarray.__iter__(self)

    def _read_as(self, what: str) -> None:
        if ACTIVE is not None:
            if isinstance(self, Draw):
                ACTIVE.draw_read(self, what)
            else:
                ACTIVE.read(self, what)

    def __bool__(self) -> bool:
        self._read_as("a branch (bool)")
        return bool(self.view(np.ndarray))

    def __float__(self) -> float:
        self._read_as("a conversion to a Python number")
        return float(self.view(np.ndarray))

    def __int__(self) -> int:
        self._read_as("a conversion to a Python number")
        return int(self.view(np.ndarray))

    def __index__(self) -> int:
        self._read_as("an index")
        return self.view(np.ndarray).__index__()

    def item(self, *args):  # type: ignore[override]
        self._read_as("a conversion to a Python number (item)")
        return self.view(np.ndarray).item(*args)

    def tolist(self):  # type: ignore[override]
        self._read_as("a conversion to Python numbers (tolist)")
        return self.view(np.ndarray).tolist()

    def argmax(self, *args, **kwargs):  # type: ignore[override]
        self._read_as("a read (argmax)")
        return _wrap(self.view(np.ndarray).argmax(*args, **kwargs))

    def argmin(self, *args, **kwargs):  # type: ignore[override]
        self._read_as("a read (argmin)")
        return _wrap(self.view(np.ndarray).argmin(*args, **kwargs))

    def argsort(self, *args, **kwargs):  # type: ignore[override]
        self._read_as("a read (argsort)")
        return _wrap(self.view(np.ndarray).argsort(*args, **kwargs))

    def nonzero(self):  # type: ignore[override]
        self._read_as("a read (nonzero)")
        return _wrap(self.view(np.ndarray).nonzero())

    def sort(self, *args, **kwargs):  # type: ignore[override]
        self._read_as("a read (sort)")
        self.view(np.ndarray).sort(*args, **kwargs)

    def astype(self, dtype, *args, **kwargs):  # type: ignore[override]
        kind = np.dtype(dtype).kind
        if ACTIVE is not None and kind in "iub" and self.dtype.kind == "f":
            if isinstance(self, Draw):
                ACTIVE.draw_read(self, f"a conversion to {np.dtype(dtype).name}")
            else:
                ACTIVE.read(self, f"a conversion to {np.dtype(dtype).name}")
        out = _wrap(self.view(np.ndarray).astype(dtype, *args, **kwargs))
        if isinstance(self._iv, intervals.Shadow) and kind == "f" and isinstance(out, Watched):
            out._iv = self._iv.copy()
        return out

    def __getitem__(self, key):
        if ACTIVE is not None:
            keys = key if isinstance(key, tuple) else (key,)
            for k in keys:
                if isinstance(k, Watched):
                    k._read_as("an index")
        plain_key = key.view(np.ndarray) if isinstance(key, Watched) else (
            _unwrap(key) if isinstance(key, (tuple, list)) else key)
        out = np.ndarray.__getitem__(self, plain_key)
        if isinstance(out, Watched) and ACTIVE is not None and ACTIVE.intervals:
            if self._iv is not None:
                out._iv = intervals.index(self._iv, plain_key)
            elif _basic(key):
                out._iv_parent = (self, key)        # a view: its shadow is its base's
        return out

    def __setitem__(self, key, value) -> None:
        tracer = ACTIVE
        if tracer is not None:
            keys = key if isinstance(key, tuple) else (key,)
            for k in keys:
                if isinstance(k, Watched):
                    k._read_as("an index")
        plain_key = key.view(np.ndarray) if isinstance(key, Watched) else (
            _unwrap(key) if isinstance(key, (tuple, list)) else key)
        plain_value = value.view(np.ndarray) if isinstance(value, Watched) else (
            _unwrap(value) if isinstance(value, (tuple, list)) else value)
        np.ndarray.__setitem__(self, plain_key, plain_value)
        if tracer is not None and tracer.intervals and (
                self._iv is not None or getattr(value, "_iv", None) is not None):
            intervals.assign(_ensure(tracer, self), plain_key,
                             intervals.seed(tracer, value, _site))

    def __array_finalize__(self, obj) -> None:
        iv = getattr(obj, "_iv", None)
        if iv is not None:
            if isinstance(iv, intervals.Shadow) and iv.lo.shape == self.shape:
                self._iv = iv.copy()
            else:               # set again by the methods that know the map (an index, reshape)
                self._iv = intervals.Lost("a reward-derived value rearranged by an array "
                                          "method the interval arithmetic does not follow")

    def _reshaped(self, method: str, *args, **kwargs):
        out = getattr(np.ndarray, method)(self, *args, **kwargs)
        if self._iv is not None and isinstance(out, Watched):
            out._iv = intervals.reshaped(self._iv, method, *args, **kwargs)
        return out

    def reshape(self, *args, **kwargs):  # type: ignore[override]
        return self._reshaped("reshape", *args, **kwargs)

    def ravel(self, *args, **kwargs):  # type: ignore[override]
        return self._reshaped("ravel", *args, **kwargs)

    def flatten(self, *args, **kwargs):  # type: ignore[override]
        return self._reshaped("flatten", *args, **kwargs)

    def transpose(self, *args):  # type: ignore[override]
        return self._reshaped("transpose", *args)

    def squeeze(self, *args, **kwargs):  # type: ignore[override]
        return self._reshaped("squeeze", *args, **kwargs)

    @property
    def T(self):  # type: ignore[override]
        return self.transpose()


def to_plain(args, kwargs) -> bool:
    """Whether ``view(*args, **kwargs)`` makes an array of a class the tracers do not follow."""
    kind = args[-1] if args else kwargs.get("type", kwargs.get("dtype"))
    return (isinstance(kind, type) and issubclass(kind, np.ndarray)
            and not getattr(kind, "_followed", False))


def _basic(key) -> bool:
    """Whether ``key`` selects a view (integers, slices, Ellipsis, None), not a copy."""
    keys = key if isinstance(key, tuple) else (key,)
    return all(k is None or k is Ellipsis or isinstance(k, (int, slice, np.integer))
               for k in keys)


def _ensure(tracer, a: "Watched"):
    """``a``'s shadow, made where it has none: its base's at its key, for a view of an array
    (so that a write through the view reaches the base's shadow), else read off the runs."""
    iv = a._iv
    if isinstance(iv, intervals.Shadow) and iv.lo.shape == a.shape:
        return iv
    parent = a.__dict__.get("_iv_parent")
    if iv is None and parent is not None:
        a._iv = intervals.index(_ensure(tracer, parent[0]), _unwrap(parent[1]))
    else:
        a._iv = intervals.own(intervals.seed(tracer, a, _site))
    return a._iv


def _before_writing(tracer, fn, inputs: tuple, out: tuple) -> None:
    """Before a ufunc writes into ``out``: the inputs it overwrites (``a += b``) get their
    shadows read off the runs now, while their values are those the result is computed from."""
    targets = [o for o in out if isinstance(o, Watched) and o._iv is None]
    ins = [x for x in inputs if isinstance(x, Watched) and not isinstance(x, Draw)]
    if not targets or not ins:
        return
    if all(x._iv is None for x in ins) and (
            fn in intervals.AFFINE or not any(tracer.moves(x) for x in ins)):
        return                          # no shadow will be made
    for x in ins:
        if x._iv is None and any(np.may_share_memory(x, o) for o in targets):
            _ensure(tracer, x)


def _attach(tracer, target, sh, name: str) -> None:
    """Write the shadow ``sh`` of a ufunc's result into its ``out`` array ``target``."""
    if isinstance(target, Watched):
        if target._iv is None and "_iv_parent" not in target.__dict__:
            target._iv = intervals.own(sh)
        else:
            intervals.assign(_ensure(tracer, target), Ellipsis, sh)
    elif np.any(sh.s > 0):
        tracer.unfollowed(f"{name} of a reward-derived value written into a plain array "
                          f"({_site()})")


class Draw(Watched):
    """A noise draw in tracing mode: it may be sliced, copied, scaled by a positive public
    constant and handed to :func:`release`; a difference of two exponential draws of one scale
    is recognised as one Laplace draw of that scale, and the negation of a Laplace draw as a
    Laplace draw. Any other operation on it (a comparison, an absolute value, a selection, a
    clip, a sum with another draw or with a value) is recorded with its line: the value then
    released is not the declared law as drawn (docs/accountant.md#noise-laws)."""


def watch(obj, depth: int = 0) -> None:
    """Make the float arrays of ``obj`` (a policy, and the reference objects it holds, to depth
    3) :class:`Watched` (the tracer's ``array_class`` under a symbolic tracer:
    :class:`~dpbandits.reference.formed.Formed`), in place of its attributes.
    Integer and boolean state (counts, run indices, masks) is left plain: a reward-derived
    value becomes one only through a conversion, which is a read."""
    cls = getattr(ACTIVE, "array_class", None) or Watched
    _watch(obj, depth, cls)


_SCALARS = frozenset({int, float, str, bool, type(None), np.int64, np.float64, np.bool_, tuple,
                      dict})


def _watch(obj, depth: int, cls) -> None:
    d = vars(obj)
    for key, value in d.items():
        kind = type(value)
        if kind is np.ndarray or (kind is Watched and cls is not Watched):
            if value.dtype.kind == "f":
                d[key] = value.view(cls)
        elif kind in _SCALARS or kind is cls:
            continue
        elif kind is list:
            if depth < 3:
                for i, v in enumerate(value):
                    if type(v) is np.ndarray and v.dtype.kind == "f":
                        value[i] = v.view(cls)
                    elif _watchable(v):
                        _watch(v, depth + 1, cls)
        elif depth < 3 and (_WATCHABLE.get(kind) if kind in _WATCHABLE else _watchable(value)):
            _watch(value, depth + 1, cls)


_WATCHABLE: dict[type, bool] = {}


def _watchable(value) -> bool:
    kind = type(value)
    known = _WATCHABLE.get(kind)
    if known is None:
        known = _WATCHABLE[kind] = (
            hasattr(value, "__dict__") and not issubclass(kind, (np.random.Generator, type))
            and kind.__module__.startswith("dpbandits.reference"))
    return known


