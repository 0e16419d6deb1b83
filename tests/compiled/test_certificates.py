"""Statistical: every kernel conforms to its reference under ``validate``; planted bugs differ.

Each certificate runs ``validate`` with the compiled kernel as the candidate and the reference
algorithm (reference backend) as ALGO, T = 500, 100 runs per sample, on the fixed and the fresh
samples. The family-wise level is split over the certificates of this module (Bonferroni, 0.05
in all), so with every kernel exact the chance that this fixed seed shows any false 'differs' is
at most 5%; the planted deviations must be found at the same level.
"""

from __future__ import annotations

import pytest

from dpbandits.validate.certify import certified, certify, planted

pytestmark = pytest.mark.statistical

CERTIFIED = certified()
ALPHA = 0.05 / len(CERTIFIED)
SIZE = dict(horizon=500, runs=100, seed=2024)


@pytest.mark.parametrize("name, variant", CERTIFIED, ids=[f"{n}-{v or 'default'}" for n, v in CERTIFIED])
def test_kernel_conforms_to_its_reference(name, variant):
    result = certify(name, variant=variant, alpha=ALPHA, **SIZE)
    assert result.behaviour == "conforms", result.summary()
    assert all(c.detectable < 0.5 for c in result.comparisons if c.quantity != "action")


@pytest.mark.parametrize("name, overrides", [
    ("anytime-lazy-ucb", {"epsilon": 4.0}),       # noise and radius at 4 times the epsilon
    ("ucb1", {"random_ties": 1}),                  # random initial order and ties
])
def test_planted_deviation_differs(name, overrides):
    candidate = planted(name, overrides, horizon=SIZE["horizon"])
    result = certify(name, candidate=candidate, alpha=ALPHA, **SIZE)
    assert result.behaviour == "differs", result.summary()
