"""False alarms: how often the audit refutes a claim that holds, over 200 repeated audits.

Kinds: statistical, slow. Each audit is a level-0.05 test of the claim; over 200 independent
audits (seeds 0..199) of mechanisms whose claim holds, the number of violations is at most
Binomial(200, 0.05) in distribution, and P(more than 20) < 0.002 under that law: the tests fail
with probability below 0.002 when the audit's level holds, and guard a false-alarm rate above
about 0.1. The counts are quoted on docs/audit-design.md.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from dpbandits.audit import Pair, Stream, audit_algorithm, event_audit
from dpbandits.audit.toys import LaplaceMechanism

AUDITS = 200
LIMIT = int(stats.binom.ppf(1 - 0.002, AUDITS, 0.05))     # 20


@pytest.mark.statistical
@pytest.mark.slow
def test_tight_laplace_mechanism_false_alarms():
    """The Laplace mechanism at eps = 1, claim 1: the tightest case (its loss equals the claim)."""
    mechanism = LaplaceMechanism(1.0)
    pair = Pair(Stream(np.array([1.0])), Stream(np.array([0.0])), 1, "X = 1 vs 0")
    alarms = sum(event_audit(mechanism, [pair], n_selection=2_000, n_test=10_000, alpha=0.05,
                             seed=seed).verdict == "violation" for seed in range(AUDITS))
    print(f"laplace-mechanism[eps=1]: {alarms} false alarms in {AUDITS} audits")
    assert alarms <= LIMIT


@pytest.mark.statistical
@pytest.mark.slow
@pytest.mark.parametrize("name, variant", [
    # DP-UCB, corrected variant (eps-DP), on its designed pairs
    ("dp-ucb", "corrected"),
    # Anytime-Lazy-UCB (eps-DP) on its designed pairs: a tight case, whose bound at 50 000 runs
    # comes within 0.1 of the claim (docs/audit-design.md)
    ("anytime-lazy-ucb", None),
])
def test_designed_audit_false_alarms(name, variant):
    """A true claim audited on its designed pairs at 2000 test runs per side, 200 times."""
    alarms = sum(audit_algorithm(name, variant=variant, samples=2_000,
                                 seed=seed).verdict == "violation" for seed in range(AUDITS))
    print(f"{name}{f'[{variant}]' if variant else ''}: {alarms} false alarms in {AUDITS} audits")
    assert alarms <= LIMIT
