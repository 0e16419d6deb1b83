"""The reference's one noise source, its tracing mode, and a scripted noise source for tests.

Every noisy draw of :mod:`dpbandits.reference` goes through this module: :func:`laplace`,
:func:`exponential` and :func:`gumbel` draw from the policy's Generator exactly as
``rng.laplace(0, scale, size)``, ``rng.exponential(scale, size)`` and ``rng.gumbel(0, scale, size)``
do, and :func:`release` adds a draw to the statistic it perturbs (``value + noise``, the same
floating-point operation the algorithms performed before). :func:`publish` marks a value a
mechanism releases as post-processing of earlier releases (the counters' outputs), and
:func:`resample` is Wu and Wang's Bernoulli resampling of observed rewards. On the normal path
these functions cost one test of a module global each and consume the random stream exactly as
before (the compiled kernels are checked bit-identical against it).

Tracing mode (:func:`tracing`, driven by :mod:`dpbandits.accountant`) runs one trajectory in
``1 + P`` lockstep runs: run 0 on a reward table, run p on the same table with one cell (round,
arm) raised by a known amount ``h``. A :class:`LockstepGenerator` gives every run the same random
numbers, and :func:`release` gives every run run 0's noisy value: this is the coupling of the
privacy proofs (each run's noise is shifted by the difference of its statistic), so every run
takes run 0's actions. A release records, for each value it draws, the distribution, the scale,
and the change of the perturbed statistic in each probe run divided by ``h``: the statistic's
coefficient on each cell of the reward table, from which its sensitivity to each row follows.

Draws are matched by value, not by object: every draw's values are recorded when drawn, and a
release's noise is fresh only when each of its values is an unused drawn value, or when the whole
noise is one draw multiplied by a positive constant common to every run (``Lap(1) / eps`` is
``Lap(1 / eps)``: division by a public constant is the one scale-changing map recognised; the
scale is rescaled with it). Noise changed after it was drawn in any other way (zeroed, shifted,
scaled per value, used twice) is not fresh. An argmax release (``kind="argmax"``) hands back an
:class:`ArgmaxOnly` array: its argmax is free, and any other read of its noisy values marks the
release as a release of those values. :func:`decision` is where a policy's decision rules are checked across the
runs: the index of an argmax, the greedy scores, and the two sides of every comparison that ends
an epoch, triggers a lazy update or eliminates an arm. An input that differs between runs depends
on data no release covers, whether or not the rule's outcome moves on the traced run. A noise value that differs across runs, a published value, a decision or
an action that differs across runs, or a random draw whose parameters differ across runs, are
recorded as leaks of the probed cells (no noise stands between them and the output); runs that
ask for draws of different sizes raise :class:`DivergedRuns`, which the accountant records as a
finding (every probed cell leaks), never as a crash.

:class:`ScriptedNoise` is a Generator whose Laplace draws are zero (or a script) and recorded,
for deterministic tests; a policy built on it is not private.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from typing import Iterable, Iterator

import numpy as np

__all__ = ["ScriptedNoise", "laplace", "exponential", "gumbel", "draw", "release", "publish",
           "resample", "decision", "FAMILIES", "Release", "Tracer", "LockstepGenerator", "tracing",
           "active_tracer", "ArgmaxOnly", "DivergedRuns"]

FAMILIES = ("laplace", "exponential", "gumbel")
"""The noise distributions of the reference: Lap(scale), Exp(scale) (mean scale), Gumbel(scale)."""

_TRACER: "Tracer | None" = None


def laplace(rng: np.random.Generator, scale, size) -> np.ndarray:
    """Independent Lap(scale) draws (density exp(-|x|/scale) / (2 scale)), from ``rng`` only."""
    z = rng.laplace(0.0, scale, size)
    if _TRACER is not None:
        _TRACER.drawn(z, "laplace", scale)
    return z


def exponential(rng: np.random.Generator, scale, size) -> np.ndarray:
    """Independent Exp(scale) draws (mean ``scale``), from ``rng`` only."""
    z = rng.exponential(scale, size)
    if _TRACER is not None:
        _TRACER.drawn(z, "exponential", scale)
    return z


def gumbel(rng: np.random.Generator, scale, size) -> np.ndarray:
    """Independent max-type Gumbel(0, scale) draws, from ``rng`` only."""
    z = rng.gumbel(0.0, scale, size)
    if _TRACER is not None:
        _TRACER.drawn(z, "gumbel", scale)
    return z


def draw(rng: np.random.Generator, family: str, scale, size) -> np.ndarray:
    """Draws of one of :data:`FAMILIES` (the caller checks ``family``)."""
    if family == "laplace":
        return laplace(rng, scale, size)
    if family == "exponential":
        return exponential(rng, scale, size)
    return gumbel(rng, scale, size)


def release(value, noise, kind: str = "value"):
    """``value + noise``: a statistic released with its noise. ``kind="argmax"`` says that only the
    index of the largest noisy value is used (report-noisy-max); ``"value"`` releases every value."""
    if _TRACER is not None:
        return _TRACER.released(value, noise, kind)
    return value + noise


def publish(value):
    """A value a mechanism releases that must be post-processing of earlier releases."""
    if _TRACER is not None:
        _TRACER.published(value)
    return value


def decision(*inputs):
    """The inputs of a decision rule (the index an argmax reads, the two sides of a comparison
    that ends an epoch or eliminates an arm), returned unchanged: one input as itself, several
    as a tuple. In tracing mode each is checked across the lockstep runs, where it must not
    depend on data that no release covers."""
    if _TRACER is not None:
        for x in inputs:
            _TRACER.decided(x)
    return inputs[0] if len(inputs) == 1 else inputs


def resample(rng: np.random.Generator, x: np.ndarray) -> np.ndarray:
    """Bernoulli resampling of rewards x in [0, 1]: 1{U >= 1 - x} with U uniform (one per cell).

    Traced as a cellwise randomised map of the table: run 0's bits plus each probe's change of
    its cell, so that the accountant reads the resampled table (one row of it changes when one
    row of the rewards does) as the private input.
    """
    U = rng.random(x.shape)
    bits = (U >= 1.0 - x).astype(float)
    if _TRACER is not None:
        return _TRACER.resampled(bits, x)
    return bits


def active_tracer() -> "Tracer | None":
    """The tracer of the current :func:`tracing` block, if any."""
    return _TRACER


@contextlib.contextmanager
def tracing(tracer: "Tracer") -> Iterator["Tracer"]:
    """Route every draw and release of the reference through ``tracer`` inside the block."""
    global _TRACER
    if _TRACER is not None:
        raise RuntimeError("a tracer is already active")
    _TRACER = tracer
    try:
        yield tracer
    finally:
        _TRACER = None


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

    def rows(self) -> set[int]:
        return {cell[0] for c in self.coefficients for cell in c}

    def sensitivity(self, row: int) -> np.ndarray:
        """Each value's sensitivity to a change of ``row``: sum over its cells of |coefficient|
        (every cell lies in [0, 1], so it moves by at most 1)."""
        return np.array([sum(abs(v) for cell, v in c.items() if cell[0] == row)
                         for c in self.coefficients])

    def signature(self) -> tuple:
        """What the release schedule is made of: round, kind, family, scales and the cells of
        every value (with their coefficients), for comparing schedules across traces."""
        cells = tuple(tuple(sorted((cell, round(v, 9)) for cell, v in c.items()))
                      for c in self.coefficients)
        return (self.step, self.kind, self.family, tuple(np.round(self.scale, 12).tolist()),
                cells, self.fresh, self.values_read)


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

    def _per_run(self, a) -> np.ndarray:
        a = np.asarray(a, dtype=float)
        return a.reshape(self.runs, -1)

    def _leak_where(self, differs: np.ndarray, what: str = "a value that differs across runs") -> None:
        probes = np.flatnonzero(differs[1:])
        for p in probes:
            self.leaks.add(self.cells[p])
        if probes.size:
            note = f"round {self.step}: {what}"
            if note not in self.findings:
                self.findings.append(note)

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

    def released(self, value, noise, kind: str):
        vb, nb = np.broadcast_arrays(np.asarray(value, dtype=float), np.asarray(noise, dtype=float))
        v, nz = self._per_run(vb), self._per_run(nb)
        noise_moves = np.any(nz != nz[0], axis=1)
        self._leak_where(noise_moves, "noise that differs across runs")
        fresh, family, scale, taken = self._match(nz[0])
        fresh = fresh and not noise_moves.any()
        self._used.update(taken)
        diff = (v[1:] - v[0]) / self.h                     # (P, m): each probe's change
        coefficients: list[dict[tuple[int, int], float]] = [dict() for _ in range(v.shape[1])]
        for p, i in zip(*np.nonzero(diff)):
            coefficients[i][self.cells[p]] = float(diff[p, i])
        out = v[0] + nz[0]
        shape = np.shape(value + noise)
        out = np.broadcast_to(out, (self.runs, out.size)).reshape(shape).copy()
        return self._recorded(Release(family, scale, kind, coefficients, fresh, self.step), out)

    def _recorded(self, record: "Release", out: np.ndarray) -> np.ndarray:
        """Keep ``record`` and hand the algorithm ``out``: for an argmax release, a view whose
        argmax is free and any other read charges the values (:class:`ArgmaxOnly`)."""
        self.releases.append(record)
        if record.kind == "argmax":
            out = out.view(ArgmaxOnly)
            out._release = record
        return out

    def published(self, value) -> None:
        v = self._per_run(value)
        self._leak_where(np.any(v != v[0], axis=1), "a published value that differs across runs")

    def decided(self, index) -> None:
        if np.size(index) % self.runs:
            raise DivergedRuns(f"a decision's input of size {np.size(index)} is not one per "
                               "lockstep run")
        v = self._per_run(index)
        same = (v == v[0]) | (np.isnan(v) & np.isnan(v[0]))
        self._leak_where(~np.all(same, axis=1), "a decision's input that differs across runs")

    def resampled(self, bits: np.ndarray, x: np.ndarray) -> np.ndarray:
        b, xs = self._per_run(bits), self._per_run(x)
        out = b[0] + (xs - xs[0])
        return out.reshape(np.shape(bits))

    def acted(self, actions: np.ndarray) -> None:
        a = np.asarray(actions).reshape(self.runs, -1)
        self._leak_where(np.any(a != a[0], axis=1), "an action that differs across runs")


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
        self.tracer._leak_where(np.any(p != p[0], axis=1), "a draw whose parameters differ across runs")
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


class ScriptedNoise(np.random.Generator):
    """A Generator whose Laplace draws are scripted (default: all zero) and recorded.

    ``calls`` records (scale, size) of every Laplace call, ``draws`` every value returned.
    """

    def __init__(self, seed: int = 0, values: Iterable[float] | None = None) -> None:
        super().__init__(np.random.PCG64(seed))
        self.values = list(values) if values is not None else None
        self.calls: list[tuple[object, object]] = []
        self.draws: list[float] = []

    def laplace(self, loc=0.0, scale=1.0, size=None):  # type: ignore[override]
        n = 1 if size is None else int(np.prod(size))
        if self.values is None:
            out = np.zeros(n)
        else:
            if len(self.values) < n:
                raise IndexError("the Laplace script has run out of values")
            out = np.array([self.values.pop(0) for _ in range(n)], dtype=float)
        self.calls.append((scale, size))
        self.draws.extend(out.tolist())
        return out.reshape(size) if size is not None else float(out[0])

    @property
    def n_draws(self) -> int:
        return len(self.draws)
