"""The test sample of an audit against ALGO: sized from its power need, read in looks.

Kinds: exact (the looks' sizes, the stop at a decided verdict), oracle (the power of the sized
sample against simulated binomial counts), statistical (fixed seeds; each docstring states the
rate it guards), slow (the false alarms of the sequential test over 200 audits).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from dpbandits.audit import Pair, Stream, event_audit
from dpbandits.audit.confidence import detectable_loss, epsilon_lower_bound, runs_for_power
from dpbandits.audit.sequential import SamplePlan
from dpbandits.audit.toys import LaplaceMechanism
from dpbandits.reference.privacy import Guarantee

PAIR = Pair(Stream(np.array([1.0])), Stream(np.array([0.0])), 1, "X = 1 vs 0")


@pytest.mark.exact
def test_the_looks_double_up_to_the_planned_size():
    assert SamplePlan().sizes(1000) == [250, 500, 1000]
    assert SamplePlan().sizes(1001) == [251, 501, 1001]
    assert SamplePlan(looks=1).sizes(700) == [700]
    assert SamplePlan().sizes(2) == [1, 2]           # sizes below 1 collapse into one look
    # below the most allowed, the last look is the most allowed
    assert SamplePlan().sizes(1000, 10_000) == [500, 1000, 10_000]
    assert SamplePlan().sizes(1000, 1000) == [250, 500, 1000]
    assert SamplePlan(looks=1).sizes(700, 10_000) == [700]


@pytest.mark.oracle
@pytest.mark.statistical
@pytest.mark.parametrize("p_big, claim, loss", [(0.5, 1.0, 2.0), (0.1, 1.0, 2.0),
                                                (0.3, 0.5, 1.0)])
def test_the_sized_sample_has_the_stated_power(p_big, claim, loss):
    """At the size runs_for_power returns, simulated counts (2000 pairs of binomial draws, seed
    0) give a bound above the claim in at least 0.77 of them: the size guarantees 0.8 exactly,
    and a rate of 0.8 falls below 0.77 in 2000 draws with probability < 1e-3 (guards a size
    that misses its power). At that size detectable_loss is at most the loss it was sized for."""
    m = 3
    n = runs_for_power(p_big, claim, loss, alpha=0.05, m=m)
    assert n is not None and n > 16
    rng = np.random.default_rng(0)
    big = rng.binomial(n, p_big, 2000)
    small = rng.binomial(n, p_big * math.exp(-loss), 2000)
    caught = np.mean([epsilon_lower_bound(b, n, s, n, 0.05, m) > claim
                      for b, s in zip(big, small)])
    assert caught >= 0.77, (n, caught)
    assert detectable_loss(p_big, n, claim, 0.05, m) <= loss * 1.01
    assert runs_for_power(p_big, claim, claim) is None          # no violation to detect


class _Claimed(LaplaceMechanism):
    """The Laplace mechanism at ``epsilon`` presented with the claim ``claim``."""

    def __init__(self, epsilon: float, claim: float) -> None:
        super().__init__(epsilon)
        self.claimed = Guarantee(claim)


@pytest.mark.statistical
def test_a_gross_violation_stops_at_the_first_look():
    """Loss 4 against a claim of 1 (seed 0): the first look's bound at level alpha/3 exceeds the
    claim (it did by far at this seed; guards a test that reads the whole planned sample, or one
    that stops without stating where)."""
    result = event_audit(_Claimed(4.0, 1.0), [PAIR], n_selection=2000, n_test=10_000,
                         seed=0, plan=SamplePlan())
    assert result.verdict == "violation" and result.hypotheses == 3
    planned = result.counts["planned_n_test"]
    assert planned < 10_000                  # so the looks are planned/2, planned, then 10 000
    assert result.counts["look"] == 1 and result.n_test == -(-planned // 2)
    assert "stopped at look 1" in result.notes[0] and "exceeds the claim" in result.notes[0]


@pytest.mark.statistical
def test_no_violation_with_the_event_stops_early_and_says_so():
    """Loss 0.5 against a claim of 4 (seed 0): the first look's upper confidence bound on the
    event's loss is already below the claim, so the test stops there, consistent (guards a stop
    rule that never decides for the claim)."""
    result = event_audit(_Claimed(0.5, 4.0), [PAIR], n_selection=2000, n_test=10_000,
                         seed=0, plan=SamplePlan())
    assert result.verdict == "consistent" and result.counts["look"] == 1
    assert "no violation with it" in result.notes[0]


@pytest.mark.smoke
def test_the_note_states_the_power_need_and_the_cap():
    """A cap below the power need: the note gives the loss the cap detects."""
    result = event_audit(LaplaceMechanism(1.0), [PAIR], n_selection=2000, n_test=100, seed=0,
                         plan=SamplePlan())
    note = result.notes[0]
    assert result.n_test <= 100 and "the most allowed, below the power need" in note
    assert "is detected with probability 0.8" in note or "not detectable" in note


@pytest.mark.statistical
@pytest.mark.slow
def test_the_sequential_test_keeps_its_level():
    """The tight Laplace mechanism (loss = claim = 1) audited 200 times (seeds 0..199) with the
    sample sized and read in looks: at most 20 false violations. A level-0.05 audit exceeds 20
    with probability < 0.002, whatever look each stops at (Bonferroni over the looks); guards
    a stopping rule that spends more than alpha."""
    limit = int(stats.binom.ppf(1 - 0.002, 200, 0.05))
    alarms = sum(event_audit(LaplaceMechanism(1.0), [PAIR], n_selection=2000, n_test=10_000,
                             seed=seed, plan=SamplePlan()).verdict == "violation"
                 for seed in range(200))
    print(f"laplace-mechanism[eps=1], sequential: {alarms} false alarms in 200 audits")
    assert alarms <= limit
