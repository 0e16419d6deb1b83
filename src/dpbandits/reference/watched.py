"""Watched arrays: the tracing mode's check of the information flow and of the noise laws.

In tracing mode (:func:`dpbandits.reference.noise.tracing`) the policy's float state, its
feedback and every noise draw are :class:`Watched` arrays (a draw is a :class:`Draw`), whose
operations report to the active tracer (:mod:`dpbandits.reference.tracer`): a read of a value
that differs across the lockstep runs (a predicate, an argmax, a branch, an index, a conversion),
a nonlinear map of one, and any operation on a draw other than those that keep its law
(docs/accountant.md#what-a-proof-is). Outside tracing mode nothing here runs: the reference's
arrays are plain.
"""

from __future__ import annotations

import os
import sys

import numpy as np

__all__ = ["Watched", "Draw", "watch", "ACTIVE", "Formed", "Form", "Leaf", "ZERO", "flatten",
           "forms_of"]

ACTIVE = None
"""The tracer of the current tracing block, or None (set by :func:`noise.tracing`)."""

_HERE = os.path.dirname(os.path.abspath(__file__))
_OURS = {os.path.join(_HERE, name) for name in ("watched.py", "tracer.py", "noise.py")}


def _site() -> str:
    """The first line outside numpy and this module on the stack: where a read happened."""
    f = sys._getframe(2)
    while f is not None and (os.path.abspath(f.f_code.co_filename) in _OURS
                             or f"{os.sep}numpy{os.sep}" in f.f_code.co_filename):
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
_NONLINEAR_FUNCTIONS = frozenset({np.max, np.min, np.amax, np.amin, np.clip, np.round,
                                  np.around, np.median, np.percentile, np.quantile,
                                  np.maximum, np.minimum})


def _unwrap(x):
    if isinstance(x, Watched):
        return x.view(np.ndarray)
    if isinstance(x, (tuple, list)):
        return type(x)(_unwrap(v) for v in x)
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
    rewards, and its sensitivity holds for the probed tables only. Results stay
    :class:`Watched`; a value moved into a Python number or into a fresh plain array is no longer
    followed (docs/accountant.md#what-the-tracer-cannot-see)."""

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        tracer = ACTIVE
        if (tracer is not None and type(self) is not Formed and getattr(tracer, "symbolic", False)
                and any(isinstance(x, Formed) for x in inputs + tuple(kwargs.get("out", ())))):
            return NotImplemented       # the forms' class computes the forms too
        draws = [x for x in inputs if isinstance(x, Draw)]
        out = kwargs.get("out", ())
        if out:
            kwargs["out"] = tuple(_unwrap(o) for o in out)
        result = getattr(ufunc, method)(*_unwrap(inputs), **kwargs)
        if tracer is None:
            return _wrap(result) if not out else (out[0] if len(out) == 1 else out)
        if draws:
            kept = tracer.noise_operation(ufunc, method, inputs, draws, result)
            if kept is not None:
                return kept if not out else (out[0] if len(out) == 1 else out)
        watched = [x for x in inputs if isinstance(x, Watched) and not isinstance(x, Draw)]
        if watched:
            across = method == "reduce" and kwargs.get("axis", 0) in (None, 0)
            name = f"np.{ufunc.__name__}" + (f".{method}" if method != "__call__" else "")
            if ufunc in _READS or (across and np.ndim(inputs[0]) >= 1):
                what = ("a reduction across the lockstep runs" if across and ufunc not in _READS
                        else f"a predicate ({name})")
                for x in watched:
                    tracer.read(x, what)
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
        if (tracer is not None and type(self) is not Formed and getattr(tracer, "symbolic", False)
                and Formed in types):
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
            if func is np.where and len(args) >= 1 and isinstance(args[0], Watched):
                tracer.read(args[0], "a selection (np.where) on a reward-derived condition")
            elif func in _READ_FUNCTIONS:
                for x in flat:
                    tracer.read(x, f"a read ({name})")
            elif func in _NONLINEAR_FUNCTIONS:
                tracer.nonlinear(name, *flat)
        return _wrap(func(*plain_args, **plain_kwargs))

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
        return _wrap(self.view(np.ndarray).astype(dtype, *args, **kwargs))

    def __getitem__(self, key):
        if ACTIVE is not None:
            keys = key if isinstance(key, tuple) else (key,)
            for k in keys:
                if isinstance(k, Watched):
                    k._read_as("an index")
        out = np.ndarray.__getitem__(self, _unwrap(key))
        return out

    def __setitem__(self, key, value) -> None:
        if ACTIVE is not None:
            keys = key if isinstance(key, tuple) else (key,)
            for k in keys:
                if isinstance(k, Watched):
                    k._read_as("an index")
        np.ndarray.__setitem__(self, _unwrap(key), _unwrap(value))


class Draw(Watched):
    """A noise draw in tracing mode: it may be sliced, copied, scaled by a positive public
    constant and handed to :func:`release`; a difference of two exponential draws of one scale
    is recognised as one Laplace draw of that scale, and the negation of a Laplace draw as a
    Laplace draw. Any other operation on it (a comparison, an absolute value, a selection, a
    clip, a sum with another draw or with a value) is recorded with its line: the value then
    released is not the declared law as drawn (docs/accountant.md#noise-laws)."""


def watch(obj, depth: int = 0) -> None:
    """Make the float arrays of ``obj`` (a policy, and the reference objects it holds, to depth
    3) :class:`Watched` (:class:`Formed` under a symbolic tracer), in place of its attributes.
    Integer and boolean state (counts, run indices, masks) is left plain: a reward-derived
    value becomes one only through a conversion, which is a read."""
    cls = Formed if ACTIVE is not None and getattr(ACTIVE, "symbolic", False) else Watched
    _watch(obj, depth, cls)


_SCALARS = frozenset({int, float, str, bool, type(None), np.int64, np.float64, np.bool_, tuple,
                      dict})


def _watch(obj, depth: int, cls) -> None:
    d = vars(obj)
    for key, value in d.items():
        kind = type(value)
        if kind is np.ndarray or (kind is Watched and cls is Formed):
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
        elif depth < 3 and _watchable(value):
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


# --- linear provenance (the size-T mode of the accountant) ----------------------------------
#
# At the size a user runs, the accountant does not run one lockstep copy per cell: every
# reward-derived value carries its linear form over the cells it came from (a *form*), built
# by the policy's own arithmetic and flattened only where a value is released. A form is an
# immutable tree: a leaf (one cell), a sum of two forms, a form times a constant, or an opaque
# form (a nonlinear map of forms: its cells, with an unbounded coefficient). Sums are not
# flattened when built, so an epoch sum over n rewards costs O(n) once, at its release.


class Form:
    """A linear form over the cells of the reward table (see above). Forms compare by
    identity."""

    __slots__ = ()
    __eq__ = object.__eq__
    __hash__ = object.__hash__

    def __add__(self, other):
        if other is ZERO or not isinstance(other, Form):
            return self
        return _Sum(self, other)

    __radd__ = __add__

    def __sub__(self, other):
        if other is ZERO or not isinstance(other, Form):
            return self
        return _Sum(self, _Scaled(-1.0, other))

    def __rsub__(self, other):
        return _Scaled(-1.0, self)

    def __neg__(self):
        return _Scaled(-1.0, self)

    def __pos__(self):
        return self

    def __mul__(self, c):
        if isinstance(c, Form):
            if c is ZERO:
                return ZERO
            raise TypeError("a product of two forms is not linear")
        c = float(c)
        if c == 0.0:
            return ZERO
        return self if c == 1.0 else _Scaled(c, self)

    __rmul__ = __mul__

    def __truediv__(self, c):
        if isinstance(c, Form):
            raise TypeError("a quotient by a form is not linear")
        return self * (1.0 / float(c))


class _Zero(Form):
    """The form of a value that no reward reaches (a constant, a released value)."""

    __slots__ = ()

    def __add__(self, other):
        return other if isinstance(other, Form) else self

    __radd__ = __add__

    def __sub__(self, other):
        return -other if isinstance(other, Form) and other is not self else self

    def __rsub__(self, other):
        return self

    def __neg__(self):
        return self

    def __mul__(self, c):
        return self

    __rmul__ = __mul__

    def __truediv__(self, c):
        if isinstance(c, Form) and c is not self:
            raise TypeError("a quotient by a form is not linear")
        return self

    def __rtruediv__(self, c):
        return self

    def __repr__(self) -> str:
        return "0"


ZERO = _Zero()


class Leaf(Form):
    """One cell of the table: its id in the tracer's table of cells."""

    __slots__ = ("id",)

    def __init__(self, id: int) -> None:
        self.id = id


class _Sum(Form):
    __slots__ = ("a", "b", "flat")

    def __init__(self, a, b) -> None:
        self.a, self.b, self.flat = a, b, None


class _Scaled(Form):
    __slots__ = ("c", "a", "flat")

    def __init__(self, c: float, a) -> None:
        self.c, self.a, self.flat = c, a, None


class Opaque(Form):
    """A nonlinear map of forms: its cells, each with an unbounded coefficient."""

    __slots__ = ("parts", "flat")

    def __init__(self, parts) -> None:
        self.parts, self.flat = tuple(parts), None

    def __mul__(self, c):
        if isinstance(c, Form) and c is not ZERO:
            return Opaque((self, c))
        return ZERO if not isinstance(c, Form) and float(c) == 0.0 else self

    __rmul__ = __mul__

    def __truediv__(self, c):
        return Opaque((self, c)) if isinstance(c, Form) else self


_EMPTY = (np.zeros(0, np.int64), np.zeros(0))


def flatten(form) -> tuple[np.ndarray, np.ndarray]:
    """(cell ids, coefficients) of ``form``, each cell once, zero coefficients dropped; an opaque
    part's cells have an infinite coefficient. The result is kept on the form's root (a later
    sum that contains it is flattened without walking it again)."""
    if form is ZERO or not isinstance(form, Form):
        return _EMPTY
    if type(form) is Leaf:
        return np.array([form.id], np.int64), np.ones(1)
    if form.flat is not None:
        return form.flat
    ids: list[int] = []
    coefs: list[float] = []
    parts: list[tuple[tuple[np.ndarray, np.ndarray], float]] = []
    stack = [(form, 1.0)]
    while stack:
        g, c = stack.pop()
        kind = type(g)
        if kind is Leaf:
            ids.append(g.id)
            coefs.append(c)
        elif kind is _Sum:
            if g.flat is not None and g is not form:
                parts.append((g.flat, c))
            else:
                stack.append((g.a, c))
                stack.append((g.b, c))
        elif kind is _Scaled:
            if g.flat is not None and g is not form:
                parts.append((g.flat, c))
            else:
                stack.append((g.a, c * g.c))
        elif kind is Opaque:
            for p in g.parts:
                if isinstance(p, Form) and p is not ZERO:
                    i, _ = flatten(p)
                    parts.append(((i, np.full(i.size, np.inf)), 1.0))
    all_ids = np.concatenate([np.asarray(ids, np.int64)] + [p[0] for p, _ in parts])
    all_coefs = np.concatenate([np.asarray(coefs, float)] + [p[1] * c for p, c in parts])
    if all_ids.size == 0:
        out = _EMPTY
    else:
        u, inverse = np.unique(all_ids, return_inverse=True)
        with np.errstate(invalid="ignore"):
            sums = np.bincount(inverse, weights=all_coefs, minlength=u.size)
        sums[np.isnan(sums)] = np.inf           # inf - inf: an opaque part
        keep = sums != 0.0
        out = (u[keep], sums[keep])
    form.flat = out
    return out


def _zeros(shape) -> np.ndarray:
    f = np.empty(shape, dtype=object)
    f.fill(ZERO)
    return f


def forms_of(x, shape=None) -> np.ndarray | None:
    """The forms of ``x`` as an object array (None when no element has one)."""
    f = getattr(x, "_f", None)
    if f is None or not _any_form(f):
        return None
    return f


def _any_form(f: np.ndarray) -> bool:
    if f.size == 1:
        return f.flat[0] is not ZERO
    return f.ravel().tolist().count(ZERO) != f.size     # count compares by identity first


def _opaque(shape, *sources) -> np.ndarray:
    parts = [g for s in sources if s is not None for g in s.flat if g is not ZERO]
    out = np.empty(shape, dtype=object)
    out.fill(Opaque(parts) if parts else ZERO)
    return out


def _forms_or_zeros(x, shape) -> np.ndarray:
    f = getattr(x, "_f", None)
    if f is None:
        return np.broadcast_to(_ZERO_SCALAR, shape)
    return f


_ZERO_SCALAR = _zeros(())


def _symbolic() -> bool:
    return ACTIVE is not None and getattr(ACTIVE, "symbolic", False)


def _set_forms(target, forms, key=None) -> None:
    """Write ``forms`` into ``target``'s forms (through to the array it is a view of)."""
    if key is None:
        key = Ellipsis
    if target._f is None or target._f.shape != target.shape:
        target._f = _zeros(target.shape)
    target._f[key] = forms


class Formed(Watched):
    """A :class:`Watched` array whose elements carry their linear forms (``_f``, an object array
    of :class:`Form` of the same shape): the size-T mode of the accountant. Views share their
    base's forms as they share its values; copies copy them; a nonlinear map gives an
    :class:`Opaque` form. Outside a symbolic tracer it behaves as :class:`Watched`."""

    _f: np.ndarray | None = None

    def __array_finalize__(self, obj) -> None:
        f = getattr(obj, "_f", None)
        if f is None:
            return
        if f.shape == self.shape:
            self._f = f.copy()          # an unknown derivation of the same shape: a copy
        elif f.size == self.size:
            self._f = f.reshape(self.shape).copy()
        else:                           # a view the tracer cannot map: its cells, unbounded
            self._f = _opaque(self.shape, f) if _any_form(f) else None

    def _forms(self) -> np.ndarray:
        if self._f is None or self._f.shape != self.shape:
            self._f = _zeros(self.shape)
        return self._f

    def copy(self, *args, **kwargs):  # type: ignore[override]
        out = self.view(np.ndarray).copy(*args, **kwargs).view(Formed)
        out._f = self._forms().copy()
        return out

    def reshape(self, *args, **kwargs):  # type: ignore[override]
        out = self.view(np.ndarray).reshape(*args, **kwargs).view(Formed)
        out._f = self._forms().reshape(*args, **kwargs)
        return out

    def ravel(self, *args, **kwargs):  # type: ignore[override]
        out = self.view(np.ndarray).ravel(*args, **kwargs).view(Formed)
        out._f = self._forms().ravel(*args, **kwargs)
        return out

    def flatten(self, *args, **kwargs):  # type: ignore[override]
        out = self.view(np.ndarray).flatten(*args, **kwargs).view(Formed)
        out._f = self._forms().flatten(*args, **kwargs)
        return out

    def transpose(self, *axes):  # type: ignore[override]
        out = self.view(np.ndarray).transpose(*axes).view(Formed)
        out._f = self._forms().transpose(*axes)
        return out

    @property
    def T(self):  # type: ignore[override]
        return self.transpose()

    def squeeze(self, *args, **kwargs):  # type: ignore[override]
        out = self.view(np.ndarray).squeeze(*args, **kwargs).view(Formed)
        out._f = self._forms().squeeze(*args, **kwargs)
        return out

    def astype(self, dtype, *args, **kwargs):  # type: ignore[override]
        out = super().astype(dtype, *args, **kwargs)
        if np.dtype(dtype).kind in "fc" and isinstance(out, np.ndarray):
            out = out.view(Formed)
            out._f = self._forms().copy()
        return out

    def __getitem__(self, key):
        tracer = ACTIVE
        if tracer is None or not getattr(tracer, "symbolic", False):
            return Watched.__getitem__(self, key)
        key, fancy = _plain_key(key)
        out = np.ndarray.__getitem__(self.view(np.ndarray), key)
        f = self._f
        if not isinstance(out, np.ndarray):
            if f is not None:
                g = f[key]
                if g is not ZERO:
                    tracer.read_form(g, "an element moved into a Python number")
            return out
        out = out.view(Formed)
        if f is None:
            if fancy:
                return out
            f = self._f = _zeros(self.shape)
        out._f = f[key]
        return out

    def __setitem__(self, key, value) -> None:
        tracer = ACTIVE
        if tracer is None or not getattr(tracer, "symbolic", False):
            return Watched.__setitem__(self, key, value)
        key, _ = _plain_key(key)
        fv = value._f if type(value) is Formed else None
        np.ndarray.__setitem__(self.view(np.ndarray), key,
                               value.view(np.ndarray) if isinstance(value, np.ndarray) else value)
        if fv is None:
            if self._f is not None:
                self._f[key] = ZERO
            return
        if self._f is None:
            self._f = _zeros(self.shape)
        self._f[key] = fv

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        tracer = ACTIVE
        if tracer is None or not getattr(tracer, "symbolic", False):
            return self._ufunc_via_watched(ufunc, method, inputs, kwargs)
        plain = []
        fs = []
        formed = []
        for x in inputs:
            kind = type(x)
            if kind is Formed:
                f = x._f
                if f is not None and _any_form(f):
                    fs.append(f)
                    formed.append(x)
                else:
                    fs.append(None)
                plain.append(x.view(np.ndarray))
            elif kind is Draw:
                return self._ufunc_via_watched(ufunc, method, inputs, kwargs)
            else:
                fs.append(None)
                plain.append(x.view(np.ndarray) if kind is Watched else x)
        out = kwargs.get("out", ())
        if out:
            kwargs["out"] = tuple(o.view(np.ndarray) if isinstance(o, np.ndarray) else o
                                  for o in out)
        result = getattr(ufunc, method)(*plain, **kwargs)
        forms = None
        if formed:
            across = method == "reduce" and kwargs.get("axis", 0) in (None, 0) \
                and np.ndim(plain[0]) >= 1
            name = f"np.{ufunc.__name__}" + (f".{method}" if method != "__call__" else "")
            if ufunc in _READS or across:
                what = ("a reduction across the lockstep runs" if across and ufunc not in _READS
                        else f"a predicate ({name})")
                for x in formed:
                    tracer.read(x, what)
            else:
                shape = np.shape(out[0] if len(out) == 1 else result)
                forms = _ufunc_forms(ufunc, method, inputs, kwargs, shape, fs)
                if forms is None or (type(forms) is np.ndarray and forms.dtype == object
                                     and _is_opaque(forms)):
                    tracer.nonlinear(name, *formed)
        if out:
            target = out[0] if len(out) == 1 else None
            if isinstance(target, Formed):
                if forms is not None:
                    target._forms()[...] = forms
                elif target._f is not None:
                    target._f[...] = ZERO
            elif forms is not None and _any_form(forms):
                tracer.lost("a reward-derived value written into an array the tracer does not "
                            "follow")
            return out[0] if len(out) == 1 else out
        if not isinstance(result, np.ndarray):
            if forms is not None and _any_form(np.asarray(forms, dtype=object)):
                tracer.read_form(Opaque(np.asarray(forms, dtype=object).flat),
                                 "a result moved into a Python number")
            return result
        if result.dtype.kind != "f":
            return result
        result = result.view(Formed)
        if forms is not None:
            result._f = forms
        return result

    def _ufunc_via_watched(self, ufunc, method, inputs, kwargs):
        out = kwargs.get("out", ())
        result = Watched.__array_ufunc__(self, ufunc, method, *inputs, **kwargs)
        if not _symbolic() or result is NotImplemented:
            return result
        target = out[0] if len(out) == 1 else None
        shape = np.shape(target if target is not None else result)
        fs = [x._f if type(x) is Formed and x._f is not None and _any_form(x._f) else None
              for x in inputs]
        forms = None if all(f is None for f in fs) else _ufunc_forms(ufunc, method, inputs,
                                                                       kwargs, shape, fs)
        if target is not None:
            if isinstance(target, Formed):
                target._forms()[...] = forms if forms is not None else ZERO
            elif forms is not None and _any_form(forms):
                ACTIVE.lost("a reward-derived value written into an array the tracer does not "
                            "follow")
            return result
        if isinstance(result, Draw) or not isinstance(result, np.ndarray):
            return result
        result = result.view(Formed)
        result._f = forms
        return result

    def __array_function__(self, func, types, args, kwargs):
        tracer = ACTIVE
        if tracer is None or not getattr(tracer, "symbolic", False):
            return super().__array_function__(func, types, args, kwargs)
        flat = [a for a in (args if not kwargs else list(args) + list(kwargs.values()))
                if isinstance(a, Watched)] if func not in _LISTS else [
                    a for a in _flat_args(list(args) + list(kwargs.values()))
                    if isinstance(a, Watched)]
        name = f"np.{func.__name__}"
        formed = []
        for d in flat:
            if type(d) is Formed:
                if d._f is not None and _any_form(d._f):
                    formed.append(d)
            elif isinstance(d, Draw):
                tracer.draw_read(d, name)
        if func is np.where and args and type(args[0]) is Formed and args[0] in formed:
            tracer.read(args[0], "a selection (np.where) on a reward-derived condition")
        elif func in _READ_FUNCTIONS:
            for x in formed:
                tracer.read(x, f"a read ({name})")
        if func in _LISTS:
            result = func(*_unwrap(args), **{k: _unwrap(v) for k, v in kwargs.items()})
        else:
            result = func(*[a.view(np.ndarray) if isinstance(a, Watched) else a for a in args],
                          **{k: v.view(np.ndarray) if isinstance(v, Watched) else v
                             for k, v in kwargs.items()})
        if not isinstance(result, np.ndarray) or result.dtype.kind not in "fc":
            if isinstance(result, np.ndarray) and result.dtype.kind not in "fc":
                return result
            if formed and func not in _READ_FUNCTIONS and not isinstance(result, tuple):
                tracer.read(formed[0], f"a conversion to a Python number ({name})")
            return result
        result = result.view(Formed)
        if not formed or func in _READ_FUNCTIONS:
            result._f = None
            return result
        if func in _FORM_FUNCTIONS:
            try:
                f = _forms_only(func(*_to_forms(args),
                                     **{k: _to_forms(v) for k, v in kwargs.items()}))
                if f.shape == result.shape:
                    result._f = f
                    return result
            except (TypeError, ValueError):
                pass
        tracer.nonlinear(name, *formed)
        result._f = _opaque(result.shape, *(a._f for a in formed))
        return result


def _plain_key(key):
    """The key with its arrays plain (an index read of a watched value is checked), and whether
    it selects by arrays (a copy) rather than by slices and integers (a view)."""
    if type(key) is tuple:
        fancy = False
        out = []
        for k in key:
            if isinstance(k, np.ndarray):
                if isinstance(k, Watched):
                    k._read_as("an index")
                    k = k.view(np.ndarray)
                fancy = fancy or k.ndim > 0
            elif isinstance(k, list):
                fancy = True
            out.append(k)
        return tuple(out), fancy
    if isinstance(key, np.ndarray):
        if isinstance(key, Watched):
            key._read_as("an index")
            key = key.view(np.ndarray)
        return key, key.ndim > 0
    return key, isinstance(key, list)


def _flat_args(xs):
    for x in xs:
        if isinstance(x, (list, tuple)):
            yield from _flat_args(x)
        else:
            yield x


def _to_forms(x):
    if isinstance(x, Formed):
        return x._forms()
    if isinstance(x, np.ndarray) and x.dtype.kind in "fc":
        return _zeros(x.shape)
    if isinstance(x, (list, tuple)):
        return type(x)(_to_forms(v) for v in x)
    return x


_LISTS = frozenset({np.concatenate, np.stack, np.hstack, np.vstack, np.column_stack, np.select,
                    np.block, np.broadcast_arrays, np.einsum})
"""Array functions that take arrays inside lists."""
_FORM_FUNCTIONS = frozenset({np.concatenate, np.stack, np.hstack, np.vstack, np.column_stack,
                             np.copy, np.reshape, np.ravel, np.broadcast_to, np.atleast_1d,
                             np.atleast_2d, np.squeeze, np.expand_dims, np.take,
                             np.take_along_axis, np.repeat, np.tile, np.flip, np.transpose,
                             np.swapaxes, np.moveaxis, np.sum, np.mean, np.cumsum, np.dot,
                             np.matmul, np.inner, np.where, np.zeros_like, np.empty_like,
                             np.diff, np.roll, np.append, np.insert, np.delete, np.select,
                             np.full_like, np.ones_like, np.average, np.trace, np.outer})
"""Array functions that keep each element a linear form of the inputs' (a selection, a shape,
an affine reduction): the same function is applied to the forms (a product of two forms
raises, and the result is then opaque)."""


def _ufunc_forms(ufunc, method, inputs, kwargs, shape, fs) -> np.ndarray | None:
    """The forms of a ufunc's result (``fs``: each input's forms, None where it has none):
    sums and differences add forms, a product or quotient by a value with no form scales
    them; a predicate has none; anything else of a form is opaque."""
    if all(f is None for f in fs):
        return None
    if ufunc in _READS:
        return None
    if method == "__call__":
        v = [_unwrap(x) for x in inputs]
        try:
            if ufunc is np.add:
                return _broadcast(np.add(_f(inputs[0], shape), _f(inputs[1], shape)), shape)
            if ufunc is np.subtract:
                return _broadcast(np.subtract(_f(inputs[0], shape), _f(inputs[1], shape)), shape)
            if ufunc in (np.negative,):
                return _broadcast(np.negative(fs[0]), shape)
            if ufunc in (np.positive, np.conjugate):
                return _broadcast(fs[0].copy(), shape)
            if ufunc is np.multiply and (fs[0] is None or fs[1] is None):
                f, c = (fs[0], v[1]) if fs[1] is None else (fs[1], v[0])
                return _broadcast(np.multiply(f, np.asarray(c, dtype=float).astype(object)),
                                  shape)
            if ufunc is np.true_divide and fs[1] is None:
                return _broadcast(np.true_divide(fs[0], np.asarray(v[1], dtype=float)
                                                 .astype(object)), shape)
        except TypeError:
            pass
    elif method in ("reduce", "accumulate") and ufunc is np.add:
        kw = {k: val for k, val in kwargs.items() if k in ("axis", "keepdims")}
        try:
            out = _forms_only(getattr(np.add, method)(fs[0], **kw))
            return _broadcast(out, shape)
        except TypeError:
            pass
    return _opaque(shape, *fs)


def _is_opaque(f: np.ndarray) -> bool:
    for g in f.flat:
        if type(g) is Opaque:
            return True
    return False


def _f(x, shape) -> np.ndarray:
    f = getattr(x, "_f", None)
    if f is None:
        return np.broadcast_to(_ZERO_SCALAR, np.shape(x))
    return f


def _broadcast(f, shape) -> np.ndarray:
    f = np.asarray(f, dtype=object)
    if f.shape != tuple(shape):
        f = np.broadcast_to(f, shape)
    out = np.empty(shape, dtype=object)
    out[...] = f
    return out


def _forms_only(f) -> np.ndarray:
    f = np.asarray(f, dtype=object)
    for i, g in enumerate(f.flat):
        if not isinstance(g, Form):
            f.flat[i] = ZERO
    return f
