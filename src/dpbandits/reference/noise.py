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
import os
import sys
from dataclasses import dataclass, field
from typing import Iterable, Iterator

import numpy as np

__all__ = ["ScriptedNoise", "Watched", "Draw", "watch", "laplace", "exponential", "gumbel", "draw", "release", "publish",
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
        return np.asarray(z).view(Draw)
    return z


def exponential(rng: np.random.Generator, scale, size) -> np.ndarray:
    """Independent Exp(scale) draws (mean ``scale``), from ``rng`` only."""
    z = rng.exponential(scale, size)
    if _TRACER is not None:
        _TRACER.drawn(z, "exponential", scale)
        return np.asarray(z).view(Draw)
    return z


def gumbel(rng: np.random.Generator, scale, size) -> np.ndarray:
    """Independent max-type Gumbel(0, scale) draws, from ``rng`` only."""
    z = rng.gumbel(0.0, scale, size)
    if _TRACER is not None:
        _TRACER.drawn(z, "gumbel", scale)
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
    U = rng.random(np.shape(x))
    bits = (U >= 1.0 - np.asarray(x)).astype(float)
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


def _site() -> str:
    """The first line outside numpy and this module on the stack: where a read happened."""
    f = sys._getframe(2)
    while f is not None and (f.f_code.co_filename == __file__
                             or f"{os.sep}numpy{os.sep}" in f.f_code.co_filename):
        f = f.f_back
    if f is None:
        return "an unknown line"
    return f"{os.path.basename(f.f_code.co_filename)}:{f.f_lineno}"


_READS = frozenset({np.greater, np.greater_equal, np.less, np.less_equal, np.equal,
                    np.not_equal, np.logical_and, np.logical_or, np.logical_xor, np.logical_not,
                    np.bitwise_and, np.bitwise_or, np.bitwise_xor, np.invert, np.isnan,
                    np.isinf, np.isfinite, np.signbit, np.sign, np.heaviside})
"""Ufuncs whose result says something about where a value lies (a predicate): reading an
unreleased reward-derived value through one is a leak, whatever the outcome."""
_AFFINE = frozenset({np.add, np.subtract, np.negative, np.positive, np.conjugate})
"""Ufuncs that keep a statistic affine in each reward (with multiplication and division by a
value that is not itself reward-derived)."""
_SCALINGS = frozenset({np.multiply, np.true_divide})
_READ_FUNCTIONS = frozenset({np.argmax, np.argmin, np.argsort, np.sort, np.nonzero,
                             np.flatnonzero, np.unique, np.searchsorted, np.count_nonzero,
                             np.array_equal, np.isclose, np.allclose, np.any, np.all,
                             np.argwhere})
_NONLINEAR_FUNCTIONS = frozenset({np.max, np.min, np.amax, np.amin, np.clip, np.round,
                                  np.around, np.median, np.percentile, np.quantile,
                                  np.maximum, np.minimum})


def _unwrap(x):
    if isinstance(x, Watched):
        return x.view(np.ndarray)
    if isinstance(x, (tuple, list)):
        return type(x)(_unwrap(v) for v in x)
    return x


def _wrap(result):
    if isinstance(result, np.ndarray) and type(result) is np.ndarray:
        return result.view(Watched)
    if isinstance(result, tuple):
        return tuple(_wrap(r) for r in result)
    return result


class Watched(np.ndarray):
    """An array of a traced policy's state or feedback (tracing mode only): its operations are
    checked for reads of unreleased reward-derived values (information flow).

    A value is reward-derived on a trace when it differs across the lockstep runs (every probe
    run has one cell of the table moved). A predicate (a comparison, a sign, a logical
    operation), an argmax or sort, a branch (``bool``), an index or a conversion to a Python
    number of such a value is a read: a leak of the cells it differs in, found the first time
    the read happens, whatever its outcome. A nonlinear map (floor, a square, a maximum, a
    product of two reward-derived values) is recorded: the statistic is then not affine in the
    rewards, and its sensitivity holds for the probed tables only. Results stay
    :class:`Watched`; a value moved into a Python number or into a fresh plain array is no longer
    followed (docs/accountant.md#what-the-tracer-cannot-see)."""

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        tracer = _TRACER
        draws = [x for x in inputs if isinstance(x, Draw)]
        out = kwargs.get("out", ())
        if out:
            kwargs["out"] = tuple(_unwrap(o) for o in out)
        result = getattr(ufunc, method)(*_unwrap(inputs), **kwargs)
        if tracer is None:
            return _wrap(result) if not out else (out[0] if len(out) == 1 else out)
        if draws:
            kept = tracer.noise_operation(ufunc, method, inputs, draws, result)
            if kept is not None:
                return kept if not out else (out[0] if len(out) == 1 else out)
        watched = [x for x in inputs if isinstance(x, Watched) and not isinstance(x, Draw)]
        if watched:
            across = method == "reduce" and kwargs.get("axis", 0) in (None, 0)
            name = f"np.{ufunc.__name__}" + (f".{method}" if method != "__call__" else "")
            if ufunc in _READS or (across and np.ndim(inputs[0]) >= 1):
                what = ("a reduction across the lockstep runs" if across and ufunc not in _READS
                        else f"a predicate ({name})")
                for x in watched:
                    tracer.read(x, what)
            elif ufunc in _SCALINGS and method == "__call__" and len(inputs) == 2:
                moving = [x for x in inputs if isinstance(x, Watched) and tracer.moves(x)]
                if len(moving) == 2 or (ufunc is np.true_divide and moving
                                        and moving[-1] is inputs[1]):
                    tracer.nonlinear(name, *moving)
            elif ufunc not in _AFFINE:
                tracer.nonlinear(name, *watched)
        if out:
            return out[0] if len(out) == 1 else out
        return _wrap(result)

    def __array_function__(self, func, types, args, kwargs):
        tracer = _TRACER
        plain_args = _unwrap(args)
        plain_kwargs = {k: _unwrap(v) for k, v in kwargs.items()}
        if tracer is not None:
            flat = [a for a in list(args) + list(kwargs.values()) if isinstance(a, Watched)]
            if any(isinstance(a, Draw) for a in flat):
                for d in flat:
                    if isinstance(d, Draw):
                        tracer.draw_read(d, f"np.{func.__name__}")
            name = f"np.{func.__name__}"
            if func is np.where and len(args) >= 1 and isinstance(args[0], Watched):
                tracer.read(args[0], "a selection (np.where) on a reward-derived condition")
            elif func in _READ_FUNCTIONS:
                for x in flat:
                    tracer.read(x, f"a read ({name})")
            elif func in _NONLINEAR_FUNCTIONS:
                tracer.nonlinear(name, *flat)
        return _wrap(func(*plain_args, **plain_kwargs))

    def _read_as(self, what: str) -> None:
        if _TRACER is not None:
            if isinstance(self, Draw):
                _TRACER.draw_read(self, what)
            else:
                _TRACER.read(self, what)

    def __bool__(self) -> bool:
        self._read_as("a branch (bool)")
        return bool(self.view(np.ndarray))

    def __float__(self) -> float:
        self._read_as("a conversion to a Python number")
        return float(self.view(np.ndarray))

    def __int__(self) -> int:
        self._read_as("a conversion to a Python number")
        return int(self.view(np.ndarray))

    def __index__(self) -> int:
        self._read_as("an index")
        return self.view(np.ndarray).__index__()

    def item(self, *args):  # type: ignore[override]
        self._read_as("a conversion to a Python number (item)")
        return self.view(np.ndarray).item(*args)

    def tolist(self):  # type: ignore[override]
        self._read_as("a conversion to Python numbers (tolist)")
        return self.view(np.ndarray).tolist()

    def argmax(self, *args, **kwargs):  # type: ignore[override]
        self._read_as("a read (argmax)")
        return _wrap(self.view(np.ndarray).argmax(*args, **kwargs))

    def argmin(self, *args, **kwargs):  # type: ignore[override]
        self._read_as("a read (argmin)")
        return _wrap(self.view(np.ndarray).argmin(*args, **kwargs))

    def argsort(self, *args, **kwargs):  # type: ignore[override]
        self._read_as("a read (argsort)")
        return _wrap(self.view(np.ndarray).argsort(*args, **kwargs))

    def nonzero(self):  # type: ignore[override]
        self._read_as("a read (nonzero)")
        return _wrap(self.view(np.ndarray).nonzero())

    def sort(self, *args, **kwargs):  # type: ignore[override]
        self._read_as("a read (sort)")
        self.view(np.ndarray).sort(*args, **kwargs)

    def astype(self, dtype, *args, **kwargs):  # type: ignore[override]
        kind = np.dtype(dtype).kind
        if _TRACER is not None and kind in "iub" and self.dtype.kind == "f":
            if isinstance(self, Draw):
                _TRACER.draw_read(self, f"a conversion to {np.dtype(dtype).name}")
            else:
                _TRACER.read(self, f"a conversion to {np.dtype(dtype).name}")
        return _wrap(self.view(np.ndarray).astype(dtype, *args, **kwargs))

    def __getitem__(self, key):
        if _TRACER is not None:
            keys = key if isinstance(key, tuple) else (key,)
            for k in keys:
                if isinstance(k, Watched):
                    k._read_as("an index")
        out = np.ndarray.__getitem__(self, _unwrap(key))
        return out

    def __setitem__(self, key, value) -> None:
        if _TRACER is not None:
            keys = key if isinstance(key, tuple) else (key,)
            for k in keys:
                if isinstance(k, Watched):
                    k._read_as("an index")
        np.ndarray.__setitem__(self, _unwrap(key), _unwrap(value))


class Draw(Watched):
    """A noise draw in tracing mode: it may be sliced, copied, scaled by a positive public
    constant and handed to :func:`release`; a difference of two exponential draws of one scale
    is recognised as one Laplace draw of that scale, and the negation of a Laplace draw as a
    Laplace draw. Any other operation on it (a comparison, an absolute value, a selection, a
    clip, a sum with another draw or with a value) is recorded with its line: the value then
    released is not the declared law as drawn (docs/accountant.md#noise-laws)."""


def watch(obj, depth: int = 0) -> None:
    """Make the float arrays of ``obj`` (a policy, and the reference objects it holds, to depth
    3) :class:`Watched`, in place of its attributes. Integer and boolean state (counts, run
    indices, masks) is left plain: a reward-derived value becomes one only through a
    conversion, which is a read."""
    for key, value in list(vars(obj).items()):
        if type(value) is np.ndarray and value.dtype.kind == "f":
            setattr(obj, key, value.view(Watched))
        elif isinstance(value, list) and depth < 3:
            for i, v in enumerate(value):
                if type(v) is np.ndarray and v.dtype.kind == "f":
                    value[i] = v.view(Watched)
                elif _watchable(v):
                    watch(v, depth + 1)
        elif _watchable(value) and depth < 3:
            watch(value, depth + 1)


def _watchable(value) -> bool:
    return (hasattr(value, "__dict__") and not isinstance(value, (np.random.Generator, type))
            and type(value).__module__.startswith("dpbandits.reference"))


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

    def _per_run(self, a) -> np.ndarray:
        a = np.asarray(a, dtype=float)
        return a.reshape(self.runs, -1)

    def _leak_where(self, differs: np.ndarray, what: str = "a value that differs across runs") -> None:
        cells = [self.cells[p] for p in np.flatnonzero(differs[1:])]
        if NOISE_PROBE in cells:
            cells = [c for c in cells if c != NOISE_PROBE]
            self._noise_read(what)
        for cell in cells:
            self.leaks.add(cell)
        if cells:
            note = f"round {self.step}: {what}"
            if note not in self.findings:
                self.findings.append(note)

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
        return any(self.cells[p] != NOISE_PROBE for p in np.flatnonzero(mask[1:]))

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
        noise_moves = np.any(nz != nz[0], axis=1)
        self._leak_where(noise_moves, "noise that differs across runs")
        fresh, family, scale, taken = self._match(nz[0])
        fresh = fresh and not noise_moves.any()
        self._used.update(taken)
        law = self.law_of(taken)
        diff = (v[1:] - v[0]) / self.h                     # (P, m): each probe's change
        coefficients: list[dict[tuple[int, int], float]] = [dict() for _ in range(v.shape[1])]
        for p, i in zip(*np.nonzero(diff)):
            coefficients[i][self.cells[p]] = float(diff[p, i])
        out = v[0] + nz[0]
        shape = np.shape(value + noise)
        out = np.broadcast_to(out, (self.runs, out.size)).reshape(shape).copy()
        return self._recorded(Release(family, scale, kind, coefficients, fresh, self.step,
                                      law=law), out)

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
        if self.phase == "act":
            self.released_in_act = True
        if record.kind == "argmax":
            out = out.view(ArgmaxOnly)
            out._release = record
        return out

    def published(self, value) -> None:
        v = self._per_run(value)
        self._leak_where(np.any(v != v[0], axis=1), "a published value that differs across runs")

    def decided(self, index) -> None:
        index = np.asarray(index)
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
