"""Holding simulated regret against a bound, checkpoint by checkpoint.

What is compared: the *expected* regret E[R(t)] that a theorem bounds, estimated by the mean over
independent runs, with a simultaneous two-sided Student-t confidence band over the checked
checkpoints (Bonferroni: each checkpoint at level ``1 - alpha / C``). With probability at least
``1 - alpha`` (under the t approximation of the run mean) every checkpoint's band contains its
E[R(t)], so every ``violated`` and every ``respected`` below is true at once at that confidence,
on the simulated instance. A simulation never proves a bound: ``respected`` is a statistical
statement about this instance at this size, not the word ``holds``, which the project keeps for
proofs.

The verdict at a checkpoint, for an upper bound (a lower bound mirrored):

- ``violated`` when the band lies above the bound (its lower end exceeds it): E[R(t)] > bound;
- ``vacuous`` when the bound is at least ``t x (largest gap)``, the largest expected pseudo-regret
  any algorithm can have after t rounds, so that no run could ever violate it (lower bound: at
  most 0, since no regret is negative);
- ``respected`` when the band lies below the bound (its upper end is below it): E[R(t)] <= bound;
- ``inconclusive at this size`` when the band contains the bound. The row then carries
  ``runs_needed``: an *estimate* of the runs that would decide it, the smallest n at which the
  band's half-width, with the observed standard deviation and the same level, falls below
  |mean - bound| (None when the mean equals the bound: no size decides);
- ``not applicable`` where the bound's condition of validity fails (e.g. T below the theorem's
  threshold) or the bound is not finite.

``ratio = mean / bound`` says how tight the bound is. A minimax lower bound ("for every algorithm
some instance costs at least ...") speaks about its own hard instances only, so it is meaningful
only when the curve was simulated on them.

The check's verdict: ``violated`` when a checkpoint is; else ``inconclusive at this size`` when an
informative checkpoint is (its ``runs_needed`` is the largest over those checkpoints, the runs at
which every one of them would be decided); else ``respected`` when the bound is informative
somewhere (a checkpoint respected); else ``vacuous at this size`` when the bound applies somewhere
but is vacuous wherever it does (``respected`` there would be true of every algorithm, so it is
never said); else ``not applicable``. :func:`informative_horizon` gives the smallest horizon from
which the bound is informative: the size at which the check could fail.

A bound is never accepted on a single run: fewer than two runs is an error, since the spread of
the regret, and so any confidence statement, is unknown.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np
from scipy import stats

from ..errors import DPBanditsError
from ..limits import MAX_HORIZON
from .core import Bound

__all__ = ["RegretCurve", "BoundCheck", "check_regret", "informative_horizon", "runs_to_decide",
           "RUNS_SEARCHED", "VACUOUS", "RESPECTED", "INCONCLUSIVE", "estimated_seconds",
           "COMPILED_ROUNDS_PER_SECOND"]

VACUOUS = "vacuous at this size"
"""The verdict of a check whose bound no run could violate at any checked round."""

RESPECTED = "respected"
"""The verdict where the band lies on the bound's side: E[R(t)] <= an upper bound (>= a lower
bound) at the stated simultaneous confidence, on the simulated instance. Never ``holds``: a
simulation is not a proof."""

INCONCLUSIVE = "inconclusive at this size"
"""The verdict where the band contains the bound: these runs decide neither way."""

INFORMATIVE = ("violated", RESPECTED, INCONCLUSIVE)
"""The checkpoint verdicts at which a run could have violated the bound."""

COMPILED_ROUNDS_PER_SECOND = 1e7
"""Run-rounds per second assumed of the compiled backend when planning a check's size (the order
measured by ``benchmarks/compiled.py``; an estimate for planning, never a measurement)."""


def estimated_seconds(runs: int, horizon: int) -> float:
    """Planned cost of simulating ``runs`` runs of ``horizon`` rounds on the compiled backend."""
    return runs * horizon / COMPILED_ROUNDS_PER_SECOND


@dataclass(frozen=True)
class RegretCurve:
    """Regret of ``runs`` independent runs summarised at checkpoints (1-based rounds)."""

    checkpoints: np.ndarray
    mean: np.ndarray
    std: np.ndarray
    """Sample standard deviation over runs (ddof = 1) at each checkpoint."""
    runs: int
    largest_gap: float | None = None
    """mu* - min mu of the instance simulated (None when unknown): with it, ``t x largest_gap``
    is the largest expected pseudo-regret possible after t rounds."""

    @classmethod
    def from_runs(cls, checkpoints: Sequence[int], regret: np.ndarray,
                  largest_gap: float | None = None) -> "RegretCurve":
        """From an (R, C) array of regret of R runs at C checkpoints."""
        values = np.asarray(regret, dtype=float)
        points = np.asarray(checkpoints, dtype=np.int64)
        if values.ndim != 2 or values.shape[1] != points.size:
            raise DPBanditsError(f"regret must have shape (runs, {points.size}), got {values.shape}")
        if not np.all(np.isfinite(values)):
            raise DPBanditsError("regret contains NaN or infinite values")
        std = values.std(axis=0, ddof=1) if values.shape[0] > 1 else np.full(points.size, np.nan)
        return cls(points, values.mean(axis=0), std, int(values.shape[0]), largest_gap)

    @classmethod
    def from_result(cls, result: Any, kind: str = "pseudo") -> "RegretCurve":
        """From a :class:`dpbandits.reference.engine.SimulationResult` (its means give the
        largest gap)."""
        values = result.pseudo_regret if kind == "pseudo" else result.realised_regret
        means = np.asarray(getattr(result, "means", np.array([])), dtype=float).ravel()
        gap = float(means.max() - means.min()) if means.size and np.all(np.isfinite(means)) else None
        return cls.from_runs(result.checkpoints, values, gap)

    def band(self, level: float) -> tuple[np.ndarray, np.ndarray]:
        """Two-sided Student-t interval for E[R(t)] at each checkpoint, each at ``level``."""
        half = stats.t.ppf(0.5 + level / 2, self.runs - 1) * self.std / math.sqrt(self.runs)
        return self.mean - half, self.mean + half


RUNS_SEARCHED = 10 ** 15
"""Largest number of runs :func:`runs_to_decide` considers: beyond it, no size decides in
practice (the mean lies on the bound, or within rounding of it)."""


def runs_to_decide(distance: float, std: float, level: float) -> int | None:
    """Estimated runs at which a band of ``level`` would exclude a bound ``distance`` away from
    the mean: the smallest n >= 2 with t_{(1 + level) / 2, n - 1} x std / sqrt(n) < |distance|,
    the observed mean and standard deviation taken as they are (an estimate: both move with new
    runs). None when no n up to :data:`RUNS_SEARCHED` does, in particular when ``distance`` is 0
    (the mean equals the bound: no number of runs decides)."""
    distance, std = abs(float(distance)), float(std)
    if not distance > 0:
        return None
    if not std > 0:
        return 2

    def decided(n: int) -> bool:
        return float(stats.t.ppf(0.5 + level / 2, float(n - 1))) * std / math.sqrt(n) < distance

    low, high = 1, 2                # decided(low) is false by convention (one run has no band)
    while not decided(high):
        if high >= RUNS_SEARCHED:
            return None
        low, high = high, min(2 * high, RUNS_SEARCHED)
    while high - low > 1:
        middle = (low + high) // 2
        if decided(middle):
            high = middle
        else:
            low = middle
    return high


@dataclass(frozen=True)
class BoundCheck:
    """The comparison of one regret curve with one bound."""

    bound: str
    """Key of the bound."""
    kind: str
    title: str
    runs: int
    alpha: float
    correction: str
    rows: list[dict[str, Any]] = field(default_factory=list)
    """One dict per checkpoint: t, mean, low, high, bound, largest (t x largest gap, the largest
    expected pseudo-regret possible), ratio, verdict; an inconclusive one also ``runs_needed``
    (:func:`runs_to_decide`; None when the mean equals the bound)."""
    largest_gap: float = 1.0
    """The largest gap used for ``largest`` (1 when the instance's was not known: rewards lie in
    [0, 1])."""
    informative_from: int | None = None
    """Smallest horizon from which the bound is informative (:func:`informative_horizon`); None
    when it is not informative at any horizon up to ``searched_to``."""
    searched_to: int = MAX_HORIZON

    @property
    def violated(self) -> bool:
        """Some checkpoint violated."""
        return any(row["verdict"] == "violated" for row in self.rows)

    @property
    def applicable(self) -> bool:
        """At least one checkpoint where the bound applies."""
        return any(row["verdict"] != "not applicable" for row in self.rows)

    @property
    def informative(self) -> bool:
        """At least one checkpoint where a run could have violated the bound."""
        return any(row["verdict"] in INFORMATIVE for row in self.rows)

    @property
    def inconclusive(self) -> list[dict[str, Any]]:
        """The checkpoints whose band contains the bound."""
        return [row for row in self.rows if row["verdict"] == INCONCLUSIVE]

    @property
    def verdict(self) -> str:
        """``violated`` when a checkpoint is; else ``inconclusive at this size`` when one is;
        else ``respected`` when one is; else ``vacuous at this size`` when the bound applies
        somewhere; else ``not applicable``."""
        if not self.applicable:
            return "not applicable"
        if self.violated:
            return "violated"
        if self.inconclusive:
            return INCONCLUSIVE
        return RESPECTED if self.informative else VACUOUS

    @property
    def runs_needed(self) -> int | None:
        """Estimated runs at which every inconclusive checkpoint would be decided (the largest
        of their ``runs_needed``); None when none is inconclusive or a mean equals its bound
        (see :attr:`undecidable`)."""
        needed = [row["runs_needed"] for row in self.inconclusive]
        return None if not needed or None in needed else max(needed)

    @property
    def undecidable(self) -> list[int]:
        """The checkpoints whose mean equals the bound (or lies within rounding of it): no
        number of runs up to :data:`RUNS_SEARCHED` decides them."""
        return [row["t"] for row in self.inconclusive if row["runs_needed"] is None]

    @property
    def inconclusive_note(self) -> str:
        """Where the band contains the bound and the runs that would decide it, in words (empty
        when no checkpoint is inconclusive)."""
        rows = self.inconclusive
        if not rows:
            return ""
        informative = sum(row["verdict"] in INFORMATIVE for row in self.rows)
        where = (f"the band contains the bound at {len(rows)} of {informative} informative "
                 f"checkpoints (t = {_rounds([row['t'] for row in rows])})")
        if self.undecidable:
            return (f"{where}; at t = {_rounds(self.undecidable)} the mean is on the bound, so "
                    f"no number of runs (up to {RUNS_SEARCHED:.0e}) decides it")
        worst = max(rows, key=lambda row: row["runs_needed"])
        return (f"{where}; about {self.runs_needed} runs would decide every one (an estimate at "
                f"the observed means and spreads: the runs at which each band's half-width, at "
                f"the same level, falls below |mean - bound|; largest at t = {worst['t']}, mean "
                f"{worst['mean']:.4g} against the bound {_fmt(worst['bound'])})")

    @property
    def informative_note(self) -> str:
        """Where the bound starts to say something, in words."""
        limit = "above 0" if self.kind == "lower" else "below T x largest gap"
        if self.informative_from is None:
            return (f"never informative ({limit}) for any horizon up to "
                    f"T = {self.searched_to:.0e}")
        return f"informative ({limit}, largest gap {self.largest_gap:.4g}) from T = {self.informative_from}"

    @property
    def final_ratio(self) -> float:
        """mean / bound at the last applicable checkpoint (how tight the bound is)."""
        ratios = [row["ratio"] for row in self.rows if row["verdict"] != "not applicable"]
        return ratios[-1] if ratios else float("nan")

    def to_dict(self) -> dict[str, Any]:
        decide = ({"runs_needed": self.runs_needed, "undecidable_at": self.undecidable}
                  if self.inconclusive else {})
        return {"bound": self.bound, "kind": self.kind, "title": self.title, "runs": self.runs,
                "alpha": self.alpha, "correction": self.correction, "verdict": self.verdict,
                **decide,
                "final_ratio": _json_number(self.final_ratio), "largest_gap": self.largest_gap,
                "informative_from": self.informative_from, "searched_to": self.searched_to,
                "rows": [{k: _json_number(v) for k, v in row.items()} for row in self.rows]}

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2)

    def to_markdown(self, every: int = 1) -> str:
        """A table of the checkpoints (every ``every``-th, always the last)."""
        decide = f"; {self.inconclusive_note}" if self.inconclusive else ""
        lines = [f"**{self.bound}** ({self.kind}): {self.title}: **{self.verdict}** "
                 f"({self.runs} runs; {self.correction}); {self.informative_note}{decide}.", "",
                 "| t | mean regret | band | bound | largest possible (t x gap) | mean / bound "
                 "| verdict |",
                 "|---:|---:|---|---:|---:|---:|---|"]
        shown = [row for i, row in enumerate(self.rows) if i % every == 0 or i == len(self.rows) - 1]
        for row in shown:
            lines.append(f"| {row['t']} | {row['mean']:.4g} | [{row['low']:.4g}, {row['high']:.4g}] "
                         f"| {_fmt(row['bound'])} | {row['largest']:.4g} | {_fmt(row['ratio'])} "
                         f"| {row['verdict']} |")
        return "\n".join(lines)


def check_regret(curve: Any, bound: Bound, *, alpha: float = 0.05, anytime: bool = True,
                 kind: str = "pseudo", largest_gap: float | None = None,
                 **values: Any) -> BoundCheck:
    """Hold a simulated regret curve against ``bound`` at every checkpoint.

    ``curve`` is a :class:`RegretCurve` or an engine ``SimulationResult`` (its ``kind`` regret).
    ``values`` are the bound's other symbols (``epsilon=``, ``gaps=``, ``K=`` ...); the horizon
    symbol ``T`` is set to each checkpoint when ``anytime`` (the algorithm does not know its
    horizon, so the theorem applies at every t), and to the last checkpoint otherwise (the
    regret is non-decreasing, so R(t) <= R(T) <= bound(T) for every checkpoint t).
    ``largest_gap`` (default: the curve's, else the largest of ``gaps``, else 1) sets the largest
    expected pseudo-regret possible, ``t x largest_gap``, against which vacuity is judged.

    Guarantee: with probability at least ``1 - alpha`` (t approximation of the run mean;
    Bonferroni over checkpoints) a bound that is true is reported violated at no checkpoint, and
    a bound that is false at a checkpoint is not reported respected there.
    """
    if not 0 < alpha < 1:
        raise DPBanditsError(f"alpha must be in (0, 1), got {alpha}")
    if bound.kind not in ("upper", "lower"):
        raise DPBanditsError(f"{bound.key} bounds {bound.quantity}, not regret")
    if not bound.is_explicit():
        raise DPBanditsError(f"{bound.key} has no explicit constant ({bound.constants}); "
                             "it cannot be held against a simulation")
    if bound.asymptotic:
        raise DPBanditsError(f"{bound.key} holds only in the limit T -> infinity; "
                             "no finite simulation can be held against it")
    if not isinstance(curve, RegretCurve):
        curve = RegretCurve.from_result(curve, kind)
    if curve.runs < 2:
        raise DPBanditsError("a bound is never checked on a single run: simulate at least 2 runs")
    gap = _largest_gap(largest_gap, curve.largest_gap, values.get("gaps"))
    points = curve.checkpoints
    horizon = points.astype(float) if anytime else np.full(points.size, float(points[-1]))
    limit = _evaluate(bound, horizon, values)
    level = 1 - alpha / points.size
    low, high = curve.band(level)
    rows = []
    for i, t in enumerate(points):
        b, largest = float(limit[i]), float(t) * gap
        beyond, inside = (low[i] > b, high[i] < b) if bound.kind == "upper" else (high[i] < b, low[i] > b)
        if not np.isfinite(b):
            verdict = "not applicable"
        elif beyond:
            verdict = "violated"
        elif (b >= largest) if bound.kind == "upper" else (b <= 0):
            verdict = "vacuous"
        else:
            verdict = RESPECTED if inside else INCONCLUSIVE
        row = {"t": int(t), "mean": float(curve.mean[i]), "low": float(low[i]),
               "high": float(high[i]), "bound": b, "largest": largest,
               "ratio": float(curve.mean[i] / b) if np.isfinite(b) and b > 0 else float("nan"),
               "verdict": verdict}
        if verdict == INCONCLUSIVE:
            row["runs_needed"] = runs_to_decide(curve.mean[i] - b, curve.std[i], level)
        rows.append(row)
    correction = (f"two-sided t band, Bonferroni over {points.size} checkpoints, "
                  f"simultaneous level {1 - alpha:g}")
    return BoundCheck(bound.key, bound.kind, bound.title, curve.runs, alpha, correction, rows,
                      gap, informative_horizon(bound, largest_gap=gap, **values), MAX_HORIZON)


def informative_horizon(bound: Bound, *, largest_gap: float, limit: int = MAX_HORIZON,
                        **values: Any) -> int | None:
    """Smallest horizon T from which ``bound`` is informative at every T' up to ``limit``.

    Informative: an upper bound below ``T x largest_gap`` (the largest expected pseudo-regret
    possible), a lower bound above 0, and the bound's condition of validity met. Searched on a
    grid of 8 horizons per octave from 1 to ``limit``, then by bisection on the integers between
    the last grid horizon where the bound is not informative and the next (the bounds are smooth
    in T, so a crossing inside one eighth of an octave is not missed in practice). None when the
    bound is not informative at ``limit``.
    """
    def informative(horizons: np.ndarray) -> np.ndarray:
        b = _evaluate(bound, horizons.astype(float), values)
        if bound.kind == "upper":
            return np.isfinite(b) & (b < horizons * largest_gap)
        return np.isfinite(b) & (b > 0)

    grid = np.unique(np.round(np.geomspace(1, limit, 8 * int(np.ceil(np.log2(limit))) + 1)))
    grid = grid.astype(np.int64)
    ok = informative(grid)
    if not ok[-1]:
        return None
    failing = np.nonzero(~ok)[0]
    if failing.size == 0:
        return 1
    lo, hi = int(grid[failing[-1]]), int(grid[failing[-1] + 1])   # lo not informative, hi is
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if informative(np.array([mid]))[0]:
            hi = mid
        else:
            lo = mid
    return hi


def _evaluate(bound: Bound, horizon: np.ndarray, values: dict[str, Any]) -> np.ndarray:
    """The bound at each horizon (NaN where its condition fails)."""
    name = "t" if "t" in bound.symbols and "T" not in bound.symbols else "T"
    with np.errstate(all="ignore"):
        return np.broadcast_to(np.asarray(bound.evaluate(**{name: horizon}, **values), float),
                               horizon.shape)


def _largest_gap(given: float | None, of_curve: float | None, gaps: Any) -> float:
    for value in (given, of_curve):
        if value is not None:
            if not (np.isfinite(value) and 0 <= value <= 1):
                raise DPBanditsError(f"largest_gap must be in [0, 1], got {value}")
            return float(value)
    if gaps is not None:
        return float(np.max(np.asarray(gaps, dtype=float)))
    return 1.0


def _rounds(rounds: list[int], shown: int = 4) -> str:
    """Rounds as a short list: the first few and how many more."""
    text = ", ".join(str(t) for t in rounds[:shown])
    return text + (f" and {len(rounds) - shown} more" if len(rounds) > shown else "")


def _fmt(value: float) -> str:
    return "-" if not np.isfinite(value) else f"{value:.4g}"


def _json_number(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value
