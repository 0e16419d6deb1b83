"""Linear forms over the reward table's cells, the size-T mode of the accountant
(docs/accountant.md#proof-at-your-size): a :class:`Form` is a leaf (one cell), a sum, a
scaled form or an opaque one, flattened only at a release (:func:`flatten`). The arrays whose
elements carry them are :class:`~dpbandits.reference.formed.Formed`;
:mod:`dpbandits.reference.watched` re-exports both."""

from __future__ import annotations

import numpy as np

from . import watched

__all__ = ["Form", "Leaf", "ZERO", "flatten", "forms_of"]


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
    return watched.ACTIVE is not None and getattr(watched.ACTIVE, "symbolic", False)


def _set_forms(target, forms, key=None) -> None:
    """Write ``forms`` into ``target``'s forms (through to the array it is a view of)."""
    if key is None:
        key = Ellipsis
    if target._f is None or target._f.shape != target.shape:
        target._f = _zeros(target.shape)
    target._f[key] = forms
