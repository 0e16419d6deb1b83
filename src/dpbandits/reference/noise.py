"""The reference's one noise source, its tracing mode, and a scripted noise source for tests.

Every noisy draw of :mod:`dpbandits.reference` goes through this module: :func:`laplace`,
:func:`exponential` and :func:`gumbel` draw from the policy's Generator exactly as
``rng.laplace(0, scale, size)``, ``rng.exponential(scale, size)`` and ``rng.gumbel(0, scale, size)``
do, and :func:`release` adds a draw to the statistic it perturbs (``value + noise``, the same
floating-point operation the algorithms performed before). :func:`publish` marks a value a
mechanism releases as post-processing of earlier releases (the counters' outputs), and
:func:`resample` is Wu and Wang's Bernoulli resampling of observed rewards. On the normal path
these functions cost one test of a module attribute each and consume the random stream exactly
as before (the compiled kernels are checked bit-identical against it). The tracer lives in
:mod:`dpbandits.reference.tracer`, the watched arrays of its checks in
:mod:`dpbandits.reference.watched`; this module re-exports what the accountant uses.

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
from typing import Iterable, Iterator

import numpy as np

from . import sight as _sight
from . import watched as _watched
from .tracer import (NOISE_PROBE, ArgmaxOnly, DivergedRuns, LockstepGenerator, Release,
                     Tracer)
from .watched import Draw, Watched, watch

__all__ = ["ScriptedNoise", "Watched", "Draw", "watch", "laplace", "exponential", "gumbel", "draw", "release", "publish",
           "resample", "decision", "FAMILIES", "Release", "Tracer", "LockstepGenerator", "tracing",
           "active_tracer", "ArgmaxOnly", "DivergedRuns"]

FAMILIES = ("laplace", "exponential", "gumbel")
"""The noise distributions of the reference: Lap(scale), Exp(scale) (mean scale), Gumbel(scale)."""



def laplace(rng: np.random.Generator, scale, size) -> np.ndarray:
    """Independent Lap(scale) draws (density exp(-|x|/scale) / (2 scale)), from ``rng`` only."""
    z = rng.laplace(0.0, scale, size)
    if _watched.ACTIVE is not None:
        _watched.ACTIVE.drawn(z, "laplace", scale)
        return np.asarray(z).view(Draw)
    return z


def exponential(rng: np.random.Generator, scale, size) -> np.ndarray:
    """Independent Exp(scale) draws (mean ``scale``), from ``rng`` only."""
    z = rng.exponential(scale, size)
    if _watched.ACTIVE is not None:
        _watched.ACTIVE.drawn(z, "exponential", scale)
        return np.asarray(z).view(Draw)
    return z


def gumbel(rng: np.random.Generator, scale, size) -> np.ndarray:
    """Independent max-type Gumbel(0, scale) draws, from ``rng`` only."""
    z = rng.gumbel(0.0, scale, size)
    if _watched.ACTIVE is not None:
        _watched.ACTIVE.drawn(z, "gumbel", scale)
        return np.asarray(z).view(Draw)
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
    if _watched.ACTIVE is not None:
        return _watched.ACTIVE.released(value, noise, kind)
    return value + noise


def publish(value):
    """A value a mechanism releases that must be post-processing of earlier releases."""
    if _watched.ACTIVE is not None:
        _watched.ACTIVE.published(value)
    return value


def decision(*inputs):
    """The inputs of a decision rule (the index an argmax reads, the two sides of a comparison
    that ends an epoch or eliminates an arm), returned unchanged: one input as itself, several
    as a tuple. In tracing mode each is checked across the lockstep runs, where it must not
    depend on data that no release covers."""
    if _watched.ACTIVE is not None:
        for x in inputs:
            _watched.ACTIVE.decided(x)
    return inputs[0] if len(inputs) == 1 else inputs


def resample(rng: np.random.Generator, x: np.ndarray) -> np.ndarray:
    """Bernoulli resampling of rewards x in [0, 1]: 1{U >= 1 - x} with U uniform (one per cell).

    Traced as a cellwise randomised map of the table: run 0's bits plus each probe's change of
    its cell, so that the accountant reads the resampled table (one row of it changes when one
    row of the rewards does) as the private input.
    """
    U = rng.random(np.shape(x))
    bits = (U >= 1.0 - np.asarray(x)).astype(float)
    if _watched.ACTIVE is not None:
        return _watched.ACTIVE.resampled(bits, x)
    return bits


def active_tracer() -> "Tracer | None":
    """The tracer of the current :func:`tracing` block, if any."""
    return _watched.ACTIVE


@contextlib.contextmanager
def tracing(tracer: "Tracer") -> Iterator["Tracer"]:
    """Route every draw and release of the reference through ``tracer`` inside the block."""
    if _watched.ACTIVE is not None:
        raise RuntimeError("a tracer is already active")
    _watched.ACTIVE = tracer
    try:
        with _sight.plain_makers(_sight.user_modules()):
            yield tracer
    finally:
        _watched.ACTIVE = None


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
