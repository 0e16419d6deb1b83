"""Checks on a curve's shape as n grows (:mod:`~dpbandits.reproduce.checks` holds the rest): R_n /
ln n converging over the last decade, and the exponent of the final regret in 1/epsilon. Each
returns a check, ``Cells -> Outcome``, as the others do."""

from __future__ import annotations

import math

import numpy as np

from .checks import PAIRED, _fmt, _within_ratio
from .claims import Cells, Check, Outcome, component

__all__ = ["per_log_n", "converges", "power_law_exponent"]


def per_log_n(cells: Cells, label: str, fraction: float = 1.0) -> np.ndarray:
    """Each run's R_n / ln n at the checkpoint nearest to ``fraction`` of the horizon."""
    eps = cells.experiment.epsilons[0]
    t, curves = cells.curves(label, eps)
    i = int(np.argmin(np.abs(t - fraction * t[-1])))
    return curves[:, i] / math.log(max(t[i], 2.0))


def converges(label: str, m: float, decade: float = 0.1) -> Check:
    """A finite-horizon reading of 'R_n / ln n converges': over the plot's last decade, from
    n/10 to n, the plotted R_n / ln n changes by at most a factor ``m`` either way (TOST on the
    per-run ``m x(n/10) - x(n)`` and ``x(n) - x(n/10) / m``)."""
    def check(cells: Cells) -> Outcome:
        early, late = per_log_n(cells, label, decade), per_log_n(cells, label)
        n = cells.horizon
        return Outcome(*_within_ratio(late, early, "x(n)", "x(n/10)", m),
                       f"two one-sided t-tests on per-run x = R_n / ln n at n/10 and n for a ratio "
                       f"within [1/{m:.4g}, {m:.4g}] over the last decade; {PAIRED}",
                       f"{label}: R_n / ln n {_fmt(early.mean())} at n = {int(decade * n):,}, "
                       f"{_fmt(late.mean())} at n = {n:,} (ratio {_fmt(late.mean() / max(early.mean(), 1e-12))})")
    return check


def _exponent(x: np.ndarray, y: np.ndarray) -> float:
    """Least-squares b of y = c + a x^b (c and a linear for fixed b; b in [0.05, 20])."""
    from scipy.optimize import minimize_scalar

    def loss(log_b: float) -> float:
        design = np.column_stack([np.ones_like(x), x ** math.exp(log_b)])
        coef, *_ = np.linalg.lstsq(design, y, rcond=None)
        return float(((design @ coef - y) ** 2).sum())

    found = minimize_scalar(loss, bounds=(math.log(0.05), math.log(20.0)), method="bounded",
                            options={"xatol": 1e-4})
    return math.exp(found.x)


def power_law_exponent(label: str, m: float) -> Check:
    """'Linear in 1/epsilon' against a power-law alternative: the mean final regret is fitted as
    c + a (1/epsilon)^b, and the exponent b is tested for equivalence to 1 within ``[1/m, m]``
    (TOST on the jackknife pseudo-values over runs of ln b: a b of 0.5 or 2 is a bend, whatever a
    straight line's R^2). The page reports b with its interval."""
    def check(cells: Cells) -> Outcome:
        key = ("power-law exponent", label)
        if key not in cells.cache:
            eps = cells.experiment.epsilons
            x = 1 / np.array(eps)
            y = np.stack([cells.finals(label, e) for e in eps])           # (epsilons, runs)
            n = y.shape[1]
            whole = math.log(_exponent(x, y.mean(axis=1)))
            if n > 1:
                left = np.array([math.log(_exponent(x, (y.sum(axis=1) - y[:, i]) / (n - 1))) for i in range(n)])
                pseudo = n * whole - (n - 1) * left
            else:
                pseudo = np.array([whole])
            cells.cache[key] = (n, whole, pseudo)
        else:
            for e in cells.experiment.epsilons:           # the cells it reads, as if computed
                cells.data[(label, e)]
        n, whole, pseudo = cells.cache[key]
        eps = cells.experiment.epsilons
        slope = np.polyfit(1 / np.array(eps), np.stack([cells.finals(label, e) for e in eps]), 1)[0]
        lm = math.log(m)
        from scipy.stats import t as student
        sd = float(pseudo.std(ddof=1)) if n > 1 else math.nan
        half = float(student.ppf(0.975, n - 1) * sd / math.sqrt(n)) if n > 1 else math.inf
        return Outcome((component("slope in 1/epsilon", slope),
                        component(f"ln b + ln {m:.4g}", pseudo + lm), component(f"ln {m:.4g} - ln b", lm - pseudo)),
                       (component("minus the slope in 1/epsilon", -slope),
                        component(f"-ln {m:.4g} - ln b", -lm - pseudo), component(f"ln b - ln {m:.4g}", pseudo - lm)),
                       f"a t-test that the per-run least-squares slope on 1/epsilon is positive, "
                       f"and a fit of c + a (1/epsilon)^b to the mean final regret; two one-sided "
                       f"t-tests on jackknife pseudo-values (leave one run out) of ln b for b "
                       f"within [1/{m:.4g}, {m:.4g}] (runs independent, mean close to normal)",
                       f"{label}: exponent b = {_fmt(math.exp(whole))} (95% interval, uncorrected, "
                       f"{_fmt(math.exp(whole - half))} to {_fmt(math.exp(whole + half))}; a straight "
                       f"line is b = 1)")
    return check
