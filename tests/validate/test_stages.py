"""The validation's stages return frozen results, and the summary is built once from them.

Kinds: exact (the fields of the summary are those of the stages' results, the setup held whole
and not restated; no field of a stage's result or of the summary can be assigned after it is
built).
"""

from __future__ import annotations

import dataclasses

import pytest

from dpbandits.validate.correction import Comparison
from dpbandits.validate.stages import (Alternatives, Behaviour, Difference, Planted, Privacy,
                                       Regret, Setup)
from dpbandits.validate.summary import Validation


def _stages():
    rejected = Comparison("fresh", "regret", 100, "Mann-Whitney U", 0.0, 0.001, 0.01, 0.3, 0.2,
                          1.0, 1.0, 1.0, True, 800)
    return (Setup(algorithm="ucb1", variant=None, epsilon=None, candidate="c", K=2, T=800,
                  runs=20, seed=0, alpha=0.05, power=0.8, means=[0.5, 0.4]),
            Behaviour(comparisons=[rejected]),
            Difference(first_action_difference={"round": 7, "exact": False}),
            Alternatives(tried=[{"change": "c = 1", "behaviour": "conforms", "option": "-p c=1"}]),
            Planted(),
            Privacy(note="ucb1 makes no privacy claim"),
            Regret(note="no bound available"))


@pytest.mark.exact
def test_the_summary_is_the_stages_results():
    setup, behaviour, difference, alternatives, planted, privacy, regret = _stages()
    result = Validation.of_stages(*_stages())
    assert (result.setup.algorithm, result.setup.T) == ("ucb1", 800)
    assert result.comparisons == behaviour.comparisons and behaviour.rejects
    assert result.behaviour == "differs"
    assert result.first_action_difference == difference.first_action_difference
    assert result.conforming_alternatives == ["c = 1"] and result.power_checks == []
    assert result.privacy == "not applicable" and result.privacy_note == privacy.note
    assert result.regret == "no bound available" and result.regret_note == regret.note
    expected = {f.name for f in dataclasses.fields(Validation)}
    given = set().union(*({f.name for f in dataclasses.fields(stage)} for stage in _stages()[1:]))
    # every field of the summary comes from a stage, these under the stage's own names
    assert expected - given == {"setup", "alternatives", "power_checks", "privacy_note",
                                "regret_checks", "regret_note"}


@pytest.mark.exact
def test_the_summary_holds_the_setup_and_does_not_restate_its_fields():
    setup = _stages()[0]
    result = Validation.of_stages(*_stages())
    assert result.setup == setup
    names = [f.name for f in dataclasses.fields(Setup)]
    assert not [name for name in names if hasattr(result, name)]
    changed = dataclasses.replace(setup, T=1600, matroid="Uniform(2, 4)", super_arm_size=2)
    moved = dataclasses.replace(result, setup=changed).to_dict()
    assert (moved["T"], moved["matroid"], moved["super_arm_size"]) == (1600, "Uniform(2, 4)", 2)


@pytest.mark.exact
def test_no_stage_result_and_not_the_summary_can_be_written_into():
    result = Validation.of_stages(*_stages())
    for record, name in [(result, "privacy_note"), (result, "audit"), (result, "alternatives")] \
            + [(stage, dataclasses.fields(stage)[0].name) for stage in _stages()]:
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(record, name, None)
    with pytest.raises(TypeError):          # keyword arguments only
        Validation(_stages()[0], [])
