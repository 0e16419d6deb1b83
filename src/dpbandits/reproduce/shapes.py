"""Checks on a curve's shape as n grows (:mod:`~dpbandits.reproduce.checks` holds the rest): R_n /
ln n converging (regret growing at most like (ln n)^m over the last decade), and the exponent of the final regret in 1/epsilon. Each
returns a check, ``Cells -> Outcome``, as the others do."""

from __future__ import annotations

import math

import numpy as np

from .checks import PAIRED, _fmt
from .claims import Cells, Check, Outcome, component

__all__ = ["per_log_n", "converges", "power_law_exponent"]


def per_log_n(cells: Cells, label: str, fraction: float = 1.0) -> np.ndarray:
    """Each run's R_n / ln n at the checkpoint nearest to ``fraction`` of the horizon."""
    eps = cells.experiment.epsilons[0]
    t, curves = cells.curves(label, eps)
    i = int(np.argmin(np.abs(t - fraction * t[-1])))
    return curves[:, i] / math.log(max(t[i], 2.0))


def converges(label: str, m: float, decade: float = 0.1) -> Check:
    """A finite-horizon reading of 'R_n / ln n converges': over the plot's last decade, n/10 to
    n, regret grows at most like (ln n)^m, i.e. R_n <= L^m R_{n/10} with L = ln n / ln(n/10)
    (per-run ``L^m R_{n/10} - R_n`` significantly positive supports, ``R_n - L^m R_{n/10}``
    contradicts). At m = 1.25 a regret c ln n (+ b, b >= 0) passes, its local exponent in ln n
    being at most 1, and c ln^2 n fails, its exponent being 2 at every n; a plotted R_n / ln n
    that falls converges too (one-sided)."""
    def check(cells: Cells) -> Outcome:
        eps = cells.experiment.epsilons[0]
        t, curves = cells.curves(label, eps)
        late, early = len(t) - 1, int(np.argmin(np.abs(t - decade * t[-1])))
        n, n0 = float(t[late]), float(t[early])
        growth = (math.log(n) / math.log(max(n0, 2.0))) ** m
        x, y = curves[:, late], curves[:, early]
        exponent = (math.log(max(x.mean(), 1e-300) / max(y.mean(), 1e-300))
                    / math.log(math.log(n) / math.log(max(n0, 2.0))))
        return Outcome((component(f"{_fmt(growth)} R(n/10) - R(n)", growth * y - x),),
                       (component(f"R(n) - {_fmt(growth)} R(n/10)", x - growth * y),),
                       f"t-test on per-run R_n against (ln n / ln(n/10))^{m:.4g} x R_(n/10) over "
                       f"the last decade (regret growing at most like (ln n)^{m:.4g}); {PAIRED}",
                       f"{label}: R_n / ln n {_fmt((y / math.log(max(n0, 2.0))).mean())} at n = "
                       f"{int(n0):,}, {_fmt((x / math.log(n)).mean())} at n = {int(n):,}; regret "
                       f"grows like (ln n)^{_fmt(exponent)} over this decade (c ln n: 1; c ln^2 n: 2)")
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
