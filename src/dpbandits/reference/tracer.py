"""The tracer of the accountant's tracing mode: what one traced trajectory released.

:class:`Tracer` records every release (:class:`Release`: its law, scale and each value's
coefficients on the cells of the reward table), the leaks, the reads of released values the
noise probe sees, and the draws (to match a release's noise with the draws it was made of);
:class:`LockstepGenerator` gives every lockstep run the same random numbers; an argmax release
hands back an :class:`ArgmaxOnly` array. The reference reaches them only through
:mod:`dpbandits.reference.noise` (docs/accountant.md).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from .watched import _SCALINGS, Draw, _site, _unwrap

__all__ = ["NOISE_PROBE", "DivergedRuns", "Release", "ArgmaxOnly", "Tracer", "LockstepGenerator",
           "SymbolicTracer", "SymbolicGenerator"]


NOISE_PROBE = (-2, -2)
"""The pseudo-cell of the noise probe's run (an enumeration's last run of each table): its
table is its group's, and every value released to it is its group's moved by a tiny amount,
so that a read of a released value differs across the runs whatever its outcome."""


class DivergedRuns(RuntimeError):
    """The lockstep runs of a trace asked for draws of different sizes: their control flow
    diverged on data that no release covers."""


@dataclass
class Release:
    """One release: ``m`` values, each a statistic plus one fresh draw (or a leak).

    ``coefficients[i]`` maps a probed cell (round, arm) to the statistic's change per unit change
    of that cell; ``kind`` is ``"value"`` or ``"argmax"``; ``values_read`` says that an argmax
    release's noisy values were read beyond their argmax (so they count as released).
    """

    family: str
    scale: np.ndarray
    kind: str
    coefficients: list[dict[tuple[int, int], float]]
    fresh: bool = True
    step: int = 0
    values_read: bool = False
    law: str = ""
    """'' when the noise is a declared primitive as drawn; otherwise what was done to it."""
    line: str = ""
    """The line of the release (``file:line``, the first frame outside the noise source and the
    tracer: the algorithm's, or the shared mechanism's that releases for it)."""
    bounded: tuple[str, ...] = ()
    """The nonlinear maps (with their lines) whose interval rules bound the coefficients, which
    then hold on every table with entries in [0, 1] (:mod:`~dpbandits.reference.intervals`)."""
    defect: str = ""
    """Where an enumerated change exceeded the interval bound (a defect of the accountant)."""

    def rows(self) -> set[int]:
        return {cell[0] for c in self.coefficients for cell in c}

    def sensitivity(self, row: int) -> np.ndarray:
        """Each value's sensitivity to a change of ``row``: sum over its cells of |coefficient|
        (every cell lies in [0, 1], so it moves by at most 1)."""
        return np.array([sum(abs(v) for cell, v in c.items() if cell[0] == row)
                         for c in self.coefficients])

    def sensitivities(self) -> dict[int, np.ndarray]:
        """:meth:`sensitivity` of every row in :meth:`rows`, in one pass over the cells (the
        same sums, added in the same order)."""
        sums: list[dict[int, float]] = [{} for _ in self.coefficients]
        for per_row, c in zip(sums, self.coefficients):
            for cell, v in c.items():
                per_row[cell[0]] = per_row.get(cell[0], 0) + abs(v)
        return {row: np.array([per_row.get(row, 0) for per_row in sums]) for row in self.rows()}

    def signature(self) -> tuple:
        """What the release schedule is made of: round, kind, family, scales and the cells of
        every value (with their coefficients), for comparing schedules across traces."""
        cells = tuple(tuple(sorted((cell, round(v, 9)) for cell, v in c.items()))
                      for c in self.coefficients)
        return (self.step, self.kind, self.family, tuple(np.round(self.scale, 12).tolist()),
                cells, self.fresh, self.values_read, self.law)


def _plain(x):
    if isinstance(x, ArgmaxOnly):
        return x.view(np.ndarray)
    if isinstance(x, (tuple, list)):
        return type(x)(_plain(v) for v in x)
    return x


class ArgmaxOnly(np.ndarray):
    """The noisy values of an argmax release in tracing mode: ``np.argmax`` (and ``.argmax``) read
    them for free; any other read (an operation, an element, a copy out) marks the release as
    a release of the values themselves."""

    _release: "Release | None" = None

    def __array_finalize__(self, obj) -> None:
        self._release = getattr(obj, "_release", None)

    def _read(self) -> None:
        if self._release is not None:
            self._release.values_read = True

    def argmax(self, *args, **kwargs):  # type: ignore[override]
        return self.view(np.ndarray).argmax(*args, **kwargs)

    def __getitem__(self, key):
        self._read()
        return self.view(np.ndarray)[key]

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        for x in inputs + tuple(kwargs.get("out", ())):
            if isinstance(x, ArgmaxOnly):
                x._read()
        if "out" in kwargs:
            kwargs["out"] = _plain(tuple(kwargs["out"]))
        return getattr(ufunc, method)(*_plain(inputs), **kwargs)

    def __array_function__(self, func, types, args, kwargs):
        if func is not np.argmax:
            for x in args:
                if isinstance(x, ArgmaxOnly):
                    x._read()
        return func(*_plain(args), **{k: _plain(v) for k, v in kwargs.items()})

    def __float__(self) -> float:
        self._read()
        return float(self.view(np.ndarray))

    def tolist(self):  # type: ignore[override]
        self._read()
        return self.view(np.ndarray).tolist()

    def __deepcopy__(self, memo):
        import copy

        out = self.view(np.ndarray).copy().view(ArgmaxOnly)
        out._release = copy.deepcopy(self._release, memo)
        return out


def _cells(cells: list[tuple[int, int]]) -> str:
    """The cells a leak moved with, as the pair of tables it names: a table and its neighbour
    with that cell moved (at most four named)."""
    known = [c for c in cells if c[1] >= 0]
    if not known:
        return "every probed cell"
    names = " ".join(f"x{t},{a}" for t, a in known[:4])
    more = f" and {len(known) - 4} more" if len(known) > 4 else ""
    return f"cell{'s' if len(known) > 1 else ''} {names}{more}"


_DENOMINATOR = 1 << 20
"""Largest denominator of a coefficient read through its rounding (:func:`rounded`)."""
_ULPS = 64
"""Units in the last place of the runs' values that a probe's difference may be off by."""


def rounded(diff: np.ndarray, moved: np.ndarray, base: np.ndarray, h) -> np.ndarray:
    """Each probe's change ``diff`` = (moved - base) / h, with a change that lies within the
    floating-point rounding of the two values (:data:`_ULPS` units in the last place of the
    larger, over |h|) of a fraction p/q with q <= 2^20 taken as (the float nearest to) that
    fraction: a sum of rewards whose probe reads 1.0000000000000002 has coefficient 1, a mean of
    355 rewards 1/355, so that the exact comparison of the bound with the claim does not see the
    policy's own rounding; a coefficient of 1e-12 stays 1e-12 (never taken as 0)."""
    out = np.array(diff, dtype=float)
    with np.errstate(all="ignore"):
        dyadic = out * _DENOMINATOR == np.round(out * _DENOMINATOR)   # exact already (1, 1/2)
    todo = np.nonzero(~dyadic & np.isfinite(out))
    if not todo[0].size:
        return out
    slack = np.broadcast_to(_ULPS * np.spacing(np.maximum(np.abs(moved), np.abs(base)))
                            / np.abs(h), out.shape)[todo]
    known: dict[float, float] = {}
    values = out[todo]
    for k, c in enumerate(values.tolist()):
        r = known.get(c)
        if r is None:
            q = Fraction(c).limit_denominator(_DENOMINATOR)
            r = known[c] = float(q) if q != 0 else c
        if abs(c - r) <= slack[k]:
            values[k] = r
    out[todo] = values
    return out


@dataclass
class _Drawn:
    values: np.ndarray       # run 0's share of the draw
    family: str
    scale: np.ndarray        # per value


@dataclass
class Tracer:
    """What one traced trajectory released. ``cells[p - 1]`` is the cell raised by ``h`` in run p.

    ``findings`` names what made a cell leak, once per kind and round (for the reader)."""

    runs: int
    cells: list[tuple[int, int]]
    h: float
    releases: list[Release] = field(default_factory=list)
    leaks: set[tuple[int, int]] = field(default_factory=set)
    step: int = 0
    findings: list[str] = field(default_factory=list)
    _draws: list[_Drawn] = field(default_factory=list)
    _where: dict[float, list[tuple[int, int]]] = field(default_factory=dict)
    _used: set[tuple[int, int]] = field(default_factory=set)
    _read_at: dict[tuple[int, int], str] = field(default_factory=dict)
    nonlinear_maps: list[str] = field(default_factory=list)
    """Nonlinear maps of reward-derived values that reached the trace (with their lines)."""
    phase: str = "observe"
    """``act`` or ``observe``: what the policy is doing (set by the accountant)."""
    noise_reads: list[tuple[str, str]] = field(default_factory=list)
    """(phase, finding) of every read of a released value the noise probe saw."""
    released_in_act: bool = False
    """Whether a release happened while the policy acted."""
    leak_sites: list[tuple[int, tuple[tuple[int, int], ...], str]] = field(default_factory=list)
    """(round, cells, what) of every leak as data, once per round and what: the finding
    strings' facts for a counterexample (:mod:`dpbandits.accountant.counterexample`)."""
    intervals: bool = False
    """Whether values carry interval shadows (:mod:`~dpbandits.reference.intervals`): only
    where every probe moves its cell across [0, 1] (an enumeration's tracer)."""

    def _per_run(self, a) -> np.ndarray:
        a = np.asarray(a, dtype=float)
        return a.reshape(self.runs, -1)

    def _leak_where(self, differs: np.ndarray, what: str = "a value that differs across runs") -> None:
        cells = [self.cells[p] for p in differs[1:].ravel().nonzero()[0]]
        if NOISE_PROBE in cells:
            cells = [c for c in cells if c != NOISE_PROBE]
            self._noise_read(what)
        for cell in cells:
            self.leaks.add(cell)
        if cells:
            note = f"round {self.step}, {_cells(cells)}: {what}"
            if note not in self.findings:
                self.findings.append(note)
                self.leak_sites.append((self.step, tuple(cells), what))

    def _noise_read(self, what: str) -> None:
        """The noise probe's run differs at a read: the code read a released value there. A
        published value (post-processing) or an action (forced in an enumeration) is not a
        read of the schedule; anything else is recorded with the phase it happened in."""
        if what.startswith(("a published value", "an action")):
            return
        what = what.replace("reads an unreleased reward-derived value", "reads a released value")
        what = what.replace("that differs across runs", "that follows a released value")
        note = (self.phase, f"round {self.step}: {what}")
        if note not in self.noise_reads:
            self.noise_reads.append(note)

    def leak_all(self, what: str) -> None:
        """Every probed cell leaks (the runs can no longer be compared)."""
        self._leak_where(np.ones(self.runs, bool), what)

    def drawn(self, z: np.ndarray, family: str, scale) -> None:
        z = np.asarray(z, dtype=float)
        values = z.reshape(self.runs, -1)[0].copy() if z.size % self.runs == 0 else z.reshape(-1)
        per_value = np.broadcast_to(np.asarray(scale, dtype=float), z.shape).reshape(-1)
        per_value = per_value.reshape(self.runs, -1)[0] if z.size % self.runs == 0 else per_value
        k = len(self._draws)
        self._draws.append(_Drawn(values, family, per_value.copy()))
        for i, x in enumerate(values.tolist()):
            self._where.setdefault(x, []).append((k, i))

    def _match(self, n0: np.ndarray) -> tuple[bool, str, np.ndarray, list[tuple[int, int]]]:
        """(fresh, family, per-value scale, drawn positions) of a release's noise ``n0``: each
        value an unused drawn value, or the whole noise one unused draw times a positive
        constant (the scale times that constant)."""
        taken: list[tuple[int, int]] = []
        for x in n0.tolist():
            free = [loc for loc in self._where.get(x, ()) if loc not in self._used
                    and loc not in taken]
            if not free:
                break
            taken.append(free[0])
        else:
            families = {self._draws[k].family for k, _ in taken}
            if len(families) <= 1:
                scale = np.array([self._draws[k].scale[i] for k, i in taken])
                return True, families.pop() if families else "laplace", scale, taken
        for k in range(len(self._draws) - 1, max(-1, len(self._draws) - 64), -1):
            d = self._draws[k]
            if d.values.size != n0.size or not np.all(d.values != 0):
                continue
            c = n0 / d.values
            if (np.isfinite(c[0]) and c[0] > 0 and np.allclose(c, c[0], rtol=1e-12, atol=0)
                    and not any((k, i) in self._used for i in range(n0.size))):
                return True, d.family, d.scale * float(c[0]), [(k, i) for i in range(n0.size)]
        return False, "laplace", np.full(n0.size, np.inf), []

    # --- information flow and noise laws (tracing mode's checks of the code) ---------------

    def differs(self, a) -> np.ndarray | None:
        """(1 + P,) bool: the probe runs whose share of ``a`` differs from run 0's (run 0 is
        False); None when ``a`` is not one share per lockstep run."""
        v = np.asarray(a, dtype=float)
        if v.size == 0 or v.size % self.runs:
            return None
        v = v.reshape(self.runs, -1)
        same = (v == v[0]) | (np.isnan(v) & np.isnan(v[0]))
        return ~same.all(axis=1)

    def moves(self, a) -> bool:
        """True when ``a`` is reward-derived on this trace (differs in some probe run)."""
        mask = self.differs(a)
        if mask is None:
            return False
        return any(self.cells[p] != NOISE_PROBE for p in mask[1:].ravel().nonzero()[0])

    def read(self, a, what: str) -> None:
        """``a`` was read by ``what``: where it differs across the runs, the read is a leak."""
        mask = self.differs(a)
        if mask is not None and mask.any():
            self._leak_where(mask, f"{what} reads an unreleased reward-derived value "
                                   f"({_site()})")

    def nonlinear(self, what: str, *values) -> None:
        """A nonlinear map ``what`` of reward-derived values (the table class of a proof is then
        the probed tables only)."""
        if any(self.moves(v) for v in values):
            note = f"{what} of a reward-derived value ({_site()})"
            if note not in self.nonlinear_maps:
                self.nonlinear_maps.append(note)

    def unfollowed(self, note: str) -> None:
        """A map of a reward-derived value that the interval arithmetic has no rule for (or
        cannot follow): the table class of a proof is then the probed tables only."""
        if note not in self.nonlinear_maps:
            self.nonlinear_maps.append(note)

    def _share(self, d) -> np.ndarray:
        v = np.asarray(d, dtype=float).reshape(-1)
        return v.reshape(self.runs, -1)[0] if v.size % self.runs == 0 else v

    def _locate(self, d) -> list[tuple[int, int]] | None:
        """The unused drawn positions whose values ``d`` holds, or None."""
        taken: list[tuple[int, int]] = []
        for x in self._share(d).tolist():
            free = [loc for loc in self._where.get(x, ()) if loc not in self._used
                    and loc not in taken]
            if not free:
                return None
            taken.append(free[0])
        return taken

    def draw_read(self, d, what: str) -> None:
        """A noise draw was operated on by ``what`` before its release."""
        note = f"{what} at {_site()}"
        for x in self._share(d).tolist():
            for loc in self._where.get(x, ()):
                self._read_at.setdefault(loc, note)

    def noise_operation(self, ufunc, method: str, inputs: tuple, draws: list, result):
        """A ufunc applied to noise draws: the result as a :class:`Draw` when the law is kept
        (a positive public scaling; a negated Laplace draw; the difference of two exponential
        draws of one scale, which is a Laplace draw of that scale), otherwise None after the
        draws are marked as operated on."""
        if method == "__call__":
            if ufunc in _SCALINGS and len(draws) == 1 and len(inputs) == 2 and not (
                    ufunc is np.true_divide and inputs[1] is draws[0]):
                other = inputs[1] if inputs[0] is draws[0] else inputs[0]
                c = np.asarray(_unwrap(other), dtype=float)
                if not self.moves(other) and np.all(np.isfinite(c)) and np.all(c > 0):
                    return np.asarray(result).view(Draw)
            if ufunc is np.negative and len(inputs) == 1:
                locs = self._locate(draws[0])
                if locs and {self._draws[k].family for k, _ in locs} == {"laplace"}:
                    return self._composite(result, locs, "laplace",
                                           np.array([self._draws[k].scale[i] for k, i in locs]))
            if ufunc is np.subtract and len(draws) == 2 and len(inputs) == 2:
                a, b = self._locate(inputs[0]), self._locate(inputs[1])
                if a and b and len(a) == len(b) and not set(a) & set(b):
                    fam = {self._draws[k].family for k, _ in a + b}
                    sa = np.array([self._draws[k].scale[i] for k, i in a])
                    sb = np.array([self._draws[k].scale[i] for k, i in b])
                    if fam == {"exponential"} and np.allclose(sa, sb, rtol=1e-12, atol=0):
                        return self._composite(result, a + b, "laplace", sa)
        name = f"np.{ufunc.__name__}" + (f".{method}" if method != "__call__" else "")
        for d in draws:
            self.draw_read(d, name)
        return None

    def _composite(self, result, sources: list[tuple[int, int]], family: str,
                   scale: np.ndarray):
        """Register ``result`` as one fresh draw of ``family`` at ``scale`` (per value),
        consuming the draws it was made of."""
        self._used.update(sources)
        z = np.asarray(result, dtype=float)
        per = np.tile(scale, z.size // scale.size).reshape(z.shape) if z.size % scale.size == 0 \
            else np.broadcast_to(scale, z.shape)
        self.drawn(z, family, per)
        return z.view(Draw)

    def released(self, value, noise, kind: str):
        vb, nb = np.broadcast_arrays(np.asarray(value, dtype=float), np.asarray(noise, dtype=float))
        v, nz = self._per_run(vb), self._per_run(nb)
        noise_moves = (nz != nz[0]).any(axis=1)
        self._leak_where(noise_moves, "noise that differs across runs")
        fresh, family, scale, taken = self._match(nz[0])
        fresh = fresh and not noise_moves.any()
        self._used.update(taken)
        law = self.law_of(taken)
        diff = rounded((v[1:] - v[0]) / self.h, v[1:], v[0], self.h)   # (P, m): each change
        coefficients: list[dict[tuple[int, int], float]] = [dict() for _ in range(v.shape[1])]
        for p, i in zip(*np.nonzero(diff)):
            coefficients[i][self.cells[p]] = float(diff[p, i])
        out = v[0] + nz[0]
        shape = np.shape(value + noise)
        out = np.broadcast_to(out, (self.runs, out.size)).reshape(shape).copy()
        return self._recorded(Release(family, scale, kind, coefficients, fresh, self.step,
                                      law=law, line=_site()), out)

    def law_of(self, taken: list[tuple[int, int]]) -> str:
        """'' when the released noise is its draws as drawn, else what was done to them (and a
        finding, at the line of the release)."""
        done = [self._read_at[loc] for loc in taken if loc in self._read_at]
        if not done:
            return ""
        law = f"operated on before its release ({done[0]})"
        note = f"round {self.step}: a release's noise was {law}: not a declared law as drawn"
        if note not in self.findings:
            self.findings.append(note)
        return law

    def _recorded(self, record: "Release", out: np.ndarray) -> np.ndarray:
        """Keep ``record`` and hand the algorithm ``out``: for an argmax release, a view whose
        argmax is free and any other read charges the values (:class:`ArgmaxOnly`)."""
        self.releases.append(record)
        return self._handed(record, out)

    def _handed(self, record: "Release", out: np.ndarray) -> np.ndarray:
        """``out`` as the algorithm gets it (an argmax release as :class:`ArgmaxOnly`)."""
        if self.phase == "act":
            self.released_in_act = True
        if record.kind == "argmax":
            out = out.view(ArgmaxOnly)
            out._release = record
        return out

    def published(self, value) -> None:
        v = self._per_run(value)
        self._leak_where((v != v[0]).any(axis=1), "a published value that differs across runs")

    def decided(self, index) -> None:
        index = np.asarray(index)
        if np.size(index) % self.runs:
            raise DivergedRuns(f"a decision's input of size {np.size(index)} is not one per "
                               "lockstep run")
        v = self._per_run(index)
        same = (v == v[0]) | (np.isnan(v) & np.isnan(v[0]))
        self._leak_where(~same.all(axis=1), "a decision's input that differs across runs")

    def resampled(self, bits: np.ndarray, x: np.ndarray) -> np.ndarray:
        b, xs = self._per_run(bits), self._per_run(x)
        out = b[0] + (xs - xs[0])
        return out.reshape(np.shape(bits))

    def acted(self, actions: np.ndarray) -> None:
        a = np.asarray(actions).reshape(self.runs, -1)
        self._leak_where((a != a[0]).any(axis=1), "an action that differs across runs")


class LockstepGenerator(np.random.Generator):
    """A Generator that gives each of ``runs`` lockstep runs (the leading, run-major axis of every
    draw) run 0's random numbers; a draw whose parameters differ across runs is a leak."""

    def __init__(self, seed: int, runs: int, tracer: Tracer) -> None:
        super().__init__(np.random.PCG64(seed))
        self.runs = runs
        self.tracer = tracer

    def _tiled(self, values: np.ndarray, size) -> np.ndarray:
        return np.tile(np.asarray(values).reshape(-1), self.runs).reshape(size)

    def _share(self, size) -> int:
        n = int(np.prod(size))
        if n % self.runs:
            raise DivergedRuns(f"a draw of size {size} is not one per lockstep run")
        return n // self.runs

    def _first(self, param, n: int):
        p = np.asarray(param, dtype=float)
        if p.ndim == 0:
            return float(p)
        p = np.broadcast_to(p, (n * self.runs,) if p.ndim == 1 else p.shape).reshape(self.runs, -1)
        self.tracer._leak_where((p != p[0]).any(axis=1), "a draw whose parameters differ across runs")
        return p[0]

    def __deepcopy__(self, memo):
        import copy

        out = LockstepGenerator.__new__(LockstepGenerator)
        np.random.Generator.__init__(out, np.random.PCG64())
        out.bit_generator.state = self.bit_generator.state
        out.runs = self.runs
        memo[id(self)] = out
        out.tracer = copy.deepcopy(self.tracer, memo)
        return out

    def laplace(self, loc=0.0, scale=1.0, size=None):  # type: ignore[override]
        m = self._share(size)
        return self._tiled(super().laplace(0.0, self._first(scale, m), m), size)

    def exponential(self, scale=1.0, size=None):  # type: ignore[override]
        m = self._share(size)
        return self._tiled(super().exponential(self._first(scale, m), m), size)

    def gumbel(self, loc=0.0, scale=1.0, size=None):  # type: ignore[override]
        m = self._share(size)
        return self._tiled(super().gumbel(0.0, self._first(scale, m), m), size)

    def random(self, size=None, dtype=np.float64, out=None):  # type: ignore[override]
        m = self._share(size)
        return self._tiled(super().random(m), size)

    def standard_normal(self, size=None, dtype=np.float64, out=None):  # type: ignore[override]
        m = self._share(size)
        return self._tiled(super().standard_normal(m), size)

    def integers(self, low, high=None, size=None, dtype=np.int64, endpoint=False):  # type: ignore[override]
        m = self._share(size)
        return self._tiled(super().integers(low, high, m, dtype=dtype, endpoint=endpoint), size)

    def beta(self, a, b, size=None):  # type: ignore[override]
        shape = np.shape(a) if size is None else size
        m = self._share(shape)
        return self._tiled(super().beta(self._first(a, m), self._first(b, m)), shape)
