"""Constructor arguments a candidate requires and the reference defines are filled from the
reference's values (DP-SE's beta = 1/T, as the reference sets it when unset), and the output says so.

Kinds: exact (the value a candidate is built with), smoke (the validation's line).
"""

from __future__ import annotations

import numpy as np
import pytest

from dpbandits.candidates import filled_note, load, reference_values
from dpbandits.errors import DPBanditsError
from dpbandits.reference import Table, make
from dpbandits.validate import validate


class NeedsBeta:
    """A DP-SE-shaped solver that requires beta, as public DP-SE solvers do; it plays arm 1 in
    every round when beta is 1/T and arm 0 otherwise, so its actions show what it was given."""

    def __init__(self, K, T, epsilon, beta, rng):
        self.arm = int(np.isclose(beta, 1 / T))

    def act(self, t):
        return self.arm

    def observe(self, t, arm, reward):
        pass


@pytest.mark.exact
def test_beta_is_the_references_one_over_t_for_every_horizon():
    for T in (2, 50, 2851):
        values = reference_values("dp-se", 2, T, 1.0, {})
        assert values["beta"] == make("dp-se", 2, epsilon=1.0, rng=0, T=T).beta == 1 / T
        assert values["rounding"] == "ceil"
    assert "beta" not in reference_values("dp-se", 2, 50, 1.0, {"beta": 0.1})


@pytest.mark.exact
def test_a_candidate_requiring_beta_is_built_with_one_over_t_of_each_run():
    mechanism = load(NeedsBeta, K=2, epsilon=1.0, reference="dp-se", isolated=False)
    for T in (7, 40):
        assert (mechanism.sample(Table(np.zeros((T, 2))), 3, 0) == 1).all()
    given = load(NeedsBeta, K=2, epsilon=1.0, params={"beta": 0.5}, reference="dp-se",
                 isolated=False)
    assert (given.sample(Table(np.zeros((7, 2))), 3, 0) == 0).all()
    with pytest.raises(DPBanditsError, match="requires beta"):
        load(NeedsBeta, K=2, epsilon=1.0, isolated=False)      # no reference: nothing to fill


@pytest.mark.smoke
def test_the_validation_says_which_value_it_filled():
    assert filled_note("ucb1", 2, 100, None, {}) == ""          # no value set from the problem
    assert "beta = 0.02 (1/T at T = 50)" in filled_note("dp-se", 2, 50, 1.0, {})
    assert filled_note("dp-se", 2, 50, 1.0, {"beta": 0.1}) == ""
    result = validate(NeedsBeta, "dp-se", epsilon=1.0, means=[0.9, 0.1], horizon=50, runs=20,
                      audit_samples=0, explain=False)
    assert "gets dp-se's value: beta = 0.02 (1/T at T = 50)" in result.summary()
    assert result.to_dict()["filled"] == result.setup.filled_note


@pytest.mark.smoke
def test_the_audit_against_algo_says_which_value_it_filled_at_its_horizon(monkeypatch):
    """`audit --against` runs the candidate at the audit's horizon: its notes name beta there
    (the audit itself is replaced by one that returns the notes it is given)."""
    from dpbandits.audit import against

    monkeypatch.setattr(against, "audit_observed", lambda *args, notes=(), **kwargs: notes)
    mechanism = load(NeedsBeta, K=2, epsilon=1.0, reference="dp-se", isolated=False)
    notes = against.audit_against(mechanism, "dp-se", epsilon=1.0, T=40, samples=100)
    assert any("gets dp-se's value: beta = 0.025 (1/T at T = 40)" in note
               and note.endswith("at the audit's horizon") for note in notes), notes
    given = load(NeedsBeta, K=2, epsilon=1.0, params={"beta": 0.5}, reference="dp-se",
                 isolated=False)
    notes = against.audit_against(given, "dp-se", epsilon=1.0, params={"beta": 0.5}, T=40,
                                  samples=100)
    assert not any("gets dp-se's value" in note for note in notes), notes
