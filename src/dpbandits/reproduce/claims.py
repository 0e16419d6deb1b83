"""The claim-check vocabulary: each function turns simulated cells into a verdict with evidence."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from .experiment import Experiment

@dataclass(frozen=True)
class Verdict:
    text: str
    verdict: str
    evidence: str


class Cells:
    """The simulated cells of one experiment: (label, epsilon) -> curve summary."""

    def __init__(self, data: dict[tuple[str, float], dict[str, Any]], experiment: Experiment):
        self.data, self.experiment = data, experiment

    def final(self, label: str, epsilon: float) -> tuple[float, float, float]:
        """Mean final regret and its two-sided 95% t interval."""
        d = self.data[(label, epsilon)]
        return d["mean"][-1], d["low"][-1], d["high"][-1]

    def at(self, label: str, epsilon: float, fraction: float) -> float:
        """Mean regret at the checkpoint nearest to ``fraction`` of the horizon."""
        d = self.data[(label, epsilon)]
        t = np.asarray(d["t"])
        return float(np.asarray(d["mean"])[np.argmin(np.abs(t - fraction * t[-1]))])

    @property
    def horizon(self) -> int:
        return int(next(iter(self.data.values()))["t"][-1])

    @property
    def runs(self) -> int:
        return int(next(iter(self.data.values()))["runs"])


# -- claims ---------------------------------------------------------------------------------------

def _fmt(x: float) -> str:
    return f"{x:.4g}"


def lower_than(a: str, others: tuple[str, ...], epsilons=None) -> Callable[[Cells], tuple[str, str]]:
    """``a``'s mean final regret is below every one of ``others`` at every epsilon (95% intervals
    must be disjoint for `supported`; overlapping intervals in the right order are `not testable`)."""
    def check(cells: Cells) -> tuple[str, str]:
        verdicts, evidence = [], []
        for eps in epsilons or cells.experiment.epsilons:
            m, lo, hi = cells.final(a, eps)
            for b in others:
                mb, lob, hib = cells.final(b, eps)
                evidence.append(f"eps={eps:g}: {a} {_fmt(m)} vs {b} {_fmt(mb)}")
                verdicts.append("supported" if hi < lob else "not supported" if m >= mb
                                else "not testable")
        return _combine(verdicts), "; ".join(evidence)
    return check


def highest(label: str) -> Callable[[Cells], tuple[str, str]]:
    """``label`` has the largest mean final regret of all lines at every epsilon."""
    def check(cells: Cells) -> tuple[str, str]:
        ok, evidence = True, []
        for eps in cells.experiment.epsilons:
            finals = {line.label: cells.final(line.label, eps)[0] for line in cells.experiment.lines}
            ok &= max(finals, key=finals.get) == label
            evidence.append(f"eps={eps:g}: " + ", ".join(f"{k} {_fmt(v)}" for k, v in finals.items()))
        return ("supported" if ok else "not supported"), "; ".join(evidence)
    return check


def within_factor(a: str, b: str, factor: float, epsilons=None) -> Callable[[Cells], tuple[str, str]]:
    """``a``'s mean final regret is within ``factor`` of ``b``'s (both ways) at every epsilon."""
    def check(cells: Cells) -> tuple[str, str]:
        ok, evidence = True, []
        for eps in epsilons or cells.experiment.epsilons:
            ma, mb = cells.final(a, eps)[0], cells.final(b, eps)[0]
            ratio = ma / mb if mb > 0 else math.inf
            evidence.append(f"eps={eps:g}: ratio {_fmt(ratio)}")
            ok &= 1 / factor <= ratio <= factor
        return ("supported" if ok else "not supported"), "; ".join(evidence) + f" (factor {factor:g})"
    return check


def non_increasing_in_epsilon(label: str) -> Callable[[Cells], tuple[str, str]]:
    """Mean final regret does not increase with epsilon, up to noise: no step up whose 95%
    intervals are disjoint."""
    def check(cells: Cells) -> tuple[str, str]:
        eps = sorted(cells.experiment.epsilons)
        finals = [cells.final(label, e) for e in eps]
        ups = [f"{eps[i]:g}->{eps[i + 1]:g}" for i in range(len(eps) - 1)
               if finals[i + 1][1] > finals[i][2]]
        shown = ", ".join(f"{e:g}: {_fmt(f[0])}" for e, f in zip(eps, finals))
        return ("not supported" if ups else "supported"), f"{label} final regret {shown}" + (
            f"; significant increase at {', '.join(ups)}" if ups else "")
    return check


def flat_in_epsilon(label: str, band: float) -> Callable[[Cells], tuple[str, str]]:
    """max / min of the mean final regret over epsilon is at most ``band``."""
    def check(cells: Cells) -> tuple[str, str]:
        finals = [cells.final(label, e)[0] for e in cells.experiment.epsilons]
        ratio = max(finals) / max(min(finals), 1e-12)
        return ("supported" if ratio <= band else "not supported"), \
            f"{label}: max/min over epsilon = {_fmt(ratio)} (band {band:g})"
    return check


def gap_not_increasing(a: str, b: str, epsilons=None) -> Callable[[Cells], tuple[str, str]]:
    """The regret gap a - b at T is at most 10% above the gap at T/2 (an additive constant)."""
    def check(cells: Cells) -> tuple[str, str]:
        ok, evidence = True, []
        for eps in epsilons or cells.experiment.epsilons:
            half = cells.at(a, eps, 0.5) - cells.at(b, eps, 0.5)
            full = cells.final(a, eps)[0] - cells.final(b, eps)[0]
            evidence.append(f"eps={eps:g}: gap {_fmt(half)} at T/2, {_fmt(full)} at T")
            ok &= full <= 1.1 * half + 1e-9
        return ("supported" if ok else "not supported"), "; ".join(evidence)
    return check


def crossing(early: str, late: str, epsilons=None) -> Callable[[Cells], tuple[str, str]]:
    """``early`` has lower regret at T/100 and ``late`` has lower (or equal) regret at T."""
    def check(cells: Cells) -> tuple[str, str]:
        ok, evidence = True, []
        for eps in epsilons or cells.experiment.epsilons:
            e0, l0 = cells.at(early, eps, 0.01), cells.at(late, eps, 0.01)
            e1, l1 = cells.final(early, eps)[0], cells.final(late, eps)[0]
            evidence.append(f"eps={eps:g}: at T/100 {early} {_fmt(e0)} vs {late} {_fmt(l0)}; "
                            f"at T {_fmt(e1)} vs {_fmt(l1)}")
            ok &= e0 < l0 and l1 <= e1
        return ("supported" if ok else "not supported"), "; ".join(evidence)
    return check


def below_bound(label: str, key: str) -> Callable[[Cells], tuple[str, str]]:
    """The mean final regret is below the (explicit) bound ``key`` of dpbandits.bounds."""
    def check(cells: Cells) -> tuple[str, str]:
        from ..bounds import get_bound
        from ..reference import get_setting

        means = np.array(get_setting(cells.experiment.setting).means)
        gaps = means.max() - means
        bound, ok, evidence = get_bound(key), True, []
        for eps in cells.experiment.epsilons:
            m, lo, hi = cells.final(label, eps)
            value = float(bound.evaluate(T=float(cells.horizon), epsilon=eps, gaps=gaps))
            evidence.append(f"eps={eps:g}: {_fmt(m)} <= {_fmt(value)}")
            ok &= lo <= value
        return ("supported" if ok else "not supported"), f"{key}: " + "; ".join(evidence)
    return check


def return_ordered_in_epsilon(label: str) -> Callable[[Cells], tuple[str, str]]:
    """Final regret is larger at smaller epsilon (return decreases as epsilon decreases)."""
    return lambda cells: _ordered(cells, label)


def _ordered(cells: Cells, label: str) -> tuple[str, str]:
    eps = sorted(cells.experiment.epsilons, reverse=True)
    finals = [cells.final(label, e) for e in eps]
    ok = all(finals[i][0] <= finals[i + 1][0] for i in range(len(eps) - 1))
    shown = ", ".join(f"{e:g}: {_fmt(f[0])}" for e, f in zip(eps, finals))
    return ("supported" if ok else "not supported"), f"{label} final regret by epsilon {shown}"


def linear_in_inverse_epsilon(label: str, r2: float = 0.8) -> Callable[[Cells], tuple[str, str]]:
    """A least-squares line in 1/epsilon explains at least ``r2`` of the variance of final regret."""
    def check(cells: Cells) -> tuple[str, str]:
        x = 1 / np.array(cells.experiment.epsilons)
        y = np.array([cells.final(label, e)[0] for e in cells.experiment.epsilons])
        slope, intercept = np.polyfit(x, y, 1)
        residual = y - (slope * x + intercept)
        fit = 1 - residual.var() / max(y.var(), 1e-12)
        return ("supported" if fit >= r2 and slope > 0 else "not supported"), \
            f"{label}: R^2 = {_fmt(fit)}, slope {_fmt(slope)} per unit of 1/epsilon"
    return check


def both(*checks: Callable[[Cells], tuple[str, str]]) -> Callable[[Cells], tuple[str, str]]:
    """All of ``checks`` (the weakest verdict wins, the evidence of each is kept)."""
    def check(cells: Cells) -> tuple[str, str]:
        outcomes = [c(cells) for c in checks]
        return _combine([v for v, _ in outcomes]), "; ".join(e for _, e in outcomes)
    return check


def not_testable(reason: str) -> Callable[[Cells], tuple[str, str]]:
    return lambda cells: ("not testable", reason)


def _combine(verdicts: list[str]) -> str:
    if "not supported" in verdicts:
        return "not supported"
    if "not testable" in verdicts:
        return "not testable"
    return "supported"


