"""Simulated regret of one registered algorithm held against every explicit bound about it.

Every explicit bound about the algorithm (``bounds_for(ALGO, variant, explicit=True)``) is
checked at every checkpoint (:func:`dpbandits.bounds.check_regret`); bounds with only O(.)
constants or free constants are listed as not checkable, with the reason.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from ..errors import DPBanditsError, check_epsilon, check_positive_int
from ..files import atomic_write as _atomic_write
from . import bounds_for
from .check import BoundCheck, RegretCurve, check_regret
from .core import Bound

__all__ = ["check_algorithm", "BoundsReport", "plot"]


class BoundsReport:
    """The checks of one simulated algorithm against its bounds."""

    def __init__(self, algorithm: str, variant: str | None, epsilon: float, means: np.ndarray,
                 curve: RegretCurve, checks: list[BoundCheck], skipped: list[tuple[Bound, str]]):
        self.algorithm, self.variant, self.epsilon = algorithm, variant, epsilon
        self.means, self.curve, self.checks, self.skipped = means, curve, checks, skipped
        self.backend = "reference"
        """The engine's backend that simulated the runs."""

    @property
    def violated(self) -> list[BoundCheck]:
        return [c for c in self.checks if c.verdict == "violated"]

    def to_dict(self) -> dict[str, Any]:
        return {"algorithm": self.algorithm, "variant": self.variant, "epsilon": self.epsilon,
                "means": self.means.tolist(), "runs": self.curve.runs,
                "horizon": int(self.curve.checkpoints[-1]), "backend": self.backend,
                "checks": [c.to_dict() for c in self.checks],
                "not_checked": [{"bound": b.key, "why": why} for b, why in self.skipped]}

    def to_markdown(self) -> str:
        lines = [f"## {self.algorithm}" + (f" ({self.variant})" if self.variant else "")
                 + f", epsilon = {self.epsilon:g}, means = {self.means.tolist()}", "",
                 f"{self.curve.runs} runs, horizon {int(self.curve.checkpoints[-1])}, "
                 f"{self.backend} backend.", ""]
        if not self.checks:
            lines.append("No explicit bound applies to this algorithm.")
        for check in self.checks:
            lines += [check.to_markdown(every=max(1, len(check.rows) // 8)), ""]
        for bound, why in self.skipped:
            lines.append(f"- not checked: {bound.key} ({bound.title}): {why}")
        return "\n".join(lines)


def check_algorithm(algorithm: str, *, epsilon: float = 1.0, variant: str | None = None,
                    setting: str | None = None, means: Any = None, horizon: int, runs: int = 20,
                    seed: int = 0, alpha: float = 0.05, values: dict[str, float] | None = None,
                    workers: int = 1, client=None,
                    backend: str = "auto") -> tuple[BoundsReport, Any]:
    """Simulate ``algorithm`` and check its regret against every explicit bound about it.

    Returns the report and the simulation result. The setting's environment (default
    ``hu2021-setting2``) or Bernoulli ``means`` give the gaps the instance-dependent bounds use.
    """
    from ..reference import Bernoulli, get, get_setting, simulate, spec
    from ..reference.registry import canonical

    algorithm = canonical(algorithm)
    epsilon = check_epsilon(epsilon)
    horizon = check_positive_int(horizon, "horizon")
    if runs < 2:
        raise DPBanditsError("a bound is never checked on a single run: --runs must be at least 2")
    if means is not None:
        source, setting_name, law = Bernoulli(np.asarray(means, dtype=float)), "", "bernoulli"
    else:
        chosen = get_setting(setting or "hu2021-setting2")
        source, setting_name, law = chosen.environment(), chosen.name, chosen.law
    mu = np.asarray(source.means, dtype=float)
    cls = get(algorithm)
    if cls.feedback == "semi":
        raise DPBanditsError(f"{algorithm} is a matroid algorithm; `dpbandits bounds` checks "
                             "bandit and full-information algorithms")
    factory = spec(algorithm, mu.size, epsilon=epsilon if cls.private else None, variant=variant,
                   T=horizon if cls.needs_horizon else None)
    result = simulate(factory, source, horizon, runs=runs, seed=seed, workers=workers, client=client,
                      backend=backend)
    curve = RegretCurve.from_result(result)
    gaps = mu.max() - mu
    known = {"epsilon": epsilon, "K": float(mu.size), **(values or {})}
    if np.any(gaps > 0):        # with every mean equal there is no Delta_min (and no regret)
        known["Delta_min"] = float(gaps[gaps > 0].min())
    checks, skipped = [], []
    for bound in bounds_for(algorithm, variant):
        if bound.kind not in ("upper", "lower"):
            continue
        if not bound.is_explicit():
            skipped.append((bound, f"constants {bound.constants}: nothing to evaluate"))
            continue
        if bound.asymptotic:
            skipped.append((bound, "a statement about T -> infinity only"))
            continue
        if bound.instance and bound.instance not in (setting_name, law):
            skipped.append((bound, f"applies only on {bound.instance!r}, not on this instance"))
            continue
        if bound.status == "flawed":
            skipped.append((bound, "its proof is flawed (see its docstring): not held against data"))
            continue
        if not np.any(gaps > 0) and (bound.per_arm is not None or "Delta_min" in bound.symbols):
            skipped.append((bound, "every arm is optimal (all means equal): the pseudo-regret is "
                                   "0 and a gap-dependent bound says nothing"))
            continue
        needed = [s for s in bound.symbols if s not in known and s not in ("T", "t", "gaps")]
        if needed:
            skipped.append((bound, f"needs values for {needed} (--value NAME=X)"))
            continue
        args = {k: v for k, v in known.items() if k in bound.symbols}
        if bound.per_arm is not None:
            args["gaps"] = gaps
        checks.append(check_regret(curve, bound, alpha=alpha, anytime=not cls.needs_horizon, **args))
    report = BoundsReport(algorithm, variant, epsilon, mu, curve, checks, skipped)
    report.backend = result.backend
    return report, result


def plot(report: BoundsReport, path: Path) -> None:
    """Mean regret with its simultaneous band and every checked bound (log time axis).

    The y axis is cut at three times the largest regret seen, so that a loose bound does not
    flatten the curve; a bound above the frame is noted in its legend entry.
    """
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    curve = report.curve
    alpha = report.checks[0].alpha if report.checks else 0.05
    low, high = curve.band(1 - alpha / curve.checkpoints.size)
    figure, axes = plt.subplots(figsize=(7, 4.5))
    axes.plot(curve.checkpoints, curve.mean, color="black", label=f"{report.algorithm} (mean)")
    axes.fill_between(curve.checkpoints, np.maximum(low, 0), high, color="black", alpha=0.15,
                      label=f"simultaneous {1 - alpha:g} band")
    for check in report.checks:
        t = [r["t"] for r in check.rows]
        b = [r["bound"] for r in check.rows]
        style = "--" if check.kind == "upper" else ":"
        top = 3 * max(float(np.max(high)), 1e-9)
        above = np.nanmin(np.asarray(b, float)) > top if np.any(np.isfinite(b)) else False
        note = ", above the frame" if above else ""
        axes.plot(t, b, style, label=f"{check.bound} ({check.verdict}{note})")
    axes.set_xscale("log")
    axes.set_ylim(0, 3 * max(float(np.max(high)), 1e-9))
    axes.set_xlabel("round t")
    axes.set_ylabel("pseudo-regret")
    axes.set_title(f"{report.algorithm}, epsilon = {report.epsilon:g}")
    axes.legend(fontsize=7)
    figure.tight_layout()
    _atomic_write(path, lambda handle: figure.savefig(handle, format="png", dpi=110), "wb")
    plt.close(figure)
