"""The claim-check vocabulary: each reading of a claim as a stated test over the runs.

Each function returns a check, ``Cells -> Outcome`` (:mod:`~dpbandits.reproduce.claims`): the
components whose rejection supports the reading and those whose rejection contradicts it. A
one-sided sentence ("performs better", "is competitive", "starts performing well") gets a
one-sided check, which being better than the comparator never contradicts; an equivalence
sentence ("similar", "stays flat") gets two one-sided tests; a sentence about how a plot looks
gets an effect-size criterion stated before any run (:func:`linear_shape`).
"""

from __future__ import annotations

import math
from typing import Callable

import numpy as np

from .claims import Cells, Check, Component, Outcome, all_of, any_of, component

__all__ = ["lower_than", "highest", "within_factor", "no_worse_than", "return_not_below",
           "lower_on_average", "flat_in_epsilon", "non_increasing_in_epsilon",
           "return_ordered_in_epsilon", "gap_not_increasing", "early_then_caught", "below_bound",
           "linear_shape", "range_below", "overlap_with_optimum", "on_real_data", "both",
           "return_approaches_optimal",
           "not_testable"]

PAIRED = ("one-sided t-tests on per-run differences of final regret (run i of every curve sees "
          "the same reward draws; runs independent; mean of the differences close to normal)")


def _fmt(x: float) -> str:
    return f"{x:.4g}"


def _eps(cells: Cells, epsilons) -> tuple[float, ...]:
    chosen = cells.experiment.epsilons if epsilons is None else epsilons
    return tuple(e for e in chosen if e in cells.experiment.epsilons)


def lower_than(a: str, others: tuple[str, ...], epsilons=None) -> Check:
    """``a``'s final regret is below each of ``others`` at each epsilon. Supported when every
    difference ``b - a`` is significantly positive; contradicted when one ``a - b`` is."""
    def check(cells: Cells) -> Outcome:
        support, contradict, shown = [], [], []
        for eps in _eps(cells, epsilons):
            x = cells.finals(a, eps)
            for b in others:
                y = cells.finals(b, eps)
                support.append(component(f"{b} - {a} at eps={eps:g}", y - x))
                contradict.append(component(f"{a} - {b} at eps={eps:g}", x - y))
                shown.append(f"eps={eps:g}: {a} {_fmt(x.mean())} vs {b} {_fmt(y.mean())}")
        return Outcome(tuple(support), tuple(contradict), PAIRED, "; ".join(shown))
    return check


def highest(label: str, epsilons=None) -> Check:
    """``label`` has the largest final regret of all curves at each epsilon."""
    def check(cells: Cells) -> Outcome:
        others = tuple(line.label for line in cells.experiment.lines if line.label != label)
        support, contradict, shown = [], [], []
        for eps in _eps(cells, epsilons):
            x = cells.finals(label, eps)
            for b in others:
                y = cells.finals(b, eps)
                support.append(component(f"{label} - {b} at eps={eps:g}", x - y))
                contradict.append(component(f"{b} - {label} at eps={eps:g}", y - x))
            shown.append(f"eps={eps:g}: " + ", ".join(
                f"{line.label} {_fmt(cells.finals(line.label, eps).mean())}" for line in cells.experiment.lines))
        return Outcome(tuple(support), tuple(contradict), PAIRED, "; ".join(shown))
    return check


def _ratio_components(a: str, b: str, factor: float, cells: Cells, eps: float):
    x, y = cells.finals(a, eps), cells.finals(b, eps)
    support = (component(f"{factor:g} {b} - {a} at eps={eps:g}", factor * y - x),
               component(f"{a} - {b} / {factor:g} at eps={eps:g}", x - y / factor))
    contradict = (component(f"{a} - {factor:g} {b} at eps={eps:g}", x - factor * y),
                  component(f"{b} / {factor:g} - {a} at eps={eps:g}", y / factor - x))
    ratio = x.mean() / y.mean() if y.mean() > 0 else math.inf
    return support, contradict, f"eps={eps:g}: mean ratio {_fmt(ratio)}"


def within_factor(a: str, b: str, factor: float, epsilons=None) -> Check:
    """Equivalence within ``factor``: ``b / factor <= a <= factor b`` in mean final regret at each
    epsilon, by two one-sided tests (TOST) on the per-run values ``factor b - a`` and
    ``a - b / factor``; contradicted when one of them is significantly negative."""
    def check(cells: Cells) -> Outcome:
        support, contradict, shown = [], [], []
        for eps in _eps(cells, epsilons):
            s, c, text = _ratio_components(a, b, factor, cells, eps)
            support += s
            contradict += c
            shown.append(text)
        return Outcome(tuple(support), tuple(contradict),
                       f"two one-sided tests (TOST) for a ratio of means within [1/{factor:g}, "
                       f"{factor:g}]; {PAIRED}", "; ".join(shown) + f" (factor {factor:g})")
    return check


def flat_in_epsilon(label: str, band: float) -> Check:
    """Equivalence across epsilon: for every two epsilons the mean final regrets are within a
    factor ``band`` (TOST on every ordered pair)."""
    def check(cells: Cells) -> Outcome:
        eps = cells.experiment.epsilons
        support, contradict = [], []
        for i in eps:
            for j in eps:
                if i != j:
                    x, y = cells.finals(label, i), cells.finals(label, j)
                    support.append(component(f"{band:g} R(eps={j:g}) - R(eps={i:g})", band * y - x))
                    contradict.append(component(f"R(eps={i:g}) - {band:g} R(eps={j:g})", x - band * y))
        means = [cells.finals(label, e).mean() for e in eps]
        return Outcome(tuple(support), tuple(contradict),
                       f"two one-sided tests on every pair of epsilons for a ratio within "
                       f"[1/{band:g}, {band:g}]; {PAIRED}",
                       f"{label}: max/min of the mean over epsilon = "
                       f"{_fmt(max(means) / max(min(means), 1e-12))} (band {band:g})")
    return check


def _slopes(cells: Cells, label: str, x: np.ndarray, eps: Sequence[float], degree: int = 1) -> np.ndarray:
    """Per-run least-squares coefficients (highest power first) of final regret on ``x``."""
    y = np.stack([cells.finals(label, e) for e in eps])          # (epsilons, runs)
    return np.polyfit(x, y, degree)


def non_increasing_in_epsilon(label: str, steps: bool = True) -> Check:
    """Final regret decreases as epsilon increases. Supported only when the per-run least-squares
    slope of final regret on log(epsilon) is significantly negative. Contradicted, when
    ``steps``, by any significant step up to the next larger epsilon (Bonferroni over the steps);
    otherwise only by a significantly positive slope. Equal curves are inconclusive: the absence
    of a rise is not evidence of a fall."""
    def check(cells: Cells) -> Outcome:
        eps = sorted(cells.experiment.epsilons)
        slope = _slopes(cells, label, np.log(eps), eps)[0]
        if steps:
            against = tuple(component(f"R(eps={eps[i + 1]:g}) - R(eps={eps[i]:g})",
                                      cells.finals(label, eps[i + 1]) - cells.finals(label, eps[i]))
                            for i in range(len(eps) - 1))
            test = ("paired t-tests of each step up in epsilon (a significant rise contradicts)")
        else:
            against = (component("the slope in ln epsilon", slope),)
            test = "a significantly positive slope contradicts"
        shown = ", ".join(f"{e:g}: {_fmt(cells.finals(label, e).mean())}" for e in eps)
        return Outcome((component("minus the slope in ln epsilon", -slope),), against,
                       "t-test on the per-run least-squares slope of final regret against ln "
                       f"epsilon (negative supports); {test}; runs independent, means close to "
                       "normal",
                       f"{label} mean final regret by epsilon {shown}; mean slope "
                       f"{_fmt(slope.mean())} per unit of ln epsilon")
    return check


return_ordered_in_epsilon = non_increasing_in_epsilon
"""Performance (return) decreases as epsilon decreases: the same test on final regret."""


def gap_not_increasing(a: str, b: str, growth: float = 1.1, epsilons=None) -> Check:
    """The regret gap ``a - b`` does not grow with time, read as: the gap at T is at most
    ``growth`` times the gap at T/2 (a gap growing like ln T grows by ln 2 / ln(T/2), 6% at
    T = 1e5; a gap linear in T doubles). Per-run values ``(a_T - b_T) - growth (a_{T/2} -
    b_{T/2})``: significantly negative supports, significantly positive contradicts."""
    def check(cells: Cells) -> Outcome:
        support, contradict, shown = [], [], []
        for eps in _eps(cells, epsilons):
            half = cells.per_run(a, eps, 0.5) - cells.per_run(b, eps, 0.5)
            full = cells.finals(a, eps) - cells.finals(b, eps)
            excess = full - growth * half
            support.append(component(f"{growth:g} gap(T/2) - gap(T) at eps={eps:g}", -excess))
            contradict.append(component(f"gap(T) - {growth:g} gap(T/2) at eps={eps:g}", excess))
            shown.append(f"eps={eps:g}: gap {_fmt(half.mean())} at T/2, {_fmt(full.mean())} at T")
        return Outcome(tuple(support), tuple(contradict),
                       f"t-test on per-run gap(T) - {growth:g} gap(T/2); {PAIRED}", "; ".join(shown))
    return check


def below_bound(label: str, key: str) -> Check:
    """Mean final regret is below the explicit bound ``key`` of :mod:`dpbandits.bounds`: t-test on
    ``bound - R_i``. A bound at or above T x (largest gap), the most regret any run can have, is
    vacuous: no run can exceed it, so the claim is inconclusive at this size and the page gives
    the horizon from which the bound is informative."""
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
                       f"t-test on per-run bound - final regret (runs independent, mean close to normal)",
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


def both(*checks: Check) -> Check:
    """All of ``checks``: supported when every one is (intersection-union), contradicted when one
    is (Bonferroni over all their contradicting components)."""
    def check(cells: Cells) -> Outcome:
        outcomes = [c(cells) for c in checks]
        return Outcome(tuple(x for o in outcomes for x in o.support),
                       tuple(x for o in outcomes for x in o.contradict),
                       "; ".join(dict.fromkeys(o.test for o in outcomes)),
                       "; ".join(o.evidence for o in outcomes),
                       note="; ".join(o.note for o in outcomes if o.note))
    return check


def not_testable(reason: str) -> Check:
    """A claim no simulation can test (a limit, or data we do not have), with the reason."""
    return lambda cells: Outcome((), (), "", "", reason=reason)


def overlap_with_optimum(label: str, count: int, margin: int) -> Check:
    """The last round's super arm shares about ``count`` base arms with the optimal basis A*:
    TOST on the per-run overlap for a mean within ``count`` +- ``margin``. A count the paper read
    off its data: wrap it in :func:`on_real_data`."""
    def check(cells: Cells) -> Outcome:
        eps = cells.experiment.epsilons[0]
        d = cells.data[(label, eps)]
        optimal = set(d["optimal_basis"])
        overlap = np.array([len(optimal & set(basis)) for basis in d["final_basis"]], dtype=float)
        shown = (f"{label}: mean overlap of the last round's {len(optimal)} base arms with A* "
                 f"{_fmt(overlap.mean())} (runs: {', '.join(str(int(o)) for o in overlap)})")
        low, high = count - margin, count + margin
        return Outcome((component(f"overlap - {low}", overlap - low), component(f"{high} - overlap", high - overlap)),
                       (component(f"{low} - overlap", low - overlap), component(f"overlap - {high}", overlap - high)),
                       "two one-sided t-tests on the per-run overlap (runs independent, mean "
                       "close to normal)", shown)
    return check

def no_worse_than(a: str, b: str, factor: float, epsilons=None) -> Check:
    """One-sided: ``a``'s mean final regret is at most ``factor`` times ``b``'s at each epsilon.
    Supported when every ``factor b - a`` is significantly positive; contradicted only when one
    ``a - factor b`` is: being better than ``b`` never contradicts it."""
    def check(cells: Cells) -> Outcome:
        support, contradict, shown = [], [], []
        for eps in _eps(cells, epsilons):
            x, y = cells.finals(a, eps), cells.finals(b, eps)
            support.append(component(f"{factor:g} {b} - {a} at eps={eps:g}", factor * y - x))
            contradict.append(component(f"{a} - {factor:g} {b} at eps={eps:g}", x - factor * y))
            ratio = x.mean() / y.mean() if y.mean() > 0 else math.inf
            shown.append(f"eps={eps:g}: {a} {_fmt(x.mean())} vs {b} {_fmt(y.mean())} "
                         f"(ratio {_fmt(ratio)})")
        return Outcome(tuple(support), tuple(contradict),
                       f"one-sided t-tests on per-run {factor:g} x {b} - {a}; {PAIRED}",
                       "; ".join(shown) + f" (factor {factor:g})")
    return check


def return_not_below(a: str, b: str, margin: float, epsilons=None) -> Check:
    """One-sided, on the papers' own quantity for matroids (Chandak, Hu & Hegde, Sec. 5): ``a``'s
    expected per-round return at round n, f* - R_n / n, is at most ``margin`` x f* (the optimal
    return) below ``b``'s. Per-run values ``(R_b - R_a) / n + margin f*``: significantly positive
    supports, significantly negative contradicts; a higher return than ``b`` never contradicts."""
    def check(cells: Cells) -> Outcome:
        support, contradict, shown = [], [], []
        n = cells.horizon
        for eps in _eps(cells, epsilons):
            best = cells.optimal(a, eps)
            gap = (cells.finals(b, eps) - cells.finals(a, eps)) / n      # return_a - return_b
            support.append(component(f"return {a} - return {b} + {margin:g} f* at eps={eps:g}",
                                     gap + margin * best))
            contradict.append(component(f"return {b} - return {a} - {margin:g} f* at eps={eps:g}",
                                        -gap - margin * best))
            shown.append(f"eps={eps:g}: per-round return at n = {n:,}: {a} "
                         f"{_fmt(best - cells.mean(a, eps) / n)}, {b} {_fmt(best - cells.mean(b, eps) / n)}, "
                         f"optimal {_fmt(best)}; {a} - {b} = {_fmt(gap.mean())} "
                         f"({_fmt(100 * gap.mean() / best)}% of the optimal return)")
        return Outcome(tuple(support), tuple(contradict),
                       f"one-sided t-tests on the per-run difference of per-round return at n "
                       f"against a margin of {margin:.0%} of the optimal return; {PAIRED}",
                       "; ".join(shown))
    return check


def lower_on_average(a: str, b: str) -> Check:
    """``a``'s final regret averaged over the epsilon grid is below ``b``'s: one-sided t-test on
    the per-run mean over epsilon of ``b - a``."""
    def check(cells: Cells) -> Outcome:
        eps = cells.experiment.epsilons
        d = np.mean([cells.finals(b, e) - cells.finals(a, e) for e in eps], axis=0)
        return Outcome((component(f"mean over epsilon of {b} - {a}", d),),
                       (component(f"mean over epsilon of {a} - {b}", -d),),
                       f"t-test on the per-run mean over the {len(eps)} epsilons of the difference "
                       f"of final regret; {PAIRED}",
                       f"mean over epsilon: {a} {_fmt(np.mean([cells.mean(a, e) for e in eps]))} "
                       f"vs {b} {_fmt(np.mean([cells.mean(b, e) for e in eps]))}")
    return check


def early_then_caught(early: str, late: str, window: float = 0.1, margin: float = 1.1,
                      catch: str = "level", epsilons=None) -> Check:
    """A trajectory: ``early`` is better at some round of the first ``window`` of the horizon (the
    union of one-sided tests at every checkpoint there, Bonferroni), and ``late`` catches up.
    ``catch="level"``: ``late``'s regret at T is below ``margin`` times ``early``'s;
    ``catch="growth"``: ``late`` gains less regret than ``early`` over the second half of the
    horizon. Contradicted when ``early`` is significantly worse at every early checkpoint, or
    when the catching-up part is significantly the other way."""
    def check(cells: Cells) -> Outcome:
        support, contradict, shown = [], [], []
        for eps in _eps(cells, epsilons):
            t, e = cells.curves(early, eps)
            _, l = cells.curves(late, eps)
            keep = np.flatnonzero((t >= 2) & (t <= window * t[-1]))
            ahead = [component(f"{late} - {early} at t={int(t[i])}", l[:, i] - e[:, i]) for i in keep]
            behind = [component(f"{early} - {late} at t={int(t[i])}", e[:, i] - l[:, i]) for i in keep]
            support.append(any_of(f"{early} below {late} at some t <= {window:g} T, eps={eps:g}", ahead))
            contradict.append(all_of(f"{early} above {late} at every t <= {window:g} T, eps={eps:g}", behind))
            if catch == "level":
                e1, l1 = cells.finals(early, eps), cells.finals(late, eps)
                support.append(component(f"{margin:g} {early} - {late} at T, eps={eps:g}", margin * e1 - l1))
                contradict.append(component(f"{late} - {margin:g} {early} at T, eps={eps:g}", l1 - margin * e1))
                caught = f"at T {early} {_fmt(e1.mean())} vs {late} {_fmt(l1.mean())}"
            else:
                ge = cells.finals(early, eps) - cells.per_run(early, eps, 0.5)
                gl = cells.finals(late, eps) - cells.per_run(late, eps, 0.5)
                support.append(component(f"growth {early} - growth {late}, eps={eps:g}", ge - gl))
                contradict.append(component(f"growth {late} - growth {early}, eps={eps:g}", gl - ge))
                caught = (f"regret gained from T/2 to T: {early} {_fmt(ge.mean())} vs {late} "
                          f"{_fmt(gl.mean())}")
            gaps = (l - e)[:, keep].mean(axis=0) if keep.size else np.zeros(1)
            shown.append(f"eps={eps:g}: largest mean lead of {early} in t <= {window:g} T "
                         f"{_fmt(gaps.max())} (at t = {int(t[keep][int(np.argmax(gaps))]) if keep.size else 0}); "
                         f"{caught}")
        return Outcome(tuple(support), tuple(contradict),
                       f"union (Bonferroni) of one-sided t-tests at every checkpoint up to "
                       f"{window:g} T, and a t-test on the catching-up; {PAIRED}", "; ".join(shown))
    return check


def linear_shape(label: str, r2: float) -> Check:
    """The mean final regret looks linear in 1/epsilon, an effect-size reading fixed before any
    run: the slope on 1/epsilon is positive and a straight line explains at least ``r2`` of the
    variance of the mean curve over the epsilon grid (R^2). The R^2 is tested through its
    jackknife pseudo-values over runs (leave one run out); the slope through the per-run
    least-squares slopes. Supported when both are significantly on the claim's side;
    contradicted when the slope is significantly negative or R^2 significantly below ``r2``.
    Statistically significant curvature alone decides nothing."""
    def check(cells: Cells) -> Outcome:
        eps = cells.experiment.epsilons
        x = 1 / np.array(eps)
        y = np.stack([cells.finals(label, e) for e in eps])          # (epsilons, runs)
        slope = np.polyfit(x, y, 1)[0]
        n = y.shape[1]
        whole = _r2(x, y.mean(axis=1))
        if n > 1:
            left_out = np.array([_r2(x, (y.sum(axis=1) - y[:, i]) / (n - 1)) for i in range(n)])
            pseudo = n * whole - (n - 1) * left_out
        else:
            pseudo = np.array([whole])
        return Outcome((component("slope in 1/epsilon", slope), component(f"R^2 - {r2:g}", pseudo - r2)),
                       (component("minus the slope in 1/epsilon", -slope),
                        component(f"{r2:g} - R^2", r2 - pseudo)),
                       "t-tests on per-run least-squares slopes on 1/epsilon and on jackknife "
                       "pseudo-values of the mean curve's R^2 (runs independent, means close to "
                       "normal)",
                       f"{label}: mean slope {_fmt(slope.mean())} per unit of 1/epsilon; R^2 of a "
                       f"straight line through the mean curve {_fmt(whole)} (criterion {r2:g})")
    return check


def _r2(x: np.ndarray, y: np.ndarray) -> float:
    fit = np.polyval(np.polyfit(x, y, 1), x)
    return float(1 - ((y - fit) ** 2).sum() / max(((y - y.mean()) ** 2).sum(), 1e-300))


def range_below(labels: tuple[str, ...], limit: float, runs: int, factor: float = 1.5,
                epsilons=None) -> Check:
    """The best-to-worst range of final regret over the runs is under ``limit`` for every curve in
    ``labels``, a number the paper read off its own ``runs`` runs. Decided exactly on the
    observed runs (p = 0 or 1). The range only grows as runs are added, so a range at or under
    ``limit`` supports only with at least ``runs`` runs. One run decides a range, and regret
    across runs can be heavy-tailed (a run that locks onto the wrong arm), so a contradiction
    must not rest on a single run: it needs the range without the most extreme run (dropped
    at whichever end leaves the smaller range) above ``factor`` x ``limit``. Anything else is
    inconclusive."""
    def check(cells: Cells) -> Outcome:
        support, contradict, shown = [], [], []
        enough = cells.runs >= runs
        for eps in _eps(cells, epsilons):
            for label in labels:
                finals = np.sort(cells.finals(label, eps))
                spread = float(finals[-1] - finals[0])
                trimmed = float(min(finals[-1] - finals[1], finals[-2] - finals[0])) if finals.size > 2 else 0.0
                support.append(Component(f"{limit:g} - range of {label} at eps={eps:g}",
                                         limit - spread, 0.0, cells.runs,
                                         0.0 if enough and spread <= limit else 1.0))
                contradict.append(Component(
                    f"range of {label} without its most extreme run - {factor:g} x {limit:g} at eps={eps:g}",
                    trimmed - factor * limit, 0.0, cells.runs, 0.0 if trimmed > factor * limit else 1.0))
                shown.append(f"{label} {_fmt(spread)} ({_fmt(trimmed)} without its most extreme run)")
        note = (f"the range is decided on the observed runs: it is above {limit:g}, or rests on a "
                f"single run, but not above {factor:g} x {limit:g} without that run"
                if enough else f"the range grows with the number of runs: a range under {limit:g} "
                f"supports the claim only at the paper's {runs} runs (here {cells.runs})")
        return Outcome(tuple(support), tuple(contradict),
                       f"the observed best-to-worst range of final regret over the runs, exactly "
                       f"(support at <= {limit:g} with >= {runs} runs; contradiction when the range "
                       f"without the most extreme run is above {factor:g} x {limit:g})",
                       f"range over {cells.runs} runs: " + ", ".join(shown), note=note)
    return check


def on_real_data(check: Check, data: str) -> Check:
    """``check``, run only on the paper's own data: on a labelled stand-in the claim is not
    testable (a claim about a dataset we do not have), and the stand-in's numbers are shown as
    the reason's context; with the real data (``--movielens DIR``) it is tested."""
    def wrapped(cells: Cells) -> Outcome:
        if not cells.experiment.setting.endswith("standin"):
            return check(cells)
        shown = check(cells).evidence
        return Outcome((), (), "", shown, reason=f"a claim about {data}, which this run did not "
                       f"have: it used the labelled synthetic stand-in (testable with --movielens "
                       f"DIR; on the stand-in: {shown})")
    return wrapped



def return_approaches_optimal(label: str, margin: float | None = None, epsilons=None) -> Check:
    """The expected per-round return at round n approaches the optimal return f*. With
    ``margin``: it is within ``margin`` x f* of f* at n (per-run ``margin f* - R_n / n``);
    without: it still rises over the second half of the horizon, i.e. the per-round regret
    R_n / n falls from n/2 to n (per-run ``R_{n/2} / (n/2) - R_n / n``). Significantly positive
    supports, significantly negative contradicts."""
    def check(cells: Cells) -> Outcome:
        support, contradict, shown = [], [], []
        n = cells.horizon
        for eps in _eps(cells, epsilons):
            best = cells.optimal(label, eps)
            final = cells.finals(label, eps) / n
            if margin is None:
                values = cells.per_run(label, eps, 0.5) / (n / 2) - final
                name = f"return at n - return at n/2, eps={eps:g}"
            else:
                values = margin * best - final
                name = f"{margin:g} f* - (f* - return at n), eps={eps:g}"
            support.append(component(name, values))
            contradict.append(component(f"minus ({name})", -values))
            shown.append(f"eps={eps:g}: per-round return of {label} {_fmt(best - cells.mean(label, eps, 0.5) / (n / 2))} "
                         f"at n/2, {_fmt(best - final.mean())} at n = {n:,}; optimal {_fmt(best)}")
        test = ("one-sided t-tests on the per-run shortfall from the optimal return against a margin of "
                f"{margin:.0%} of it" if margin is not None else
                "one-sided t-tests on the per-run rise of the per-round return from n/2 to n")
        return Outcome(tuple(support), tuple(contradict),
                       test + " (runs independent, mean close to normal)", "; ".join(shown))
    return check
