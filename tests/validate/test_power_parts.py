"""Power that isolates: planted variants change one part at a time, parameters the user set are
probed at their other values, and a candidate that mixes parts (DP-UCB-BOUND with the paper's
bonus and the corrected noise) is either told apart or named by the power line.

Kinds: exact (what each planted variant changes), statistical (slow: fixed seeds; a candidate
with the reference's law is rejected with probability at most alpha = 0.05).
"""

from __future__ import annotations

import numpy as np
import pytest

from dpbandits.audit.mechanism import Mechanism, RegistryMechanism
from dpbandits.reference import get, make, simulate
from dpbandits.validate import validate
from dpbandits.validate.power import _Planted, plants


def _part(name: str) -> tuple[tuple[str, float], ...]:
    return next(tuple(sorted(scales.items()))
                for part, scales in get("dp-ucb-bound").planted_parts.values() if part == name)


class _Factory:
    def __call__(self, runs, rng):
        return make("dp-ucb-bound", 3, epsilon=1.0, runs=runs, rng=rng)


class MixedDPUCBBound(Mechanism):
    """DP-UCB-BOUND as a public implementation writes it: the paper's bonus nu_a (hybrid budgets
    eps, about half the corrected bonus) with the corrected noise (budgets eps/2)."""

    feedback = "bandit"
    label = "mixed-dp-ucb-bound"

    def __init__(self, K: int, epsilon: float) -> None:
        self.K, self.epsilon = K, epsilon

    def sample(self, table, n, seed):
        reference = RegistryMechanism("dp-ucb-bound", self.K, self.epsilon, backend="reference")
        factory, source, T, n = reference._job(table, n)
        return simulate(_Planted(factory, (), _part("bonus")), source, T, runs=n, seed=seed,
                        record_actions=True, backend="reference").actions


@pytest.mark.exact
def test_the_bonus_alone_and_the_noise_alone_each_change_one_part():
    plain = _Factory()(2, np.random.default_rng(0))
    bonus = _Planted(_Factory(), (), _part("bonus"))(2, np.random.default_rng(0))
    noise = _Planted(_Factory(), (), _part("noise scale"))(2, np.random.default_rng(0))
    for policy in (plain, bonus, noise):
        policy.n[:] = 5
    # The bonus nu_a halves (the paper's budgets eps instead of eps/2), the noise does not move.
    assert np.allclose(bonus.nu(10), plain.nu(10) / 2)
    assert (bonus.H.eps_L, bonus.H.eps_B) == (plain.H.eps_L, plain.H.eps_B)
    # The noise scale halves, the bonus does not move.
    assert np.allclose(noise.nu(10), plain.nu(10))
    assert (noise.H.eps_L, noise.H.eps_B) == (2 * plain.H.eps_L, 2 * plain.H.eps_B)
    # The paper's variant moves both: the two single-part variants together make it.
    paper = make("dp-ucb-bound", 3, epsilon=1.0, runs=2, rng=0, variant="paper")
    paper.n[:] = 5
    assert np.allclose(paper.nu(10), bonus.nu(10))
    assert (paper.H.eps_L, paper.H.eps_B) == (noise.H.eps_L, noise.H.eps_B)


@pytest.mark.exact
def test_each_planted_variant_names_its_part_and_given_parameters_are_probed():
    parts = {c.description: c.part for c in plants(get("dp-ucb-bound"), None, {}, 1.0)}
    assert sorted(set(parts.values())) == ["bonus", "confidence radius",
                                           "epsilon: noise and any bonus together",
                                           "noise scale", "parameter tie_break",
                                           "parameter tree_log_base", "variant"]
    given = {c.description for c in plants(get("ucb1"), None, {"log_round": "t-1"}, None)}
    assert "log_round=t" in given                # the user's t-1 probed against the default
    assert {"radius x 1/2", "radius x 2", "tie_break=random", "initial_order=random"} <= given
    three = plants(get("ucb1"), None, {"log_round": "t-1", "tie_break": "random",
                                       "initial_order": "random"}, None)
    assert {"log_round=t", "tie_break=first", "initial_order=first"} <= {c.description
                                                                        for c in three}


@pytest.mark.slow
@pytest.mark.statistical
def test_a_mixed_dp_ucb_bound_is_told_apart_or_the_bonus_alone_is_named():
    """At epsilon = 1, T = 500 the mixed candidate conforms (its bonus is the only difference,
    not detectable there), and the power line says the bonus alone was not told apart and the
    horizon that told it apart (T = 2000 at seed 0). At that horizon the candidate differs
    (without the explanation stages). A candidate with the reference's law would differ with
    probability at most 0.05 at each validation."""
    result = validate(MixedDPUCBBound(5, 1.0), "dp-ucb-bound", epsilon=1.0, horizon=500,
                      runs=200, seed=0, audit_samples=0)
    bonus = next(p for p in result.power_checks if p["part"] == "bonus")
    if result.behaviour == "conforms":
        assert not bonus["detected"], result.summary()
        assert "NOT told apart at this size: bonus alone x 1/2" in result.summary()
        assert bonus["detected_at"] is not None
        larger = validate(MixedDPUCBBound(5, 1.0), "dp-ucb-bound", epsilon=1.0,
                          horizon=bonus["detected_at"], runs=200, seed=0, audit_samples=0,
                          explain=False)
        assert larger.behaviour != "conforms", larger.summary()
