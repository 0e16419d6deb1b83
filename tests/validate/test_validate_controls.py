"""`dpbandits validate`: independent implementations conform, planted deviations are caught.

Kinds: statistical (fixed seeds; each verdict's failure probability is stated at the test),
exact (Holm's procedure by hand), smoke (CLI, external program, errors).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from dpbandits.audit.adapters import PolicyMechanism
from dpbandits.cli import main
from dpbandits.validate import holm, validate

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "examples" / "validate"))
import implementations as impl  # noqa: E402

SMALL = dict(horizon=400, runs=120, seed=0)


def _candidate(cls, claim=None):
    return PolicyMechanism(cls, 5, claim, "full" if "FTNL" in cls.__name__ else "bandit",
                           label=cls.__name__)


@pytest.mark.exact
def test_holm_by_hand():
    assert holm([0.01, 0.04, 0.03, 0.5], 0.05) == [True, False, False, False]
    assert holm([0.001, 0.012, 0.02], 0.05) == [True, True, True]
    assert holm([0.2, 0.3], 0.05) == [False, False]


@pytest.mark.statistical
def test_faithful_ucb1_conforms_and_planted_bugs_differ():
    """A faithful implementation is called `differs` with probability <= 0.05 (Holm); the planted
    bugs shift pull counts by tens of standard errors (p < 1e-20 at this size)."""
    assert validate(_candidate(impl.PlainUCB1), "ucb1", epsilon=1.0, **SMALL).behaviour == "conforms"
    radius = validate(_candidate(impl.RadiusUCB1), "ucb1", epsilon=1.0, **SMALL)
    wrong_arm = validate(_candidate(impl.WrongArmUCB1), "ucb1", epsilon=1.0, **SMALL)
    assert radius.behaviour == wrong_arm.behaviour == "differs"
    assert wrong_arm.first_difference.t <= 10
    assert radius.regret == "respected"


@pytest.mark.statistical
def test_ftnl_controls_behaviour_and_privacy():
    """Faithful FTNL conforms and its audit is consistent; the off-by-one schedule differs at
    round 2; reused noise is a privacy violation (bound about 5 against the claim 1)."""
    kwargs = dict(epsilon=1.0, horizon=256, runs=200, seed=1, audit_samples=3000)
    faithful = validate(_candidate(impl.PlainFTNL, 1.0), "rnm-ftnl", **kwargs)
    assert faithful.behaviour == "conforms" and faithful.privacy == "consistent"
    assert faithful.regret == "respected"
    shifted = validate(_candidate(impl.OffByOneFTNL, 1.0), "rnm-ftnl", **{**kwargs, "audit_samples": 0})
    assert shifted.behaviour == "differs" and shifted.first_difference.t == 2
    reused = validate(_candidate(impl.ReusedNoiseFTNL, 1.0), "rnm-ftnl", **kwargs)
    assert reused.privacy == "violation"


@pytest.mark.statistical
def test_false_alarm_rate_on_a_faithful_implementation():
    """12 independent validations of faithful UCB1 at family-wise level 0.05: at most 3 say
    `differs` unless the level is broken (P[Binomial(12, 0.05) >= 4] = 0.0022)."""
    verdicts = [validate(_candidate(impl.PlainUCB1), "ucb1", epsilon=1.0, horizon=150, runs=48,
                         seed=100 + s, means=[0.9, 0.8, 0.7, 0.6, 0.5]).behaviour for s in range(12)]
    assert verdicts.count("differs") <= 3


@pytest.mark.smoke
def test_cli_validates_an_external_program(tmp_path, capsys):
    program = f"sh {ROOT / 'examples' / 'validate' / 'ucb1.sh'}"
    status = main(["validate", "--command", program, "--protocol", "interactive", "--against", "ucb1",
                   "--epsilon", "1", "--horizon", "200", "--runs", "40", "--out", str(tmp_path),
                   "--no-progress"])
    assert status == 0
    assert "CONFORMS" in capsys.readouterr().out
    data = json.loads((tmp_path / "validate-ucb1.json").read_text())
    assert data["behaviour"] == "conforms" and data["comparisons"]
    assert (tmp_path / "validate-ucb1.png").stat().st_size > 1000


@pytest.mark.smoke
@pytest.mark.parametrize("argv, message", [
    (["--python", "nope_module:X"], "cannot import"),
    (["--python", "implementations"], "MODULE:OBJECT"),
    (["--python", "implementations:PlainUCB1", "--means", "0.5", "0.4"], "outside 0..1"),
])
def test_cli_bad_input_is_one_line(argv, message, capsys, monkeypatch, tmp_path):
    monkeypatch.chdir(ROOT / "examples" / "validate")
    status = main(["validate", *argv, "--against", "ucb1", "--epsilon", "1", "--horizon", "50",
                   "--runs", "10", "--out", str(tmp_path), "--no-progress"])
    assert status == 2
    error = capsys.readouterr().err
    assert message in error and error.count("\n") == 1
