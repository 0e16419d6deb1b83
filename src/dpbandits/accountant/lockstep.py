"""Tracing stage, G reward tables at once: the tracer and the lockstep generator that run one
policy on many tables (an enumeration's tables along one action sequence) and record where the
release schedule moved with the table (the accountant's reference text is in
:mod:`dpbandits.accountant`)."""

from __future__ import annotations

import copy

import numpy as np

from ..reference import intervals
from ..reference.noise import NOISE_PROBE, LockstepGenerator, Release, Tracer
from ..reference.tracer import rounded
from ..reference.watched import _site

_H = 0.5            # the probe: a cell of a table with entries in {0, 1/4, 1/2} is raised by 1/2
_TOLERANCE = 1e-9
"""The margin for a value computed by another numeric route than the accountant's bound (an
audit's exact value, a log-likelihood ratio in floating point, against the claim or the bound).
The accountant's bound itself is compared with the claim exactly (its costs are summed exactly,
:func:`~dpbandits.accountant.composition.exact_sum`): 1 + 1e-12 is above 1."""
_MOVES = 1e-9
"""How far a released statistic's coefficient (or interval bound) may differ between two
enumerated tables before the schedule counts as moved: rounding of the probes' differences.
The coefficient used is the largest over the tables either way, so a smaller difference is
never lost from the bound."""
_NUDGE = 1e-9       # the noise probe's move of a released value, relative to 1 + |value|


class _TableTracer(Tracer):
    """A :class:`~dpbandits.reference.noise.Tracer` for G reward tables traced at once: the runs
    are G groups of 1 + P (group g: its table, then that table with each probed cell moved by
    ``h[g, p]``, +1 from 0 and -1 from 1), every group drawing the same noise values. Within
    a group everything is checked as in a one-table trace; across groups, whatever the release
    schedule is made of (which values are released, their scales, each value's coefficients on
    the cells, the noise itself) must be the same, else the schedule moved with the table, which
    is recorded in ``moved`` with the group it moved in.

    Where every probe moves its cell across the whole range, values carry interval shadows
    (:mod:`dpbandits.reference.intervals`): a released statistic that went through a nonlinear
    map gets, as its coefficients, its interval bounds, which hold on every table in [0, 1];
    each is checked against the enumerated changes, and one below them is a defect, named."""

    def __init__(self, groups: int, cells: list[tuple[int, int]], h: np.ndarray) -> None:
        super().__init__(groups * (1 + len(cells)), list(cells), _H)
        self.groups, self.size = groups, 1 + len(cells)
        self.h_table = np.asarray(h, dtype=float).reshape(groups, len(cells), 1)
        self.moved: list[tuple[int, str]] = []
        # interval shadows where every probe of a known cell moves it across [0, 1] (the cells
        # an enumeration has not revealed yet get that probe when they are revealed)
        known = [p for p, (_, a) in enumerate(cells) if a >= 0]
        self.intervals = bool(np.all(np.abs(self.h_table[:, known]) == 1.0))

    def _grouped(self, a) -> np.ndarray:
        return np.asarray(a, dtype=float).reshape(self.groups, self.size, -1)

    def _leak_in_groups(self, differs: np.ndarray, what: str) -> None:
        """``differs`` (G, 1 + P): the probe runs whose value differs from their group's table."""
        self._leak_where(np.concatenate([[False], differs[:, 1:].any(axis=0)]), what)

    def _move(self, groups: np.ndarray, what: str) -> None:
        """The first group (table) in ``groups`` where the schedule moved, with what moved."""
        g = int(groups.ravel().nonzero()[0][0])
        self.moved.append((g, f"round {self.step}: {what}"))

    def leak_all(self, what: str) -> None:
        self._leak_where(np.ones(self.size, bool), what)

    def drawn(self, z: np.ndarray, family: str, scale) -> None:
        per_value = self._grouped(np.broadcast_to(np.asarray(scale, dtype=float), np.shape(z)))
        if (per_value[:, 0] != per_value[0, 0]).any():
            self._move((per_value[:, 0] != per_value[0, 0]).any(axis=1), "a noise scale")
        super().drawn(z, family, scale)

    def released(self, value, noise, kind: str):
        vb, nb = np.broadcast_arrays(np.asarray(value, dtype=float), np.asarray(noise, dtype=float))
        v, nz = self._grouped(vb), self._grouped(nb)
        noise_moves = (nz != nz[:, :1]).any(axis=2)
        self._leak_in_groups(noise_moves, "noise that differs across runs")
        if (nz[:, 0] != nz[0, 0]).any():
            self._move((nz[:, 0] != nz[0, 0]).any(axis=1), "the noise values")
        fresh, family, scale, taken = self._match(nz[0, 0])
        fresh = fresh and not noise_moves.any()
        self._used.update(taken)
        law = self.law_of(taken)
        diff = rounded((v[:, 1:] - v[:, :1]) / self.h_table,   # (G, P, m): each probe's change
                       v[:, 1:], v[:, :1], self.h_table)
        probe = self._noise_probe()
        if probe is not None:
            diff[:, probe] = 0.0                                # not a cell of the table
        bound = (intervals.per_group(self, intervals.seed(self, value), vb.shape)
                 if getattr(value, "_iv", None) is not None else None)
        bounded, defect = (), ""
        if bound is not None and np.all(np.isfinite(bound)):
            bounded = value._iv.why if isinstance(value._iv, intervals.Shadow) else ()
            defect = self._checked_bound(diff, bound)
            bound = np.maximum(bound, np.abs(diff))
            moves = np.any(np.abs(bound - bound[0]) > _MOVES, axis=(1, 2))
            if moves.any():
                self._move(moves, "the interval bound of a released statistic")
            coefficient = bound.max(axis=0)
        else:
            moves = np.any(np.abs(diff - diff[0]) > _MOVES, axis=(1, 2))
            if moves.any():
                self._move(moves, "the coefficients of a released statistic")
                coefficient = np.abs(diff).max(axis=0)         # the largest over the tables
            else:       # the tables' coefficients within rounding: the largest, with its sign
                coefficient = np.take_along_axis(diff, np.abs(diff).argmax(axis=0)[None], 0)[0]
        coefficients: list[dict[tuple[int, int], float]] = [dict() for _ in range(v.shape[2])]
        for p, i in zip(*np.nonzero(coefficient)):
            coefficients[i][self.cells[p]] = float(coefficient[p, i])
        out = np.broadcast_to((v[:, 0] + nz[:, 0])[:, None, :], v.shape).copy()
        if probe is not None:                                   # the noise probe's tiny move
            out[:, 1 + probe] += _NUDGE * (1.0 + np.abs(out[:, 1 + probe]))
        out = out.reshape(np.shape(vb))
        return self._recorded(Release(family, scale, kind, coefficients, fresh, self.step,
                                      law=law, line=_site(), bounded=bounded,
                                      defect=defect), out)

    def _checked_bound(self, diff: np.ndarray, bound: np.ndarray) -> str:
        """'' when no enumerated change (G, P, m) exceeds its interval bound; else the defect,
        named in the findings (the bound used is then the larger of the two)."""
        over = np.abs(diff) > bound + 1e-9 * (1.0 + bound)
        if not over.any():
            return ""
        g, p, i = (int(x[0]) for x in np.nonzero(over))
        t, a = self.cells[p]
        note = (f"round {self.step}: defect: on an enumerated table a released statistic "
                f"changes by {abs(diff[g, p, i]):.4g} when cell x{t},{a} moves, above its "
                f"interval bound {bound[g, p, i]:.4g} (the interval arithmetic is wrong here)")
        if note not in self.findings:
            self.findings.append(note)
        return note

    def _noise_probe(self) -> int | None:
        """The index among the probes of the noise probe's run, if this trace has one."""
        return len(self.cells) - 1 if self.cells and self.cells[-1] == NOISE_PROBE else None

    def differs(self, a) -> np.ndarray | None:
        v = np.asarray(a, dtype=float)
        if v.size == 0 or v.size % self.runs:
            return None
        v = v.reshape(self.groups, self.size, -1)
        same = v == v[:, :1]
        if not same.all():
            same |= np.isnan(v) & np.isnan(v[:, :1])
        return np.concatenate([[False], (~same.all(axis=2))[:, 1:].any(axis=0)])

    def published(self, value) -> None:
        v = self._grouped(value)
        self._leak_in_groups((v != v[:, :1]).any(axis=2),
                             "a published value that differs across runs")

    def decided(self, index) -> None:
        v = self._grouped(index)
        same = (v == v[:, :1]) | (np.isnan(v) & np.isnan(v[:, :1]))
        self._leak_in_groups(~same.all(axis=2), "a decision's input that differs across runs")

    def resampled(self, bits: np.ndarray, x: np.ndarray) -> np.ndarray:
        b, xs = self._grouped(bits), self._grouped(x)
        return (b[:, :1] + (xs - xs[:, :1])).reshape(np.shape(bits))

    def acted(self, actions: np.ndarray) -> None:
        a = np.asarray(actions).reshape(self.groups, self.size, -1)
        self._leak_in_groups((a != a[:, :1]).any(axis=2), "an action that differs across runs")


class _TableGenerator(LockstepGenerator):
    """A :class:`~dpbandits.reference.noise.LockstepGenerator` for a :class:`_TableTracer`: every
    run draws group 0's random numbers, except a draw whose parameters differ between groups (a
    Beta posterior on each table's released statistics), drawn once per group."""

    def __init__(self, seed: int, tracer: _TableTracer) -> None:
        super().__init__(seed, tracer.runs, tracer)
        self.groups, self.size = tracer.groups, tracer.size

    def _first(self, param, n: int):
        p = np.asarray(param, dtype=float)
        if p.ndim == 0:
            return float(p)
        p = np.broadcast_to(p, (n * self.runs,) if p.ndim == 1 else p.shape)
        p = p.reshape(self.groups, self.size, -1)
        self.tracer._leak_in_groups((p != p[:, :1]).any(axis=2),
                                    "a draw whose parameters differ across runs")
        return p[0, 0] if np.all(p[:, 0] == p[0, 0]) else p[:, 0]

    def __deepcopy__(self, memo):
        out = _TableGenerator.__new__(_TableGenerator)
        np.random.Generator.__init__(out, np.random.PCG64())
        out.bit_generator.state = self.bit_generator.state
        out.runs, out.groups, out.size = self.runs, self.groups, self.size
        memo[id(self)] = out
        out.tracer = copy.deepcopy(self.tracer, memo)
        return out

    def _spread(self, values: np.ndarray, size) -> np.ndarray:
        values = np.asarray(values)
        if values.ndim < 2:
            return self._tiled(values, size)
        return np.repeat(values[:, None, :], self.size, axis=1).reshape(size)

    def _per_group(self, *params, m: int) -> tuple:
        if all(np.ndim(p) < 2 for p in params):
            return params
        return tuple(np.broadcast_to(p, (self.groups, m)) for p in params)

    def laplace(self, loc=0.0, scale=1.0, size=None):  # type: ignore[override]
        m = self._share(size)
        (b,) = self._per_group(self._first(scale, m), m=m)
        return self._spread(np.random.Generator.laplace(self, 0.0, b, np.shape(b) or m), size)

    def exponential(self, scale=1.0, size=None):  # type: ignore[override]
        m = self._share(size)
        (b,) = self._per_group(self._first(scale, m), m=m)
        return self._spread(np.random.Generator.exponential(self, b, np.shape(b) or m), size)

    def gumbel(self, loc=0.0, scale=1.0, size=None):  # type: ignore[override]
        m = self._share(size)
        (b,) = self._per_group(self._first(scale, m), m=m)
        return self._spread(np.random.Generator.gumbel(self, 0.0, b, np.shape(b) or m), size)

    def beta(self, a, b, size=None):  # type: ignore[override]
        shape = np.shape(a) if size is None else size
        m = self._share(shape)
        pa, pb = self._per_group(self._first(a, m), self._first(b, m), m=m)
        if np.ndim(pa) < 2:
            return self._tiled(np.random.Generator.beta(self, pa, pb), shape)
        return self._spread(np.random.Generator.beta(self, pa, pb), shape)

