"""How a claim is judged: per-run tests under each of its readings, one rule over the decided
readings, the margin at which the verdict flips.

A claim of a paper is a sentence with an outcome word; the lexicon
(:mod:`~dpbandits.reproduce.lexicon`) gives the word one test and one margin, and a **reading**
fixes what the paper leaves unstated (a parameter, a rule, a horizon). A check
(:mod:`~dpbandits.reproduce.checks`) turns the reading into an :class:`Outcome`: the one-sided
tests whose rejection would *support* the claim and those whose rejection would *contradict* it,
each a t-test on per-run values (or an exact decision on the observed runs), with the test in
words. :class:`Page` gives each reading a verdict at family-wise level ``alpha`` (Holm's
step-down correction over every p-value of every reading of the page,
:func:`dpbandits.multiplicity.holm`):

* ``supported``: the data are significantly on the claim's side of the margin (every component,
  an intersection-union test, so no correction is needed inside a reading), with its power;
* ``contradicted``: significantly the other way for at least one component (Bonferroni over the
  components inside the reading);
* ``could not fail``: supported by a test that could not have failed (a comparison with a
  stand-in that plays almost uniformly, or a test with no contradicting side);
* ``could not pass``: its mirror, contradicted where the algorithm the claim is about is, in our
  run, a degenerate stand-in (it plays almost uniformly); not counted as contradicted;
* ``inconclusive at this size``: neither, with the number of runs per curve that would decide it,
  estimated from the observed mean and spread (80% power at the Bonferroni level of the page);
* ``not testable``: the data or quantity is absent, named.

The claim's verdict is taken over its decided readings only (:func:`combine`), unless an undecided
reading's point estimate lies on the other side of the margin, and each claim and reading carries
the margin (or, for a word with no margin, the level) at which it would flip (:class:`Flip`).

The pieces a check works with have modules of their own: :mod:`~dpbandits.reproduce.cells`, the
simulated runs a check reads (:class:`Cells`), and :mod:`~dpbandits.reproduce.outcome`, the
one-sided tests it returns (:class:`Component`, :class:`Outcome`); both are importable from here.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, Sequence

import numpy as np

from .cells import Cells
from .outcome import POWER, Component, Outcome, all_of, any_of, component

__all__ = ["VERDICTS", "SUPPORTED", "CONTRADICTED", "DEPENDS", "INCONCLUSIVE", "NOT_TESTABLE",
           "COULD_NOT_FAIL", "COULD_NOT_PASS", "CLOSE", "Tested", "Page", "NEAR_MARGIN",
           "NEAR_LEVEL", "SEEDS",
           "ALPHA", "Cells", "Component", "Outcome", "Verdict", "ReadingVerdict", "judge",
           "combine", "component", "any_of", "all_of"]

SUPPORTED, CONTRADICTED, DEPENDS = "supported", "contradicted", "depends on reading"
INCONCLUSIVE, NOT_TESTABLE = "inconclusive at this size", "not testable"
COULD_NOT_FAIL, COULD_NOT_PASS = "could not fail", "could not pass"
VERDICTS = (SUPPORTED, CONTRADICTED, DEPENDS, INCONCLUSIVE, COULD_NOT_FAIL, COULD_NOT_PASS,
            NOT_TESTABLE)
DECIDED = (SUPPORTED, CONTRADICTED)
AGAINST = {SUPPORTED: "contradict", CONTRADICTED: "support"}
"""The lean (:attr:`~dpbandits.reproduce.outcome.Outcome.leans`) that points away from a verdict."""
CLOSE = 1.25
"""The closeness margin of the lexicon (:mod:`~dpbandits.reproduce.lexicon`, docs/lexicon.md):
two quantities are close when their ratio lies within [1/1.25, 1.25]; a supported reading's power
is stated against a truth beyond its margin by this factor."""
NEAR_MARGIN = 1.1
"""A verdict is near its flip point when the margin at which it flips is within this factor of
the word's margin (or, for a word with no margin, the level within a factor 2 of ``ALPHA``)."""
NEAR_LEVEL = 2.0
SEEDS = (0, 1, 2, 3, 4)
"""The seeds on which a verdict near its flip point is run again."""
ALPHA = 0.05
"""Family-wise error level of the claims of one page."""

Check = Callable[["Cells"], "Outcome"]


@dataclass(frozen=True)
class Tested:
    """One reading of a claim as the judge sees it: its outcome at the word's margin, the margin,
    and (for the flip point) the outcome at another margin."""

    reading: str
    outcome: Outcome
    margin: float | None = None
    at: Callable[[float], Outcome] | None = None
    low: float = 0.0
    """The smallest meaningful margin (see :attr:`~dpbandits.reproduce.experiment.Reading.low`)."""


@dataclass(frozen=True)
class Flip:
    """Where a verdict changes: the nearest margin below and above the word's at which it
    differs, with the verdict there (None: no change within a factor 1000 of the margin); for a
    word with no margin, the nearest family-wise level below and above ``alpha``."""

    kind: str                     # "margin" or "level"
    at: float | None
    below: float | None = None
    below_verdict: str = ""
    above: float | None = None
    above_verdict: str = ""
    contradicted: float | None = None
    """For a supported verdict: the nearest margin at which these runs would contradict it."""

    def near(self) -> bool:
        if self.kind == "none" or self.at is None:
            return False
        factor = NEAR_MARGIN if self.kind == "margin" else NEAR_LEVEL
        return ((self.below is not None and self.below * factor >= self.at)
                or (self.above is not None and self.above <= self.at * factor))

    def text(self) -> str:
        """'contradicted at a margin of 0.678 or below; supported at 2.21 or above' (the
        verdict at each side of the word's margin), or that nothing near it changes it."""
        if self.kind == "none":
            return ""
        name = "margin" if self.kind == "margin" else "family-wise level"
        parts = []
        if self.below is not None:
            parts.append(f"{self.below_verdict} at a {name} of {_g(self.below)} or below")
        if self.above is not None:
            parts.append(f"{self.above_verdict} at a {name} of {_g(self.above)} or above")
        if not parts:
            return f"the same at every {name} within a factor 1000 of {_g(self.at)}"
        return "; ".join(parts) + f" (the word's {name}: {_g(self.at)})"

    def to_dict(self) -> dict:
        return dict(kind=self.kind, at=self.at, below=self.below, below_verdict=self.below_verdict,
                    above=self.above, above_verdict=self.above_verdict,
                    contradicted=self.contradicted)


def _g(x: float) -> str:
    return f"{x:.4g}"


@dataclass(frozen=True)
class ReadingVerdict:
    """One reading's verdict, its test and numbers, and where it would flip."""

    reading: str
    verdict: str
    evidence: str
    test: str = ""
    p_support: float = 1.0
    p_contradict: float = 1.0
    margin: float | None = None
    flip: Flip | None = None
    power: str = ""
    """For a supported reading: how it could have failed (or why it could not)."""

    def to_dict(self) -> dict:
        return dict(reading=self.reading, verdict=self.verdict, test=self.test, margin=self.margin,
                    flip=self.flip.to_dict() if self.flip else None,
                    flip_text=self.flip.text() if self.flip else "", power=self.power,
                    evidence=self.evidence, p_support=self.p_support,
                    p_contradict=self.p_contradict)


@dataclass(frozen=True)
class Verdict:
    """A claim's verdict on one page (combined over its decided readings), with each reading's."""

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
    flip: Flip | None = None
    """Where the claim's verdict would change, all its readings moved to the same margin."""
    seeds: tuple[tuple[int, str], ...] = ()
    """(seed, verdict) on seeds 0-4 when the verdict is near its flip point (empty otherwise)."""


def combine(verdicts: Sequence[str], leans: Sequence[str] | None = None) -> str:
    """The claim's verdict over its **decided** readings (supported or contradicted): all support,
    ``supported``; all contradict, ``contradicted``; both, ``depends on reading``. An undecided
    (inconclusive) reading whose point estimate lies on the other side of the margin from the
    decided ones (``leans``, :attr:`~dpbandits.reproduce.outcome.Outcome.leans`) makes it
    ``inconclusive at this size``: what that reading would decide is not known, and it points
    the other way. None decided: ``inconclusive at this size`` when a reading was undecided (more
    runs could decide it), else ``could not fail`` or ``could not pass`` when a reading passed
    (failed) only a test that could not have failed (passed), else ``not testable``."""
    decided = {v for v in verdicts if v in DECIDED}
    if len(decided) == 1:
        (verdict,) = decided
        if any(v == INCONCLUSIVE and lean == AGAINST[verdict]
               for v, lean in zip(verdicts, leans or [""] * len(verdicts))):
            return INCONCLUSIVE
        return verdict
    if decided:
        return DEPENDS
    for verdict in (INCONCLUSIVE, COULD_NOT_FAIL, COULD_NOT_PASS):
        if verdict in verdicts:
            return verdict
    return NOT_TESTABLE


Readings = Sequence["tuple[str, Outcome] | Tested"]


def _reading_base(outcome: Outcome, support: bool, contradict: bool) -> str:
    if contradict:
        return COULD_NOT_PASS if outcome.stand_in else CONTRADICTED
    if support:
        return (COULD_NOT_FAIL if (outcome.cannot_fail or outcome.stand_in or not outcome.contradict)
                else SUPPORTED)
    return INCONCLUSIVE


class Page:
    """The claims of one page judged together: Holm's correction over the supporting and
    contradicting p-values of every testable reading of every claim (2m hypotheses for m
    readings) at family-wise level ``alpha``; verdicts, flip points, and a claim re-judged with
    other outcomes (another seed's), every other test of the page as it was."""

    def __init__(self, claims: Sequence[tuple[str, Readings]], alpha: float = ALPHA):
        self.alpha = alpha
        self.claims = [(text, [r if isinstance(r, Tested) else Tested(r[0], r[1]) for r in readings])
                       for text, readings in claims]
        self.slots: dict[tuple[int, int], int] = {}
        p = []
        for i, (_, readings) in enumerate(self.claims):
            for j, r in enumerate(readings):
                if r.outcome.testable:
                    self.slots[(i, j)] = len(p)
                    p += [r.outcome.p_support, r.outcome.p_contradict]
        self.p = np.array(p, dtype=float)

    @property
    def m(self) -> int:
        return max(len(self.p), 1)

    def _verdicts(self, p: np.ndarray, i: int, outcomes: Sequence[Outcome], alpha: float) -> list[str]:
        from ..multiplicity import holm

        rejected = holm(p, alpha) if len(p) else []
        out = []
        for j, o in enumerate(outcomes):
            if not o.testable:
                out.append(NOT_TESTABLE)
            else:
                k = self.slots[(i, j)]
                out.append(_reading_base(o, rejected[k], rejected[k + 1]))
        return out

    def _with(self, i: int, outcomes: Sequence[Outcome], only: int | None = None) -> np.ndarray:
        p = self.p.copy()
        for j, o in enumerate(outcomes):
            if (i, j) in self.slots and (only is None or only == j):
                k = self.slots[(i, j)]
                p[k], p[k + 1] = o.p_support, o.p_contradict
        return p

    def verdict_with(self, i: int, outcomes: Sequence[Outcome]) -> str:
        """Claim ``i``'s verdict were its readings' outcomes ``outcomes``."""
        return _combined(self._verdicts(self._with(i, outcomes), i, outcomes, self.alpha), outcomes)

    def verdicts(self) -> list[Verdict]:
        return [self._claim(i) for i in range(len(self.claims))]

    def _claim(self, i: int) -> Verdict:
        text, readings = self.claims[i]
        outcomes = [r.outcome for r in readings]
        base = self._verdicts(self.p, i, outcomes, self.alpha)
        judged = []
        for j, (r, v) in enumerate(zip(readings, base)):
            flip = self._flip(i, [j], base[j], lambda vs, os, j=j: vs[j])
            judged.append(self._reading(r, v, flip))
        claim_flip = self._flip(i, range(len(readings)), _combined(base, outcomes), _combined)
        verdict = _combined([r.verdict for r in judged], outcomes)
        return _claim_verdict(text, verdict, judged, claim_flip, [o.leans for o in outcomes])

    def _flip(self, i: int, which, verdict: str, read) -> Flip:
        """The nearest margins (or levels) below and above at which ``read`` of the claim's
        reading verdicts differs from ``verdict``, moving the readings ``which`` together."""
        _, readings = self.claims[i]
        chosen = [readings[j] for j in which if readings[j].outcome.testable]
        if not chosen or verdict == NOT_TESTABLE:
            return Flip("none", None)
        if all(r.at is not None and r.margin is not None for r in chosen):
            margin = chosen[0].margin

            def at(m: float) -> str:
                outcomes = [r.at(m) if j in which and r.at is not None and r.outcome.testable
                            else r.outcome for j, r in enumerate(readings)]
                p = self._with(i, outcomes)
                return read(self._verdicts(p, i, outcomes, self.alpha), outcomes)
            return _search("margin", margin, at, verdict, 1000.0,
                           bottom=max(r.low for r in chosen) or None)
        outcomes = [r.outcome for r in readings]
        return _search("level", self.alpha,
                       lambda a: read(self._verdicts(self.p, i, outcomes, a), outcomes), verdict, 1000.0,
                       top=0.5)

    def _reading(self, r: Tested, verdict: str, flip: Flip) -> ReadingVerdict:
        o = r.outcome
        if verdict == NOT_TESTABLE:
            return ReadingVerdict(r.reading, verdict, o.reason, o.test, margin=r.margin)
        evidence = o.evidence + (f" (p = {_p(o.p_support)} for the claim's direction, "
                                 f"{_p(o.p_contradict)} against it; Holm over {self.m} p-values "
                                 f"at level {self.alpha:g})")
        power = ""
        if verdict == INCONCLUSIVE:
            evidence += "; " + (o.note or _runs_needed(o, self.alpha / self.m))
        elif verdict == COULD_NOT_FAIL:
            power = "could not fail: " + (o.stand_in or o.cannot_fail or "the test has no "
                                          "contradicting side")
        elif verdict == COULD_NOT_PASS:
            power = "could not pass: " + o.stand_in
        elif verdict == SUPPORTED:
            power = _power(o, flip, self.alpha / self.m)
        return ReadingVerdict(r.reading, verdict, evidence, o.test, o.p_support, o.p_contradict,
                              r.margin, flip, power)


def _edge(start: float, at: Callable[[float], str], hit: Callable[[str], bool], direction: int,
          span: float, top: float | None, bottom: float | None) -> float | None:
    """The value nearest ``start`` in ``direction`` (geometric steps up to a factor ``span``,
    then bisection on the log scale to 3 significant digits) at which ``hit(at(x))``."""
    near, far, step = start, None, 2.0
    while step <= span:
        x = start * step if direction > 0 else start / step
        if top is not None:
            x = min(x, top)
        if bottom is not None:
            x = max(x, bottom)
        if x == near:
            break
        if hit(at(x)):
            far = x
            break
        near = x
        step *= 2
    if far is None:
        return None
    for _ in range(14):
        mid = math.sqrt(near * far)
        if hit(at(mid)):
            far = mid
        else:
            near = mid
        if abs(math.log(far / near)) < 1e-3:
            break
    return far


def _search(kind: str, start: float, at: Callable[[float], str], verdict: str, span: float,
            top: float | None = None, bottom: float | None = None) -> Flip:
    """Nearest values below and above ``start`` at which ``at`` differs from ``verdict``; for a
    supported verdict also the nearest at which it is contradicted."""
    changed = lambda v: v != verdict
    below = _edge(start, at, changed, -1, span, top, bottom)
    above = _edge(start, at, changed, 1, span, top, bottom)
    contradicted = None
    if verdict == SUPPORTED and kind == "margin":
        hits = [x for x in (_edge(start, at, lambda v: v == CONTRADICTED, d, span, top, bottom)
                            for d, edge in ((-1, below), (1, above)) if edge is not None)
                if x is not None]
        contradicted = min(hits, key=lambda x: abs(math.log(x / start)), default=None)
    return Flip(kind, start, below, at(below) if below is not None else "",
                above, at(above) if above is not None else "", contradicted)


def _power(o: Outcome, flip: Flip, level: float) -> str:
    """How a supported reading could have failed: the margin at which these runs would contradict
    it, and the power against a claim false by the closeness margin (normal approximation from
    the distance between the support and contradiction flips)."""
    from scipy.stats import norm

    exact = o.exact
    if flip.kind == "margin":
        nearest = flip.contradicted
        if nearest is None:
            return ("low power: no margin within a factor 1000 of the word's makes these runs "
                    "contradict it (their spread is wide beside the distance from the margin)")
        if exact:
            return (f"decided exactly on the observed runs; these runs contradict it at a margin "
                    f"of {_g(nearest)}")
        support_edge = flip.below if flip.below is not None else flip.above
        z = norm.ppf(1 - level)
        width = abs(math.log(nearest / (support_edge if support_edge is not None else flip.at)))
        power = float(norm.cdf(z * (2 * math.log(CLOSE) / max(width, 1e-12)) - z))
        return (f"about {power:.0%} to contradict it were the truth beyond the margin by the "
                f"closeness factor 1.25 (normal approximation from the distance between the "
                f"margins at which it stops being supported, {_g(support_edge or flip.at)}, and "
                f"is contradicted, {_g(nearest)})")
    if exact:
        return "decided exactly on the observed runs"
    t = float(norm.isf(max(min(o.p_support, 1 - 1e-16), 1e-300)))
    z = norm.ppf(1 - level)
    return (f"about {float(norm.cdf(t - z)):.0%} to contradict it were the true effect the "
            f"mirror image of the observed one (normal approximation, level {level:.2g})")


def judge(claims: Sequence[tuple[str, str, Outcome] | tuple[str, Readings]],
          alpha: float = ALPHA) -> list[Verdict]:
    """Verdicts for one page's claims at family-wise level ``alpha``. Each claim is ``(text,
    reading, outcome)`` or ``(text, [(reading, outcome) or Tested, ...])`` (see :class:`Page`)."""
    claims = [(c[0], [(c[1], c[2])]) if len(c) == 3 else (c[0], list(c[1])) for c in claims]
    return Page(claims, alpha).verdicts()


def _combined(verdicts: Sequence[str], outcomes: Sequence[Outcome]) -> str:
    """:func:`combine` with each reading's lean (its outcome's point estimates)."""
    return combine(verdicts, [o.leans if o.testable else "" for o in outcomes])


def _claim_verdict(text: str, verdict: str, judged: list[ReadingVerdict], flip: Flip,
                   leans: Sequence[str] = ()) -> Verdict:
    if len(judged) == 1:
        r = judged[0]
        return Verdict(text, verdict, r.evidence, r.test, r.reading, r.p_support, r.p_contradict,
                       tuple(judged), flip=flip)
    if verdict == NOT_TESTABLE:
        evidence = " | ".join(f"{r.reading}: {r.evidence}" for r in judged)
    else:
        evidence = "; ".join(f"{r.verdict} under '{r.reading}'" for r in judged)
        undecided = [r.reading for r in judged if r.verdict not in DECIDED]
        if verdict in DECIDED and undecided:
            evidence += ("; undecided, so not counted: " + "; ".join(f"'{u}'" for u in undecided))
        decided = {r.verdict for r in judged if r.verdict in DECIDED}
        if verdict == INCONCLUSIVE and len(decided) == 1:
            (way,) = decided
            pointing = [r.reading for r, lean in zip(judged, leans)
                        if r.verdict == INCONCLUSIVE and lean == AGAINST[way]]
            evidence += (f"; {way} where decided, but the point estimate of "
                         + "; ".join(f"'{u}'" for u in pointing)
                         + f" lies on the other side of the margin (undecided): not {way} alone")
    return Verdict(text, verdict, evidence, "; ".join(dict.fromkeys(r.test for r in judged if r.test)),
                   "; ".join(r.reading for r in judged),
                   min(r.p_support for r in judged), min(r.p_contradict for r in judged),
                   tuple(judged), flip=flip)


def _runs_needed(outcome: Outcome, level: float) -> str:
    runs = outcome.runs_to_decide(level)
    if math.isinf(runs):
        return ("no number of runs at this horizon is estimated to decide it: the observed "
                "difference is zero or sits on the claim's boundary")
    return (f"about {int(runs):,} runs per curve would decide it (from the observed means and "
            f"spread, {POWER:.0%} power)")


def _p(p: float) -> str:
    return f"{p:.2g}" if p >= 1e-4 else "< 1e-4"
