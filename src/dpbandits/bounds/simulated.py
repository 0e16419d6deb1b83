"""Simulated regret of one registered algorithm held against every explicit bound about it.

Every explicit bound about the algorithm (``bounds_for(ALGO, variant, explicit=True)``) is
checked at every checkpoint (:func:`dpbandits.bounds.check_regret`); bounds with only O(.)
constants or free constants are listed as not checkable, with the reason. A check whose bound is
vacuous at the simulated size says so and gives the smallest horizon from which it is informative
(:func:`informative_horizons` computes these without simulating), so that the check can be run
where it could fail. A check whose band contains its bound somewhere is ``inconclusive at this
size`` and says how many runs would decide it (an estimate), with the command that runs them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from ..errors import DPBanditsError, check_epsilon, check_positive_int
from ..files import atomic_write as _atomic_write
from ..limits import MAX_RUNS
from . import bounds_for
from .check import INCONCLUSIVE, VACUOUS, BoundCheck, RegretCurve, check_regret, estimated_seconds, informative_horizon
from .core import Bound

__all__ = ["check_algorithm", "informative_horizons", "plan_horizons", "BoundsReport", "plot"]


class BoundsReport:
    """The checks of one simulated algorithm against its bounds."""

    def __init__(self, algorithm: str, variant: str | None, epsilon: float, means: np.ndarray,
                 curve: RegretCurve, checks: list[BoundCheck], skipped: list[tuple[Bound, str]]):
        self.algorithm, self.variant, self.epsilon = algorithm, variant, epsilon
        self.means, self.curve, self.checks, self.skipped = means, curve, checks, skipped
        self.backend = "reference"
        """The engine's backend that simulated the runs."""
        self.instance = ""
        """The command-line options that name the instance (``--setting NAME`` or ``--means ...``)."""
        self.private = True
        """Whether the algorithm takes epsilon (the commands this report suggests pass
        ``--epsilon`` only then: the command line refuses it for a non-private algorithm)."""

    @property
    def vacuous(self) -> list[BoundCheck]:
        return [c for c in self.checks if c.verdict == VACUOUS]

    @property
    def inconclusive(self) -> list[BoundCheck]:
        return [c for c in self.checks if c.verdict == INCONCLUSIVE]

    @property
    def violated(self) -> list[BoundCheck]:
        return [c for c in self.checks if c.verdict == "violated"]

    def to_dict(self) -> dict[str, Any]:
        return {"algorithm": self.algorithm, "variant": self.variant, "epsilon": self.epsilon,
                "means": self.means.tolist(), "runs": self.curve.runs,
                "horizon": int(self.curve.checkpoints[-1]), "backend": self.backend,
                "checks": [c.to_dict() for c in self.checks],
                "vacuous": [c.bound for c in self.vacuous],
                "inconclusive": [c.bound for c in self.inconclusive],
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
        lines += self.informative_lines()
        for bound, why in self.skipped:
            lines.append(f"- not checked: {bound.key} ({bound.title}): {why}")
        return "\n".join(lines)

    def informative_lines(self) -> list[str]:
        """For each vacuous check: where it becomes informative, and the command that checks it
        there with its estimated cost on the compiled backend; for each inconclusive check: the
        runs that would decide it (an estimate) and the command that runs them."""
        lines = []
        for check in self.vacuous:
            if check.informative_from is None:
                lines.append(f"- {check.bound} is vacuous at this size and at every horizon up to "
                             f"{check.searched_to:.0e}: no simulation dpbandits runs can test it.")
                continue
            T = check.informative_from
            command = self._command(2 * T, self.curve.runs)
            lines.append(f"- {check.bound} is vacuous at T = {int(self.curve.checkpoints[-1])}; "
                         f"informative from T = {T}. To check it where it could fail: `{command}` "
                         f"(about {estimated_seconds(self.curve.runs, 2 * T):.3g} s on the compiled "
                         "backend).")
        horizon = int(self.curve.checkpoints[-1])
        for check in self.inconclusive:
            runs = check.runs_needed
            if runs is None:
                lines.append(f"- {check.bound} is inconclusive at this size: at t = "
                             f"{', '.join(map(str, check.undecidable))} the mean is on the "
                             "bound, so no number of runs decides it.")
                continue
            said = (f"- {check.bound} is inconclusive at this size: about {runs} runs would "
                    "decide it (an estimate at the observed means and spreads).")
            if runs > MAX_RUNS:
                lines.append(f"{said} That is more than the {MAX_RUNS:.0e} runs dpbandits "
                             "simulates.")
                continue
            lines.append(f"{said} To run them: `{self._command(horizon, runs)}` (about "
                         f"{estimated_seconds(runs, horizon):.3g} s on the compiled backend).")
        return lines

    def _command(self, horizon: int, runs: int) -> str:
        """The ``dpbandits bounds`` command that simulates this instance at another size."""
        return (f"dpbandits bounds {self.algorithm}"
                + (f" --variant {self.variant}" if self.variant else "")
                + (f" --epsilon {self.epsilon:g}" if self.private else "")
                + f" {self.instance} --horizon {horizon} "
                  f"--runs {runs}").replace("  ", " ")


def check_algorithm(algorithm: str, *, epsilon: float = 1.0, variant: str | None = None,
                    setting: str | None = None, means: Any = None, horizon: int, runs: int = 20,
                    seed: int = 0, alpha: float = 0.05, values: dict[str, float] | None = None,
                    workers: int = 1, client=None,
                    backend: str = "auto") -> tuple[BoundsReport, Any]:
    """Simulate ``algorithm`` and check its regret against every explicit bound about it.

    Returns the report and the simulation result. The setting's environment (default
    ``hu2021-setting2``) or Bernoulli ``means`` give the gaps the instance-dependent bounds use.
    """
    from ..reference import simulate, spec

    plan = _Plan(algorithm, epsilon, variant, setting, means, values)
    horizon = check_positive_int(horizon, "horizon")
    if runs < 2:
        raise DPBanditsError("a bound is never checked on a single run: --runs must be at least 2")
    factory = spec(plan.algorithm, plan.mu.size, epsilon=plan.epsilon if plan.cls.private else None,
                   variant=variant, T=horizon if plan.cls.needs_horizon else None)
    result = simulate(factory, plan.source, horizon, runs=runs, seed=seed, workers=workers,
                      client=client, backend=backend)
    curve = RegretCurve.from_result(result)
    checks = [check_regret(curve, bound, alpha=alpha, anytime=not plan.cls.needs_horizon,
                           largest_gap=plan.largest_gap, **args)
              for bound, args in plan.checkable]
    report = BoundsReport(plan.algorithm, variant, plan.epsilon, plan.mu, curve, checks,
                          plan.skipped)
    report.backend = result.backend
    report.private = bool(plan.cls.private)
    report.instance = (f"--setting {plan.setting_name}" if plan.setting_name else
                       "--means " + " ".join(f"{m:g}" for m in plan.mu))
    return report, result


def informative_horizons(algorithm: str, *, epsilon: float = 1.0, variant: str | None = None,
                         setting: str | None = None, means: Any = None,
                         values: dict[str, float] | None = None) -> dict[str, int | None]:
    """For each bound :func:`check_algorithm` would check: the smallest horizon from which it is
    informative on this instance (:func:`dpbandits.bounds.check.informative_horizon`; None when
    it never is up to the largest horizon dpbandits simulates). Nothing is simulated."""
    plan = _Plan(algorithm, epsilon, variant, setting, means, values)
    return {bound.key: informative_horizon(bound, largest_gap=plan.largest_gap, **args)
            for bound, args in plan.checkable}


def plan_horizons(informative: dict[str, dict[str, int | None]], base: int, runs: int,
                  seconds: float, limit: int | None = None) -> tuple[dict[str, int], float]:
    """The horizon to simulate for each algorithm, within a budget of seconds.

    ``informative`` maps each algorithm to its bounds' informative horizons
    (:func:`informative_horizons`). Each algorithm starts at ``base``; a bound vacuous there
    (informative only from some T above ``base``) asks for ``2 T``, so that the later half of
    the checkpoints can test it. Requests are granted cheapest first while the estimated cost of
    every simulation (:func:`dpbandits.bounds.check.estimated_seconds`, ``runs`` runs on the
    compiled backend) stays within ``seconds``; one simulation per algorithm, at the largest
    horizon granted, serves all its bounds. Returns the horizons and their estimated total cost.
    """
    from ..limits import MAX_HORIZON

    limit = limit or MAX_HORIZON
    chosen = {name: base for name in informative}
    spent = sum(estimated_seconds(runs, base) for _ in informative)
    asks = sorted((2 * T, name) for name, found in informative.items() for T in found.values()
                  if T is not None and T > base and 2 * T <= limit)
    for horizon, name in asks:
        extra = estimated_seconds(runs, horizon) - estimated_seconds(runs, chosen[name])
        if horizon > chosen[name] and spent + extra <= seconds:
            chosen[name], spent = horizon, spent + extra
    return chosen, spent


class _Plan:
    """The instance and the bounds about ``algorithm`` that can be held against it, with their
    values; the others with the reason they cannot."""

    def __init__(self, algorithm: str, epsilon: float, variant: str | None, setting: str | None,
                 means: Any, values: dict[str, float] | None) -> None:
        from ..reference import Bernoulli, get, get_setting
        from ..reference.registry import canonical

        self.algorithm = canonical(algorithm)
        self.epsilon = check_epsilon(epsilon)
        if means is not None:
            self.source, self.setting_name = Bernoulli(np.asarray(means, dtype=float)), ""
            law = "bernoulli"
        else:
            chosen = get_setting(setting or "hu2021-setting2")
            self.source, self.setting_name, law = chosen.environment(), chosen.name, chosen.law
        self.mu = np.asarray(self.source.means, dtype=float)
        self.cls = get(self.algorithm)
        if self.cls.feedback == "semi":
            raise DPBanditsError(f"{self.algorithm} is a matroid algorithm; `dpbandits bounds` "
                                 "checks bandit and full-information algorithms")
        gaps = self.mu.max() - self.mu
        self.largest_gap = float(gaps.max())
        known = {"epsilon": self.epsilon, "K": float(self.mu.size), **(values or {})}
        if np.any(gaps > 0):        # with every mean equal there is no Delta_min (and no regret)
            known["Delta_min"] = float(gaps[gaps > 0].min())
        self.checkable: list[tuple[Bound, dict[str, Any]]] = []
        self.skipped: list[tuple[Bound, str]] = []
        for bound in bounds_for(self.algorithm, variant):
            if bound.kind not in ("upper", "lower"):
                continue
            why = _not_checkable(bound, known, gaps, (self.setting_name, law))
            if why:
                self.skipped.append((bound, why))
                continue
            args = {k: v for k, v in known.items() if k in bound.symbols}
            if bound.per_arm is not None:
                args["gaps"] = gaps
            self.checkable.append((bound, args))


def _not_checkable(bound: Bound, known: dict[str, Any], gaps: np.ndarray,
                   instance: tuple[str, str]) -> str:
    """Why ``bound`` cannot be held against a simulation of this instance ("" when it can)."""
    if not bound.is_explicit():
        return f"constants {bound.constants}: nothing to evaluate"
    if bound.asymptotic:
        return "a statement about T -> infinity only"
    if bound.instance and bound.instance not in instance:
        return f"applies only on {bound.instance!r}, not on this instance"
    if bound.status == "flawed":
        return "its proof is flawed (see its docstring): not held against data"
    if not np.any(gaps > 0) and (bound.per_arm is not None or "Delta_min" in bound.symbols):
        return ("every arm is optimal (all means equal): the pseudo-regret is 0 and a "
                "gap-dependent bound says nothing")
    needed = [s for s in bound.symbols if s not in known and s not in ("T", "t", "gaps")]
    if needed:
        return f"needs values for {needed} (--value NAME=X)"
    return ""


def plot(report: BoundsReport, path: Path) -> None:
    """Mean regret with its simultaneous band, the largest regret possible (t x largest gap)
    and every checked bound with its verdict, on log-log axes: a bound is vacuous where it lies
    above the grey line, and the crossing is where it starts to say something.
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
    gap = report.checks[0].largest_gap if report.checks else float(np.ptp(report.means))
    largest = curve.checkpoints * gap
    axes.plot(curve.checkpoints, largest, color="grey", linewidth=1.5,
              label="largest regret possible (t x largest gap)")
    axes.fill_between(curve.checkpoints, largest, largest.max() * 1e3, color="grey", alpha=0.08,
                      label="a bound in the grey region is vacuous")
    tops = [float(np.max(high)), float(largest.max())]
    for check in report.checks:
        t = [r["t"] for r in check.rows]
        b = np.asarray([r["bound"] for r in check.rows], float)
        style = "--" if check.kind == "upper" else ":"
        axes.plot(t, b, style, label=f"{check.bound} ({check.verdict})")
        if np.any(np.isfinite(b)):
            tops.append(float(np.nanmax(b)))
    axes.set_xscale("log")
    axes.set_yscale("log")
    axes.set_ylim(0.5, 2 * max(tops + [1.0]))
    axes.set_xlabel("round t")
    axes.set_ylabel("pseudo-regret")
    axes.set_title(f"{report.algorithm}, epsilon = {report.epsilon:g}")
    axes.legend(fontsize=7)
    figure.tight_layout()
    _atomic_write(path, lambda handle: figure.savefig(handle, format="png", dpi=110), "wb")
    plt.close(figure)
