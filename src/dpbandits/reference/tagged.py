"""Tagged values of the per-arm dependence analysis (:mod:`dpbandits.reference.locality`,
docs/accountant.md#proof-at-your-size): what a value of ``observe`` is derived from.

A value of ``observe`` is a :class:`Runs` (one entry per selected run, with the positions it
selects and what it is derived from: the tracer's ``rows`` or ``actions``, count state, public
constants, float state or released values, a reduction across runs) or a :class:`Noisy` (a
float read from the policy's state, or released: its linear forms kept, and what is computed
from it stays tagged). A use of a tag that the per-arm schedule forbids is a finding of the
active checker (:func:`_note`), with its line.
"""

from __future__ import annotations

import os
import sys

import numpy as np

from . import sight, watched
from .arguments import flat as _flat
from .formed import Formed
from .forms import _asarray

__all__ = ["Runs", "Noisy"]

_SKIP = {os.path.abspath(__file__), os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                  "locality.py")}


_PASSED: dict[str, bool] = {}
"""Per file name: whether :func:`_line` passes over its frames (numpy's and the tracer's)."""


def _passed(filename: str) -> bool:
    known = _PASSED.get(filename)
    if known is None:
        name = os.path.abspath(filename)
        known = _PASSED[filename] = (name in _SKIP or name in watched._OURS
                                     or f"{os.sep}numpy{os.sep}" in name)
    return known


def _line() -> str:
    """The first line outside numpy and the tracer's modules: where a use happened."""
    f = _frame()
    return "an unknown line" if f is None else \
        f"{os.path.basename(f.f_code.co_filename)}:{f.f_lineno}"


def _frame():
    """The frame of :func:`_line`'s line (None when there is none)."""
    f = sys._getframe(1)
    while f is not None and _passed(f.f_code.co_filename):
        f = f.f_back
    return f


def _checker() -> "Locality | None":
    return getattr(watched.ACTIVE, "locality", None)


def _note(what: str) -> None:
    c = _checker()
    if c is not None:
        c.finding(what)


# --- tagged values -----------------------------------------------------------------------------

_FLOAT, _ACROSS, _COUNT, _PUBLIC, _ANY = "float", "across", "count", "public", "any"
_RANK = {_FLOAT: 0, _ACROSS: 1, _COUNT: 2, _ANY: 2, _PUBLIC: 3}
_ROLES = ("rows", "actions", "flat", "every")
_CONTROL = {_FLOAT: "a value read from float state or released",
            _ACROSS: "a reduction across runs"}


def _kind_of(x) -> str | None:
    kind = type(x)
    if kind is Runs:
        return _PUBLIC if x._kind in _ROLES else x._kind
    if kind is Noisy:
        return _FLOAT
    return None


def _combine(xs) -> str:
    best, rank = _PUBLIC, 3
    for x in xs:
        k = _kind_of(x)
        if k is not None and _RANK[k] < rank:
            best, rank = k, _RANK[k]
    return best


def _plain(x):
    kind = type(x)
    if kind is Runs:
        return np.ndarray.view(x, np.ndarray)
    if kind is tuple or kind is list:
        return kind(_plain(v) for v in x)
    return x


def _tag(value, kind: str, pos=None, runs=None, origin: str = "", played: bool = False):
    if isinstance(value, np.ndarray):
        out = np.ndarray.view(value, np.ndarray).view(Runs)
    elif isinstance(value, (np.generic, bool, int, float)):
        out = _asarray(value).view(Runs)
    else:
        return value
    out._kind, out._pos, out._runs, out._origin = kind, pos, runs, origin
    out._played = played
    return out


def _played_of(xs) -> bool:
    """Whether a value computed from ``xs`` is derived from the actions (the tracer's
    ``actions``, a read of per-(run, arm) state by the traced pair, or what is computed from
    them)."""
    return any(getattr(x, "_played", False) for x in xs)


def _acted(what: str) -> None:
    c = _checker()
    if c is not None:
        c.acted(what)


def _origin_of(xs) -> str:
    """Where a value computed from ``xs`` lost the tracer's rows or actions: the line of the
    first arithmetic on them (kept by what is computed from it), or ""."""
    for x in xs:
        if type(x) is Runs and x._origin:
            return x._origin
    if any(type(x) is Runs and x._kind in _ROLES for x in xs):
        return _line()
    return ""


def _axis_is_runs(x: "Runs", axis) -> bool:
    """Whether a reduction of ``x`` over ``axis`` reduces across its runs (axis 0). Its rank
    is taken as a tagged value, so the branch on it is a use of ``x``'s tag (as a branch on
    ``np.ndim(x)`` in ``observe`` would be): one check of that use, then plain integers."""
    _controls(_PUBLIC if x._kind in _ROLES else x._kind, x._played, "a branch")
    ndim = np.ndarray.ndim.__get__(x)
    if ndim == 0:
        return False
    if axis is None:
        return True
    axes = axis if isinstance(axis, tuple) else (axis,)
    return any(a % ndim == 0 for a in axes)


def _control(x, what: str, played: bool = True) -> None:
    """``x`` steers the control flow (``what``): a finding unless it is count-derived or
    public; and, with ``played``, a use of the actions (:meth:`Locality.acted`: a finding
    where the state is updated in every slot) when it is derived from them."""
    _controls(_kind_of(x), played and getattr(x, "_played", False), what)


def _controls(kind: str | None, played: bool, what: str) -> None:
    """:func:`_control` of a value of tag ``kind``, derived from the actions when ``played``."""
    if kind in _CONTROL:
        _note(f"{what} reads {_CONTROL[kind]} ({_line()}): the schedule could move with the "
              f"noise")
    if played:
        _acted(f"{what} reads a value derived from the actions ({_line()})")


class Runs(np.ndarray):
    """A value of ``observe`` with one entry per selected run (axis 0), tagged with what it
    is derived from (``_kind``: the tracer's ``rows`` or ``actions``, ``count`` state,
    ``public`` constants, ``float`` state or released values, a reduction ``across`` runs, or
    ``any`` of a mask) and, along axis 0, the positions of the runs it holds (``_pos``)."""

    _followed = True
    _kind: str = _PUBLIC
    _pos: np.ndarray | None = None
    _runs: frozenset | None = None
    _origin: str = ""
    """Where a key made from the rows or actions stopped being them (see :func:`_origin_of`)."""
    _played: bool = False
    """Derived from the actions (:func:`_played_of`)."""

    def __array_finalize__(self, obj) -> None:
        if obj is not None and isinstance(obj, Runs):
            self._origin = obj._origin
            self._played = obj._played
            self._kind = obj._kind if obj._kind not in _ROLES or obj.shape == self.shape \
                else _PUBLIC
            self._pos = obj._pos if obj.shape[:1] == self.shape[:1] else None

    def __getitem__(self, key):
        keys = key if isinstance(key, tuple) else (key,)
        for k in keys:
            _control(k, "a selection")
        out = np.ndarray.__getitem__(np.ndarray.view(self, np.ndarray), _plain(key))
        played = self._played or _played_of(keys)
        if not isinstance(out, np.ndarray) or self._pos is None or out.ndim == 0:
            if played and not isinstance(out, np.ndarray):
                _acted(f"a value derived from the actions moved into a Python number "
                       f"({_line()})")
            return out if self._kind in (_PUBLIC, _COUNT, *_ROLES) and not played \
                else _tag(out, self._kind if self._kind not in _ROLES else _PUBLIC,
                          played=played)
        first = _plain(keys[0]) if keys else slice(None)
        try:
            pos = self._pos[first]
        except (IndexError, TypeError):
            pos = None
        kind = self._kind if self._kind not in _ROLES or pos is not None else _PUBLIC
        return _tag(out, kind, pos if pos is not None and np.ndim(pos) == 1 else None,
                    played=played)

    def ravel(self, *args, **kwargs):  # type: ignore[override]
        """Flattened; a key of runs keeps its tag, each run's positions repeated over its row
        (C order)."""
        out = np.ndarray.ravel(np.ndarray.view(self, np.ndarray), *args, **kwargs)
        n = np.ndarray.size.__get__(self)
        if self._pos is None or self.ndim <= 1 or not n or args or kwargs:
            return _tag(out, self._kind if self.ndim <= 1 else
                        (self._kind if self._kind not in _ROLES else _PUBLIC),
                        self._pos if self.ndim <= 1 else None, self._runs, self._origin,
                        self._played)
        per = n // self.shape[0]
        return _tag(out, self._kind, np.repeat(self._pos, per), None, self._origin, self._played)

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        outs = kwargs.get("out", ())
        if any(isinstance(x, (Formed, watched.Watched)) for x in inputs + tuple(outs)):
            return NotImplemented       # the forms' arrays compute, then call back on plain
        kind = _combine(inputs)
        if outs:
            kwargs["out"] = tuple(np.ndarray.view(o, np.ndarray) if type(o) is Runs else o
                                  for o in outs)
        result = getattr(ufunc, method)(*[np.ndarray.view(x, np.ndarray) if type(x) is Runs else x
                                          for x in inputs], **kwargs)
        played = _played_of(inputs)
        first = next((x for x in inputs if isinstance(x, Runs)), None)
        pos, runs = None, None
        if method == "__call__":
            pos = next((x._pos for x in inputs if isinstance(x, Runs) and x._pos is not None
                        and np.ndim(result) >= 1 and x.shape[:1] == np.shape(result)[:1]), None)
        elif method == "reduce" and first is not None and first._pos is not None:
            if _axis_is_runs(first, kwargs.get("axis", 0)):
                if ufunc is np.logical_or and kind in (_COUNT, _PUBLIC) and np.ndim(result) == 0:
                    kind = _ANY
                    runs = frozenset(first._pos[_asarray(_plain(first), bool).reshape(
                        first.shape[0], -1).any(axis=1)].tolist())
                elif kind != _FLOAT:
                    kind = _ACROSS
            else:
                pos = first._pos
        elif method != "__call__" and first is not None and _axis_is_runs(first, kwargs.get("axis", 0)):
            kind = _ACROSS if kind != _FLOAT else kind
        if outs:
            for o in outs:
                if isinstance(o, Runs):
                    o._kind = kind if o._kind not in _ROLES else _PUBLIC
                    o._played = o._played or played
            return outs[0] if len(outs) == 1 else outs
        return _tag(result, kind, pos, runs, _origin_of(inputs), played)

    def __array_function__(self, func, types, args, kwargs):
        if any(issubclass(t, (Formed, watched.Watched)) for t in types):
            return NotImplemented
        if func is np.atleast_1d and len(args) == 1 and not kwargs and args[0] is self \
                and self.ndim >= 1:
            return self                 # as numpy returns it: the same array, its tag kept
        if func is np.ravel_multi_index:
            return _flat_key(args, kwargs)
        if func is np.ravel and len(args) == 1 and not kwargs and args[0] is self:
            return self.ravel()
        flat = list(_flat(args)) + list(_flat(kwargs.values()))
        played = _played_of(flat)
        kind = _combine(flat)
        result = func(*_plain(args), **{k: _plain(v) for k, v in kwargs.items()})
        first = next((x for x in flat if isinstance(x, Runs)), None)
        pos = None
        if func in _ELEMENTWISE and first is not None and first._pos is not None \
                and np.shape(result)[:1] == first.shape[:1]:
            pos = first._pos
        elif func in _REDUCTIONS and first is not None and first._pos is not None \
                and _axis_is_runs(first, kwargs.get("axis", args[1] if len(args) > 1 and
                                                   func is not np.where else None)):
            if func is np.any and kind in (_COUNT, _PUBLIC) and np.ndim(result) == 0:
                return _tag(result, _ANY, None, frozenset(first._pos[_asarray(
                    _plain(first), bool).reshape(first.shape[0], -1).any(axis=1)].tolist()),
                    played=played)
            kind = _ACROSS if kind != _FLOAT else kind
        origin = _origin_of(flat)
        if isinstance(result, tuple):
            return tuple(_tag(r, kind, origin=origin, played=played) for r in result)
        return _tag(result, kind, pos, origin=origin, played=played)

    @property
    def size(self):  # type: ignore[override]
        """The number of elements; of a selection of runs, a 0-d value of kind ``any`` whose
        truth is that some run is selected (a branch on it is a branch on ``any()`` of the
        selection's mask: :meth:`__bool__`)."""
        n = np.ndarray.size.__get__(self)
        if self._pos is None or self._kind not in (_COUNT, *_ROLES):
            return n
        return _tag(_asarray(n), _ANY, None, frozenset(self._pos.tolist()),
                    played=self._played)

    def _demote(self) -> None:
        """Written in place: what the tracer's rows or actions held is no longer known."""
        if self._kind in _ROLES:
            self._kind = _PUBLIC

    def __setitem__(self, key, value) -> None:
        self._demote()
        np.ndarray.__setitem__(np.ndarray.view(self, np.ndarray), _plain(key), _plain(value))

    def sort(self, *args, **kwargs):  # type: ignore[override]
        self._demote()
        np.ndarray.view(self, np.ndarray).sort(*args, **kwargs)

    def fill(self, value):  # type: ignore[override]
        self._demote()
        np.ndarray.view(self, np.ndarray).fill(value)

    def view(self, *args, **kwargs):  # type: ignore[override]
        if watched.ACTIVE is not None and watched.to_plain(args, kwargs):
            sight.moved_out([self], ".view(np.ndarray)")
        return np.ndarray.view(self, *args, **kwargs)

    def __iter__(self):
        if watched.ACTIVE is not None:
            sight.moved_out([self], "iteration")
        return np.ndarray.__iter__(self)

    def __bool__(self) -> bool:
        value = bool(np.ndarray.view(self, np.ndarray))
        if self._kind == _ANY:
            c = _checker()
            if value and c is not None:
                c.entered(self._runs, _line())
            if self._played:
                _acted(f"a branch reads a value derived from the actions ({_line()})")
        else:
            _control(self, "a branch")
        return value

    def __int__(self) -> int:
        _control(self, "a conversion to a Python number")
        return int(np.ndarray.view(self, np.ndarray))

    def __float__(self) -> float:
        _control(self, "a conversion to a Python number")
        return float(np.ndarray.view(self, np.ndarray))

    def __index__(self) -> int:
        _control(self, "an index")
        return np.ndarray.view(self, np.ndarray).__index__()

    def item(self, *args):  # type: ignore[override]
        _control(self, "a conversion to a Python number")
        return np.ndarray.view(self, np.ndarray).item(*args)

    def tolist(self):  # type: ignore[override]
        _control(self, "a conversion to Python numbers")
        return np.ndarray.view(self, np.ndarray).tolist()




def _flat_key(args, kwargs):
    """``np.ravel_multi_index`` of the traced ``(rows, actions)`` pair under one selection over
    the grid (runs, K): a ``flat`` key with the pair's positions (the index of the same slots
    in a flattened per-(run, arm) array); of anything else, a public value."""
    index = args[0] if args else kwargs.get("multi_index")
    dims = args[1] if len(args) > 1 else kwargs.get("dims")
    result = np.ravel_multi_index(_plain(index), *[_plain(a) for a in args[1:]],
                                  **{k: _plain(v) for k, v in kwargs.items()
                                     if k != "multi_index"}) if args else \
        np.ravel_multi_index(**{k: _plain(v) for k, v in kwargs.items()})
    c = _checker()
    grid = c is not None and tuple(int(d) for d in np.ravel(dims)) == (c.R, c.K)
    if (grid and isinstance(index, tuple) and len(index) == 2
            and all(isinstance(x, Runs) for x in index)
            and (index[0]._kind, index[1]._kind) == _ROLES[:2]
            and index[0]._pos is not None and index[1]._pos is not None
            and index[0].ndim == 1 and index[0].shape == index[1].shape
            and index[0]._pos.tobytes() == index[1]._pos.tobytes()):
        return _tag(result, "flat", index[0]._pos, played=True)
    if (grid and isinstance(index, tuple) and len(index) == 2 and isinstance(index[0], Runs)
            and index[0]._kind == "rows" and index[0]._pos is not None
            and index[0].shape == (index[0]._pos.size, 1) and not index[0]._played
            and type(index[1]) is np.ndarray and index[1].dtype.kind in "iu"
            and np.array_equal(np.ravel(index[1]), np.arange(c.K))
            and index[1].shape in ((c.K,), (1, c.K))):
        # every arm of the traced runs: each run's K slots, in order (the arms a constant)
        return _tag(result, "every", index[0]._pos)
    parts = list(_flat(index))
    return _tag(result, _combine(parts), origin=_origin_of(parts), played=_played_of(parts))


_ELEMENTWISE = frozenset({np.where, np.clip, np.copy, np.round, np.around, np.floor, np.ceil,
                          np.abs, np.left_shift, np.right_shift, np.minimum, np.maximum,
                          np.logical_and, np.logical_or, np.logical_not, np.isin})
_REDUCTIONS = frozenset({np.any, np.all, np.sum, np.prod, np.max, np.min, np.amax, np.amin,
                         np.mean, np.count_nonzero, np.argmax, np.argmin, np.nonzero,
                         np.flatnonzero, np.unique, np.sort, np.argsort, np.cumsum})


class Noisy(Formed):
    """A float value read from the policy's state, or a released value, in ``observe``: it
    keeps its linear forms (:class:`~dpbandits.reference.formed.Formed`), and what is computed
    from it stays :class:`Noisy` (a float) or a :class:`Runs` of kind ``float``, so that a
    branch, a mask, an index or a decision that reads it is found."""

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        outs = kwargs.get("out", ())
        if outs:
            kwargs["out"] = tuple(_as_formed(o) for o in outs)
        result = getattr(ufunc, method)(*[_as_formed(x) for x in inputs], **kwargs)
        if outs:
            return outs[0] if len(outs) == 1 else outs
        return _noisy(result)

    def __array_function__(self, func, types, args, kwargs):
        result = func(*_formed_args(args), **{k: _formed_args(v) for k, v in kwargs.items()})
        return _noisy(result)

    def __getitem__(self, key):
        return _noisy(Formed.__getitem__(_as_formed(self), key))

    def __setitem__(self, key, value) -> None:
        Formed.__setitem__(_as_formed(self), key, _as_formed(value))

    def copy(self, *args, **kwargs):  # type: ignore[override]
        return _noisy(Formed.copy(_as_formed(self), *args, **kwargs))

    def reshape(self, *args, **kwargs):  # type: ignore[override]
        return _noisy(Formed.reshape(_as_formed(self), *args, **kwargs))

    def ravel(self, *args, **kwargs):  # type: ignore[override]
        return _noisy(Formed.ravel(_as_formed(self), *args, **kwargs))

    def astype(self, dtype, *args, **kwargs):  # type: ignore[override]
        if np.dtype(dtype).kind not in "fc":
            _control(self, f"a conversion to {np.dtype(dtype).name}")
        return _noisy(Formed.astype(_as_formed(self), dtype, *args, **kwargs))

    def __bool__(self) -> bool:
        _control(self, "a branch")
        return Formed.__bool__(_as_formed(self))

    def __float__(self) -> float:
        _control(self, "a conversion to a Python number")
        return Formed.__float__(_as_formed(self))

    def __int__(self) -> int:
        _control(self, "a conversion to a Python number")
        return Formed.__int__(_as_formed(self))

    def __index__(self) -> int:
        _control(self, "an index")
        return Formed.__index__(_as_formed(self))

    def item(self, *args):  # type: ignore[override]
        _control(self, "a conversion to a Python number")
        return Formed.item(_as_formed(self), *args)

    def tolist(self):  # type: ignore[override]
        _control(self, "a conversion to Python numbers")
        return Formed.tolist(_as_formed(self))

    def argmax(self, *args, **kwargs):  # type: ignore[override]
        _control(self, "an argmax")
        return Formed.argmax(_as_formed(self), *args, **kwargs)

    def argsort(self, *args, **kwargs):  # type: ignore[override]
        _control(self, "an argsort")
        return Formed.argsort(_as_formed(self), *args, **kwargs)


def _as_formed(x):
    """A :class:`Noisy` as a plain :class:`Formed` view sharing its values and forms."""
    if type(x) is Noisy:
        y = np.ndarray.view(x, np.ndarray).view(Formed)
        y._f = x._forms()       # shared: what the operation writes into y's forms is x's
        return y
    return x


def _formed_args(x):
    if isinstance(x, (list, tuple)):
        return type(x)(_formed_args(v) for v in x)
    return _as_formed(x)


def _noisy(result):
    """``result`` tagged as derived from float state: floats as :class:`Noisy` (forms kept),
    anything else as a :class:`Runs` of kind ``float``."""
    if isinstance(result, tuple):
        return tuple(_noisy(r) for r in result)
    if isinstance(result, np.ndarray) and result.dtype.kind == "f":
        out = np.ndarray.view(result, np.ndarray).view(Noisy)
        f = getattr(result, "_f", None)
        out._f = f if f is not None and f.shape == out.shape else None
        return out
    if isinstance(result, (np.floating, float)):
        return _asarray(result).view(Noisy)
    return _tag(result, _FLOAT)


