"""The per-arm schedule derived from the code: a dependence analysis that runs while the
accountant's size-T mode traces a policy (:mod:`dpbandits.accountant.size`,
docs/accountant.md#proof-at-your-size).

A :class:`Locality` checker watches each round's ``observe`` (and ``act``) and records a
finding, with its line, wherever the code leaves the shape that makes the per-arm schedule
lemma a consequence of the code rather than an observation:

* **arm locality**: the policy's per-(run, arm) state (arrays whose leading dims are
  (runs, K), float and int, in the policy and the reference objects it holds) is read and
  written in ``observe`` only through an index derived from the tracer's own ``(rows,
  actions)`` pair by one common selection (``i, j = rows[full], actions[full]``): a
  :class:`Runs` index keeps the positions it selects, arithmetic drops them, and a key whose
  two parts select different positions, or that is not such a pair, is a finding; so is any
  whole-array use of that state (a reduction across arms, a copy, an elementwise update of
  every arm), a change of any other state in ``observe``, and a change of any state in
  ``act``. After the start (rounds 1..K) every reward-derived form in an arm's slot must be a
  cell of that run and arm;
* **the round**: ``t`` is a :class:`Round` that records its uses; after the start it may only
  be compared with constants for which the comparison has the same outcome in every round
  from K + 1 to T;
* **noise-free schedule**: a value read from float state or released (:class:`Noisy`, and the
  :class:`Runs` values computed from one) must not reach a branch, a mask, an index, a
  decision's input, a count or a release's scale; nor may a reduction across runs, except
  ``any()`` of a count-derived mask, after which every write of the call must select runs of
  that mask (so the batch of runs behaves as its runs one by one); a draw outside the declared
  noise primitives in ``observe`` is a finding.

* **the round form** (docs/accountant.md#round-form): per-(run, arm) state of the flattened
  grid read and written through an ``every`` key (every arm of the traced runs, and selections
  of it by its counts) is updated in every slot; then nothing derived from the actions (the
  traced actions, keys made from them, reads of state updated through the traced pair) may
  reach a branch, a selection, an index, a number, a write of such state, a draw's parameters,
  a decision, a release or an operation with a reward-derived value (:meth:`Locality.acted`),
  except the items' write, each run's own reward at the traced pair (:meth:`Locality.item_write`).

What the checker cannot see in Python is listed on the docs page: a value moved into a Python
number, or into a fresh plain array (``np.asarray``, ``.view(np.ndarray)``), loses its tag.
"""

from __future__ import annotations

import operator
import sys
from typing import Any, Iterator

import numpy as np

from . import watched
from .forms import ZERO, flatten
from .tagged import _COUNT, Runs, _as_formed, _control, _frame, _line, _noisy, _note, _plain, _tag

__all__ = ["Locality", "Round", "Slot"]


# --- the round ---------------------------------------------------------------------------------

_COMPARISONS = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge,
                "==": operator.eq, "!=": operator.ne}


class Round:
    """The round ``t`` handed to ``observe`` after the start: it compares like an int, and
    records every use whose outcome could differ between two rounds in (K, T]."""

    __slots__ = ("t", "K", "T")

    def __init__(self, t: int, K: int, T: int) -> None:
        self.t, self.K, self.T = t, K, T

    def _compare(self, other, op: str) -> bool:
        f = _COMPARISONS[op]
        if isinstance(other, Round):
            other = other.t
        if isinstance(other, (int, float, np.integer, np.floating)) and not isinstance(other, bool):
            c = float(other)
            if op in ("==", "!="):
                constant = not (self.K + 1 <= c <= self.T and c == int(c))
            else:
                constant = f(self.K + 1, c) == f(self.T, c)
            if not constant:
                _note(f"the round is compared with {other:g} ({_line()}): the outcome changes "
                      f"between rounds {self.K + 1} and {self.T}")
            return f(self.t, other)
        _note(f"the round is compared with a value that is not a constant ({_line()})")
        return f(self.t, _plain(other))

    def __lt__(self, other): return self._compare(other, "<")
    def __le__(self, other): return self._compare(other, "<=")
    def __gt__(self, other): return self._compare(other, ">")
    def __ge__(self, other): return self._compare(other, ">=")
    def __eq__(self, other): return self._compare(other, "==")  # type: ignore[override]
    def __ne__(self, other): return self._compare(other, "!=")  # type: ignore[override]

    def _used(self, what: str) -> int:
        _note(f"the round is used in {what} ({_line()}): a value that moves with the round")
        return self.t

    def __hash__(self): return hash(self._used("a lookup (hash)"))
    def __add__(self, o): return self._used("arithmetic (+)") + o
    def __radd__(self, o): return o + self._used("arithmetic (+)")
    def __sub__(self, o): return self._used("arithmetic (-)") - o
    def __rsub__(self, o): return o - self._used("arithmetic (-)")
    def __mul__(self, o): return self._used("arithmetic (*)") * o
    def __rmul__(self, o): return o * self._used("arithmetic (*)")
    def __truediv__(self, o): return self._used("arithmetic (/)") / o
    def __rtruediv__(self, o): return o / self._used("arithmetic (/)")
    def __floordiv__(self, o): return self._used("arithmetic (//)") // o
    def __rfloordiv__(self, o): return o // self._used("arithmetic (//)")
    def __mod__(self, o): return self._used("arithmetic (%)") % o
    def __rmod__(self, o): return o % self._used("arithmetic (%)")
    def __pow__(self, o): return self._used("arithmetic (**)") ** o
    def __rpow__(self, o): return o ** self._used("arithmetic (**)")
    def __neg__(self): return -self._used("arithmetic (-)")
    def __and__(self, o): return self._used("arithmetic (&)") & o
    def __rshift__(self, o): return self._used("arithmetic (>>)") >> o
    def __lshift__(self, o): return self._used("arithmetic (<<)") << o
    def __float__(self): return float(self._used("a conversion to float (a log or a root)"))
    def __int__(self): return self._used("a conversion to int")
    def __index__(self): return self._used("an index or a range")
    def __bool__(self): return bool(self._used("a branch"))
    def __array__(self, dtype=None, copy=None):
        return np.asarray(self._used("an array"), dtype=dtype)
    def __format__(self, spec): return format(self.t, spec)
    def __str__(self): return str(self.t)
    def __repr__(self): return repr(self.t)


# --- per-(run, arm) state ----------------------------------------------------------------------

class Slot(np.ndarray):
    """An array of the policy's per-(run, arm) state while ``observe`` runs: a view of it whose
    reads and writes are checked for arm locality (:meth:`Locality.key`) and whose every
    whole-array use is a finding. Reads give tagged values (:class:`~.tagged.Noisy` for float
    state, count-derived :class:`~.tagged.Runs` for int state)."""

    _base: Any = None
    _name: str = ""
    _grid_flat = False
    """Whether the array is the grid (runs, K) flattened: its leading axis is run * K + arm,
    indexed by a ``flat`` key (``np.ravel_multi_index`` of the traced pair)."""

    def _whole(self, what: str) -> None:
        _note(f"a whole-array use of {self._name} ({what}, {_line()}): it reads or writes "
              f"every arm's slot")

    @property
    def _f(self):
        """The forms, for the forms' own code: a whole-array use (a release or an operation of
        the array itself)."""
        self._whole("its forms")
        return getattr(self._base, "_f", None)

    def __getitem__(self, key):
        c = getattr(watched.ACTIVE, "locality", None)
        pos = c.key(key, self._name, "a read", self._grid_flat, self._base) \
            if c is not None else None
        every = c is not None and c.is_every(self._name)
        out = self._base[_plain(key)]
        if self._base.dtype.kind == "f":
            return _noisy(out)
        return _tag(out, _COUNT, pos if isinstance(out, np.ndarray) and pos is not None
                    and out.shape[:1] == pos.shape else None, played=not every)

    def __setitem__(self, key, value) -> None:
        c = getattr(watched.ACTIVE, "locality", None)
        if c is not None:
            c.key(key, self._name, "a write", self._grid_flat, self._base)
            every = c.is_every(self._name)
            if self._base.dtype.kind != "f":
                _control(value, f"a write of count state {self._name}", played=every)
            elif every and getattr(value, "_played", False):
                c.acted(f"a write of {self._name} reads a value derived from the actions "
                        f"({_line()})")
            if every and type(value) is np.ndarray and value.size > 1:
                c.acted(f"a write of {self._name} from an array the analysis does not follow "
                        f"({_line()})")
        if isinstance(value, Slot):
            value._whole("a copy into another array")
            value = value._base
        self._base[_plain(key)] = _plain(_as_formed(value))

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        self._whole(f"np.{ufunc.__name__}")
        outs = kwargs.get("out", ())
        if outs:
            kwargs["out"] = tuple(o._base if isinstance(o, Slot) else o for o in outs)
        result = getattr(ufunc, method)(*[x._base if isinstance(x, Slot) else x
                                          for x in inputs], **kwargs)
        return (outs[0] if len(outs) == 1 else outs) if outs else result

    def __array_function__(self, func, types, args, kwargs):
        self._whole(f"np.{func.__name__}")
        return func(*_bases(args), **{k: _bases(v) for k, v in kwargs.items()})


def _bases(x):
    if isinstance(x, Slot):
        return x._base
    if isinstance(x, (list, tuple)):
        return type(x)(_bases(v) for v in x)
    return x


def _whole_method(name: str):
    def method(self, *args, **kwargs):
        self._whole(f".{name}")
        return getattr(self._base, name)(*args, **kwargs)
    method.__name__ = name
    return method


for _name in ("copy", "reshape", "ravel", "flatten", "transpose", "squeeze", "astype", "fill",
              "sum", "any", "all", "max", "min", "mean", "argmax", "argmin", "argsort", "sort",
              "nonzero", "tolist", "item", "cumsum", "prod", "clip", "round", "__iter__",
              "__bool__", "__float__", "__int__", "__index__", "__len__", "__contains__"):
    setattr(Slot, _name, _whole_method(_name))


# --- the checker -------------------------------------------------------------------------------

def _ids(ids: tuple | None, size: int) -> np.ndarray:
    """The ids of an array's forms (None: every form is ZERO) as an integer array."""
    if ids is None:
        return np.full(size, id(ZERO), dtype=np.int64)
    return np.fromiter(ids, dtype=np.int64, count=len(ids))


_MAX_FINDINGS = 16


class Locality:
    """The dependence analysis of one size-T run (``R`` runs of ``K`` arms, T rounds): install
    it with :meth:`begin` before each ``observe`` and :meth:`end` after it; ``findings`` lists
    what it found (empty: the per-arm schedule is derived from the code on every line that
    ran), each with its round and line."""

    def __init__(self, policy: Any, R: int, K: int, T: int, width: int,
                 arms: np.ndarray) -> None:
        self.policy, self.R, self.K, self.T = policy, R, K, T
        self.width, self.arms = width, arms
        self.findings: list[str] = []
        self._seen: set[str] = set()
        self.step = 0
        self.active = False
        self._entered: frozenset | None = None
        self._entered_at = ""
        self._entered_frames: list = []
        self._modes: dict[str, str] = {}
        self._every = False
        self._pending: list[str] = []
        self._pending_seen: set[str] = set()
        self._stream_float: set[str] = set()
        self._installed: list[tuple[Any, Any, Any, Slot]] = []
        self._rows: Any = None
        self._snap: dict[str, tuple] | None = None
        self._walked: list | None = None
        self._owners: dict[int, Any] = {}
        self._sizes: tuple = ()
        self._before: dict[str, tuple] | None = None
        self._layout: tuple | None = None

    # findings ------------------------------------------------------------------------------
    def finding(self, what: str, force: bool = False) -> None:
        """Record ``what`` (while ``observe`` runs, or ``force``)."""
        if not (self.active or force):
            return
        if len(self.findings) < _MAX_FINDINGS and what not in self._seen:
            self._seen.add(what)
            self.findings.append(f"round {self.step}: {what}")

    def key(self, key, name: str, what: str, grid_flat: bool = False,
            array: Any = None) -> np.ndarray | None:
        """The run positions a key of per-(run, arm) state selects, when it is the traced
        ``(rows, actions)`` pair under one selection (or, for the grid flattened, its ``flat``
        key: ``np.ravel_multi_index`` of that pair over (runs, K)), or, for the grid flattened,
        an ``every`` key (every arm of the traced runs, and selections of it by counts of
        state so updated: the array is then updated in every slot, :meth:`acted`); else None
        and a finding."""
        keys = key if isinstance(key, tuple) else (key,)
        i, j = (keys + (None, None))[:2]
        traced = (not grid_flat and isinstance(i, Runs) and isinstance(j, Runs)
                  and i._kind == "rows" and j._kind == "actions" and i._pos is not None
                  and j._pos is not None and i.ndim == 1 and i.shape == j.shape
                  and (i._pos is j._pos or i._pos.tobytes() == j._pos.tobytes()))
        flat = grid_flat and isinstance(i, Runs) and i._kind == "flat" and i._pos is not None
        every = grid_flat and isinstance(i, Runs) and i._kind == "every" and i._pos is not None
        if traced or flat or every:
            self._mode(name, "every" if every else "stream", array)
            for k in keys[(2 if traced else 1):]:
                _control(k, "an index")
            pos = i._pos
            self._lapse()
            if (what == "a write" and self._entered is not None
                    and not set(pos.tolist()) <= self._entered):
                self.finding(f"a write of {name} ({_line()}) selects runs outside the "
                             f"any() of {self._entered_at}: the batch is not its runs one "
                             f"by one")
            return pos
        origin = next((k._origin for k in keys if isinstance(k, Runs) and k._origin), "")
        made = f"; the index is made at {origin}" if origin and origin != _line() else ""
        self.finding(f"{what} of {name} by an index that is not the traced (rows, actions) "
                     f"pair under one selection ({_line()}{made}): it may reach another arm's "
                     f"slot")
        return None

    def _mode(self, name: str, mode: str, array: Any) -> None:
        """Record how per-(run, arm) state ``name`` is updated: by the traced pair (``stream``)
        or in every slot (``every``); one array both ways is a finding."""
        seen = self._modes.setdefault(name, mode)
        if seen != mode:
            self.finding(f"{name} is read or written both by the traced pair and in every slot "
                         f"({_line()})")
        if mode == "every" and not self._every:
            self._every = True
            for what in self._pending:
                if len(self.findings) < _MAX_FINDINGS and what not in self.findings:
                    self.findings.append(what)
            self._pending = []
        if mode == "stream" and array is not None and array.dtype.kind == "f":
            self._stream_float.add(name)

    def is_every(self, name: str) -> bool:
        return self._modes.get(name) == "every"

    def acted(self, what: str) -> None:
        """A use of a value derived from the actions where the round form needs none (a
        branch, a selection, an index, a count, a scale, a release, a coefficient, a write of
        state updated in every slot): a finding once some state is updated in every slot,
        kept until then (the stream form allows it: there the action is the slot's arm)."""
        if not self.active:
            return
        if self._every:
            self.finding(what)
        elif len(self._pending) < _MAX_FINDINGS and what not in self._pending_seen:
            self._pending_seen.add(what)
            self._pending.append(f"round {self.step}: {what}")

    @property
    def form(self) -> str:
        """The form of the per-arm lemma the analysis derives: ``round`` when some state is
        updated in every slot (the counters that take one item per arm in every round), else
        ``stream``."""
        return "round" if self._every else "stream"

    def item_write(self, key, value, width: int) -> None:
        """A write into an array that is not per-(run, arm) state by a key derived from the
        actions: in the round form only the items' write is allowed, the traced pair under one
        selection receiving each run's own reward of this round (its cell, coefficient 1)."""
        keys = key if isinstance(key, tuple) else (key,)
        i, j = (keys + (None, None))[:2]
        traced = (len(keys) == 2 and isinstance(i, Runs) and isinstance(j, Runs)
                  and i._kind == "rows" and j._kind == "actions" and i._pos is not None
                  and j._pos is not None and i.ndim == 1 and i.shape == j.shape
                  and i._pos.tobytes() == j._pos.tobytes())
        f = getattr(value, "_f", None)
        own = False
        if traced and f is not None and f.shape == i.shape:
            expected = i._pos * width + self.step
            own = all(type(g).__name__ == "Leaf" and g.id == e
                      for g, e in zip(f.flat, expected.tolist()))
        if not own:
            self.acted(f"a write by a key derived from the actions that is not each run's own "
                       f"reward at the traced (rows, actions) pair ({_line()}): an item for one "
                       f"arm that is not that arm's cell")

    def entered(self, runs: frozenset | None, where: str) -> None:
        """A branch on any() of a count-derived mask across runs (or on the size of a
        selection of runs) was taken: until the function that took it returns, every write
        must select runs of the mask."""
        self._lapse()
        self._entered_frames.append((_frame(), runs or frozenset(), where))
        self._lapse()

    def _lapse(self) -> None:
        """Drop the masks of branches whose function has returned (their bodies are over);
        the live ones restrict the writes together."""
        if not self._entered_frames:
            return
        live = set()
        f = sys._getframe(1)
        while f is not None:
            live.add(id(f))
            f = f.f_back
        self._entered_frames = [m for m in self._entered_frames
                                if m[0] is not None and id(m[0]) in live]
        self._entered, self._entered_at = None, ""
        for _, runs, where in self._entered_frames:
            self._entered = runs if self._entered is None else self._entered & runs
            self._entered_at = where

    # the state -----------------------------------------------------------------------------
    def _walk(self, obj: Any, path: str, depth: int, seen: set) -> Iterator[tuple[Any, Any, str, Any]]:
        if id(obj) in seen:
            return
        seen.add(id(obj))
        for key, value in vars(obj).items():
            yield from self._item(obj, key, f"{path}.{key}", value, depth, seen)

    def _item(self, owner, key, name, value, depth, seen):
        if isinstance(value, (np.random.Generator, type)) or callable(value) and not \
                isinstance(value, np.ndarray):
            return
        if isinstance(value, (np.ndarray, int, float, str, bool, type(None), np.generic, tuple)):
            yield owner, key, name, value
        elif isinstance(value, list) and depth < 3:
            for i, v in enumerate(value):
                yield from self._item(value, i, f"{name}[{i}]", v, depth + 1, seen)
        elif isinstance(value, dict):
            yield owner, key, name, repr(sorted(value.items(), key=repr))
        elif depth < 3 and hasattr(value, "__dict__") and \
                type(value).__module__.startswith("dpbandits."):
            yield from self._walk(value, name, depth + 1, seen)

    def _state(self) -> list[tuple[Any, Any, str, Any]]:
        """Every array and scalar of the policy and the reference objects it holds (a full
        walk; kept for :meth:`_values`)."""
        self._walked = list(self._walk(self.policy, "self", 0, set()))
        self._owners = {id(o): o for o, _, _, _ in self._walked}
        self._sizes = self._owner_sizes()
        return self._walked

    def _owner_sizes(self) -> tuple:
        return tuple(len(o) if isinstance(o, list) else len(vars(o))
                     for o in self._owners.values())

    def _values(self) -> list[tuple[Any, Any, str, Any]]:
        """The state at the places of the last walk (a new walk when an object gained or lost
        an attribute)."""
        if self._walked is None or self._owner_sizes() != self._sizes:
            return self._state()
        return [(o, k, n, self._get(o, k)) for o, k, n, _ in self._walked]

    def _is_slot(self, value) -> bool:
        """Per-(run, arm) state: leading dims (runs, K), or a leading axis of runs * K (the
        grid flattened, as the counters of mechanisms.py keep it: slot (r, k) is row r K + k)."""
        shape = getattr(value, "shape", None)
        return (shape is not None and isinstance(value, np.ndarray)
                and value.dtype.kind in "fiub"
                and (len(shape) >= 2 and shape[0] == self.R and shape[1] == self.K
                     or self._is_flat(value)))

    def _is_flat(self, value) -> bool:
        shape = getattr(value, "shape", None)
        return (shape is not None and len(shape) >= 1 and shape[0] == self.R * self.K
                and not (len(shape) >= 2 and shape[0] == self.R and shape[1] == self.K))

    def _snapshot(self, state=None) -> dict[str, tuple]:
        out = {}
        for _, _, name, value in (self._values() if state is None else state):
            if isinstance(value, np.ndarray):
                plain = np.ndarray.view(value, np.ndarray)
                f = getattr(value, "_f", None)
                ids = None if f is None or f.shape != value.shape else tuple(map(id, f.flat))
                out[name] = (plain.copy(), plain.tobytes(), ids)
            else:
                out[name] = (value, None, None)
        return out

    def _changed(self, before: dict, after: dict, actions: np.ndarray | None,
                 where: str) -> None:
        zero = id(ZERO)
        for name in (before.keys() | after.keys()):
            if name not in before or name not in after:
                self.finding(f"{where} {'adds' if name in after else 'removes'} {name}")
                continue
            (a, ab, fa), (b, bb, fb) = before[name], after[name]
            if ab is None or bb is None:
                if ab is None and bb is None and (a is b or a == b):
                    continue
                self.finding(f"{where} changes {name}, which is not per-(run, arm) state")
                continue
            if ab == bb and (fa == fb or (fa or (zero,) * a.size) == (fb or (zero,) * b.size)):
                continue
            if actions is not None and a.shape == b.shape and self._is_slot(b) and \
                    self._only_local(a, b, bb, fa, fb, actions):
                continue
            if a.shape != b.shape:
                if not _zero_extended(a, fa, b, fb, zero):
                    self.finding(f"{where} reshapes {name}")
                continue
            if actions is not None and self._is_slot(b) and self.is_every(name):
                continue                # updated in every slot: any change is allowed
            moved = (a != b) & ~((a != a) & (b != b))
            if fa != fb:
                moved = moved | (_ids(fa, a.size).reshape(a.shape)
                                 != _ids(fb, b.size).reshape(b.shape))
            if not moved.any():
                continue
            if actions is not None and self._is_slot(b):
                local = np.zeros((self.R, self.K), bool)
                local[np.arange(self.R), actions] = True
                other = moved.reshape(self.R, self.K, -1).any(axis=2) & ~local
                if not other.any():
                    continue
                r, k = (int(v[0]) for v in np.nonzero(other))
                self.finding(f"{where} changes {name}[{r}, {k}], a slot of an arm run {r} did "
                             f"not play, past the checked index")
            else:
                self.finding(f"{where} changes {name}"
                             f"{', which is not per-(run, arm) state' if actions is not None else ''}")

    def _only_local(self, a, b, bb, fa, fb, actions) -> bool:
        """Whether ``b`` differs from ``a`` (values and forms) only in the slots of the played
        arms (a fast test: the played slots of ``a`` replaced by ``b``'s, then compared)."""
        idx = (np.arange(self.R), actions)
        patched = a.copy().reshape(self.R, self.K, -1)
        patched[idx] = b.reshape(self.R, self.K, -1)[idx]
        if patched.tobytes() != bb:
            return False
        if fa == fb:
            return True
        zero = id(ZERO)
        fa = list(fa) if fa is not None else [zero] * a.size
        fb = fb if fb is not None else (zero,) * b.size
        per = a.size // (self.R * self.K)
        for r, k in zip(range(self.R), np.asarray(actions).tolist()):
            start = (r * self.K + k) * per
            fa[start:start + per] = fb[start:start + per]
        return tuple(fa) == tuple(fb)

    # one round -----------------------------------------------------------------------------
    def begin(self, t: int, actions: np.ndarray) -> tuple[Any, Any]:
        """Before ``observe(t, actions, ...)``: check what ``act`` changed, install the
        checked views; returns the round and the actions to hand to ``observe``."""
        self.step = t
        self.active = True
        after_start = t > self.K
        state = self._values()
        if self._snap is not None and after_start:
            now = self._snapshot(state)
            self._changed(self._snap, now, None, "act")
            self._before = now
        else:
            self._before = self._snap if self._snap is not None else self._snapshot(state)
        self._entered = None
        self._entered_frames = []
        self._installed = []
        flags = [self._is_slot(value) for _, _, _, value in state]
        self._shared(state, flags)
        for (owner, key, name, value), f in zip(state, flags):
            if f:
                slot = np.ndarray.view(value, np.ndarray).view(Slot)
                slot._base, slot._name = value, name
                slot._grid_flat = self._is_flat(value)
                self._put(owner, key, slot)
                self._installed.append((owner, key, value, slot))
        pos = np.arange(self.R)
        rows = getattr(self.policy, "_rows", None)
        if isinstance(rows, np.ndarray) and rows.shape == (self.R,):
            self._rows = rows
            self.policy._rows = _tag(np.arange(self.R), "rows", pos)
        picked = _tag(np.asarray(actions).copy(), "actions", pos, played=True)
        return (Round(t, self.K, self.T) if after_start else t), picked

    def _shared(self, state: list, flags: list[bool]) -> None:
        """A finding for each array of the state that shares memory with per-(run, arm) state
        (its reads and writes are not checked). Whether two arrays may share memory depends
        only on their memory bounds, so the test is skipped when every array of the state
        keeps its object, data address, shape and strides since the last round (the same
        findings, already recorded)."""
        layout = tuple((name, id(value), f, value.__array_interface__["data"][0], value.shape,
                        value.strides, value.itemsize) if isinstance(value, np.ndarray)
                       else None for (_, _, name, value), f in zip(state, flags))
        if layout == self._layout:
            return
        self._layout = layout
        slots = [(id(value), np.ndarray.view(value, np.ndarray))
                 for (_, _, _, value), f in zip(state, flags) if f]
        for _, _, name, value in state:
            if isinstance(value, np.ndarray) and any(
                    k != id(value) and np.may_share_memory(np.ndarray.view(value, np.ndarray), s)
                    for k, s in slots):
                self.finding(f"{name} shares memory with per-(run, arm) state: its reads and "
                             f"writes are not checked")

    @staticmethod
    def _put(owner, key, value) -> None:
        if isinstance(owner, list):
            owner[key] = value
        else:
            vars(owner)[key] = value

    @staticmethod
    def _get(owner, key):
        return owner[key] if isinstance(owner, list) else vars(owner).get(key)

    def end(self, t: int, actions: np.ndarray) -> None:
        """After ``observe``: put the state back and check what changed."""
        for owner, key, base, slot in self._installed:
            if self._get(owner, key) is not slot:
                self.finding(f"observe rebinds {slot._name}")
            else:
                self._put(owner, key, base)
        self._installed = []
        if self._rows is not None:
            self.policy._rows, self._rows = self._rows, None
        after = self._snapshot(self._values())
        if t > self.K and self._before is not None:
            self._changed(self._before, after, np.asarray(actions), "observe")
        if t == self.K:
            self._after_start()
        if self._every and self._stream_float:
            self.finding(f"{sorted(self._stream_float)[0]} is float state updated by the traced "
                         f"pair beside state updated in every slot: neither form of the lemma "
                         f"holds of both", force=True)
        self._snap = after
        self.active = False

    def _after_start(self) -> None:
        """At the end of the start, every form in a slot is a cell of that run and arm, and no
        other state holds one."""
        for _, _, name, value in self._values():
            f = getattr(value, "_f", None)
            if f is None or not isinstance(value, np.ndarray):
                continue
            slot = self._is_slot(value)
            for index, g in np.ndenumerate(f):
                ids, _ = flatten(g)
                if ids.size == 0:
                    continue
                if not slot:
                    self.finding(f"after the start {name} holds a reward-derived value, "
                                 f"which is not per-(run, arm) state")
                    return
                runs, arms = ids // self.width, self.arms[ids]
                r, k = divmod(index[0], self.K) if self._is_flat(value) else index[:2]
                if np.any(runs != r) or np.any(arms != k):
                    self.finding(f"after the start {name}[{r}, {k}] holds a reward of another "
                                 f"run or arm")
                    return


def _zero_extended(a: np.ndarray, fa, b: np.ndarray, fb, zero: int) -> bool:
    """Whether ``b`` is ``a`` grown along its last axis by zeros with no form (room made for
    more levels, as Hybrid-UCB's p-sums get): every slot keeps its values and forms at the same
    indices, and the new entries carry nothing."""
    n = a.shape[-1] if a.ndim else 0
    if a.ndim == 0 or a.shape[:-1] != b.shape[:-1] or b.shape[-1] < n:
        return False
    ia = np.array(fa if fa is not None else (zero,) * a.size).reshape(a.shape)
    ib = np.array(fb if fb is not None else (zero,) * b.size).reshape(b.shape)
    return (np.array_equal(b[..., :n], a, equal_nan=True) and (ib[..., :n] == ia).all()
            and not b[..., n:].any() and (ib[..., n:] == zero).all())

