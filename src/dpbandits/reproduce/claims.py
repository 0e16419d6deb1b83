"""How a claim is judged: per-run tests under each of its readings, and one robust verdict.

A claim of a paper is a sentence; a **reading** commits it to a direction, a quantity, a margin
and a horizon, and a check (:mod:`~dpbandits.reproduce.checks`) turns the reading into an
:class:`Outcome`: the one-sided tests whose rejection would *support* the claim and those whose
rejection would *contradict* it, each a t-test on per-run values, with the test in words.
:func:`judge` gives each reading a verdict at family-wise level ``alpha`` (Holm's step-down
correction over every p-value of every reading of the page, :func:`dpbandits.multiplicity.holm`):

* ``supported``: the data are significantly in the reading's direction (every component, an
  intersection-union test, so no correction is needed inside a reading);
* ``contradicted``: significantly the other way for at least one component (Bonferroni over the
  components inside the reading);
* ``inconclusive at this size``: neither, with the number of runs per curve that would decide it,
  estimated from the observed mean and spread (80% power at the Bonferroni level of the page);
* ``not testable``: only for claims no simulation (or no data we have) can test, with the reason.

The claim's verdict is robust to the reading: it is ``supported``, ``contradicted`` or
``inconclusive at this size`` only when every listed reading says so, and ``depends on reading``
otherwise, naming which reading gives which verdict (:func:`combine`). A contradiction therefore
stands only if no reasonable reading (margin, unstated parameter, alternative quantity the text
allows) saves the claim.

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
from dataclasses import dataclass
from typing import Any, Callable, Sequence

import numpy as np

from .experiment import Experiment

__all__ = ["VERDICTS", "SUPPORTED", "CONTRADICTED", "DEPENDS", "INCONCLUSIVE", "NOT_TESTABLE",
           "ALPHA", "Cells", "Component", "Outcome", "Verdict", "ReadingVerdict", "judge",
           "combine", "component", "any_of", "all_of"]

SUPPORTED, CONTRADICTED, DEPENDS = "supported", "contradicted", "depends on reading"
INCONCLUSIVE, NOT_TESTABLE = "inconclusive at this size", "not testable"
VERDICTS = (SUPPORTED, CONTRADICTED, DEPENDS, INCONCLUSIVE, NOT_TESTABLE)
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

    def curves(self, label: str, epsilon: float) -> tuple[np.ndarray, np.ndarray]:
        """The checkpoints and every run's regret at each, shape (runs, checkpoints)."""
        d = self.data[(label, epsilon)]
        return np.asarray(d["t"], dtype=float), np.asarray(d["per_run"], dtype=float)

    def finals(self, label: str, epsilon: float) -> np.ndarray:
        """Each run's regret at the horizon."""
        return self.per_run(label, epsilon, 1.0)

    def mean(self, label: str, epsilon: float, fraction: float = 1.0) -> float:
        return float(self.per_run(label, epsilon, fraction).mean())

    def optimal(self, label: str, epsilon: float) -> float:
        """The optimal expected per-round return (the best super arm's, or the best arm's mean)."""
        return float(self.data[(label, epsilon)]["optimal"])

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


def any_of(label: str, parts: Sequence[Component]) -> Component:
    """At least one of ``parts`` is above 0: the Bonferroni union test (p = k x the smallest p);
    its estimate and spread are those of the part with the smallest p."""
    best = min(parts, key=lambda c: c.p)
    return Component(label, best.estimate, best.sd, best.n, min(1.0, len(parts) * best.p))


def all_of(label: str, parts: Sequence[Component]) -> Component:
    """Every one of ``parts`` is above 0: the intersection-union test (p = the largest p); its
    estimate and spread are those of the part with the largest p."""
    worst = max(parts, key=lambda c: c.p)
    return Component(label, worst.estimate, worst.sd, worst.n, worst.p)


@dataclass(frozen=True)
class Outcome:
    """What a check found under one reading: the components that support it (all must reject)
    and those that contradict it (any one rejecting suffices), the test in words, the numbers."""

    support: tuple[Component, ...]
    contradict: tuple[Component, ...]
    test: str
    evidence: str
    reason: str = ""
    """For ``not testable``: why no simulation (or no data we have) can test it; otherwise empty."""
    note: str = ""
    """Why the reading cannot be decided at this size whatever the runs show (e.g. a vacuous
    bound, or a range that needs the paper's number of runs)."""

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
class ReadingVerdict:
    """One reading's verdict, its test and numbers."""

    reading: str
    verdict: str
    evidence: str
    test: str = ""
    p_support: float = 1.0
    p_contradict: float = 1.0


@dataclass(frozen=True)
class Verdict:
    """A claim's verdict on one page (robust over its readings), with each reading's verdict."""

    text: str
    verdict: str
    evidence: str
    test: str = ""
    reading: str = ""
    p_support: float = 1.0
    p_contradict: float = 1.0
    readings: tuple[ReadingVerdict, ...] = ()
    ours: bool = False
    """Our own check (a bound, a baseline), not a claim of the paper."""


def combine(verdicts: Sequence[str]) -> str:
    """The claim's verdict from its readings' verdicts: the common verdict when every testable
    reading agrees, ``depends on reading`` when they differ; ``not testable`` only when no
    reading is testable."""
    testable = [v for v in verdicts if v != NOT_TESTABLE]
    if not testable:
        return NOT_TESTABLE
    return testable[0] if len(set(testable)) == 1 else DEPENDS


Readings = Sequence[tuple[str, Outcome]]


def judge(claims: Sequence[tuple[str, str, Outcome] | tuple[str, Readings]],
          alpha: float = ALPHA) -> list[Verdict]:
    """Verdicts for one page's claims at family-wise level ``alpha``. Each claim is ``(text,
    reading, outcome)`` or ``(text, [(reading, outcome), ...])``; Holm's correction runs over the
    supporting and contradicting p-values of every testable reading of every claim (2m hypotheses
    for m readings), and each claim's verdict is :func:`combine` of its readings'."""
    from ..multiplicity import holm

    claims = [(c[0], [(c[1], c[2])]) if len(c) == 3 else (c[0], list(c[1])) for c in claims]
    testable = [o for _, readings in claims for _, o in readings if o.testable]
    pvalues = [p for o in testable for p in (o.p_support, o.p_contradict)]
    rejected = holm(pvalues, alpha) if pvalues else []
    m = max(len(pvalues), 1)
    verdicts = []
    for text, readings in claims:
        judged = []
        for reading, outcome in readings:
            if not outcome.testable:
                judged.append(ReadingVerdict(reading, NOT_TESTABLE, outcome.reason, outcome.test))
                continue
            support, contradict = rejected.pop(0), rejected.pop(0)
            judged.append(_reading_verdict(reading, outcome, support, contradict, m, alpha))
        verdicts.append(_claim_verdict(text, judged))
    return verdicts


def _reading_verdict(reading: str, outcome: Outcome, support: bool, contradict: bool, m: int,
                     alpha: float) -> ReadingVerdict:
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
    return ReadingVerdict(reading, verdict, evidence, outcome.test, outcome.p_support,
                          outcome.p_contradict)


def _claim_verdict(text: str, judged: list[ReadingVerdict]) -> Verdict:
    verdict = combine([r.verdict for r in judged])
    if len(judged) == 1:
        r = judged[0]
        return Verdict(text, verdict, r.evidence, r.test, r.reading, r.p_support, r.p_contradict,
                       tuple(judged))
    if verdict == NOT_TESTABLE:
        evidence = " | ".join(f"{r.reading}: {r.evidence}" for r in judged)
    else:
        evidence = "; ".join(f"{r.verdict} under '{r.reading}'" for r in judged)
    return Verdict(text, verdict, evidence, "; ".join(dict.fromkeys(r.test for r in judged if r.test)),
                   "; ".join(r.reading for r in judged),
                   min(r.p_support for r in judged), min(r.p_contradict for r in judged), tuple(judged))


def _runs_needed(outcome: Outcome, level: float) -> str:
    runs = outcome.runs_to_decide(level)
    if math.isinf(runs):
        return ("no number of runs at this horizon is estimated to decide it: the observed "
                "difference is zero or sits on the claim's boundary")
    return (f"about {int(runs):,} runs per curve would decide it (from the observed means and "
            f"spread, {POWER:.0%} power)")


def _p(p: float) -> str:
    return f"{p:.2g}" if p >= 1e-4 else "< 1e-4"
