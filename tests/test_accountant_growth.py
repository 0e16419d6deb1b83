"""State that grows at the user's size: Hybrid-UCB's p-sum arrays gain tree levels as the round
grows (docs/accountant.md#proof-at-your-size). The dependence analysis accepts a growth by
zeros at the end of the level axis (every (run, arm) slot keeps its values and forms at the same
indices) and names any other reshape: Hybrid-UCB is a proof at K = 2, T = 300 with the bounds of
its two variants (1 and 1.5, docs/errata.md#hhm-hybrid-tree), and a planted growth that fills
the new levels with a copy of the first is not a proof, with the reshape named.

Kinds: exact (deterministic traces: fixed seeds; the linear forms are exact).
"""

from __future__ import annotations

import numpy as np
import pytest

from dpbandits.accountant import PROOF, traced_upper
from dpbandits.reference.bandit.hybrid_ucb import HybridUCB


class GrowsByCopies(HybridUCB):
    """The new levels hold a copy of level 0 (a reward-derived p-sum) instead of zeros."""

    def _make_room(self, levels: int) -> None:
        have = self.alpha.shape[-1]
        if levels > have:
            extra = np.repeat(self.alpha[..., :1], levels - have, axis=-1)
            self.alpha = np.concatenate([self.alpha, extra], axis=-1)
            self.alpha_hat = np.concatenate([self.alpha_hat, np.zeros_like(extra)], axis=-1)


@pytest.mark.exact
@pytest.mark.parametrize("variant, eps", [("corrected", 1.0), ("paper", 1.5)])
def test_hybrid_ucb_growing_by_zeros_is_a_proof_at_its_size(variant, eps):
    bound = traced_upper("hybrid-ucb", variant=variant, K=2, T=300)
    assert bound.status == PROOF and bound.epsilon == pytest.approx(eps), bound.findings
    assert "every action sequence" in bound.scope


@pytest.mark.exact
def test_a_growth_by_copies_is_named_and_is_not_a_proof():
    bound = traced_upper("hybrid-ucb", variant="corrected", K=2, T=300,
                         policy_class=GrowsByCopies)
    assert bound.status != PROOF
    assert any("reshapes self.alpha" in f for f in bound.findings), bound.findings
