"""Holding simulated regret against a bound, checkpoint by checkpoint.

What is compared: the *expected* regret E[R(t)] that a theorem bounds, estimated by the mean over
independent runs, with a simultaneous two-sided Student-t confidence band over the checked
checkpoints (Bonferroni: each checkpoint at level ``1 - alpha / C``). The verdict at a checkpoint:

- upper bound: ``violated`` when the band's *lower* end exceeds the bound (so with probability at
  least ``1 - alpha`` no correct bound is ever reported violated, under the t approximation of the
  mean), ``holds`` otherwise; ``ratio = mean / bound`` says how tight the bound is;
- lower bound: ``violated`` when the band's *upper* end is below the bound, ``holds`` otherwise.
  A minimax lower bound ("for every algorithm some instance costs at least ...") speaks about its
  own hard instances only, so it is meaningful only when the curve was simulated on them;
- ``not applicable`` where the bound's condition of validity fails (e.g. T below the theorem's
  threshold) or the bound is not finite.

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
from .core import Bound

__all__ = ["RegretCurve", "BoundCheck", "check_regret"]


@dataclass(frozen=True)
class RegretCurve:
    """Regret of ``runs`` independent runs summarised at checkpoints (1-based rounds)."""

    checkpoints: np.ndarray
    mean: np.ndarray
    std: np.ndarray
    """Sample standard deviation over runs (ddof = 1) at each checkpoint."""
    runs: int

    @classmethod
    def from_runs(cls, checkpoints: Sequence[int], regret: np.ndarray) -> "RegretCurve":
        """From an (R, C) array of regret of R runs at C checkpoints."""
        values = np.asarray(regret, dtype=float)
        points = np.asarray(checkpoints, dtype=np.int64)
        if values.ndim != 2 or values.shape[1] != points.size:
            raise DPBanditsError(f"regret must have shape (runs, {points.size}), got {values.shape}")
        if not np.all(np.isfinite(values)):
            raise DPBanditsError("regret contains NaN or infinite values")
        std = values.std(axis=0, ddof=1) if values.shape[0] > 1 else np.full(points.size, np.nan)
        return cls(points, values.mean(axis=0), std, int(values.shape[0]))

    @classmethod
    def from_result(cls, result: Any, kind: str = "pseudo") -> "RegretCurve":
        """From a :class:`dpbandits.reference.engine.SimulationResult`."""
        values = result.pseudo_regret if kind == "pseudo" else result.realised_regret
        return cls.from_runs(result.checkpoints, values)

    def band(self, level: float) -> tuple[np.ndarray, np.ndarray]:
        """Two-sided Student-t interval for E[R(t)] at each checkpoint, each at ``level``."""
        half = stats.t.ppf(0.5 + level / 2, self.runs - 1) * self.std / math.sqrt(self.runs)
        return self.mean - half, self.mean + half


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
    """One dict per checkpoint: t, mean, low, high, bound, ratio, verdict."""

    @property
    def holds(self) -> bool:
        """No checkpoint violated (``not applicable`` ones do not count)."""
        return not any(row["verdict"] == "violated" for row in self.rows)

    @property
    def applicable(self) -> bool:
        """At least one checkpoint where the bound applies."""
        return any(row["verdict"] != "not applicable" for row in self.rows)

    @property
    def verdict(self) -> str:
        """``holds``, ``violated`` or ``not applicable``."""
        if not self.applicable:
            return "not applicable"
        return "holds" if self.holds else "violated"

    @property
    def final_ratio(self) -> float:
        """mean / bound at the last applicable checkpoint (how tight the bound is)."""
        ratios = [row["ratio"] for row in self.rows if row["verdict"] != "not applicable"]
        return ratios[-1] if ratios else float("nan")

    def to_dict(self) -> dict[str, Any]:
        return {"bound": self.bound, "kind": self.kind, "title": self.title, "runs": self.runs,
                "alpha": self.alpha, "correction": self.correction, "verdict": self.verdict,
                "final_ratio": _json_number(self.final_ratio),
                "rows": [{k: _json_number(v) for k, v in row.items()} for row in self.rows]}

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2)

    def to_markdown(self, every: int = 1) -> str:
        """A table of the checkpoints (every ``every``-th, always the last)."""
        lines = [f"**{self.bound}** ({self.kind}): {self.title}: **{self.verdict}** "
                 f"({self.runs} runs; {self.correction})", "",
                 "| t | mean regret | band | bound | mean / bound | verdict |",
                 "|---:|---:|---|---:|---:|---|"]
        shown = [row for i, row in enumerate(self.rows) if i % every == 0 or i == len(self.rows) - 1]
        for row in shown:
            lines.append(f"| {row['t']} | {row['mean']:.4g} | [{row['low']:.4g}, {row['high']:.4g}] "
                         f"| {_fmt(row['bound'])} | {_fmt(row['ratio'])} | {row['verdict']} |")
        return "\n".join(lines)


def check_regret(curve: Any, bound: Bound, *, alpha: float = 0.05, anytime: bool = True,
                 kind: str = "pseudo", **values: Any) -> BoundCheck:
    """Hold a simulated regret curve against ``bound`` at every checkpoint.

    ``curve`` is a :class:`RegretCurve` or an engine ``SimulationResult`` (its ``kind`` regret).
    ``values`` are the bound's other symbols (``epsilon=``, ``gaps=``, ``K=`` ...); the horizon
    symbol ``T`` is set to each checkpoint when ``anytime`` (the algorithm does not know its
    horizon, so the theorem applies at every t), and to the last checkpoint otherwise (the
    regret is non-decreasing, so R(t) <= R(T) <= bound(T) for every checkpoint t).

    Guarantee: with probability at least ``1 - alpha`` (t approximation of the run mean;
    Bonferroni over checkpoints) a bound that is true is reported ``holds`` at every checkpoint.
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
    points = curve.checkpoints
    horizon = points.astype(float) if anytime else np.full(points.size, float(points[-1]))
    name = "t" if "t" in bound.symbols and "T" not in bound.symbols else "T"
    with np.errstate(all="ignore"):
        limit = np.broadcast_to(np.asarray(bound.evaluate(**{name: horizon}, **values), float),
                                points.shape)
    level = 1 - alpha / points.size
    low, high = curve.band(level)
    rows = []
    for i, t in enumerate(points):
        b = float(limit[i])
        if not np.isfinite(b):
            verdict = "not applicable"
        elif bound.kind == "upper":
            verdict = "violated" if low[i] > b else "holds"
        else:
            verdict = "violated" if high[i] < b else "holds"
        rows.append({"t": int(t), "mean": float(curve.mean[i]), "low": float(low[i]),
                     "high": float(high[i]), "bound": b,
                     "ratio": float(curve.mean[i] / b) if np.isfinite(b) and b > 0 else float("nan"),
                     "verdict": verdict})
    correction = (f"two-sided t band, Bonferroni over {points.size} checkpoints, "
                  f"simultaneous level {1 - alpha:g}")
    return BoundCheck(bound.key, bound.kind, bound.title, curve.runs, alpha, correction, rows)


def _fmt(value: float) -> str:
    return "-" if not np.isfinite(value) else f"{value:.4g}"


def _json_number(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value
