"""Naming a candidate (dpbandits.candidates), audit --python/--against, and dpbandits.testing.

Kinds: smoke (signatures served, one-line errors), exact (the DP-SE pair and horizon from the
reference's own functions), statistical (fixed seeds; the rates each guards are stated).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from dpbandits.candidates import Command, Problem, builder, load
from dpbandits.cli import main
from dpbandits.errors import DPBanditsError
from dpbandits.reference.bandit.dp_se import epoch_length
from dpbandits.testing import assert_conforms, assert_private
from dpbandits.audit.against import audit_horizon, could_not_test

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
sys.path.insert(0, str(EXAMPLES / "ci"))
import dp_se as ci_dp_se  # noqa: E402

TABLE = np.random.default_rng(0).random((9, 3))


class Cycling:
    def __init__(self, K, T, epsilon, rng):
        self.K, self.T, self.epsilon = K, T, epsilon

    def act(self, t):
        return (t - 1) % self.K

    def observe(self, t, arm, reward):
        pass


class FromProblem(Cycling):
    def __init__(self, problem, rng):
        super().__init__(problem.K, problem.T, problem.epsilon, rng)


class Seen:
    """Records what it was built with."""
    built: list = []

    def __init__(self, horizon, eps, rng, order="first"):
        Seen.built.append((horizon, eps, order))

    def act(self, t):
        return 0

    def observe(self, t, arm, reward):
        pass


class Outside(Cycling):
    def act(self, t):
        return self.K if t == 4 else 0


class Floaty(Cycling):
    def act(self, t):
        return 0.5


class NoObserve:
    def __init__(self, rng):
        pass

    def act(self, t):
        return 0


@pytest.mark.smoke
@pytest.mark.parametrize("obj", [Cycling, FromProblem, lambda rng: Cycling(3, 9, None, rng)])
def test_every_signature_form_is_served(obj):
    actions = load(obj, K=3, epsilon=1.0).sample(TABLE, 2, 0)
    assert actions.tolist() == [[0, 1, 2] * 3] * 2


@pytest.mark.smoke
def test_parameters_are_matched_by_name():
    Seen.built.clear()
    load(Seen, K=2, epsilon=0.5, params={"order": "random"}, isolated=False).sample(TABLE[:, :2], 1, 0)
    assert Seen.built[-1] == (9, 0.5, "random")
    made = builder(Seen)(Problem(2, 30, 2.0), np.random.default_rng(0))
    assert isinstance(made, Seen) and Seen.built[-1] == (30, 2.0, "first")


@pytest.mark.smoke
@pytest.mark.parametrize("obj, message", [
    (Outside, r"run 0: policy\.act\(4\) returned arm 3, outside 0\.\.2"),
    (Floaty, r"policy\.act\(1\) returned 0\.5 of type float"),
])
def test_bad_actions_name_the_round(obj, message):
    with pytest.raises(DPBanditsError, match=message):
        load(obj, K=3, epsilon=1.0).sample(TABLE, 1, 0)


@pytest.mark.smoke
@pytest.mark.parametrize("target, message", [
    (NoObserve, "has no observe\\(\\) method"),
    (42, "is not a class or a factory"),
    ("no/such/file.py:X", "no such Python file"),
    ("examples_nope:X", "cannot import"),
    ("nocolon", "MODULE:OBJECT or FILE.py:OBJECT"),
])
def test_malformed_candidates_are_one_clear_error(target, message):
    with pytest.raises(DPBanditsError, match=message):
        load(target, K=3, epsilon=1.0)


@pytest.mark.smoke
def test_a_malformed_candidate_exits_2_on_both_commands(tmp_path, capsys):
    path = tmp_path / "bad.py"
    path.write_text("class Bad:\n    def __init__(self, rng):\n        pass\n")
    for argv in (["audit", "--python", f"{path}:Bad", "--claim-epsilon", "1", "--arms", "2"],
                 ["validate", "--python", f"{path}:Bad", "--against", "ucb1", "--out",
                  str(tmp_path / "out")]):
        assert main(argv + ["--no-progress"]) == 2
        error = capsys.readouterr().err.strip().splitlines()
        assert len(error) == 1 and "has no act() method" in error[0]


@pytest.mark.exact
def test_dp_se_horizon_reaches_the_first_elimination():
    """The derived horizon T holds DP-SE's first epoch, K x R_1(T) rounds with R_1 from the
    reference's epoch_length at beta = 1/T, and the first dependent round is the next one."""
    T, first = audit_horizon("dp-se", 2, 1.0)
    R1 = int(epoch_length(1, 2, 1.0, 1.0 / T))
    assert first == 2 * R1 + 1 and first < T <= first + 12


@pytest.mark.smoke
def test_a_constant_candidate_could_not_be_tested(tmp_path, capsys):
    path = tmp_path / "const.py"
    path.write_text("class Const:\n    def __init__(self, rng):\n        pass\n"
                    "    def act(self, t):\n        return 0\n"
                    "    def observe(self, t, arm, reward):\n        pass\n")
    status = main(["audit", "--python", f"{path}:Const", "--claim-epsilon", "1", "--arms", "2",
                   "--samples", "200", "--no-progress"])
    captured = capsys.readouterr()
    assert status == 3
    assert "COULD NOT TEST" in captured.out and "nan" not in captured.out
    assert "generic audit (no --against)" in captured.out


@pytest.mark.slow
@pytest.mark.statistical
def test_assert_private_fails_the_planted_bug_and_passes_the_faithful_dp_se():
    """The faithful DP-SE keeps its claim, so assert_private fails it with probability <= 0.05
    over the seed (it passes at seed 0); the planted exact first elimination is deterministic
    on the designed pair (every run on one side in the event, none on the other), so its bound
    ln(p0_lo / p1_hi) is about 5 at 500 runs per side: far above the claim 1."""
    result = assert_private(ci_dp_se.DPSE, against="dp-se", epsilon=1, samples=500)
    assert result.verdict == "consistent" and could_not_test(result) is None
    with pytest.raises(AssertionError, match=r"(?s)privacy VIOLATION of dp-se's claim.*"
                                             r"probability at most alpha = 0\.05"):
        assert_private(ci_dp_se.ExactFirstDPSE, against="dp-se", epsilon=1, samples=500)


@pytest.mark.slow
@pytest.mark.statistical
def test_tie_breaking_alone_is_reported_as_a_path_difference():
    """A UCB1 with random first pulls and random ties: outcomes conform (a false 'differs in
    outcome' has probability <= alpha = 0.05, Holm), the path differs (its first action is uniform
    over 5 arms against the reference's arm 0: p < 1e-20 at 60 runs); with the reference's own
    initial_order=random and tie_break=random it conforms outright (failure <= 0.05)."""
    candidate = str(EXAMPLES / "validate" / "random_ties_ucb.py") + ":RandomTiesUCB"
    size = dict(horizon=400, runs=60, seed=0)
    with pytest.raises(AssertionError, match="CONFORMS IN OUTCOME, DIFFERS IN PATH"):
        assert_conforms(candidate, "ucb1", **size)
    assert_conforms(candidate, "ucb1", outcome_only=True, **size)
    assert_conforms(candidate, "ucb1", params={"initial_order": "random", "tie_break": "random"},
                    **size)


@pytest.mark.slow
@pytest.mark.statistical
def test_an_awk_program_is_audited_generically_and_its_blind_spots_stated(capsys):
    """epsilon_greedy.sh is not private (it plays its best empirical mean), so claiming 1 is
    violated: for a program that kept the claim this would have probability <= 0.05."""
    program = f"sh {EXAMPLES / 'external' / 'epsilon_greedy.sh'}"
    status = main(["audit", "--command", program, "--protocol", "interactive", "--claim-epsilon",
                   "1", "--arms", "2", "--samples", "2000", "--workers", "2", "--no-progress"])
    out = capsys.readouterr().out
    assert status == 1 and "VIOLATION" in out and "cannot see" in out


@pytest.mark.smoke
def test_command_candidates_load_as_programs():
    mechanism = load(Command(["sh", str(EXAMPLES / "validate" / "ucb1.sh")], "interactive"), K=3)
    assert mechanism.sample(TABLE, 1, 0).shape == (1, 9)


def _comparison(t, rejected, sample="fresh", quantity="regret", horizon=800):
    from dpbandits.validate.core import Comparison

    return Comparison(sample, quantity, t, "Mann-Whitney U", 0.0, 0.001 if rejected else 0.5,
                      0.01 if rejected else 1.0, 0.3, 0.2, 1.0, 1.0, 1.0, rejected, horizon)


@pytest.mark.exact
def test_departure_ignores_a_single_early_chance_rejection():
    from dpbandits.validate.core import Validation
    from dpbandits.validate.stages import Setup

    setup = Setup(algorithm="ucb1", variant=None, epsilon=None, candidate="c", K=2, T=800,
                  runs=20, seed=0, alpha=0.05, power=0.8, means=[0.5, 0.4])
    rows = [_comparison(t, t in (100, 400, 800)) for t in (10, 100, 200, 400, 800)]
    result = Validation(setup=setup, comparisons=rows)
    assert result.departure() == 400 and result.first_difference.t == 100
    assert result.behaviour == "differs"
    # Only path rows rejected (the checkpoint 10 < T/8 is a path row): the path-only verdict.
    rows = [_comparison(10, True), _comparison(200, False), _comparison(100, True, "fixed")]
    result = Validation(setup=setup, comparisons=rows)
    assert result.behaviour == "conforms in outcome, differs in path" and result.exit_status == 1


@pytest.mark.exact
def test_ucb1_random_initial_order_is_a_permutation_and_the_default_draws_nothing():
    from dpbandits.reference import Bernoulli, simulate, spec

    source = Bernoulli(np.array([0.6, 0.5, 0.4, 0.3]))
    shuffled = simulate(spec("ucb1", 4, initial_order="random"), source, 8, runs=50, seed=3,
                        record_actions=True, backend="reference").actions
    assert all(sorted(row[:4]) == [0, 1, 2, 3] for row in shuffled.tolist())
    assert len({tuple(row[:4]) for row in shuffled.tolist()}) > 5
    default = [simulate(spec("ucb1", 4, **extra), source, 64, runs=5, seed=3, record_actions=True,
                        backend="reference").actions for extra in ({}, {"initial_order": "first"})]
    np.testing.assert_array_equal(*default)
    with pytest.raises(DPBanditsError, match="initial_order"):
        spec("ucb1", 4, initial_order="sideways")
