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
    assert check_regret(below, _toy()).verdict == "respected"
    check = check_regret(above, _toy())
    assert check.verdict == "violated" and [r["verdict"] for r in check.rows] == ["violated"] * 3
    assert check_regret(above, _toy("lower")).verdict == "respected"
    assert check_regret(below, _toy("lower")).verdict == "violated"
    assert check_regret(below, _toy()).rows[-1]["ratio"] == pytest.approx(2.1 / 4.0)  # mean / bound at t = 40


def _planted(points, means, spread, scale=None) -> RegretCurve:
    """Runs whose regret at checkpoint j is ``means[j]`` plus one of ``spread`` (mean 0) times
    ``scale[j]`` (1 by default)."""
    scale = np.ones(len(points)) if scale is None else np.asarray(scale, float)
    return RegretCurve.from_runs(np.asarray(points), np.asarray(means)[None, :]
                                 + np.asarray(spread, float)[:, None] * scale[None, :])


def _half_width(n: int, std: float, level: float) -> float:
    from scipy import stats

    return float(stats.t.ppf(0.5 + level / 2, n - 1)) * std / np.sqrt(n)


@pytest.mark.exact
def test_a_mean_above_the_bound_with_a_straddling_band_is_inconclusive_never_respected():
    """The toy bound is t / 10 = 2 at t = 20. Four runs at 2.5 +- 1 (sample sd 1.155): the mean
    is above the bound but the band (t quantile 5.84 at level 1 - 0.05 / 2 = 0.975 each side,
    half-width 3.37) reaches from -0.87 to 5.87 and contains 2. This is what used to print
    `holds`. It is `inconclusive at this size`, with the runs that would decide it: the smallest
    n at which the half-width, at the observed sd and the same level, is below |mean - bound| =
    0.5, worked out against the t quantile directly."""
    spread = [-1.0, 1.0, -1.0, 1.0]
    check = check_regret(_planted([10, 20], [0.5, 2.5], spread), _toy())
    row = check.rows[-1]
    assert row["mean"] == pytest.approx(2.5) and row["bound"] == pytest.approx(2.0)
    assert row["low"] < 2.0 < row["high"]
    assert row["verdict"] == "inconclusive at this size" != "respected"
    assert check.verdict == "inconclusive at this size"
    std, level = float(np.std(spread, ddof=1)), 1 - 0.05 / 2
    n = row["runs_needed"]
    assert _half_width(n, std, level) < 0.5 <= _half_width(n - 1, std, level)
    assert 25 < n < 40                                 # about (1.96 x 1.155 / 0.5)^2 = 21, and more
    assert check.runs_needed == n and check.undecidable == []
    text = check.to_markdown()
    assert "**inconclusive at this size**" in text and f"about {n} runs would decide" in text
    assert "an estimate" in text and "holds" not in text
    assert check.to_dict()["runs_needed"] == n


@pytest.mark.exact
def test_the_estimate_of_runs_is_the_size_at_which_the_band_would_exclude_the_bound():
    """runs_to_decide against the half-width it promises, on a few distances and spreads: at the
    returned n the band of the same level excludes the bound, at n - 1 it does not; a mean equal
    to the bound is decided by no size."""
    from dpbandits.bounds.check import runs_to_decide

    for distance, std, level in ((0.5, 1.0, 0.975), (-0.01, 2.0, 0.99), (3.0, 0.1, 0.95)):
        n = runs_to_decide(distance, std, level)
        assert _half_width(n, std, level) < abs(distance)
        assert n == 2 or _half_width(n - 1, std, level) >= abs(distance)
    assert runs_to_decide(0.0, 1.0, 0.95) is None


@pytest.mark.exact
def test_a_mean_on_the_bound_says_no_number_of_runs_decides():
    """Runs at exactly 2 +- 1 at t = 20, where the bound is 2: inconclusive, and no size decides."""
    check = check_regret(_planted([10, 20], [0.5, 2.0], [-1.0, 1.0, -1.0, 1.0]), _toy())
    assert check.verdict == "inconclusive at this size"
    assert check.rows[-1]["runs_needed"] is None and check.runs_needed is None
    assert check.undecidable == [20]
    assert "no number of runs (up to 1e+15) decides it" in check.to_markdown()


@pytest.mark.exact
def test_bands_below_and_above_and_the_lower_bound_mirrored():
    """Upper bound t / 10: runs at 1 +- 0.1 (band about [0.8, 1.2]) at t = 20 respect it, runs at
    3 +- 0.1 violate it. The lower bound t / 10 mirrored: the first violate it, the second
    respect it, and runs at 2.2 +- 1 at t = 20 (1.5 +- 0.1 at t = 10) are inconclusive there."""
    tight = [-0.1, 0.1, -0.1, 0.1]
    below = _planted([10, 20], [0.5, 1.0], tight)
    above = _planted([10, 20], [1.5, 3.0], tight)
    straddle = _planted([10, 20], [1.5, 2.2], [-1.0, 1.0, -1.0, 1.0], scale=[0.1, 1.0])
    verdicts = lambda check: [row["verdict"] for row in check.rows]
    assert verdicts(check_regret(below, _toy())) == ["respected"] * 2
    assert check_regret(below, _toy()).verdict == "respected"
    assert verdicts(check_regret(above, _toy())) == ["violated"] * 2
    assert verdicts(check_regret(below, _toy("lower"))) == ["violated"] * 2
    assert verdicts(check_regret(above, _toy("lower"))) == ["respected"] * 2
    lower = check_regret(straddle, _toy("lower"))
    assert verdicts(lower) == ["respected", "inconclusive at this size"]
    assert lower.verdict == "inconclusive at this size" and lower.runs_needed > 4


@pytest.mark.exact
def test_the_check_level_rule():
    """violated anywhere wins; else an inconclusive informative checkpoint makes the check
    inconclusive (even beside respected ones); else respected when some checkpoint is; else
    vacuous at this size where the bound applies; else not applicable. A vacuous checkpoint
    beside an inconclusive one is not informative and changes nothing."""
    tight, wide = [-0.1, 0.1, -0.1, 0.1], [-1.0, 1.0, -1.0, 1.0]
    rule = lambda means, spread, **kw: check_regret(_planted([10, 20, 40], means, spread,
                                                             kw.pop("scale", None)), _toy(), **kw)
    mixed = rule([0.5, 2.5, 10.0], wide, scale=[0.1, 1, 1])  # respected, inconclusive, violated
    assert [r["verdict"] for r in mixed.rows] == ["respected", "inconclusive at this size",
                                                 "violated"]
    assert mixed.verdict == "violated"
    some = rule([0.5, 2.5, 1.0], wide, scale=[0.1, 1, 1])    # respected, inconclusive, respected
    assert some.verdict == "inconclusive at this size"
    assert some.runs_needed == some.rows[1]["runs_needed"]
    assert rule([0.5, 1.0, 2.0], tight).verdict == "respected"
    gap = rule([0.5, 1.0, 2.0], wide, largest_gap=0.05)  # t / 10 >= 0.05 t everywhere
    assert gap.verdict == "vacuous at this size" and not gap.inconclusive
    early = check_regret(_planted([2, 5], [0.5, 1.0], tight), _toy())  # T < 10 everywhere
    assert early.verdict == "not applicable"
    partly = Bound("toy.partly", "toy", "test", "upper", "R", "paper", rest=3 + T / 100)
    half = check_regret(_planted([10, 20, 40], [0.5, 1.0, 3.4], wide), partly, largest_gap=0.1)
    assert [r["verdict"] for r in half.rows] == ["vacuous", "vacuous", "inconclusive at this size"]
    assert half.verdict == "inconclusive at this size"
    assert "1 of 1 informative checkpoints (t = 40)" in half.inconclusive_note


@pytest.mark.exact
def test_a_bound_no_run_could_violate_is_vacuous_not_respected():
    """T / 10 is at least t x largest gap at every checkpoint when the largest gap is 0.05: no
    regret could ever exceed it, so the check says `vacuous at this size`, never `respected`; with
    a largest gap of 0.2 the same curve is informative and respected."""
    points = np.array([10, 20, 40])
    curve = RegretCurve.from_runs(points, np.array([[0.1, 0.2, 0.3], [0.2, 0.3, 0.4]]))
    vacuous = check_regret(curve, _toy(), largest_gap=0.05)
    assert vacuous.verdict == "vacuous at this size" and not vacuous.informative
    assert [r["verdict"] for r in vacuous.rows] == ["vacuous"] * 3
    assert [r["largest"] for r in vacuous.rows] == pytest.approx([0.5, 1.0, 2.0])
    assert vacuous.informative_from is None and "never informative" in vacuous.to_markdown()
    held = check_regret(curve, _toy(), largest_gap=0.2)
    # Informative from T = 10 (the condition T >= 10); two runs leave a band so wide (t quantile
    # 38 at level 1 - 0.05 / 3, half-width 1.91) that it contains the bound at t = 10 and 20 (1
    # and 2): inconclusive there, not respected; at t = 40 the band [-1.56, 2.26] is below 4.
    assert held.informative and held.informative_from == 10
    assert [r["verdict"] for r in held.rows] == ["inconclusive at this size"] * 2 + ["respected"]
    assert held.verdict == "inconclusive at this size" and held.runs_needed > 2
    partly = Bound("toy.partly", "toy", "test", "upper", "R", "paper", rest=3 + T / 100)
    check = check_regret(curve, partly, largest_gap=0.1)          # 3 + t/100 < t/10 from t = 34
    assert [r["verdict"] for r in check.rows] == ["vacuous", "vacuous", "respected"]
    assert check.verdict == "respected" and check.informative_from == 34
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
    horizon = check_regret(curve, _toy(), anytime=False)
    assert [r["bound"] for r in horizon.rows] == [4.0, 4.0]      # bound(T) at every checkpoint
    # Two runs (3.5, 3.6) give the band [2.28, 4.82] at t = 40 and (3.0, 3.1) [1.78, 4.32] at
    # t = 10: both contain 4, so the check is inconclusive (it used to print `holds` here).
    assert [r["verdict"] for r in horizon.rows] == ["inconclusive at this size"] * 2
    assert horizon.verdict == "inconclusive at this size"


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
    assert check.verdict == "respected" and 0 < check.final_ratio < 1


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


@pytest.mark.exact
def test_cli_says_inconclusive_with_the_runs_that_would_decide_it(tmp_path, capsys):
    """Two runs of UCB1 at T = 700 (seed 0): its bound is informative from T = 569, but two runs
    leave a band that contains it there. The check is inconclusive at this size (exit status 0:
    nothing violated, something could have been), never respected, and the output gives the runs
    that would decide it and the command that runs them (no --epsilon: UCB1 is not private)."""
    status = main(["bounds", "ucb1", "--means", "0.9", "0.6", "--horizon", "700", "--runs", "2",
                   "--out", str(tmp_path)])
    assert status == 0
    printed = capsys.readouterr().out
    assert "**inconclusive at this size**" in printed and "respected" not in printed
    data = json.loads((tmp_path / "bounds-ucb1.json").read_text())
    check = data["checks"][0]
    assert check["verdict"] == "inconclusive at this size" and data["inconclusive"] == ["prior.ucb1"]
    runs = check["runs_needed"]
    assert runs > 2 and f"about {runs} runs would decide it" in printed
    assert f"`dpbandits bounds ucb1 --means 0.9 0.6 --horizon 700 --runs {runs}`" in printed
    assert all(row["runs_needed"] <= runs for row in check["rows"]
               if row["verdict"] == "inconclusive at this size")


@pytest.mark.smoke
def test_cli_writes_plot_json_and_markdown(tmp_path, capsys):
    status = main(["bounds", "ucb1", "--means", "0.9", "0.6", "--horizon", "2000", "--runs", "5",
                   "--out", str(tmp_path)])
    assert status == 0
    printed = capsys.readouterr().out
    assert "prior.ucb1" in printed and "respected" in printed
    data = json.loads((tmp_path / "bounds-ucb1.json").read_text())
    assert data["checks"][0]["verdict"] == "respected"
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
