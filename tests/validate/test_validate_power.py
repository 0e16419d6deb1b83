"""What a validation could tell apart: the documented alternatives tried on a differing
candidate, the exact departure, 'could not test' where no round depends on the rewards, and
the short failure of ``assert_conforms``.

Kinds: statistical (fixed seeds; a candidate with the reference's law is rejected with
probability at most alpha = 0.05 per validation, which is the error rate each test guards),
exact (the deterministic departure and the data-independent horizon).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpbandits.audit.mechanism import RegistryMechanism
from dpbandits.testing import FAILURE_LINES, assert_conforms
from dpbandits.validate import validate
from dpbandits.validate.power import (MAX_TRIES, alternatives, combinations,
                                      count_combinations, first_action_difference)
from dpbandits.reference import get


class AuerUCB1:
    """UCB1 with ln(t - 1), the plays so far (Auer et al., Fig. 1), as public UCB1s write it."""

    def __init__(self, K, T, epsilon=None, rng=None):
        self.K, self.s, self.n = K, np.zeros(K), np.zeros(K)

    def act(self, t):
        if t <= self.K:
            return t - 1
        return int(np.argmax(self.s / self.n + np.sqrt(2 * math.log(t - 1) / self.n)))

    def observe(self, t, arm, x):
        self.s[arm] += x
        self.n[arm] += 1


class HalfRadiusUCB1(AuerUCB1):
    def act(self, t):
        if t <= self.K:
            return t - 1
        return int(np.argmax(self.s / self.n + 0.5 * np.sqrt(2 * math.log(t) / self.n)))


@pytest.mark.exact
def test_alternatives_are_the_enumerated_values_not_given():
    assert [c.description for c in alternatives(get("ucb1"), None, {})] == [
        "tie_break=random", "initial_order=random", "log_round=t-1"]
    assert "log_round=t-1" not in [c.description for c in
                                   alternatives(get("ucb1"), None, {"log_round": "t"})]
    assert "rounding=ceil-plus-one" in [c.description for c in alternatives(get("dp-se"), None, {})]


@pytest.mark.exact
def test_combinations_are_tried_smallest_first_one_value_per_parameter():
    ucb1 = alternatives(get("ucb1"), None, {})
    tried = [(size, change.description) for size, change in combinations(ucb1)]
    assert tried == [(1, "tie_break=random"), (1, "initial_order=random"), (1, "log_round=t-1"),
                     (2, "tie_break=random + initial_order=random"),
                     (2, "tie_break=random + log_round=t-1"),
                     (2, "initial_order=random + log_round=t-1"),
                     (3, "tie_break=random + initial_order=random + log_round=t-1")]
    assert count_combinations(ucb1) == 7 <= MAX_TRIES
    last = list(combinations(ucb1))[-1][1]
    assert last.option == ("--param tie_break=random --param initial_order=random "
                           "--param log_round=t-1")
    dp_se = alternatives(get("dp-se"), None, {})
    picked = [change for _, change in combinations(dp_se)]
    # No combination sets one parameter twice.
    assert all(len({k for k, _ in c.params}) == len(c.params) for c in picked)
    assert len(picked) == count_combinations(dp_se)


@pytest.mark.statistical
def test_the_explanation_names_the_smallest_conforming_set_and_its_command():
    """A UCB1 with a random first order and random ties, on arms so poor that early indices
    tie: no single alternative conforms (each leaves the other's path difference: rejected
    at p < 1e-6), the pair does (a false rejection has probability <= alpha = 0.05, Holm), and
    the search stops after size 2 without trying the triple."""
    candidate = RegistryMechanism("ucb1", 3, params={"initial_order": "random",
                                                     "tie_break": "random"})
    result = validate(candidate, "ucb1", means=[0.03, 0.02, 0.01], horizon=300, runs=60,
                      seed=0, audit_samples=0)
    assert result.behaviour != "conforms"
    assert result.conforming_alternatives == ["tie_break=random + initial_order=random"]
    assert max(a["size"] for a in result.alternatives) == 2
    assert all(a["behaviour"] != "conforms" for a in result.alternatives if a["size"] == 1)
    text = result.summary()
    assert "the smallest set of 2 documented alternatives that conforms" in text
    assert "(6 of 7 combinations tried, smallest first, at most 16: " in text
    assert "rerun with --param tie_break=random --param initial_order=random" in text


@pytest.mark.exact
def test_first_action_difference_is_exact_while_both_sides_are_deterministic():
    ref = np.tile([0, 1, 2, 0, 0], (4, 1))
    cand = np.tile([0, 1, 2, 1, 0], (4, 1))
    assert first_action_difference(cand, ref)["round"] == 4
    assert first_action_difference(cand, ref)["exact"]
    varying = ref.copy()
    varying[0, 2] = 1                    # the reference's runs vary from round 3 on
    found = first_action_difference(cand, varying)
    assert not found["exact"] and found["round"] == 3


@pytest.mark.statistical
def test_a_ln_t_minus_one_ucb1_is_told_which_parameter_removes_the_difference():
    result = validate(AuerUCB1, "ucb1", horizon=1000, runs=200, seed=0, audit_samples=0)
    assert result.behaviour != "conforms"
    assert result.conforming_alternatives == ["log_round=t-1"], result.summary()
    assert "--param log_round=t-1" in result.summary()
    assert result.first_action_difference["exact"]
    assert result.departure() == result.first_action_difference["round"]


@pytest.mark.statistical
def test_a_conforming_candidate_states_which_planted_variants_it_tells_apart():
    result = validate(AuerUCB1, "ucb1", params={"log_round": "t-1"}, horizon=600, runs=60,
                      seed=1, audit_samples=0)
    assert result.behaviour == "conforms", result.summary()
    told = {p["change"]: p["detected"] for p in result.power_checks}
    assert told["radius x 1/2"] and told["radius x 2"], result.summary()
    assert "power: of the reference's planted variants" in result.summary()


@pytest.mark.exact
def test_dp_se_below_its_first_release_could_not_test():
    """DP-SE at K = 5, T = 1000 releases nothing: every comparison has p = 1 and the verdict is
    'could not test' (exit 3), naming the horizon from which its actions depend on the rewards."""
    candidate = RegistryMechanism("dp-se", 5, 1.0, T=1000)
    result = validate(candidate, "dp-se", epsilon=1.0, horizon=1000, runs=20, audit_samples=0)
    assert result.behaviour == "could not test" and result.exit_status == 3
    assert result.untestable["from_horizon"] > 8000
    assert "rerun with --horizon" in result.summary()


@pytest.mark.statistical
def test_assert_conforms_fails_in_at_most_ten_lines_with_the_command():
    with pytest.raises(AssertionError) as caught:
        assert_conforms(HalfRadiusUCB1, "ucb1", horizon=600, runs=60, seed=1)
    lines = str(caught.value).splitlines()
    assert len(lines) <= FAILURE_LINES
    assert lines[-1].startswith("every comparison: dpbandits validate --python")
    assert "HalfRadiusUCB1" in lines[-1] and "--horizon 600" in lines[-1]
    assert any("rejected" in line for line in lines)


@pytest.mark.exact
def test_the_grown_reference_is_drawn_once_per_horizon_and_the_error_rate_is_stated(monkeypatch):
    """The planted variants not told apart at T are retried at 4 T and 16 T against one sample
    of the reference per horizon, shared by all of them; the summary states how often a 'told
    apart' can be wrong (alpha per variant and size, V x alpha over V variants, not corrected)."""
    from dpbandits.validate import power

    drawn = []
    original = power._reference_samples

    def counted(request, change, T, table, seeds):
        if change.description == "reference":
            drawn.append(T)
        return original(request, change, T, table, seeds)

    monkeypatch.setattr(power, "_reference_samples", counted)
    result = validate(RegistryMechanism("anytime-lazy-ucb", 5, 1.0, None, {}, T=40),
                      "anytime-lazy-ucb", epsilon=1.0, horizon=40, runs=20, seed=0,
                      audit_samples=0)
    retried = [p for p in result.power_checks if not p["detected"]]
    assert len(retried) >= 2 and all(p["tried_up_to"] > 40 for p in retried)  # 3 at this seed
    assert sorted(drawn) == sorted(set(drawn)) and set(drawn) == {160, 640}
    count = len(result.power_checks)
    assert (f"some of the {count} with probability at most {count} x 0.05"
            in result.summary())
    assert result.to_dict()["power_error_rate"] == result.power_error_rate
