"""What a claim's check finds: one-sided t-tests on per-run values (:class:`Component`), joined
into the tests that would support and those that would contradict the claim (:class:`Outcome`).

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
from typing import Sequence

import numpy as np

__all__ = ["POWER", "Component", "component", "any_of", "all_of", "Outcome"]

POWER = 0.8
"""Power at which the number of runs that would decide an inconclusive claim is estimated."""


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
    from scipy.special import stdtr

    v = np.asarray(values, dtype=float)
    n, estimate = v.size, float(v.mean())
    sd = float(v.std(ddof=1)) if n > 1 else math.nan
    if n < 2:
        p = 1.0
    elif sd == 0 or sd <= 1e-12 * max(1.0, abs(estimate)):
        p, sd = (0.0 if estimate > 0 else 1.0), 0.0
    else:
        p = float(stdtr(n - 1, -estimate / (sd / math.sqrt(n))))
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
    exact: bool = False
    """Decided exactly on the observed runs (p-values 0 or 1), not by a t-test."""
    cannot_fail: str = ""
    """Why support would say nothing (e.g. the curve the claim needs to be worst plays almost
    uniformly): a supported reading with this set is ``could not fail``."""
    stand_in: str = ""
    """Why the reading decides nothing either way: the algorithm the claim is about is, in our
    run, a degenerate stand-in (it plays almost uniformly). A supported reading with this set is
    ``could not fail``, a contradicted one ``could not pass``."""

    @property
    def testable(self) -> bool:
        return not self.reason

    @property
    def leans(self) -> str:
        """The side of the margin the point estimates fall on, whatever the p-values: ``support``
        when every supporting component's estimate is above 0, ``contradict`` when a
        contradicting one's is, else '' (on the margin)."""
        if self.contradict and any(c.estimate > 0 for c in self.contradict):
            return "contradict"
        if self.support and all(c.estimate > 0 for c in self.support):
            return "support"
        return ""

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
