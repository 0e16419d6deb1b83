"""The tests behind the lexicon's words: each one a stated test over the runs, at a given margin.

Each function takes the curves it compares and a margin ``m`` and returns a check, ``Cells ->
Outcome`` (:mod:`~dpbandits.reproduce.claims`): the components whose rejection supports the
reading and those whose rejection contradicts it. The margin is an argument, not a constant, so
that the page can find the margin at which a verdict flips; which margin a word uses, and why, is
:mod:`~dpbandits.reproduce.lexicon`'s business, the same for every paper.
"""

from __future__ import annotations

import math
from typing import Callable, Sequence

import numpy as np

from .claims import Cells, Check, Component, Outcome, all_of, any_of, component

__all__ = ["ratio_at_most", "ratio_at_least", "ratio_within", "flat_in_epsilon", "trend_down",
           "growth_at_most", "shortfall_falls", "early_lead_then_caught", "below_bound",
           "range_at_most", "range_at_least", "value_within", "ratio_outside",
           "quantity_within", "return_at_least", "return_rise", "on_real_data", "both", "not_testable", "uniform_regret",
           "degenerate"]

PAIRED = ("one-sided t-tests on per-run differences (run i of every curve sees the same reward "
          "draws; runs independent; mean of the differences close to normal)")
DEGENERATE = 0.9
"""A curve whose mean final regret is at least this fraction of uniform play's is degenerate: it
plays almost uniformly. A comparison that only needs it to be worst cannot fail; a claim about it
(it is better, its gap does not grow, its range reaches a number) decides nothing either way:
supported, it could not fail, contradicted, it could not pass."""


def _fmt(x: float) -> str:
    return f"{x:.4g}"


def _eps(cells: Cells, epsilons) -> tuple[float, ...]:
    chosen = cells.experiment.epsilons if epsilons is None else epsilons
    if epsilons == "largest":
        chosen = (max(cells.experiment.epsilons),)
    return tuple(e for e in chosen if e in cells.experiment.epsilons)


def _others(cells: Cells, label: str, others) -> tuple[str, ...]:
    if others is None:
        return tuple(line.label for line in cells.experiment.lines if line.label != label)
    return tuple(others)


def uniform_regret(cells: Cells) -> float | None:
    """Uniform play's expected regret at the horizon, T x the mean gap (bandit settings only)."""
    from ..reference import get_setting

    try:
        means = np.asarray(get_setting(cells.experiment.setting).means, dtype=float)
    except Exception:                     # a matroid setting: no uniform-play baseline here
        return None
    return float(cells.horizon * (means.max() - means).mean())


def degenerate(cells: Cells, labels: Sequence[str], epsilons: Sequence[float],
               about: bool = False) -> str:
    """Why ``labels`` decide nothing ('' when they do): each of them plays almost uniformly (mean
    final regret at least 90% of uniform play's). ``about``: the claim is about them (a stand-in
    that decides it neither way), else they are comparators that need only be worst."""
    uniform = uniform_regret(cells)
    if uniform is None or not labels:
        return ""
    shown = []
    for label in labels:
        for eps in epsilons:
            mean = float(cells.finals(label, eps).mean())
            if mean < DEGENERATE * uniform:
                return ""
            shown.append(f"{label} {_fmt(mean)} at eps={eps:g}")
    consequence = ("a claim about it decides nothing either way at this size" if about else
                   "being worse than it, or it being worst, says nothing about the algorithms "
                   "compared")
    return (f"our {', '.join(dict.fromkeys(labels))} plays almost uniformly ({'; '.join(shown)} "
            f"against uniform play's {_fmt(uniform)}): {consequence}")


def ratio_at_most(a: str, others, m: float, epsilons=None, degenerate_check: bool = True) -> Check:
    """``a``'s mean final regret is at most ``m`` times each of ``others``' (every other curve when
    None) at each epsilon: supported when every ``m B - A`` is significantly positive
    (intersection-union), contradicted when one ``A - m B`` is (Bonferroni)."""
    return _ratio(a, others, m, epsilons, "at most", degenerate_check)


def ratio_at_least(a: str, others, m: float, epsilons=None) -> Check:
    """``a``'s mean final regret is at least ``m`` times each of ``others``' (every other curve
    when None): supported when every ``A - m B`` is significantly positive, contradicted when one
    ``m B - A`` is. Decides nothing when ``a`` plays almost uniformly (:func:`degenerate`)."""
    return _ratio(a, others, m, epsilons, "at least", False)


def _ratio(a: str, others, m: float, epsilons, side: str, degenerate_check: bool) -> Check:
    """The check of :func:`ratio_at_most` (``side`` "at most") and :func:`ratio_at_least`."""
    def check(cells: Cells) -> Outcome:
        support, contradict, shown = [], [], []
        bs = _others(cells, a, others)
        eps_list = _eps(cells, epsilons)
        for eps in eps_list:
            x = cells.finals(a, eps)
            for b in bs:
                y = cells.finals(b, eps)
                below = component(f"{m:.4g} {b} - {a} at eps={eps:g}", m * y - x)
                above = component(f"{a} - {m:.4g} {b} at eps={eps:g}", x - m * y)
                support.append(below if side == "at most" else above)
                contradict.append(above if side == "at most" else below)
                shown.append(f"eps={eps:g}: {a} {_fmt(x.mean())} vs {b} {_fmt(y.mean())} (ratio "
                             f"{_fmt(x.mean() / y.mean()) if y.mean() > 0 else 'inf'})")
        return Outcome(tuple(support), tuple(contradict),
                       f"{a}'s mean final regret {side} {m:.4g} x each comparator's: {PAIRED}",
                       "; ".join(shown),
                       cannot_fail=degenerate(cells, bs, eps_list) if degenerate_check else "",
                       stand_in=degenerate(cells, (a,), eps_list, about=True))
    return check


def ratio_within(a: str, b: str, m: float, epsilons=None) -> Check:
    """Equivalence: ``b / m <= a <= m b`` in mean final regret at each epsilon, by two one-sided
    tests (TOST) on ``m b - a`` and ``a - b / m``; contradicted when one of them is significantly
    negative."""
    def check(cells: Cells) -> Outcome:
        support, contradict, shown = [], [], []
        for eps in _eps(cells, epsilons):
            x, y = cells.finals(a, eps), cells.finals(b, eps)
            support += [component(f"{m:.4g} {b} - {a} at eps={eps:g}", m * y - x),
                        component(f"{a} - {b} / {m:.4g} at eps={eps:g}", x - y / m)]
            contradict += [component(f"{a} - {m:.4g} {b} at eps={eps:g}", x - m * y),
                           component(f"{b} / {m:.4g} - {a} at eps={eps:g}", y / m - x)]
            shown.append(f"eps={eps:g}: {a} {_fmt(x.mean())} vs {b} {_fmt(y.mean())} (ratio "
                         f"{_fmt(x.mean() / y.mean()) if y.mean() > 0 else 'inf'})")
        return Outcome(tuple(support), tuple(contradict),
                       f"two one-sided tests (TOST) for a ratio of mean final regrets within "
                       f"[1/{m:.4g}, {m:.4g}]; {PAIRED}", "; ".join(shown))
    return check


def ratio_outside(quantity: Callable[[Cells, str], np.ndarray], name: str, a: str, b: str,
                  m: float) -> Check:
    """The two curves' ``quantity`` (per run) differ by more than a factor ``m``: supported when
    the ratio is significantly above ``m`` or significantly below ``1/m`` (Bonferroni over the
    two sides), contradicted when it is significantly inside ``[1/m, m]`` (both sides, TOST)."""
    def check(cells: Cells) -> Outcome:
        x, y = quantity(cells, a), quantity(cells, b)
        above = component(f"{a} - {m:.4g} {b} ({name})", x - m * y)
        below = component(f"{b} / {m:.4g} - {a} ({name})", y / m - x)
        inside = all_of(f"{b} / {m:.4g} < {a} < {m:.4g} {b} ({name})",
                        [component("upper", m * y - x), component("lower", x - y / m)])
        return Outcome((any_of(f"{a} / {b} outside [1/{m:.4g}, {m:.4g}] ({name})", [above, below]),),
                       (inside,),
                       f"one-sided t-tests on per-run differences for a ratio of {name} outside "
                       f"[1/{m:.4g}, {m:.4g}] (either side, Bonferroni); inside both sides "
                       f"contradicts; {PAIRED}",
                       f"{name}: {a} {_fmt(x.mean())}, {b} {_fmt(y.mean())} (ratio "
                       f"{_fmt(x.mean() / y.mean()) if y.mean() > 0 else 'inf'})")
    return check


def _within_ratio(x, y, a: str, b: str, m: float, suffix: str = "") -> tuple[tuple, tuple]:
    """The components of "per-run x within [y / m, m y] in mean" (two one-sided tests): the two
    that support it (m y - x and x - y / m positive) and the two that contradict it."""
    return ((component(f"{m:.4g} {b} - {a}{suffix}", m * y - x),
             component(f"{a} - {b} / {m:.4g}{suffix}", x - y / m)),
            (component(f"{a} - {m:.4g} {b}{suffix}", x - m * y),
             component(f"{b} / {m:.4g} - {a}{suffix}", y / m - x)))


def quantity_within(quantity: Callable[[Cells, str], np.ndarray], name: str, a: str, b: str,
                    m: float) -> Check:
    """Equivalence of a per-run ``quantity`` of two curves: ``b / m <= a <= m b`` in mean (TOST on
    ``m b - a`` and ``a - b / m``); contradicted when one of them is significantly negative."""
    def check(cells: Cells) -> Outcome:
        x, y = quantity(cells, a), quantity(cells, b)
        return Outcome(*_within_ratio(x, y, a, b, m, f" ({name})"),
                       f"two one-sided tests (TOST) for a ratio of mean {name} within "
                       f"[1/{m:.4g}, {m:.4g}]; {PAIRED}",
                       f"{name}: {a} {_fmt(x.mean())}, {b} {_fmt(y.mean())} (ratio "
                       f"{_fmt(x.mean() / y.mean()) if y.mean() > 0 else 'inf'})")
    return check


def return_at_least(a: str, others: Sequence[str], m: float, epsilons=None) -> Check:
    """On a plot of the expected per-round return f* - R_n / n: ``a``'s plotted return at the
    plot's last round is at least each of ``others``' minus ``m`` f* (``m`` a fraction of the
    optimal return, the plot's reference line), at each epsilon. Per-run ``(R_B - R_A) / n + m
    f*``: significantly positive supports, ``(R_A - R_B) / n - m f*`` significantly positive
    contradicts. One-sided: a higher return never contradicts it."""
    def check(cells: Cells) -> Outcome:
        support, contradict, shown = [], [], []
        n = cells.horizon
        for eps in _eps(cells, epsilons):
            optimal = cells.optimal(a, eps)
            x = optimal - cells.finals(a, eps) / n
            for b in others:
                y = optimal - cells.finals(b, eps) / n
                support.append(component(f"{a} - {b} + {m:.4g} f* at eps={eps:g}", x - y + m * optimal))
                contradict.append(component(f"{b} - {a} - {m:.4g} f* at eps={eps:g}", y - x - m * optimal))
                shown.append(f"eps={eps:g}: per-round return at n = {n:,}: {a} {_fmt(x.mean())}, "
                             f"{b} {_fmt(y.mean())}, optimal {_fmt(optimal)} (difference "
                             f"{_fmt((y.mean() - x.mean()) / optimal * 100)}% of the optimal return)")
        return Outcome(tuple(support), tuple(contradict),
                       f"{a}'s plotted per-round return at the last round at least each "
                       f"comparator's minus {m:.4g} x the optimal return: {PAIRED}", "; ".join(shown))
    return check


def return_rise(cells: Cells, label: str) -> np.ndarray:
    """Each run's rise of the plotted per-round return over the last half of the horizon,
    R_{n/2} / (n/2) - R_n / n (at the experiment's first epsilon)."""
    eps, n = cells.experiment.epsilons[0], cells.horizon
    return cells.per_run(label, eps, 0.5) / (n / 2) - cells.finals(label, eps) / n


def flat_in_epsilon(label: str, m: float) -> Check:
    """Equivalence across epsilon: for every two epsilons the mean final regrets are within a
    factor ``m`` (TOST on every ordered pair)."""
    def check(cells: Cells) -> Outcome:
        eps = cells.experiment.epsilons
        support, contradict = [], []
        for i in eps:
            for j in eps:
                if i != j:
                    x, y = cells.finals(label, i), cells.finals(label, j)
                    support.append(component(f"{m:.4g} R(eps={j:g}) - R(eps={i:g})", m * y - x))
                    contradict.append(component(f"R(eps={i:g}) - {m:.4g} R(eps={j:g})", x - m * y))
        means = [cells.finals(label, e).mean() for e in eps]
        return Outcome(tuple(support), tuple(contradict),
                       f"two one-sided tests on every pair of epsilons for a ratio within "
                       f"[1/{m:.4g}, {m:.4g}]; {PAIRED}",
                       f"{label}: mean final regret by epsilon "
                       + ", ".join(f"{e:g}: {_fmt(v)}" for e, v in zip(eps, means))
                       + f"; max/min {_fmt(max(means) / max(min(means), 1e-12))}")
    return check


def trend_down(label: str) -> Check:
    """Final regret falls as epsilon rises: the per-run least-squares slope of final regret on
    ln epsilon is significantly negative (supports) or significantly positive (contradicts)."""
    def check(cells: Cells) -> Outcome:
        eps = sorted(cells.experiment.epsilons)
        y = np.stack([cells.finals(label, e) for e in eps])
        slope = np.polyfit(np.log(eps), y, 1)[0]
        shown = ", ".join(f"{e:g}: {_fmt(cells.finals(label, e).mean())}" for e in eps)
        return Outcome((component("minus the slope in ln epsilon", -slope),),
                       (component("the slope in ln epsilon", slope),),
                       "t-test on the per-run least-squares slope of final regret against ln "
                       "epsilon (runs independent, mean close to normal)",
                       f"{label} mean final regret by epsilon {shown}; mean slope "
                       f"{_fmt(slope.mean())} per unit of ln epsilon")
    return check


def growth_at_most(a: str, b: str, m: float, epsilons=None) -> Check:
    """The regret gap ``a - b`` at T is at most ``m`` times the gap at T/2 (a gap growing like
    ln T grows by about 6% from T/2 to T at T = 1e5; a gap linear in T doubles). Per-run
    ``m gap(T/2) - gap(T)``: significantly positive supports, negative contradicts."""
    def check(cells: Cells) -> Outcome:
        support, contradict, shown = [], [], []
        eps_list = _eps(cells, epsilons)
        for eps in eps_list:
            half = cells.per_run(a, eps, 0.5) - cells.per_run(b, eps, 0.5)
            full = cells.finals(a, eps) - cells.finals(b, eps)
            support.append(component(f"{m:.4g} gap(T/2) - gap(T) at eps={eps:g}", m * half - full))
            contradict.append(component(f"gap(T) - {m:.4g} gap(T/2) at eps={eps:g}", full - m * half))
            shown.append(f"eps={eps:g}: gap {_fmt(half.mean())} at T/2, {_fmt(full.mean())} at T")
        return Outcome(tuple(support), tuple(contradict),
                       f"t-test on per-run gap(T) against {m:.4g} x gap(T/2); {PAIRED}",
                       "; ".join(shown), stand_in=degenerate(cells, (a,), eps_list, about=True))
    return check


def shortfall_falls(label: str, m: float, epsilons=None) -> Check:
    """The plotted per-round return approaches the optimal one: its shortfall R_n / n at the
    horizon is at most 1/``m`` of the shortfall at n/2 (per-run ``R_{n/2} / (n/2) - m R_n /
    n``). A regret growing like ln n halves its per-round shortfall from n/2 to n; a linear one
    keeps it."""
    def check(cells: Cells) -> Outcome:
        support, contradict, shown = [], [], []
        n = cells.horizon
        for eps in _eps(cells, epsilons):
            half, final = cells.per_run(label, eps, 0.5) / (n / 2), cells.finals(label, eps) / n
            support.append(component(f"shortfall(n/2) - {m:.4g} shortfall(n) at eps={eps:g}",
                                     half - m * final))
            contradict.append(component(f"{m:.4g} shortfall(n) - shortfall(n/2) at eps={eps:g}",
                                        m * final - half))
            shown.append(f"eps={eps:g}: {label}'s per-round shortfall from the optimal return "
                         f"{_fmt(half.mean())} at n/2, {_fmt(final.mean())} at n = {n:,} "
                         f"(optimal per-round return {_fmt(cells.optimal(label, eps))})")
        return Outcome(tuple(support), tuple(contradict),
                       f"t-test on the per-run per-round shortfall at n/2 against {m:.4g} x the "
                       f"one at n; {PAIRED}", "; ".join(shown))
    return check


def early_lead_then_caught(early: str, late: str, m: float, window: float = 0.1,
                           epsilons=None) -> Check:
    """A trajectory: ``early`` is better at some round of the first ``window`` of the horizon (the
    union of one-sided tests at every checkpoint there, Bonferroni), and at T ``late``'s regret is
    at most ``m`` times ``early``'s. Contradicted when ``early`` is significantly worse at every
    early checkpoint, or ``late`` significantly above ``m`` times ``early`` at T."""
    def check(cells: Cells) -> Outcome:
        support, contradict, shown = [], [], []
        for eps in _eps(cells, epsilons):
            t, e = cells.curves(early, eps)
            _, l = cells.curves(late, eps)
            keep = np.flatnonzero((t >= 2) & (t <= window * t[-1]))
            ahead = [component(f"{late} - {early} at t={int(t[i])}", l[:, i] - e[:, i]) for i in keep]
            behind = [component(f"{early} - {late} at t={int(t[i])}", e[:, i] - l[:, i]) for i in keep]
            if ahead:
                support.append(any_of(f"{early} below {late} at some t <= {window:g} T, eps={eps:g}", ahead))
                contradict.append(all_of(f"{early} above {late} at every t <= {window:g} T, eps={eps:g}", behind))
            e1, l1 = cells.finals(early, eps), cells.finals(late, eps)
            support.append(component(f"{m:.4g} {early} - {late} at T, eps={eps:g}", m * e1 - l1))
            contradict.append(component(f"{late} - {m:.4g} {early} at T, eps={eps:g}", l1 - m * e1))
            gaps = (l - e)[:, keep].mean(axis=0) if keep.size else np.zeros(1)
            shown.append(f"eps={eps:g}: largest mean lead of {early} in t <= {window:g} T "
                         f"{_fmt(gaps.max())}; at T {early} {_fmt(e1.mean())} vs {late} "
                         f"{_fmt(l1.mean())} (ratio {_fmt(l1.mean() / max(e1.mean(), 1e-12))})")
        return Outcome(tuple(support), tuple(contradict),
                       f"union (Bonferroni) of one-sided t-tests at every checkpoint up to "
                       f"{window:g} T, and a t-test of {late} at T against {m:.4g} x {early}; "
                       f"{PAIRED}", "; ".join(shown))
    return check


def below_bound(label: str, key: str) -> Check:
    """Mean final regret is below the explicit bound ``key`` of :mod:`dpbandits.bounds`: t-test on
    ``bound - R_i``. A bound at or above T x (largest gap) is vacuous: no run can exceed it, so
    the check cannot fail at this size, and the page gives the horizon from which it can."""
    def check(cells: Cells) -> Outcome:
        from ..bounds import get_bound
        from ..reference import get_setting

        means = np.array(get_setting(cells.experiment.setting).means)
        gaps = means.max() - means
        bound = get_bound(key)
        value = lambda T, eps: float(bound.evaluate(T=float(T), epsilon=eps, gaps=gaps))
        support, contradict, shown, vacuous = [], [], [], []
        T = cells.horizon
        for eps in cells.experiment.epsilons:
            x, b = cells.finals(label, eps), value(T, eps)
            shown.append(f"eps={eps:g}: {_fmt(x.mean())} against the bound {_fmt(b)}")
            if b >= T * gaps.max():
                vacuous.append(f"eps={eps:g}: the bound {_fmt(b)} is at least T x largest gap = "
                               f"{_fmt(T * gaps.max())} (vacuous at this size; informative from "
                               f"T = {_informative_from(lambda t: value(t, eps), gaps.max())})")
                continue
            support.append(component(f"bound - {label} at eps={eps:g}", b - x))
            contradict.append(component(f"{label} - bound at eps={eps:g}", x - b))
        note = "; ".join(vacuous)
        return Outcome(tuple(support) if not vacuous else (), tuple(contradict),
                       "t-test on per-run bound - final regret (runs independent, mean close to normal)",
                       f"{key}: " + "; ".join(shown), note=note)
    return check


def _informative_from(bound: Callable[[float], float], gap: float, limit: float = 2.0 ** 60) -> str:
    """The smallest power of two T at which ``bound(T) < T gap`` (or 'beyond 2^60')."""
    T = 2.0
    while T <= limit:
        if bound(T) < T * gap:
            return f"2^{int(math.log2(T))}"
        T *= 2
    return "beyond 2^60"


def _exact(label: str, holds: bool, estimate: float, n: int) -> Component:
    return Component(label, estimate, 0.0, n, 0.0 if holds else 1.0)


def range_at_most(labels: tuple[str, ...], limit: float, runs: int, epsilons=None,
                  regret: str = "pseudo") -> Check:
    """The best-to-worst range of final ``regret`` (pseudo or realised) over the runs is at most
    ``limit`` for every curve in ``labels``, a number read off ``runs`` runs. Decided exactly on the observed runs: a range
    only grows as runs are added, so a range above ``limit`` contradicts at any number of runs,
    and one at or under it supports only with at least ``runs`` runs."""
    def check(cells: Cells) -> Outcome:
        support, contradict, shown = [], [], []
        enough = cells.runs >= runs
        eps_list = _eps(cells, epsilons)
        for eps in eps_list:
            for label in labels:
                finals = cells.finals(label, eps, regret)
                spread = float(finals.max() - finals.min())
                support.append(_exact(f"{limit:.4g} - range of {label} at eps={eps:g}",
                                      enough and spread <= limit, limit - spread, cells.runs))
                contradict.append(_exact(f"range of {label} - {limit:.4g} at eps={eps:g}",
                                         spread > limit, spread - limit, cells.runs))
                shown.append(f"{label} {_fmt(spread)}")
        note = "" if enough else (f"a range under {limit:.4g} supports the claim only at the "
                                  f"paper's {runs} runs (here {cells.runs})")
        return Outcome(tuple(support), tuple(contradict),
                       f"the observed best-to-worst range of final {regret} regret over the runs, "
                       f"exactly (at most {limit:.4g} with at least {runs} runs supports; above it "
                       f"contradicts)", f"range of {regret} regret over {cells.runs} runs: "
                       + ", ".join(shown), note=note, exact=True,
                       cannot_fail="; ".join(filter(None, (degenerate(cells, (label,), eps_list)
                                                           for label in labels))))
    return check


def range_at_least(label: str, limit: float, runs: int, epsilons=None,
                   regret: str = "pseudo") -> Check:
    """The best-to-worst range of ``label``'s final ``regret`` (pseudo or realised) reaches
    ``limit``: at least ``limit`` supports at any number of runs; below it with at least ``runs``
    runs contradicts. Cannot pass when ``label`` plays almost uniformly (:func:`degenerate`)."""
    def check(cells: Cells) -> Outcome:
        support, contradict, shown = [], [], []
        enough = cells.runs >= runs
        eps_list = _eps(cells, epsilons)
        for eps in eps_list:
            finals = cells.finals(label, eps, regret)
            spread = float(finals.max() - finals.min())
            support.append(_exact(f"range of {label} - {limit:.4g} at eps={eps:g}",
                                  spread >= limit, spread - limit, cells.runs))
            contradict.append(_exact(f"{limit:.4g} - range of {label} at eps={eps:g}",
                                     enough and spread < limit, limit - spread, cells.runs))
            shown.append(f"{label} {_fmt(spread)} at eps={eps:g}")
        note = "" if enough else (f"a range under {limit:.4g} contradicts only at the paper's "
                                  f"{runs} runs (here {cells.runs})")
        return Outcome(tuple(support), tuple(contradict),
                       f"the observed best-to-worst range of final {regret} regret over the runs, "
                       f"exactly (at least {limit:.4g} supports; under it with at least {runs} runs "
                       f"contradicts)", f"range of {regret} regret over {cells.runs} runs: "
                       + ", ".join(shown), note=note, exact=True,
                       stand_in=degenerate(cells, (label,), eps_list, about=True))
    return check


def value_within(values: Callable[[Cells], np.ndarray], name: str, target: float, m: float) -> Check:
    """A number the paper reports: the per-run ``values`` have a mean within ``[target / m,
    target m]`` (TOST); significantly outside contradicts."""
    def check(cells: Cells) -> Outcome:
        v = values(cells)
        low, high = target / m, target * m
        return Outcome((component(f"{name} - {low:.4g}", v - low), component(f"{high:.4g} - {name}", high - v)),
                       (component(f"{low:.4g} - {name}", low - v), component(f"{name} - {high:.4g}", v - high)),
                       f"two one-sided t-tests on the per-run {name} for a mean within "
                       f"[{low:.4g}, {high:.4g}] (runs independent, mean close to normal)",
                       f"{name}: mean {_fmt(v.mean())} (runs: {', '.join(_fmt(x) for x in v[:20])})")
    return check


def both(*checks: Check) -> Check:
    """All of ``checks``: supported when every one is (intersection-union), contradicted when one
    is (Bonferroni over all their contradicting components)."""
    def check(cells: Cells) -> Outcome:
        outcomes = [c(cells) for c in checks]
        return Outcome(tuple(x for o in outcomes for x in o.support),
                       tuple(x for o in outcomes for x in o.contradict),
                       "; ".join(dict.fromkeys(o.test for o in outcomes)),
                       "; ".join(o.evidence for o in outcomes),
                       note="; ".join(o.note for o in outcomes if o.note),
                       cannot_fail="; ".join(o.cannot_fail for o in outcomes if o.cannot_fail),
                       stand_in="; ".join(o.stand_in for o in outcomes if o.stand_in))
    return check


def not_testable(reason: str) -> Check:
    """A claim whose data or quantity we do not have, with what is absent."""
    return lambda cells: Outcome((), (), "", "", reason=reason)


def on_real_data(check: Check, data: str) -> Check:
    """``check``, run only on the paper's own data: on a labelled stand-in the claim is not
    testable (the data are absent), and the stand-in's numbers are shown as the reason's context;
    with the real data (``--movielens DIR``) it is tested."""
    def wrapped(cells: Cells) -> Outcome:
        if not cells.experiment.setting.endswith("standin"):
            return check(cells)
        shown = check(cells).evidence
        return Outcome((), (), "", shown, reason=f"absent data: {data}, which this run did not "
                       f"have; it used the labelled synthetic stand-in (testable with --movielens "
                       f"DIR; on the stand-in: {shown})")
    return wrapped
