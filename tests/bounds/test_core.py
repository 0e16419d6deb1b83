"""The bound object, the regret check and the `dpbandits bounds` command.

Kinds: exact (UCB1's bound against values worked by hand; verdicts on hand-made curves),
statistical (UCB1 simulated against its theorem: a true bound is reported violated with
probability at most alpha = 0.05 by construction of the Bonferroni band; the seed is fixed),
smoke (CLI, files, errors).
"""

from __future__ import annotations

import json

import numpy as np
import pytest
import sympy as sp

from dpbandits.bounds import Bound, RegretCurve, bounds_for, check_regret, get_bound
from dpbandits.bounds.core import Delta, T, epsilon
from dpbandits.cli import main
from dpbandits.errors import DPBanditsError
from dpbandits.reference import Bernoulli, simulate, spec


def _toy(kind: str = "upper") -> Bound:
    return Bound("toy.linear", "toy", "test", kind, "R(T)", "paper", rest=T / 10,
                 condition=sp.Ge(T, 10))


@pytest.mark.exact
def test_ucb1_reference_values_of_spec_001():
    """Tossou & Dimitrakakis, App. B: UCB1 at t = 1e5 gives 308.30 (2 arms) and 1917.49 (10 arms)."""
    bound = get_bound("prior.ucb1")
    assert bound.evaluate(T=1e5, gaps=[0, 0.3]) == pytest.approx(308.30, abs=0.005)
    assert bound.evaluate(T=1e5, gaps=[0, 0.35] + [0.45] * 8) == pytest.approx(1917.49, abs=0.005)


@pytest.mark.exact
def test_evaluate_broadcasts_and_blanks_outside_the_condition():
    values = _toy().evaluate(T=np.array([1.0, 10.0, 100.0]))
    assert np.isnan(values[0]) and values[1:].tolist() == [1.0, 10.0]


@pytest.mark.exact
def test_per_arm_terms_skip_optimal_arms_and_sum_the_others():
    bound = Bound("toy.arms", "toy", "test", "upper", "R", "paper", per_arm=1 / Delta,
                  rest=1 / epsilon)
    assert bound.evaluate(gaps=[0, 0.5, 0.25], epsilon=2.0) == pytest.approx(0.5 + 2 + 4)
    assert "Delta" in sp.latex(bound.expression)


@pytest.mark.smoke
@pytest.mark.parametrize("bad", [dict(T=-1.0), dict(T=float("nan")), dict(T=5.0, epsilon=0.0)])
def test_bad_values_are_refused_by_name(bad):
    bound = Bound("toy.e", "toy", "test", "upper", "R", "paper", rest=T / epsilon)
    with pytest.raises(DPBanditsError, match="must be"):
        bound.evaluate(**{"epsilon": 1.0, **bad})


@pytest.mark.smoke
def test_missing_symbols_and_gaps_are_named():
    bound = Bound("toy.e", "toy", "test", "upper", "R", "paper", rest=T / epsilon, per_arm=Delta)
    with pytest.raises(DPBanditsError, match="epsilon"):
        bound.evaluate(T=3.0, gaps=[0, 1])
    with pytest.raises(DPBanditsError, match="gaps"):
        bound.evaluate(T=3.0, epsilon=1.0)
    with pytest.raises(DPBanditsError, match="gaps"):
        bound.evaluate(T=3.0, epsilon=1.0, gaps=[0, 1.5])


@pytest.mark.smoke
def test_a_corrected_bound_must_name_its_printed_form():
    with pytest.raises(DPBanditsError, match="printed"):
        Bound("toy.c", "toy", "test", "upper", "R", "paper", rest=T, status="corrected")


@pytest.mark.exact
def test_verdicts_on_hand_made_curves():
    points = np.array([10, 20, 40])
    spread = np.array([[-0.1], [0.0], [0.1], [0.05], [-0.05]])
    below = RegretCurve.from_runs(points, np.array([0.6, 1.1, 2.1]) + spread)
    above = RegretCurve.from_runs(points, np.array([5.1, 9.05, 20.25]) + spread)
    assert check_regret(below, _toy()).verdict == "holds"
    check = check_regret(above, _toy())
    assert check.verdict == "violated" and [r["verdict"] for r in check.rows] == ["violated"] * 3
    assert check_regret(above, _toy("lower")).verdict == "holds"
    assert check_regret(below, _toy("lower")).verdict == "violated"
    assert check_regret(below, _toy()).rows[-1]["ratio"] == pytest.approx(2.1 / 4.0)  # mean / bound at t = 40


@pytest.mark.exact
def test_a_bound_no_run_could_violate_is_vacuous_not_held():
    """T / 10 is at least t x largest gap at every checkpoint when the largest gap is 0.05: no
    regret could ever exceed it, so the check says `vacuous at this size`, never `holds`; with a
    largest gap of 0.2 the same curve is informative and held."""
    points = np.array([10, 20, 40])
    curve = RegretCurve.from_runs(points, np.array([[0.1, 0.2, 0.3], [0.2, 0.3, 0.4]]))
    vacuous = check_regret(curve, _toy(), largest_gap=0.05)
    assert vacuous.verdict == "vacuous at this size" and not vacuous.informative
    assert [r["verdict"] for r in vacuous.rows] == ["vacuous"] * 3
    assert [r["largest"] for r in vacuous.rows] == pytest.approx([0.5, 1.0, 2.0])
    assert vacuous.informative_from is None and "never informative" in vacuous.to_markdown()
    held = check_regret(curve, _toy(), largest_gap=0.2)
    assert held.verdict == "holds" and held.informative_from == 10    # the condition T >= 10
    partly = Bound("toy.partly", "toy", "test", "upper", "R", "paper", rest=3 + T / 100)
    check = check_regret(curve, partly, largest_gap=0.1)          # 3 + t/100 < t/10 from t = 34
    assert [r["verdict"] for r in check.rows] == ["vacuous", "vacuous", "holds"]
    assert check.verdict == "holds" and check.informative_from == 34
    negative = Bound("toy.low", "toy", "test", "lower", "R", "paper", rest=T / 10 - 5)
    low = check_regret(curve, negative)                           # above 0 from t = 51 only
    assert low.verdict == "vacuous at this size" and low.informative_from == 51


@pytest.mark.exact
def test_informative_horizon_is_the_last_crossing():
    """100 ln T is below T at T = 1, above it on [2, 647] and below it from T = 648 on (the
    larger root of T = 100 ln T is 647.28); the smallest horizon from which it stays informative
    is 648. A bound equal to T x gap never is."""
    from scipy.optimize import brentq

    from dpbandits.bounds.check import informative_horizon

    logarithmic = Bound("toy.log", "toy", "test", "upper", "R", "paper", rest=100 * sp.log(T))
    root = brentq(lambda x: x - 100 * np.log(x), 100, 1e4)
    assert informative_horizon(logarithmic, largest_gap=1.0) == int(np.ceil(root)) == 648
    assert informative_horizon(logarithmic, largest_gap=0.5) > 2 * 648
    linear = Bound("toy.lin", "toy", "test", "upper", "R", "paper", rest=T / 2)
    assert informative_horizon(linear, largest_gap=0.5) is None
    assert informative_horizon(linear, largest_gap=0.6) == 1


@pytest.mark.exact
def test_horizon_bounds_are_evaluated_at_the_horizon_when_not_anytime():
    points = np.array([10, 40])
    curve = RegretCurve.from_runs(points, np.array([[3.0, 3.5], [3.1, 3.6]]))
    assert check_regret(curve, _toy()).rows[0]["verdict"] == "violated"
    assert check_regret(curve, _toy(), anytime=False).verdict == "holds"


@pytest.mark.smoke
def test_a_single_run_is_never_accepted():
    curve = RegretCurve.from_runs([10, 20], np.array([[1.0, 2.0]]))
    with pytest.raises(DPBanditsError, match="single run"):
        check_regret(curve, _toy())


@pytest.mark.smoke
def test_order_only_bounds_cannot_be_checked():
    with pytest.raises(DPBanditsError, match="explicit"):
        check_regret(RegretCurve.from_runs([2, 4], np.ones((3, 2))), get_bound("prior.dp-se"),
                     epsilon=1.0, K=2.0, gaps=[0, 0.5])


@pytest.mark.statistical
def test_ucb1_simulation_respects_auer_theorem_1():
    """20 runs at T = 5000; false-alarm probability <= 0.05 by the band's construction."""
    result = simulate(spec("ucb1", 2), Bernoulli([0.9, 0.6]), 5000, runs=20, seed=3)
    check = check_regret(result, get_bound("prior.ucb1"), gaps=[0, 0.3])
    assert check.informative_from == 569        # below 0.3 T from T = 569: the check could fail
    assert check.verdict == "holds" and 0 < check.final_ratio < 1


@pytest.mark.smoke
def test_bounds_for_lists_upper_bounds_first():
    found = bounds_for("dp-se")
    assert found and found[0].kind == "upper"
    assert all("dp-se" in b.algorithms for b in found)
    assert bounds_for("dp-se", explicit=True) == [b for b in found if b.is_explicit()]


@pytest.mark.exact
def test_cli_says_vacuous_gives_the_informative_horizon_and_exits_3(tmp_path, capsys):
    """UCB1's bound on means (0.9, 0.6) is below 0.3 T only from T = 569: at T = 200 no run could
    violate it, so nothing was tested (status 3), and the output says where it could fail."""
    status = main(["bounds", "ucb1", "--means", "0.9", "0.6", "--horizon", "200", "--runs", "5",
                   "--out", str(tmp_path)])
    assert status == 3
    printed = capsys.readouterr().out
    assert "**vacuous at this size**" in printed and "informative from T = 569" in printed
    assert "--means 0.9 0.6 --horizon 1138 --runs 5" in printed
    data = json.loads((tmp_path / "bounds-ucb1.json").read_text())
    assert data["vacuous"] == ["prior.ucb1"] and data["checks"][0]["informative_from"] == 569


@pytest.mark.smoke
def test_cli_writes_plot_json_and_markdown(tmp_path, capsys):
    status = main(["bounds", "ucb1", "--means", "0.9", "0.6", "--horizon", "2000", "--runs", "5",
                   "--out", str(tmp_path)])
    assert status == 0
    printed = capsys.readouterr().out
    assert "prior.ucb1" in printed and "holds" in printed
    data = json.loads((tmp_path / "bounds-ucb1.json").read_text())
    assert data["checks"][0]["verdict"] == "holds"
    assert (tmp_path / "bounds-ucb1.png").stat().st_size > 1000
    assert (tmp_path / "bounds-ucb1.md").exists()


@pytest.mark.smoke
@pytest.mark.parametrize("argv, message", [
    (["bounds", "ucb1", "--horizon", "100", "--runs", "1"], "[2, "),
    (["bounds", "nope", "--horizon", "100"], "unknown algorithm"),
    (["bounds", "dp-se", "--horizon", "100", "--epsilon", "0"], "epsilon"),
    (["bounds", "ucb1", "--horizon", "100", "--value", "x"], "NAME=X"),
])
def test_cli_bad_input_is_one_line_and_status_2(argv, message, capsys):
    assert main(argv) == 2
    error = capsys.readouterr().err
    assert message in error and error.count("\n") == 1
