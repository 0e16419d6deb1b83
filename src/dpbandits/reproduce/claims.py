"""The claim-check vocabulary: each of the papers' experimental claims as a stated test over runs.

Every check reads the per-run numbers of the simulated cells (:class:`Cells`) and returns an
:class:`Outcome`: the one-sided tests whose rejection would *support* the claim and those whose
rejection would *contradict* it, each a t-test on per-run values, with the test and its assumption
in words. :func:`judge` turns the outcomes of one page into verdicts at family-wise level
``alpha`` (Holm's step-down correction over every p-value of the page, statsmodels'
``multipletests``):

* ``supported``: the data are significantly in the claim's direction (every component of the
  claim, an intersection-union test, so no correction is needed inside a claim);
* ``contradicted``: significantly the other way for at least one component (Bonferroni over the
  components inside the claim);
* ``inconclusive at this size``: neither, with the number of runs per curve that would decide it,
  estimated from the observed mean and spread (80% power at the Bonferroni level of the page);
* ``not testable``: only for claims no simulation can test, with the reason.

**Paired runs.** Every curve of an experiment runs with the same seed, so run ``i`` of each curve
(and of each epsilon) sees the same reward draws (:mod:`dpbandits.reference.engine`, seeding).
Runs are independent of each other, so the per-run differences ``x_i - c y_i`` are independent
and identically distributed, and a one-sample t-test on them is valid whatever the correlation
between the curves. The t-test assumes the mean of those differences is close to normal (the
central limit theorem; at two or three runs it is a rough approximation, and the page says how
many runs were used).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import numpy as np

from .experiment import Experiment

__all__ = ["VERDICTS", "SUPPORTED", "CONTRADICTED", "INCONCLUSIVE", "NOT_TESTABLE", "ALPHA",
           "Cells", "Component", "Outcome", "Verdict", "judge", "component",
           "lower_than", "highest", "within_factor", "flat_in_epsilon", "non_increasing_in_epsilon",
           "return_ordered_in_epsilon", "gap_not_increasing", "crossing", "below_bound",
           "linear_in_inverse_epsilon", "spread_larger", "overlap_with_optimum", "both",
           "not_testable"]

SUPPORTED, CONTRADICTED = "supported", "contradicted"
INCONCLUSIVE, NOT_TESTABLE = "inconclusive at this size", "not testable"
VERDICTS = (SUPPORTED, CONTRADICTED, INCONCLUSIVE, NOT_TESTABLE)
ALPHA = 0.05
"""Family-wise error level of the claims of one page."""
POWER = 0.8
"""Power at which the number of runs that would decide an inconclusive claim is estimated."""

Check = Callable[["Cells"], "Outcome"]


class Cells:
    """The simulated cells of one experiment: (label, epsilon) -> curve summary and per-run values.

    A cell holds ``t`` (checkpoints), ``mean``, ``low``, ``high`` (mean and 95% band at each
    checkpoint), ``runs``, ``optimal`` and ``per_run``: one list per run of its regret at every
    checkpoint."""

    def __init__(self, data: dict[tuple[str, float], dict[str, Any]], experiment: Experiment):
        self.data, self.experiment = data, experiment

    def per_run(self, label: str, epsilon: float, fraction: float = 1.0) -> np.ndarray:
        """Each run's regret at the checkpoint nearest to ``fraction`` of the horizon."""
        d = self.data[(label, epsilon)]
        t = np.asarray(d["t"])
        return np.asarray(d["per_run"], dtype=float)[:, int(np.argmin(np.abs(t - fraction * t[-1])))]

    def finals(self, label: str, epsilon: float) -> np.ndarray:
        """Each run's regret at the horizon."""
        return self.per_run(label, epsilon, 1.0)

    def mean(self, label: str, epsilon: float, fraction: float = 1.0) -> float:
        return float(self.per_run(label, epsilon, fraction).mean())

    @property
    def horizon(self) -> int:
        return int(next(iter(self.data.values()))["t"][-1])

    @property
    def runs(self) -> int:
        return int(next(iter(self.data.values()))["runs"])


@dataclass(frozen=True)
class Component:
    """A one-sided t-test that the mean of per-run ``values`` is above 0.

    ``p`` is the p-value against H0: E[value] <= 0 (Student's t with n - 1 degrees of freedom; a
    sample of identical values is decided exactly; fewer than two runs never reject)."""

    label: str
    estimate: float
    sd: float
    n: int
    p: float

    def runs_to_reject(self, level: float, power: float = POWER) -> float:
        """Runs for which a true mean equal to the observed one is rejected at ``level`` with
        ``power`` (normal approximation); infinite when the observed mean is not above 0."""
        from scipy.stats import norm

        if self.estimate <= 0:
            return math.inf
        if self.sd == 0:
            return 2.0
        return max(2.0, math.ceil(((norm.ppf(1 - level) + norm.ppf(power)) * self.sd / self.estimate) ** 2))


def component(label: str, values: Sequence[float]) -> Component:
    """The :class:`Component` of per-run ``values`` (see its docstring)."""
    from scipy.stats import t as student

    v = np.asarray(values, dtype=float)
    n, estimate = v.size, float(v.mean())
    sd = float(v.std(ddof=1)) if n > 1 else math.nan
    if n < 2:
        p = 1.0
    elif sd == 0 or sd <= 1e-12 * max(1.0, abs(estimate)):
        p, sd = (0.0 if estimate > 0 else 1.0), 0.0
    else:
        p = float(student.sf(estimate / (sd / math.sqrt(n)), n - 1))
    return Component(label, estimate, sd, n, p)


@dataclass(frozen=True)
class Outcome:
    """What a check found: the components that support the claim (all must reject) and those that
    contradict it (any one rejecting suffices), the test in words, and the numbers shown."""

    support: tuple[Component, ...]
    contradict: tuple[Component, ...]
    test: str
    evidence: str
    reason: str = ""
    """For ``not testable``: why no simulation can test the claim; otherwise empty."""
    note: str = ""
    """Why the claim cannot be decided at this size whatever the runs show (e.g. a vacuous bound)."""

    @property
    def testable(self) -> bool:
        return not self.reason

    @property
    def p_support(self) -> float:
        """p-value of H0 'the claim is false' (intersection-union: the largest component p)."""
        return max((c.p for c in self.support), default=1.0)

    @property
    def p_contradict(self) -> float:
        """p-value of H0 'the claim holds' (Bonferroni over the contradicting components)."""
        if not self.contradict:
            return 1.0
        return min(1.0, len(self.contradict) * min(c.p for c in self.contradict))

    def runs_to_decide(self, level: float) -> float:
        """Runs per curve that would decide the claim at ``level`` if the observed means were the
        true ones: all supporting components, or the easiest contradicting one."""
        supporting = max((c.runs_to_reject(level) for c in self.support), default=math.inf)
        k = max(len(self.contradict), 1)
        contradicting = min((c.runs_to_reject(level / k) for c in self.contradict), default=math.inf)
        return min(supporting, contradicting)


@dataclass(frozen=True)
class Verdict:
    """A claim's verdict on one page, with the test that decided it and the numbers."""

    text: str
    verdict: str
    evidence: str
    test: str = ""
    reading: str = ""
    p_support: float = 1.0
    p_contradict: float = 1.0


def judge(claims: Sequence[tuple[str, str, Outcome]], alpha: float = ALPHA) -> list[Verdict]:
    """Verdicts for the (text, reading, outcome) of one page's claims at family-wise level
    ``alpha``: Holm's correction over the supporting and contradicting p-values of every testable
    claim (2m hypotheses for m claims)."""
    from statsmodels.stats.multitest import multipletests

    testable = [o for _, _, o in claims if o.testable]
    pvalues = [p for o in testable for p in (o.p_support, o.p_contradict)]
    rejected = list(multipletests(pvalues, alpha=alpha, method="holm")[0]) if pvalues else []
    m = max(len(pvalues), 1)
    verdicts = []
    for text, reading, outcome in claims:
        if not outcome.testable:
            verdicts.append(Verdict(text, NOT_TESTABLE, outcome.reason, outcome.test, reading))
            continue
        support, contradict = rejected.pop(0), rejected.pop(0)
        evidence = outcome.evidence + (f" (p = {_p(outcome.p_support)} for the claim's direction, "
                                       f"{_p(outcome.p_contradict)} against it; Holm over {m} "
                                       f"p-values at level {alpha:g})")
        if contradict:
            verdict = CONTRADICTED
        elif support:
            verdict = SUPPORTED
        else:
            verdict = INCONCLUSIVE
            evidence += "; " + (outcome.note or _runs_needed(outcome, alpha / m))
        verdicts.append(Verdict(text, verdict, evidence, outcome.test, reading,
                                outcome.p_support, outcome.p_contradict))
    return verdicts


def _runs_needed(outcome: Outcome, level: float) -> str:
    runs = outcome.runs_to_decide(level)
    if math.isinf(runs):
        return ("no number of runs at this horizon is estimated to decide it: the observed "
                "difference is zero or sits on the claim's boundary")
    return (f"about {int(runs):,} runs per curve would decide it (from the observed means and "
            f"spread, {POWER:.0%} power)")


def _p(p: float) -> str:
    return f"{p:.2g}" if p >= 1e-4 else "< 1e-4"


def _fmt(x: float) -> str:
    return f"{x:.4g}"


def _eps(cells: Cells, epsilons) -> tuple[float, ...]:
    chosen = cells.experiment.epsilons if epsilons is None else epsilons
    return tuple(e for e in chosen if e in cells.experiment.epsilons)


PAIRED = ("one-sided t-tests on per-run differences of final regret (run i of every curve sees "
          "the same reward draws; runs independent; mean of the differences close to normal)")


# -- the checks -----------------------------------------------------------------------------------

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


def non_increasing_in_epsilon(label: str) -> Check:
    """Final regret decreases as epsilon increases. Supported only when the per-run least-squares
    slope of final regret on log(epsilon) is significantly negative; contradicted when any step to
    the next larger epsilon is significantly up (Bonferroni over the steps). Equal curves are
    inconclusive: the absence of a rise is not evidence of a fall."""
    def check(cells: Cells) -> Outcome:
        eps = sorted(cells.experiment.epsilons)
        slope = _slopes(cells, label, np.log(eps), eps)[0]
        steps = [component(f"R(eps={eps[i + 1]:g}) - R(eps={eps[i]:g})",
                           cells.finals(label, eps[i + 1]) - cells.finals(label, eps[i]))
                 for i in range(len(eps) - 1)]
        shown = ", ".join(f"{e:g}: {_fmt(cells.finals(label, e).mean())}" for e in eps)
        return Outcome((component("minus the slope in ln epsilon", -slope),), tuple(steps),
                       "t-test on the per-run least-squares slope of final regret against ln "
                       "epsilon (negative supports); paired t-tests of each step up in epsilon "
                       "(a significant rise contradicts); runs independent, means close to normal",
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


def crossing(early: str, late: str, margin: float = 1.1, epsilons=None) -> Check:
    """``early`` is better at first and ``late`` catches up: ``early``'s regret is significantly
    below ``late``'s at T/100, and ``late``'s regret at T is significantly below ``margin`` times
    ``early``'s (caught up to within 10%). Contradicted when ``early`` is significantly worse at
    T/100 or ``late`` significantly above ``margin`` times ``early`` at T."""
    def check(cells: Cells) -> Outcome:
        support, contradict, shown = [], [], []
        for eps in _eps(cells, epsilons):
            e0, l0 = cells.per_run(early, eps, 0.01), cells.per_run(late, eps, 0.01)
            e1, l1 = cells.finals(early, eps), cells.finals(late, eps)
            support += [component(f"{late} - {early} at T/100, eps={eps:g}", l0 - e0),
                        component(f"{margin:g} {early} - {late} at T, eps={eps:g}", margin * e1 - l1)]
            contradict += [component(f"{early} - {late} at T/100, eps={eps:g}", e0 - l0),
                           component(f"{late} - {margin:g} {early} at T, eps={eps:g}", l1 - margin * e1)]
            shown.append(f"eps={eps:g}: at T/100 {early} {_fmt(e0.mean())} vs {late} {_fmt(l0.mean())}; "
                         f"at T {_fmt(e1.mean())} vs {_fmt(l1.mean())}")
        return Outcome(tuple(support), tuple(contradict),
                       f"paired t-tests at T/100 and at T; {PAIRED}", "; ".join(shown))
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


def linear_in_inverse_epsilon(label: str) -> Check:
    """Final regret grows linearly in 1/epsilon, read as: the per-run least-squares slope on
    1/epsilon is significantly positive (supports), and neither a significantly negative slope nor
    a significant per-run quadratic coefficient in 1/epsilon is found (either contradicts). The
    linearity part can only contradict: no finite sample shows exact linearity."""
    def check(cells: Cells) -> Outcome:
        eps = cells.experiment.epsilons
        x = 1 / np.array(eps)
        slope = _slopes(cells, label, x, eps)[0]
        curvature = _slopes(cells, label, x, eps, 2)[0] if len(eps) >= 3 else np.zeros_like(slope)
        y = np.array([cells.finals(label, e).mean() for e in eps])
        fit = np.polyval(np.polyfit(x, y, 1), x)
        r2 = 1 - ((y - fit) ** 2).sum() / max(((y - y.mean()) ** 2).sum(), 1e-12)
        return Outcome((component("slope in 1/epsilon", slope),),
                       (component("minus the slope in 1/epsilon", -slope),
                        component("quadratic coefficient in 1/epsilon", curvature),
                        component("minus the quadratic coefficient", -curvature)),
                       "t-tests on per-run least-squares coefficients of final regret on 1/epsilon "
                       "(linear slope; quadratic coefficient of a second fit); runs independent, "
                       "means close to normal",
                       f"{label}: mean slope {_fmt(slope.mean())} per unit of 1/epsilon, mean "
                       f"quadratic coefficient {_fmt(curvature.mean())}, R^2 of the mean curve {_fmt(r2)}")
    return check


def spread_larger(label: str, epsilons=None) -> Check:
    """``label``'s runs are more spread out than every other curve's: Brown-Forsythe reading,
    per-run absolute deviations from the curve's median, compared by paired t-tests. The observed
    range (best to worst run) of every curve is shown beside it."""
    def check(cells: Cells) -> Outcome:
        others = [line.label for line in cells.experiment.lines if line.label != label]
        support, contradict, shown = [], [], []
        for eps in _eps(cells, epsilons):
            dev = {l: np.abs(cells.finals(l, eps) - np.median(cells.finals(l, eps)))
                   for l in [label, *others]}
            for b in others:
                support.append(component(f"|dev| {label} - {b} at eps={eps:g}", dev[label] - dev[b]))
                contradict.append(component(f"|dev| {b} - {label} at eps={eps:g}", dev[b] - dev[label]))
            shown.append(f"eps={eps:g}: range of final regret over runs " + ", ".join(
                f"{l} {_fmt(np.ptp(cells.finals(l, eps)))}" for l in [label, *others]))
        return Outcome(tuple(support), tuple(contradict),
                       "paired t-tests on per-run absolute deviations from each curve's median "
                       "(Brown-Forsythe); runs independent, means close to normal", "; ".join(shown))
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
                       note="; ".join(o.note for o in outcomes if o.note))
    return check


def not_testable(reason: str) -> Check:
    """A claim no simulation can test (a limit, or data we do not have), with the reason."""
    return lambda cells: Outcome((), (), "", "", reason=reason)


def overlap_with_optimum(label: str, count: int, margin: int) -> Check:
    """The last round's super arm shares about ``count`` base arms with the optimal basis A*:
    TOST on the per-run overlap for a mean within ``count`` +- ``margin``. Only the paper's data
    can test a count the paper read off its data: on a stand-in the claim is not testable, and
    the overlap we observe is given as the reason's evidence."""
    def check(cells: Cells) -> Outcome:
        eps = cells.experiment.epsilons[0]
        d = cells.data[(label, eps)]
        optimal = set(d["optimal_basis"])
        overlap = np.array([len(optimal & set(basis)) for basis in d["final_basis"]], dtype=float)
        shown = (f"{label}: mean overlap of the last round's {len(optimal)} base arms with A* "
                 f"{_fmt(overlap.mean())} (runs: {', '.join(str(int(o)) for o in overlap)})")
        if cells.experiment.setting.endswith("standin"):
            return Outcome((), (), "", shown, reason="the paper's count is a property of MovieLens 1M; "
                           "this run used the synthetic stand-in (" + shown + ")")
        low, high = count - margin, count + margin
        return Outcome((component(f"overlap - {low}", overlap - low), component(f"{high} - overlap", high - overlap)),
                       (component(f"{low} - overlap", low - overlap), component(f"overlap - {high}", overlap - high)),
                       "two one-sided t-tests on the per-run overlap (runs independent, mean "
                       "close to normal)", shown)
    return check
