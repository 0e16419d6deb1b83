"""The test stage: the chosen event counted on a fresh test sample, sized from its power need
and read in looks (:class:`SamplePlan`), or drawn at once at a fixed size
(:func:`draw_test_scores`)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from .confidence import epsilon_lower_bound
from .drawing import drawn_together
from .mechanism import Mechanism
from .pairs import Pair
from .scores import Event, action_features, orient, reads_outputs

__all__ = ["SamplePlan", "Tested", "draw_test_scores", "sequential_test", "score_chunk"]


def score_chunk(event: Event, outputs: np.ndarray, step: int, K: int) -> np.ndarray:
    """The event's score on some outputs (the features computed here where it reads them)."""
    if reads_outputs(event.score_name):
        return event.score(outputs)
    return event.score(action_features(outputs, step, K))


@dataclass(frozen=True, kw_only=True)
class Tested:
    """The test stage's result: the chosen event's scores on the test sample of each table
    (``scores0`` on D0, ``scores1`` on D1, as many runs each), the hypotheses its bound is
    corrected for (the looks; 1 at a fixed size), the notes for the result and the facts for
    its counts (the looks, the planned, largest and power-need sizes)."""

    scores0: np.ndarray
    scores1: np.ndarray
    hypotheses: int = 1
    notes: tuple[str, ...] = ()
    facts: dict = field(default_factory=dict)

    @property
    def n(self) -> int:
        """Test runs per side."""
        return len(self.scores0)

    def counts(self, event: Event) -> tuple[int, int]:
        """The runs of each table's test sample in the event."""
        return int(event.member(self.scores0).sum()), int(event.member(self.scores1).sum())


def draw_test_scores(mechanism: Mechanism, event: Event, pair: Pair, n_test: int,
                 seeds: tuple[int, int], workers: Any) -> tuple[np.ndarray, np.ndarray]:
    """Step 2: the chosen event's scores on a fresh test sample of n_test runs a side, scored in
    pieces on ``workers`` (each run's score depends on that run only)."""
    scores = []
    both = drawn_together(mechanism, [(pair.D0, n_test, None), (pair.D1, n_test, None)],
                           list(seeds))
    for outputs in both:
        pieces = np.array_split(outputs, workers.count) if workers.count > 1 else [outputs]
        jobs = [(event, piece, pair.step, mechanism.K) for piece in pieces]
        scores.append(np.concatenate(workers.map(score_chunk, jobs)))
    return scores[0], scores[1]


@dataclass(frozen=True)
class SamplePlan:
    """How the test sample is sized from its power need and read in looks (a sequential test).

    **Size.** The test sample is sized, before it is drawn, for the chosen event: the runs per
    side at which an event as frequent as the chosen one (its frequency on the table where it is
    more likely, in the selection sample's second half) with a privacy loss of ``violation``
    times the claimed epsilon would give a bound above the claim with probability at least
    ``power`` at the last look (:func:`~dpbandits.audit.confidence.runs_for_power`: exact
    binomial quantiles, no normal approximation). That size is kept within [``floor``, the
    caller's ``n_test``]; the caller's size is the most the audit draws. The selection sample is
    independent of the test sample, so a size chosen from it is fixed before the test sample
    exists.

    **Looks.** The planned sample is drawn in ``looks`` pieces, each look doubling the runs per
    side (n/4, n/2, n for three looks), and the same event is counted at each. Where the planned
    size is below the caller's, the last look is the caller's size instead (n/2, n, then the
    most allowed): a loss below ``violation`` times the claim, which the planned size finds with
    less than the stated power, is still read on the whole sample the caller allows when the
    earlier looks left the verdict undecided (a Lazy-UCB that does not forget its history, a
    loss of about 1.6 x the claim, stopped undecided at 1200 to 1700 runs per side in 4 of 10
    seeds with the planned size as the last look). Each look's
    Clopper-Pearson bound is taken at level alpha / looks (Bonferroni over the looks), so with
    probability at least 1 - alpha *every* look's bound is below the true epsilon: the bound
    reported, at whichever look the test stops and for any stopping rule, holds at confidence
    1 - alpha. The test stops early when the verdict is decided: a violation (the look's bound
    exceeds the claim), or no violation with this event (the look's upper confidence bound on
    the event's loss, at the same level, is at most the claim: more runs would only narrow the
    interval around a loss below the claim). A stop for the second reason cannot make a false
    violation more likely; it can miss a true one with probability at most alpha / looks.
    """

    looks: int = 3
    violation: float = 2.0
    """The loss the sample is sized to detect, as a multiple of the claim: 2, the loss of the
    printed variants in docs/errata.md (report-noisy-max under whole-vector change, the hybrid
    counters' item 3)."""
    power: float = 0.8
    floor: int = 1000

    def sizes(self, n: int, most: int | None = None) -> list[int]:
        """The cumulative runs per side at each look: halving back from n, at least 1 each; with
        ``most`` above n (and two looks or more), the last look is ``most`` and the others halve
        back from n."""
        if most is None or most <= n or self.looks < 2:
            return sorted({max(1, -(-n // 2 ** (self.looks - 1 - look)))
                           for look in range(self.looks)})
        return sorted({max(1, -(-n // 2 ** (self.looks - 2 - look)))
                       for look in range(self.looks - 1)} | {most})


def _planned_size(plan: SamplePlan, event: Event, n_max: int, alpha: float,
                  claimed_eps: float | None, claimed_delta: float) -> tuple[int, int | None, str]:
    """The planned test sample (runs per side), the power need, and the sentence that says why."""
    from .confidence import detectable_loss, runs_for_power

    if claimed_eps is None:
        return n_max, None, f"{n_max} runs per side (no claim to size the sample against)"
    loss = plan.violation * claimed_eps
    frequency = event.selection_frequency
    need = runs_for_power(frequency, claimed_eps, loss, alpha, plan.looks, plan.power,
                          claimed_delta) if frequency > 0 else None
    floor = min(plan.floor, n_max)
    planned = n_max if need is None else min(n_max, max(floor, need))
    if frequency <= 0:
        why = (f"{planned} runs per side, the most allowed: the selection sample found no event "
               f"with a positive bound to size the sample from")
        return planned, need, why
    design = (f"an event as frequent as the chosen one (p = {frequency:.3g} on the table where "
              f"it is more likely, selection estimate) with a loss of {plan.violation:g} x the "
              f"claim ({loss:g})")
    if need is not None and need <= n_max:
        why = (f"{planned} runs per side from the power need: {design} gives a bound above the "
               f"claim with probability >= {plan.power:g} at {need} runs per side"
               + (f" (raised to the floor of {floor})" if need < floor else ""))
    else:
        at_cap = detectable_loss(frequency, n_max, claimed_eps, alpha, plan.looks, plan.power,
                                 claimed_delta)
        why = (f"{planned} runs per side, the most allowed, below the power need of {design} "
               f"({'more than 1e8' if need is None else need} runs per side); at {planned} a "
               + (f"loss of {at_cap:.3g} is detected with probability {plan.power:g}"
                  if math.isfinite(at_cap) else "violation by an event this rare is not "
                  "detectable at any loss"))
    return planned, need, why


def _detectable(event: Event, n: int, alpha: float, looks: int, plan: SamplePlan,
                claimed_eps: float, claimed_delta: float) -> str:
    """The smallest loss an event as frequent as ``event`` shows above the claim with the
    plan's power at ``n`` runs per side, in words."""
    from .confidence import detectable_loss

    loss = detectable_loss(event.selection_frequency, n, claimed_eps, alpha, looks, plan.power,
                           claimed_delta)
    return f"{loss:.3g}" if math.isfinite(loss) else "no size (an event this rare)"


def sequential_test(mechanism: Mechanism, event: Event, pair: Pair, plan: SamplePlan,
                     n_max: int, alpha: float, claimed_eps: float | None, claimed_delta: float,
                     seeds: tuple[int, int], workers: Any,
                     progress: Callable[[str], None] | None) -> Tested:
    """Step 2 in looks (:class:`SamplePlan`): the event's scores on both tables, drawn look by
    look until the verdict is decided or the planned sample is spent: the scores of every run
    drawn, with the looks as the hypotheses, the sentence that says how the sample was sized and
    where it stopped, and the facts for the result's counts."""
    from .confidence import clopper_pearson_lower, clopper_pearson_upper

    planned, need, why = _planned_size(plan, event, n_max, alpha, claimed_eps, claimed_delta)
    sizes = plan.sizes(planned, n_max if claimed_eps is not None else None)
    looks = len(sizes)
    side_seeds = [np.random.SeedSequence(seed).spawn(looks) for seed in seeds]
    scores0, scores1 = [], []
    drawn, bound, stopped = 0, 0.0, "the planned sample was spent"
    for look, size in enumerate(sizes):
        if progress:
            progress(f"test: look {look + 1} of {looks}, {size} runs per side")
        look_seeds = tuple(int(side[look].generate_state(1)[0]) for side in side_seeds)
        s0, s1 = draw_test_scores(mechanism, event, pair, size - drawn, look_seeds, workers)
        scores0.append(s0)
        scores1.append(s1)
        drawn = size
        k0 = int(sum(event.member(s).sum() for s in scores0))
        k1 = int(sum(event.member(s).sum() for s in scores1))
        kb, nb, ks, ns = orient(k0, k1, drawn, drawn, event.upper)
        bound = epsilon_lower_bound(kb, nb, ks, ns, alpha, looks, claimed_delta)
        if claimed_eps is None:
            continue
        if bound > claimed_eps * (1 + 1e-9):
            stopped = f"the bound {bound:.3f} exceeds the claim {claimed_eps:g}"
            break
        a = alpha / (2 * looks)
        big_hi, small_lo = clopper_pearson_upper(kb, nb, a), clopper_pearson_lower(ks, ns, a)
        if look < looks - 1 and small_lo > 0 and big_hi - claimed_delta <= small_lo * math.exp(claimed_eps):
            upper = math.log(max(big_hi - claimed_delta, 1e-300) / small_lo)
            stopped = (f"the event's loss is at most {upper:.3f} <= the claim {claimed_eps:g} "
                       f"(upper confidence bound at the same level): no violation with it")
            break
    if sizes[-1] > planned:
        why += (f"; the last look at the most allowed, {sizes[-1]}, where a loss of "
                f"{_detectable(event, sizes[-1], alpha, looks, plan, claimed_eps, claimed_delta)} "
                f"is detected with probability {plan.power:g}")
    note = (f"test sample: {why}; sequential: {looks} looks at {', '.join(map(str, sizes))} runs "
            f"per side, Clopper-Pearson at level alpha/{looks} at each (Bonferroni over the "
            f"looks: the bound holds at {100 * (1 - alpha):g}% at whichever look the test "
            f"stops); stopped at look {sizes.index(drawn) + 1} ({drawn} runs per side): {stopped}")
    facts = {"looks": looks, "look": sizes.index(drawn) + 1, "planned_n_test": planned,
             "max_n_test": n_max, "power_n_test": need}
    return Tested(scores0=np.concatenate(scores0), scores1=np.concatenate(scores1),
                  hypotheses=looks, notes=(note,), facts=facts)

