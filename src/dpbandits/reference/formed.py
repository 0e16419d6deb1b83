"""Arrays that carry linear forms (:class:`Formed`), the size-T mode of the accountant
(docs/accountant.md#proof-at-your-size): a :class:`~dpbandits.reference.watched.Watched` array
whose elements carry their :class:`~dpbandits.reference.forms.Form`, built through numpy's
operations by the rules below; :mod:`dpbandits.reference.watched` re-exports it."""

from __future__ import annotations

import numpy as np

from . import watched
from .arguments import flat as _flat_args
from .forms import ZERO, Form, Opaque, _any_form, _opaque, _symbolic, _zeros, _ZERO_SCALAR
from .forms import _asarray
from .watched import AFFINE_FUNCTIONS, _READ_FUNCTIONS, _READS, Draw, Watched, _site, _unwrap

__all__ = ["Formed"]


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
        out = np.ndarray.view(self, np.ndarray).copy(*args, **kwargs).view(Formed)
        out._f = self._forms().copy()
        return out

    def reshape(self, *args, **kwargs):  # type: ignore[override]
        out = np.ndarray.view(self, np.ndarray).reshape(*args, **kwargs).view(Formed)
        out._f = self._forms().reshape(*args, **kwargs)
        return out

    def ravel(self, *args, **kwargs):  # type: ignore[override]
        out = np.ndarray.view(self, np.ndarray).ravel(*args, **kwargs).view(Formed)
        out._f = self._forms().ravel(*args, **kwargs)
        return out

    def flatten(self, *args, **kwargs):  # type: ignore[override]
        out = np.ndarray.view(self, np.ndarray).flatten(*args, **kwargs).view(Formed)
        out._f = self._forms().flatten(*args, **kwargs)
        return out

    def transpose(self, *axes):  # type: ignore[override]
        out = np.ndarray.view(self, np.ndarray).transpose(*axes).view(Formed)
        out._f = self._forms().transpose(*axes)
        return out

    @property
    def T(self):  # type: ignore[override]
        return self.transpose()

    def squeeze(self, *args, **kwargs):  # type: ignore[override]
        out = np.ndarray.view(self, np.ndarray).squeeze(*args, **kwargs).view(Formed)
        out._f = self._forms().squeeze(*args, **kwargs)
        return out

    def astype(self, dtype, *args, **kwargs):  # type: ignore[override]
        out = super().astype(dtype, *args, **kwargs)
        if np.dtype(dtype).kind in "fc" and isinstance(out, np.ndarray):
            out = out.view(Formed)
            out._f = self._forms().copy()
        return out

    def __getitem__(self, key):
        tracer = watched.ACTIVE
        if tracer is None or not getattr(tracer, "symbolic", False):
            return Watched.__getitem__(self, key)
        if tracer.locality is not None and _played(key):
            tracer.locality.acted(f"a selection of reward-derived values by a key derived "
                                  f"from the actions ({_site()})")
        key, fancy = _plain_key(key)
        out = np.ndarray.__getitem__(np.ndarray.view(self, np.ndarray), key)
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
        tracer = watched.ACTIVE
        if tracer is None or not getattr(tracer, "symbolic", False):
            return Watched.__setitem__(self, key, value)
        if tracer.locality is not None and _played(key):
            tracer.locality.item_write(key, value, tracer.width)
        key, _ = _plain_key(key)
        fv = value._f if type(value) is Formed else None
        np.ndarray.__setitem__(np.ndarray.view(self, np.ndarray), key,
                               np.ndarray.view(value, np.ndarray)
                               if isinstance(value, np.ndarray) else value)
        if fv is None:
            if self._f is not None:
                self._f[key] = ZERO
            return
        if self._f is None:
            self._f = _zeros(self.shape)
        self._f[key] = fv

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        tracer = watched.ACTIVE
        if tracer is None or not getattr(tracer, "symbolic", False):
            return self._ufunc_via_watched(ufunc, method, inputs, kwargs)
        if tracer.locality is not None and _played(inputs):
            tracer.locality.acted(f"np.{ufunc.__name__} of a reward-derived value and a value "
                                  f"derived from the actions ({_site()}): its coefficients "
                                  f"could move with them")
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
                plain.append(np.ndarray.view(x, np.ndarray))
            elif kind is Draw:
                return self._ufunc_via_watched(ufunc, method, inputs, kwargs)
            else:
                fs.append(None)
                plain.append(np.ndarray.view(x, np.ndarray) if kind is Watched else x)
        out = kwargs.get("out", ())
        if out:
            kwargs["out"] = tuple(np.ndarray.view(o, np.ndarray) if isinstance(o, np.ndarray) else o
                                  for o in out)
        result = getattr(ufunc, method)(*plain, **kwargs)
        if not formed:                  # no input carries a form: neither does the result
            if out:
                target = out[0] if len(out) == 1 else None
                if isinstance(target, Formed) and target._f is not None:
                    target._f[...] = ZERO
                return out[0] if len(out) == 1 else out
            if not isinstance(result, np.ndarray) or result.dtype.kind != "f":
                return result
            return result.view(Formed)
        forms = None
        across = method == "reduce" and kwargs.get("axis", 0) in (None, 0) \
            and np.ndim(plain[0]) >= 1
        if ufunc in _READS or across:
            what = ("a reduction across the lockstep runs" if across and ufunc not in _READS
                    else f"a predicate ({_name(ufunc, method)})")
            for x in formed:
                tracer.read(x, what)
        else:
            shape = (out[0].shape if len(out) == 1 and type(out[0]) in _PLAIN_SHAPE
                     else np.shape(out[0] if len(out) == 1 else result))
            forms = _ufunc_forms(ufunc, method, inputs, kwargs, shape, fs)
            if forms is None or (type(forms) is np.ndarray and forms.dtype == object
                                 and Opaque.made and _is_opaque(forms)):
                tracer.nonlinear(_name(ufunc, method), *formed)
        if out:
            target = out[0] if len(out) == 1 else None
            if isinstance(target, Formed):
                if forms is not None:
                    f = target._f
                    if f is not None and f.shape == target.shape:
                        f[...] = forms
                    else:
                        target._f = forms       # a fresh array of the target's shape
                elif target._f is not None:
                    target._f[...] = ZERO
            elif forms is not None and _any_form(forms):
                tracer.lost("a reward-derived value written into an array the tracer does not "
                            "follow")
            return out[0] if len(out) == 1 else out
        if not isinstance(result, np.ndarray):
            if forms is not None and _any_form(_asarray(forms, dtype=object)):
                tracer.read_form(Opaque(_asarray(forms, dtype=object).flat),
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
                watched.ACTIVE.lost("a reward-derived value written into an array the tracer does not "
                            "follow")
            return result
        if isinstance(result, Draw) or not isinstance(result, np.ndarray):
            return result
        result = result.view(Formed)
        result._f = forms
        return result

    def __array_function__(self, func, types, args, kwargs):
        tracer = watched.ACTIVE
        if tracer is None or not getattr(tracer, "symbolic", False):
            return super().__array_function__(func, types, args, kwargs)
        if tracer.locality is not None and _played(_flat_args(list(args) + list(kwargs.values()))):
            tracer.locality.acted(f"np.{func.__name__} of a reward-derived value and a value "
                                  f"derived from the actions ({_site()}): its coefficients "
                                  f"could move with them")
        flat = [a for a in (args if not kwargs else list(args) + list(kwargs.values()))
                if isinstance(a, Watched)] if func not in _LISTS else [
                    a for a in _flat_args(list(args) + list(kwargs.values()))
                    if isinstance(a, Watched)]
        formed = []
        for d in flat:
            if type(d) is Formed:
                if d._f is not None and _any_form(d._f):
                    formed.append(d)
            elif isinstance(d, Draw):
                tracer.draw_read(d, f"np.{func.__name__}")
        name = f"np.{func.__name__}" if formed else ""
        if func is np.where and args and type(args[0]) is Formed and args[0] in formed:
            tracer.read(args[0], "a selection (np.where) on a reward-derived condition")
        elif func in _READ_FUNCTIONS:
            for x in formed:
                tracer.read(x, f"a read ({name})")
        if func in _LISTS:
            result = func(*_unwrap(args), **{k: _unwrap(v) for k, v in kwargs.items()})
        else:
            result = func(*[np.ndarray.view(a, np.ndarray) if isinstance(a, Watched) else a
                            for a in args],
                          **{k: np.ndarray.view(v, np.ndarray) if isinstance(v, Watched) else v
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
        if func in AFFINE_FUNCTIONS:      # the same function applied to the forms
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


def _played(xs) -> bool:
    """Whether a key or an operand is derived from the actions (a tagged value of the
    dependence analysis, :mod:`dpbandits.reference.tagged`)."""
    if not isinstance(xs, (tuple, list)):
        xs = (xs,)
    return any(getattr(x, "_played", False) for x in xs)


_PLAIN_SHAPE = (Formed, np.ndarray)
"""Arrays whose np.shape is their .shape with no side effect (np.shape of a draw is recorded)."""


def _plain_key(key):
    """The key with its arrays plain (an index read of a watched value is checked), and whether
    it selects by arrays (a copy) rather than by slices and integers (a view)."""
    if type(key) is tuple:
        if len(key) == 2 and type(key[0]) is np.ndarray and type(key[1]) is np.ndarray:
            return key, key[0].ndim > 0 or key[1].ndim > 0      # two plain index arrays
        fancy = False
        out = []
        for k in key:
            if isinstance(k, np.ndarray):
                if isinstance(k, Watched):
                    k._read_as("an index")
                    k = np.ndarray.view(k, np.ndarray)
                fancy = fancy or k.ndim > 0
            elif isinstance(k, list):
                fancy = True
            out.append(k)
        return tuple(out), fancy
    if isinstance(key, np.ndarray):
        if isinstance(key, Watched):
            key._read_as("an index")
            key = np.ndarray.view(key, np.ndarray)
        return key, key.ndim > 0
    return key, isinstance(key, list)




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



def _ufunc_forms(ufunc, method, inputs, kwargs, shape, fs) -> np.ndarray | None:
    """The forms of a ufunc's result (``fs``: each input's forms, None where it has none):
    sums and differences add forms, a product or quotient by a value with no form scales
    them; a predicate has none; anything else of a form is opaque."""
    if all(f is None for f in fs):
        return None
    if ufunc in _READS:
        return None
    if method == "__call__":
        try:
            if ufunc is np.add:
                f0, f1 = fs
                return _broadcast(np.add(_f(inputs[0], shape) if f0 is None else f0,
                                         _f(inputs[1], shape) if f1 is None else f1), shape)
            if ufunc is np.subtract:
                return _broadcast(np.subtract(_f(inputs[0], shape), _f(inputs[1], shape)), shape)
            if ufunc in (np.negative,):
                return _broadcast(np.negative(fs[0]), shape)
            if ufunc in (np.positive, np.conjugate):
                return _broadcast(fs[0].copy(), shape)
            if ufunc is np.multiply and (fs[0] is None or fs[1] is None):
                v = [_unwrap(x) for x in inputs]
                f, c = (fs[0], v[1]) if fs[1] is None else (fs[1], v[0])
                c = _asarray(c, dtype=float)
                zero = c == 0.0
                if np.all(zero | (c == 1.0)):   # a 0/1 mask: each form kept, or ZERO
                    return _broadcast(np.where(zero, _ZERO_OBJECT, f), shape)
                return _broadcast(np.multiply(f, c.astype(object)), shape)
            if ufunc is np.true_divide and fs[1] is None:
                return _broadcast(np.true_divide(fs[0], _asarray(_unwrap(inputs[1]), dtype=float)
                                                 .astype(object)), shape)
        except TypeError:
            pass
    elif method in ("reduce", "accumulate") and ufunc is np.add:
        kw = {k: val for k, val in kwargs.items() if k in ("axis", "keepdims")}
        if method == "reduce" and _rows_reduce(fs[0], kw):
            return _broadcast(_sum_rows(fs[0]), shape)
        try:
            out = _forms_only(getattr(np.add, method)(fs[0], **kw))
            return _broadcast(out, shape)
        except TypeError:
            pass
    return _opaque(shape, *fs)


_ZERO_OBJECT = np.empty((), dtype=object)
_ZERO_OBJECT[()] = ZERO


def _rows_reduce(f, kw: dict) -> bool:
    """Whether ``np.add.reduce(f, **kw)`` sums each row of a 2-d array of forms."""
    return (type(f) is np.ndarray and f.dtype == object and f.ndim == 2 and f.shape[1] > 0
            and kw.get("axis", 0) in (1, -1) and not kw.get("keepdims", False))


def _sum_rows(f: np.ndarray) -> np.ndarray:
    """``np.add.reduce(f, axis=1)`` of forms, the same objects: the sum runs left to right, and
    ZERO + g and g + ZERO are g itself, so each row is the sum of its other forms in order
    (ZERO when it has none) without the Python calls of its zeros."""
    keep = f != _ZERO_OBJECT
    out = np.empty(f.shape[0], dtype=object)
    out[...] = _ZERO_OBJECT
    for r in np.flatnonzero(keep.any(axis=1)).tolist():
        forms = f[r][keep[r]]
        total = forms[0]
        for g in forms[1:].tolist():
            total = total + g
        out[r] = total
    return out


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


def _name(ufunc, method: str) -> str:
    return f"np.{ufunc.__name__}" + (f".{method}" if method != "__call__" else "")


def _broadcast(f, shape) -> np.ndarray:
    """``f`` (a ufunc's result on forms: a fresh array, or one form) as a fresh object array of
    ``shape``."""
    f = _asarray(f, dtype=object)
    if f.shape == shape and f.base is None:
        return f
    if f.shape != tuple(shape):
        f = np.broadcast_to(f, shape)
    out = np.empty(shape, dtype=object)
    out[...] = f
    return out


def _forms_only(f) -> np.ndarray:
    f = _asarray(f, dtype=object)
    for i, g in enumerate(f.flat):
        if not isinstance(g, Form):
            f.flat[i] = ZERO
    return f
