"""Linear forms over the reward table's cells, the size-T mode of the accountant
(docs/accountant.md#proof-at-your-size): a :class:`Form` is a leaf (one cell), a sum, a
scaled form or an opaque one, flattened only at a release (:func:`flatten`). The arrays whose
elements carry them are :class:`~dpbandits.reference.formed.Formed`;
:mod:`dpbandits.reference.watched` re-exports both."""

from __future__ import annotations

from array import array
from bisect import bisect_left, insort

import numpy as np

from . import watched

__all__ = ["Form", "Leaf", "ZERO", "flatten", "forms_of"]

_asarray = getattr(np.asarray, "__wrapped__", np.asarray)
_array = getattr(np.array, "__wrapped__", np.array)
"""numpy's plain makers for the tracers' own arrays: inside a traced block ``np.asarray`` and
``np.array`` report a move out of sight (:mod:`~dpbandits.reference.sight`), which they skip for
the tracers' modules after a walk of the argument (a list of cell ids, element by element)."""


# --- linear provenance (the size-T mode of the accountant) ----------------------------------
#
# At the size a user runs, the accountant does not run one lockstep copy per cell: every
# reward-derived value carries its linear form over the cells it came from (a *form*), built
# by the policy's own arithmetic and flattened only where a value is released. A form is an
# immutable tree: a leaf (one cell), a sum of two forms, a form times a constant, or an opaque
# form (a nonlinear map of forms: its cells, with an unbounded coefficient). Sums are not
# flattened when built, so an epoch sum over n rewards costs O(n) once, at its release. A sum of
# leaves built one leaf at a time (an epoch sum, ``Phi += x``) is kept as a run of cell ids in
# one growing buffer instead of a chain of sums (:class:`_Run`): one small object per sum, not
# two per reward, and flattened in one numpy pass; it stands for the chain of sums it replaces,
# leaf for leaf and in the same order, so that a release's coefficients are the same numbers.


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

    def __add__(self, other):
        if type(other) is Leaf:
            return _Run(_Cells(array("q", (self.id, other.id))), 2)
        return Form.__add__(self, other)


class _Cells:
    """The buffer of cell ids shared by the runs grown from one sum, and the flattened forms of
    those runs that were flattened, by length (a longer run's chain of sums holds them). A run
    of ``n`` ids covers the first ``base`` ids of the ``parent`` buffer's runs (when it grew
    from an older run of that buffer: a branch, which shares that run's ids and flattened
    forms instead of copying them) and then the first ``n - base`` ids of ``ids``."""

    __slots__ = ("ids", "flats", "lengths", "parent", "base")

    def __init__(self, ids: array, parent: "_Cells | None" = None, base: int = 0) -> None:
        self.ids, self.parent, self.base = ids, parent, base
        self.flats: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        self.lengths: list[int] = []

    def cached_below(self, n: int) -> int:
        """The length of the longest flattened run shorter than ``n`` (0 when none)."""
        cells = self
        while cells is not None:
            i = bisect_left(cells.lengths, n)
            if i:
                return cells.lengths[i - 1]
            n = min(n, cells.base + 1)
            cells = cells.parent
        return 0

    def flat(self, k: int) -> tuple[np.ndarray, np.ndarray]:
        cells = self
        while k not in cells.flats:
            cells = cells.parent
        return cells.flats[k]

    def keep(self, n: int, flat) -> None:
        if n not in self.flats:
            insort(self.lengths, n)
        self.flats[n] = flat

    def first(self, n: int) -> np.ndarray:
        """The first ``n`` ids of a run of this buffer, in the order they were added."""
        pieces = []
        cells = self
        while cells is not None:
            pieces.append(np.frombuffer(cells.ids, np.int64)[:n - cells.base].copy())
            n = cells.base
            cells = cells.parent
        return pieces[0] if len(pieces) == 1 else np.concatenate(pieces[::-1])


class _Sum(Form):
    __slots__ = ("a", "b", "flat")

    def __init__(self, a, b) -> None:
        self.a, self.b, self.flat = a, b, None


class _Scaled(Form):
    __slots__ = ("c", "a", "flat")

    def __init__(self, c: float, a) -> None:
        self.c, self.a, self.flat = c, a, None


class _Run(Form):
    """The sum of the first ``n`` cells of a buffer (:class:`_Cells`), each with coefficient 1:
    the chain of sums ``((l1 + l2) + l3) + ...`` that adding one leaf at a time builds, with its
    leaves in that order. Adding a leaf to the buffer's newest run appends to the buffer (the
    older runs still see their first ids only); to an older run, it starts a new buffer that
    shares the older run's ids (a branch): either costs O(1), as a new sum in the chain does."""

    __slots__ = ("cells", "n", "flat")

    def __init__(self, cells: _Cells, n: int) -> None:
        self.cells, self.n, self.flat = cells, n, None

    def __add__(self, other):
        if type(other) is Leaf:
            cells = self.cells
            if len(cells.ids) + cells.base != self.n:     # not the newest run: a branch
                cells = _Cells(array("q"), cells, self.n)
            cells.ids.append(other.id)
            return _Run(cells, self.n + 1)
        return Form.__add__(self, other)


class Opaque(Form):
    """A nonlinear map of forms: its cells, each with an unbounded coefficient."""

    __slots__ = ("parts", "flat")
    made = False
    """Whether an opaque form was ever built (until then no result can hold one)."""

    def __init__(self, parts) -> None:
        self.parts, self.flat = tuple(parts), None
        Opaque.made = True

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
        return _array([form.id], np.int64), np.ones(1)
    if form.flat is not None:
        return form.flat
    if type(form) is _Run and not form.cells.cached_below(form.n):
        out = _flat_run(form)
    else:
        out = _flat_tree(form)
    form.flat = out
    if type(form) is _Run:
        form.cells.keep(form.n, out)
    return out


def _flat_run(form: _Run) -> tuple[np.ndarray, np.ndarray]:
    """A run with no flattened prefix: its ids, newest first as the chain of sums it stands
    for gives them, each with coefficient 1."""
    ids = form.cells.first(form.n)
    if bool(np.all(ids[1:] > ids[:-1])):
        return ids, np.ones(ids.size)       # what np.unique and np.bincount give
    return _summed(ids[::-1], np.ones(ids.size))


def _flat_tree(form) -> tuple[np.ndarray, np.ndarray]:
    chunks: list[tuple[np.ndarray, np.ndarray]] = []
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
        elif kind is _Run:
            if g.flat is not None and g is not form:
                parts.append((g.flat, c))
            else:                   # its chain of sums: leaves n..k+1, then prefix k's flat
                k = g.cells.cached_below(g.n)
                run = g.cells.first(g.n)[k:][::-1]
                chunks.append((_asarray(ids, np.int64), _asarray(coefs, float)))
                chunks.append((run, np.full(run.size, c)))
                ids, coefs = [], []
                if k:
                    parts.append((g.cells.flat(k), c))
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
    chunks.append((_asarray(ids, np.int64), _asarray(coefs, float)))
    all_ids = np.concatenate([i for i, _ in chunks] + [p[0] for p, _ in parts])
    all_coefs = np.concatenate([w for _, w in chunks] + [p[1] * c for p, c in parts])
    return _summed(all_ids, all_coefs)


def _summed(all_ids: np.ndarray, all_coefs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each cell once with the sum of its coefficients, zero sums dropped."""
    if all_ids.size == 0:
        return _EMPTY
    u, inverse = np.unique(all_ids, return_inverse=True)
    with np.errstate(invalid="ignore"):
        sums = np.bincount(inverse, weights=all_coefs, minlength=u.size)
    sums[np.isnan(sums)] = np.inf           # inf - inf: an opaque part
    keep = sums != 0.0
    return u[keep], sums[keep]


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
    return watched.ACTIVE is not None and getattr(watched.ACTIVE, "symbolic", False)


def _set_forms(target, forms, key=None) -> None:
    """Write ``forms`` into ``target``'s forms (through to the array it is a view of)."""
    if key is None:
        key = Ellipsis
    if target._f is None or target._f.shape != target.shape:
        target._f = _zeros(target.shape)
    target._f[key] = forms
