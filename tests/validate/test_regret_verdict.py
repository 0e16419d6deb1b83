"""validate's regret verdict reads the regret checks by their one rule (dpbandits.bounds.check):
violated, else inconclusive at this size, else respected, else vacuous at this size, else not
applicable; the summary says how many runs would decide an inconclusive check, and never says a
bound holds.

Kinds: exact (hand-made regret curves against a toy bound t / 10).
"""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

from dpbandits.bounds import Bound, RegretCurve, check_regret
from dpbandits.bounds.core import T
from dpbandits.validate.stages import Setup
from dpbandits.validate.summary import Validation

TOY = Bound("toy.linear", "toy", "test", "upper", "R(T)", "paper", rest=T / 10,
            condition=sp.Ge(T, 10))


def _check(mean_at_20: float, scale: float, **kw):
    """Four runs at (0.5 +- 0.1, mean_at_20 +- scale) at t = (10, 20); the bound is (1, 2)."""
    spread = np.array([-1.0, 1.0, -1.0, 1.0])[:, None] * np.array([0.1, scale])[None, :]
    curve = RegretCurve.from_runs([10, 20], np.array([0.5, mean_at_20])[None, :] + spread)
    return check_regret(curve, TOY, **kw)


def _validation(*checks) -> Validation:
    setup = Setup(algorithm="ucb1", variant=None, epsilon=None, candidate="c", K=2, T=20,
                  runs=4, seed=0, alpha=0.05, power=0.8, means=[0.9, 0.6])
    return Validation(setup=setup, comparisons=[],
                      regret_checks=[{"bound": f"toy.{i}", "candidate": c, "reference": c}
                                     for i, c in enumerate(checks)])


@pytest.mark.exact
def test_validate_reads_the_checks_by_their_rule():
    respected = _check(1.0, 0.1)                    # band about [0.8, 1.2], bound 2
    inconclusive = _check(2.5, 1.0)                 # mean above 2, band [-0.87, 5.87]
    violated = _check(3.0, 0.1)
    vacuous = _check(1.0, 0.1, largest_gap=0.05)    # t / 10 >= 0.05 t everywhere
    assert [c.verdict for c in (respected, inconclusive, violated, vacuous)] == [
        "respected", "inconclusive at this size", "violated", "vacuous at this size"]
    assert _validation(respected, inconclusive, violated).regret == "violated"
    assert _validation(respected, inconclusive, vacuous).regret == "inconclusive at this size"
    assert _validation(vacuous, respected).regret == "respected"
    assert _validation(vacuous).regret == "vacuous at this size"
    undecided = _validation(respected, inconclusive)
    assert undecided.regret == "inconclusive at this size" and undecided.ok
    summary = undecided.summary()
    assert "regret: INCONCLUSIVE AT THIS SIZE" in summary
    assert f"about {inconclusive.runs_needed} runs would decide every one" in summary
    assert "holds" not in summary
