"""Parameter domains: declared at registration, enforced by the registry and by ``--param``.

Kinds: exact (a class without a domain fails when it is defined, with a message that says how
to declare one; bad values through every command that takes ``--param`` are one line and exit
2) and property (Hypothesis: every registered algorithm's declared domain agrees with its
constructor: a value inside is built, a value outside is refused by ``make`` and by the class
itself with the same line naming the parameter).
"""

from __future__ import annotations

import contextlib
import io
import sys
import types

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpbandits.cli import main
from dpbandits.errors import DPBanditsError
from dpbandits.reference import registry
from dpbandits.reference.domains import Interval, OneOf, parameters_of
from dpbandits.reference.policy import PolicyBase
from dpbandits.reference.privacy import Guarantee, PrivacyClaim, Variant


@pytest.mark.exact
def test_a_parameter_without_a_domain_fails_when_its_class_is_defined():
    with pytest.raises(DPBanditsError) as caught:
        class Undeclared(PolicyBase):                       # noqa: F841
            name = "undeclared"

            def __init__(self, K, *, runs=1, rng, c=1.0, tie_break="first"):
                super().__init__(K, runs=runs, rng=rng, tie_break=tie_break)
    message = str(caught.value)
    assert "undeclared: parameter 'c' has no declared domain" in message
    assert "parameter_domains = {'c': Interval(0, 1)}" in message
    assert "from dpbandits.reference.domains import Interval, OneOf" in message


@pytest.mark.exact
@pytest.mark.parametrize("domains, phrase", [
    ({"c": "a number > 0"}, "the domain of parameter 'c' must be a Domain"),
    ({"c": Interval(0, None), "d": OneOf("x")}, "names 'd', which its constructor does not take"),
    ({"c": Interval(2, None)}, "the default of parameter 'c', 1.0, is outside its domain"),
], ids=["text", "unknown name", "default outside"])
def test_a_malformed_domain_fails_when_its_class_is_defined(domains, phrase):
    with pytest.raises(DPBanditsError, match=phrase):
        type("Malformed", (PolicyBase,), {
            "name": "malformed", "parameter_domains": domains,
            "__init__": lambda self, K, *, runs=1, rng, c=1.0, tie_break="first": None})


@pytest.mark.exact
@pytest.mark.parametrize("domain, inside, outside", [
    (Interval(0, 1, closed="high"), [1, 0.5, 1e-300, np.float64(0.25)],
     [0, -1, 1.5, "0.5", None, True, float("nan"), float("inf"), 1j]),
    (Interval(3, None), [3.1, 10 ** 30], [3, -1, "abc", False]),
    (Interval(0, 10, closed="both", integer=True, unset="ten"), [0, 10, 4.0, np.int64(7), None],
     [0.5, 11, "4"]),
    (OneOf(0, 1), [0, 1, 1.0, np.int64(1)], [True, "1", 2, None, 0.5]),
    (OneOf("e", 2), ["e", 2, 2.0], ["E", "2", 1, None]),
], ids=["(0, 1]", "> 3", "integer [0, 10] or unset", "0 or 1", "'e' or 2"])
def test_a_domain_contains_exactly_its_values(domain, inside, outside):
    for value in inside:
        assert domain.check("x", value) is value
    for value in outside:
        with pytest.raises(DPBanditsError, match=f"^x must be {domain.text[:10]}"):
            domain.check("x", value)


@pytest.mark.exact
def test_domain_texts():
    assert Interval(0, 1, closed="high", unset="1/T").text == "a number in (0, 1], or unset for 1/T"
    assert Interval(3, None).text == "a number > 3"
    assert Interval(None, 0, closed="high", integer=True).text == "an integer <= 0"
    assert OneOf("a", "b", "c").text == "'a', 'b' or 'c'"


PARAMETERS = [(name, p) for name in registry.ALGORITHMS
              for p in parameters_of(registry.get(name))]
NUMBERS = st.one_of(st.integers(-5, 5), st.floats(allow_nan=True, allow_infinity=True),
                    st.sampled_from([0, 0.5, 1, 1.5, 2, 3, 3.1, 1e299, 1e300]))
VALUES = st.one_of(NUMBERS, st.sampled_from(["abc", "", "e", "kl", "random", "t-1", "1"]),
                   st.none(), st.booleans())


def _make(name: str, **params):
    return registry.make(name, 3, epsilon=1.0, rng=0, T=50, **params)


def _construct(name: str, **params):
    """The class called directly, without the registry's checks."""
    cls = registry.get(name)
    given = {"epsilon": 1.0} if cls.private else {}
    given.update({"T": 50} if cls.needs_horizon else {})
    return cls(3, rng=0, **given, **params)


@pytest.mark.property
@settings(max_examples=40, deadline=None)
@given(st.sampled_from(PARAMETERS), VALUES)
def test_the_declared_domain_agrees_with_the_constructor(case, value):
    """Inside the domain: the algorithm is built, by ``make`` and by its class. Outside: both
    refuse it with the same one line naming the parameter (the domain's own check, before the
    constructor's body: the class checks its declarations itself)."""
    name, parameter = case
    if parameter.rule.contains(value):
        _make(name, **{parameter.name: value})
        _construct(name, **{parameter.name: value})
    else:
        with pytest.raises(DPBanditsError, match=f"^{parameter.name} must be ") as made:
            _make(name, **{parameter.name: value})
        with pytest.raises(DPBanditsError) as built:
            _construct(name, **{parameter.name: value})
        assert str(built.value) == str(made.value)


@pytest.mark.exact
@pytest.mark.parametrize("name, parameter", PARAMETERS,
                         ids=[f"{n}:{p.name}" for n, p in PARAMETERS])
def test_every_listed_value_and_the_default_are_accepted(name, parameter):
    assert parameter.rule.contains(parameter.default)
    for value in getattr(parameter.rule, "values", ()):
        _make(name, **{parameter.name: value})


# -- a new algorithm's parameter through every command that takes --param --------------------

class ScaledGreedy(PolicyBase):
    """A greedy learner whose exploration bonus is c / n (a test algorithm, registered for the
    duration of one test): a parameter ``c`` declared in (0, 10]."""

    name, title, paper = "scaled-greedy", "Scaled greedy", "a test of parameter domains"
    variants = (Variant("paper", "as written"),)
    default_variant = "paper"
    parameter_domains = {"c": Interval(0, 10, closed="high")}

    def __init__(self, K, *, epsilon, runs=1, rng, variant=None, c=1.0, tie_break="first"):
        super().__init__(K, runs=runs, rng=rng, epsilon=epsilon, variant=variant,
                         tie_break=tie_break)
        self.c = c
        self.s = np.zeros((self.runs, self.K))
        self.n = np.zeros((self.runs, self.K))

    @property
    def claim(self):
        return PrivacyClaim(Guarantee(self.epsilon), None, "unproven", "a test")

    def act(self, t):
        return self.argmax((self.s + self.c) / np.maximum(self.n, 1))

    def observe(self, t, actions, feedback):
        x = self.check_observation(t, actions, feedback)
        self.n[self._rows, actions] += 1
        self.s[self._rows, actions] += x


@pytest.fixture
def scaled_greedy(monkeypatch):
    module = types.ModuleType("dpbandits.reference.scaled_greedy_for_test")
    module.ScaledGreedy = ScaledGreedy
    monkeypatch.setitem(sys.modules, module.__name__, module)
    monkeypatch.setitem(registry.ALGORITHMS, "scaled-greedy", "scaled_greedy_for_test:ScaledGreedy")


COMMANDS = {
    "run": ["run", "scaled-greedy", "--means", "0.6", "0.4", "--horizon", "20", "--runs", "2",
            "--epsilon", "1", "--no-progress"],
    "audit": ["audit", "scaled-greedy", "--samples", "200", "--horizon", "4", "--no-progress"],
    "validate": ["validate", "--command", "true", "--against", "scaled-greedy", "--epsilon", "1",
                 "--horizon", "20", "--no-progress"],
}


@pytest.mark.exact
@pytest.mark.parametrize("command", sorted(COMMANDS))
@pytest.mark.parametrize("value", ["-1", "abc", "nan", "11", "0"])
def test_a_bad_value_of_a_new_parameter_is_one_line_and_status_2(scaled_greedy, tmp_path,
                                                                 command, value):
    err = io.StringIO()
    argv = COMMANDS[command] + ["--param", f"c={value}"]
    if command != "audit":
        argv += ["--out", str(tmp_path / "out")]
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        status = main(argv)
    assert status == 2, err.getvalue()
    parsed = "abc" if value == "abc" else float(value) if value == "nan" else int(value)
    assert err.getvalue().splitlines() == [
        f"dpbandits: error: --param c must be a number in (0, 10], got {parsed!r}"]
    assert not (tmp_path / "out").exists()
    with pytest.raises(DPBanditsError) as built:        # the class called directly: same line
        ScaledGreedy(2, epsilon=1.0, rng=0, c=parsed)
    assert err.getvalue().splitlines() == [f"dpbandits: error: --param {built.value}"]


@pytest.mark.exact
def test_a_good_value_of_a_new_parameter_runs(scaled_greedy, tmp_path):
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        status = main(COMMANDS["run"] + ["--param", "c=2.5", "--out", str(tmp_path)])
    assert status == 0
