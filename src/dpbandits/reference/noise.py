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
coefficient on each cell of the reward table, from which its sensitivity to each row follows. A
noise array released twice, a release whose noise is not a fresh draw, a published value or an
action that differs across runs, or a random draw whose parameters differ across runs, are
recorded as leaks of the probed cells (no noise stands between them and the output).

:class:`ScriptedNoise` is a Generator whose Laplace draws are zero (or a script) and recorded,
for deterministic tests; a policy built on it is not private.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from typing import Iterable, Iterator

import numpy as np

__all__ = ["ScriptedNoise", "laplace", "exponential", "gumbel", "draw", "release", "publish",
           "resample", "FAMILIES", "Release", "Tracer", "LockstepGenerator", "tracing",
           "active_tracer"]

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


@dataclass
class Release:
    """One release: ``m`` values, each a statistic plus one fresh draw (or a leak).

    ``coefficients[i]`` maps a probed cell (round, arm) to the statistic's change per unit change
    of that cell; ``kind`` is ``"value"`` or ``"argmax"``.
    """

    family: str
    scale: np.ndarray
    kind: str
    coefficients: list[dict[tuple[int, int], float]]
    fresh: bool = True
    step: int = 0

    def rows(self) -> set[int]:
        return {cell[0] for c in self.coefficients for cell in c}

    def sensitivity(self, row: int) -> np.ndarray:
        """Each value's sensitivity to a change of ``row``: sum over its cells of |coefficient|
        (every cell lies in [0, 1], so it moves by at most 1)."""
        return np.array([sum(abs(v) for cell, v in c.items() if cell[0] == row)
                         for c in self.coefficients])


@dataclass
class Tracer:
    """What one traced trajectory released. ``cells[p - 1]`` is the cell raised by ``h`` in run p."""

    runs: int
    cells: list[tuple[int, int]]
    h: float
    releases: list[Release] = field(default_factory=list)
    leaks: set[tuple[int, int]] = field(default_factory=set)
    step: int = 0
    _draws: dict[int, tuple[np.ndarray, str, np.ndarray]] = field(default_factory=dict)
    _used: set[int] = field(default_factory=set)

    def _per_run(self, a) -> np.ndarray:
        a = np.asarray(a, dtype=float)
        return a.reshape(self.runs, -1)

    def _leak_where(self, differs: np.ndarray) -> None:
        for p in np.flatnonzero(differs[1:]):
            self.leaks.add(self.cells[p])

    def drawn(self, z: np.ndarray, family: str, scale) -> None:
        z = np.asarray(z)
        per_value = np.broadcast_to(np.asarray(scale, dtype=float), z.shape).reshape(-1)
        self._draws[id(z)] = (z, family, per_value)

    def released(self, value, noise, kind: str):
        v = self._per_run(value)
        record = self._draws.get(id(noise))
        fresh = record is not None and record[0] is noise and id(noise) not in self._used
        if record is not None and record[0] is noise:
            self._used.add(id(noise))
            family, scale = record[1], record[2].reshape(self.runs, -1)[0]
        else:
            family, scale = "laplace", np.full(v.shape[1], np.inf)
        diff = (v[1:] - v[0]) / self.h                     # (P, m): each probe's change
        coefficients: list[dict[tuple[int, int], float]] = [dict() for _ in range(v.shape[1])]
        for p, i in zip(*np.nonzero(diff)):
            coefficients[i][self.cells[p]] = float(diff[p, i])
        self.releases.append(Release(family, scale, kind, coefficients, fresh, self.step))
        out = v[0] + np.asarray(noise, dtype=float).reshape(self.runs, -1)[0]
        shape = np.shape(value + noise)
        return np.broadcast_to(out, (self.runs, out.size)).reshape(shape).copy()

    def published(self, value) -> None:
        v = self._per_run(value)
        self._leak_where(np.any(v != v[0], axis=1))

    def resampled(self, bits: np.ndarray, x: np.ndarray) -> np.ndarray:
        b, xs = self._per_run(bits), self._per_run(x)
        out = b[0] + (xs - xs[0])
        return out.reshape(np.shape(bits))

    def acted(self, actions: np.ndarray) -> None:
        a = np.asarray(actions).reshape(self.runs, -1)
        self._leak_where(np.any(a != a[0], axis=1))


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
            raise RuntimeError(f"a draw of size {size} is not one per lockstep run")
        return n // self.runs

    def _first(self, param, n: int):
        p = np.asarray(param, dtype=float)
        if p.ndim == 0:
            return float(p)
        p = np.broadcast_to(p, (n * self.runs,) if p.ndim == 1 else p.shape).reshape(self.runs, -1)
        self.tracer._leak_where(np.any(p != p[0], axis=1))
        return p[0]

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
