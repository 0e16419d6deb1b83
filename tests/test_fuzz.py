"""Fuzzing the command line, the public checks and the external-program harness.

Kinds: property (Hypothesis, reproducible: the ``reproducible`` profile derandomises every run)
and smoke (misbehaving external programs, a resource-limited process). The fast subset runs in
the default test run; ``-m fuzz`` runs the full suite (more examples per property, every
misbehaving program under both protocols). Sizes and the last result: docs/limits.md.

What every bad input must give: exit status 2, exactly one line on standard error that starts
with ``dpbandits: error:``, no traceback, and no file left in the output folder.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dpbandits import limits
from dpbandits.audit.external import CommandMechanism
from dpbandits.cli import main
from dpbandits.errors import DPBanditsError, check_seed
from dpbandits.reference.environments import Table

FAST = settings(max_examples=25, suppress_health_check=[HealthCheck.too_slow])
FULL = settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow])

# -- strategies over the command line ----------------------------------------------------------

underscored = st.sampled_from(["1_0", "0.4_0", "1_000", "2_5e-1"])
"""Numbers with digit-group underscores: refused by every numeric option (float() reads 10)."""
garbage = st.one_of(st.just(""), st.just("nan"), st.just("inf"), st.just("-inf"), st.just("1e3x"),
                    underscored, st.text(alphabet="abcxyz-_.:= ", min_size=1, max_size=6))
huge = st.integers(min_value=10 ** 12, max_value=10 ** 400).map(str)
bad_count = st.one_of(st.integers(max_value=0).map(str), st.just("1e3"), st.just("2.5"), huge, garbage)
bad_size = st.one_of(st.integers(max_value=-1).map(str), st.just("1e3"), st.just("2.5"), huge, garbage)
"""Bad values of a size where 0 is meaningful (``--audit-samples 0`` skips the audit)."""
few_samples = st.integers(min_value=1, max_value=limits.MIN_SAMPLES - 1).map(str)
"""Audit samples below the fewest an audit takes (``--samples``, ``--audit-samples``)."""
bad_epsilon = st.one_of(st.floats(max_value=0, allow_nan=False).map(repr),
                        st.floats(min_value=1e-300, max_value=9e-7).map(repr),
                        st.floats(min_value=1.0001e4, allow_infinity=False).map(repr), garbage)
bad_seed = st.one_of(st.integers(max_value=-1).map(str),
                     st.integers(min_value=2 ** 128, max_value=10 ** 400).map(str),
                     st.just("1.5"), st.just("1e5"), garbage)
bad_level = st.one_of(st.floats(max_value=0, allow_nan=False).map(repr),
                      st.floats(min_value=1, allow_nan=False).map(repr), garbage)
bad_mean = st.one_of(st.floats(max_value=-1e-9, allow_nan=False).map(repr),
                     st.floats(min_value=1.000001, allow_nan=False).map(repr), garbage)
bad_seconds = st.one_of(st.floats(max_value=0, allow_nan=False).map(repr),
                        st.floats(min_value=3600.001, allow_nan=False).map(repr), garbage)
bad_address = st.one_of(st.just("localhost"), st.just("tcp://h:0"), st.just("h:99999"), garbage)
bad_bound_value = st.one_of(
    st.sampled_from(["K", "T", "t", "epsilon", "Delta_min", "gaps", "lambda_0", "x"]).map(lambda n: n + "=1"),
    st.sampled_from(["nan", "inf", "-inf", "-1", "0", "1_0", ""]).map(lambda v: "f_0=" + v),
    garbage)
"""Bad ``bounds --value`` pairs: a symbol the instance sets, a name no bound of ALGO has, a
value that is not a finite number > 0, or no NAME=X shape."""
long_name = st.integers(min_value=256, max_value=1000).map(lambda n: "o" * n)
"""``--out`` names longer than a file system takes (NAME_MAX is 255 bytes almost everywhere)."""
bad_folder = st.sampled_from(["nothere", "/nonexistent/ml-1m", ""])
"""``--movielens`` folders that hold no MovieLens (missing, or no ratings.dat and movies.dat)."""

PARAM_TEXTS = ["abc", "", "-1", "0", "1", "2", "0.5", "1.5", "3", "11", "nan", "inf", "-inf",
               "1e400", "e", "E", "kl", "random", "first", "t-1", "x"]
"""Texts a ``--param NAME=`` may be given; each parameter refuses those outside its domain."""


def bad_param(algorithm: str) -> st.SearchStrategy[str]:
    """``NAME=VALUE`` for a parameter of ``algorithm`` with a value outside its declared domain
    (a number out of range, a text where a number is due, an unlisted choice)."""
    from dpbandits.reference.parameters import parameters, parse_value

    cases = [f"{p.name}={text}" for p in parameters(algorithm) for text in PARAM_TEXTS
             if not p.rule.contains(parse_value(text))]
    return st.sampled_from(cases)


COMMON = [("--seed", bad_seed), ("--workers", bad_count)]
"""(option, strategy of bad values) pairs that every simulating command takes."""

COMMANDS = {
    "run": (["run", "dp-ucb", "--means", "0.6", "0.4", "--horizon", "20", "--runs", "2",
             "--epsilon", "1", "--no-progress"],
            COMMON + [("--runs", bad_count), ("--horizon", bad_count), ("--epsilon", bad_epsilon),
                      ("--scheduler", bad_address), ("--means", bad_mean),
                      ("--out", long_name), ("--param", bad_param("dp-ucb"))]),
    "run-plot": (["run", "ucb1", "--means", "0.6", "0.4", "--horizon", "20", "--runs", "2",
                  "--no-progress", "--plot", "--log-x"],
                 COMMON + [("--out", long_name), ("--means", bad_mean)]),
    "audit": (["audit", "rnm-ftnl", "--samples", "200", "--horizon", "4", "--no-progress"],
              COMMON + [("--samples", bad_count), ("--samples", few_samples),
                        ("--horizon", bad_count), ("--arms", bad_count),
                        ("--epsilon", bad_epsilon), ("--alpha", bad_level),
                        ("--scheduler", bad_address), ("--param", bad_param("rnm-ftnl"))]),
    "audit-accountant": (["audit", "rnm-ftnl", "--from-accountant", "--samples", "200",
                          "--horizon", "4", "--no-progress"],
                         COMMON + [("--samples", bad_count), ("--samples", few_samples),
                                   ("--horizon", bad_count), ("--arms", bad_count),
                                   ("--epsilon", bad_epsilon), ("--alpha", bad_level),
                                   ("--scheduler", bad_address),
                                   ("--param", bad_param("rnm-ftnl"))]),
    "audit-rows": (["audit", "rnm-ftnl", "--samples", "200", "--no-progress", "--out", "{out}"],
                   COMMON + [("--samples", bad_count), ("--samples", few_samples),
                             ("--epsilon", bad_epsilon), ("--alpha", bad_level),
                             ("--scheduler", bad_address)]),
    "bounds": (["bounds", "dp-ucb-int", "--means", "0.6", "0.4", "--horizon", "20", "--runs", "2",
                "--epsilon", "1"],
               COMMON + [("--runs", bad_count), ("--horizon", bad_count),
                         ("--alpha", bad_level), ("--means", bad_mean), ("--value", bad_bound_value),
                         ("--scheduler", bad_address)]),
    "validate": (["validate", "--command", "true", "--against", "ucb1", "--horizon", "20",
                  "--no-progress"],
                 COMMON + [("--runs", bad_count), ("--horizon", bad_count), ("--alpha", bad_level),
                           ("--audit-samples", bad_size), ("--audit-samples", few_samples),
                           ("--audit-horizon", bad_count),
                           ("--timeout", bad_seconds), ("--out", long_name),
                           ("--param", bad_param("ucb1"))]),
    "list": (["list"], [("--epsilon", bad_epsilon)]),
    "prove": (["prove", "anytime-lazy-ucb", "--arms", "2", "--horizon", "6"],
              [("--epsilon", bad_epsilon), ("--arms", bad_count), ("--horizon", bad_count),
               ("--param", bad_param("anytime-lazy-ucb")), ("--variant", garbage)]),
    "report": (["report", "--budget", "tiny", "--part", "algorithms", "--no-progress"],
               COMMON + [("--scheduler", bad_address), ("--out", long_name)]),
    "reproduce": (["reproduce", "tossou2016-fig2a", "--size", "tiny", "--no-progress"],
                  COMMON + [("--scheduler", bad_address), ("--movielens", bad_folder)]),
}
"""For each command: a valid, tiny invocation and the options to corrupt."""

bad_backend = st.one_of(garbage, st.sampled_from(["Compiled", "numba", "reference ", "auto,compiled"]))
"""Backends that are not ``reference``, ``compiled`` or ``auto``. (``--backend compiled`` on an
algorithm whose kernel is declined is refused with the reason: tests/test_tutorial.py, with the
tutorial's algorithm, since every algorithm registered here has a kernel.)"""
for _command in ("run", "audit", "bounds", "validate", "report", "reproduce"):
    COMMANDS[_command][1].append(("--backend", bad_backend))

NOT_APPLICABLE = [
    (["run", "ucb1", "--means", "0.6", "0.4", "--horizon", "20", "--epsilon", "1"], "--epsilon"),
    (["run", "ucb1", "--means", "0.6", "0.4", "--horizon", "20", "--movielens", "x"], "--movielens"),
    (["run", "ucb1", "--means", "0.6", "0.4", "--horizon", "20", "--param", "T=5"], "'T'"),
    (["run", "ucb1", "--means", "0.6", "0.4", "--horizon", "20", "--param", "epsilon=5"], "'epsilon'"),
    (["run", "ucb1", "dp-ucb", "--means", "0.6", "0.4", "--horizon", "20", "--epsilon", "1",
      "--param", "tie_break=random"], "ambiguous"),
    (["run", "ucb1", "--means", "0.6", "0.4", "--horizon", "20", "--param", "hedge:eta=1"], "hedge"),
    (["audit", "rnm-ftnl", "--timeout", "5"], "--timeout"),
    (["audit", "rnm-ftnl", "--protocol", "interactive"], "--protocol"),
    (["audit", "rnm-ftnl", "--require-sandbox"], "--require-sandbox"),
    (["audit", "--all", "--require-sandbox"], "--require-sandbox"),
    (["audit", "rnm-ftnl", "--allow-unsandboxed"], "--allow-unsandboxed"),
    (["audit", "--all", "--allow-unsandboxed"], "--allow-unsandboxed"),
    (["audit", "rnm-ftnl", "--out", "{out}", "--variant", "paper"], "--variant"),
    (["audit", "rnm-ftnl", "--out", "{out}", "--horizon", "8", "--white-box"], "--horizon, --white-box"),
    (["audit", "rnm-ftnl", "--out", "{out}", "--param", "tie_break=random"], "--param"),
    (["audit", "rnm-ftnl", "--out", "{out}", "--arms", "3"], "--arms"),
    (["audit", "--command", "true", "--arms", "2", "--claim-epsilon", "1", "--param", "B=0"], "--param"),
    (["audit", "--all", "--horizon", "8"], "--horizon"),
    (["audit", "--all", "--from-accountant"], "--from-accountant"),
    (["audit", "rnm-ftnl", "--out", "{out}", "--from-accountant"], "--from-accountant"),
    (["audit", "rnm-ftnl", "--from-accountant", "--white-box"], "--white-box"),
    (["audit", "ucb1", "--from-accountant"], "no privacy claim"),
    (["audit", "--command", "true", "--arms", "2", "--claim-epsilon", "1", "--from-accountant"],
     "--from-accountant"),
    (["audit", "--python", "x:y", "--against", "dp-se", "--from-accountant"], "--from-accountant"),
    (["audit", "rnm-ftnl", "--samples", "0"], "--samples"),
    (["audit", "rnm-ftnl", "--param", "K=3"], "'K'"),
    (["audit", "rnm-ftnl", "--against", "dp-se"], "--against"),
    (["audit", "--python", "x:y", "--against", "dp-se", "--claim-epsilon", "1"], "--claim-epsilon"),
    (["audit", "--command", "true", "--arms", "2", "--claim-epsilon", "1", "--callable"], "--callable"),
    (["audit", "--python", "x:y", "--against", "ucb1"], "no privacy claim"),
    (["audit", "--python", "x:y", "--against", "omm"], "no privacy claim"),
    (["audit", "--command", "true", "--against", "dpucb-mat"], "--python"),
    (["audit", "--python", "x:y", "--against", "dpucb-mat", "--arms", "3"], "--arms"),
    (["validate", "--command", "true", "--against", "omm"], "--python"),
    (["validate", "--python", "x:y", "--against", "omm", "--feedback", "bandit"], "--feedback"),
    (["validate", "--python", "x:y", "--against", "omm", "--callable"], "--callable"),
    (["validate", "--command", "true", "--against", "ucb1", "--callable"], "--callable"),
    (["bounds", "ucb1", "--horizon", "20", "--epsilon", "1"], "--epsilon"),
    (["validate", "--command", "true", "--against", "ucb1", "--epsilon", "1"], "--epsilon"),
    (["reproduce", "tossou2016-fig2a", "--all"], "--all"),
    (["reproduce", "tossou2016-fig2a", "--movielens", "x"], "--movielens"),
    (["run", "ucb1", "--setting", "chandak-movielens", "--horizon", "20"], "--movielens DIR"),
    (["run", "rnm-ftnl-bq", "--means", "0.6", "0.4", "--horizon", "20", "--epsilon", "1",
      "--param", "B=1_0"], "--param B"),
    (["bounds", "ucb1", "--horizon", "20", "--value", "K=3"], "--value K"),
    (["run", "ucb1", "thompson", "dp-ucb-bound", "dp-ucb", "dp-ucb-int", "anytime-lazy-ucb",
      "hybrid-ucb", "lazy-dp-ts", "dp-se", "adap-klucb", "private-ucb", "ftl", "hedge",
      "naive-ftnl", "rnm-ftnl", "rnm-ftnl-bq", "--means", "0.3", "0.6", "--horizon", "100000",
      "--runs", "10", "--epsilon", "1.2345678901234567e-06", "--seed", str(2 ** 128 - 1),
      "--per-run"], "cannot write"),
]
"""Invocations with an option or a parameter that does not apply: each is an error naming it."""
if importlib.util.find_spec("distributed") is not None:       # else: "a scheduler needs Dask"
    NOT_APPLICABLE.append((["run", "ucb1", "--means", "0.6", "0.4", "--horizon", "20",
                            "--scheduler", "inproc://x"], "inproc://"))


def _run_cli(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(argv)
    return status, out.getvalue(), err.getvalue()


def _writes(argv: list[str]) -> bool:
    """Whether the invocation takes --out (everything but list, prove and an audit of one ALGO;
    an invocation that gives ``--out {out}`` has it)."""
    audit_one = argv[0] == "audit" and "--all" not in argv
    return argv[0] not in ("list", "prove") and not audit_one and "--out" not in argv



def _assert_clean_refusal(argv: list[str], named: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "out"
        given = [str(out) if word == "{out}" else word for word in argv]
        status, _, err = _run_cli(given + (["--out", str(out)] if _writes(argv) else []))
        assert status == 2, (argv, err)
        lines = err.splitlines()
        assert len(lines) == 1 and lines[0].startswith("dpbandits: error: "), err
        assert named in lines[0], (named, lines[0])
        assert "Traceback" not in err
        leftover = [p for p in out.rglob("*") if p.is_file()] if out.exists() else []
        assert leftover == [], leftover


@st.composite
def corrupted(draw, command: str | None = None) -> tuple[list[str], str]:
    """A valid tiny invocation with one option set to a bad value (the last occurrence wins),
    and the option the error must name."""
    name = command or draw(st.sampled_from(sorted(COMMANDS)))
    base, options = COMMANDS[name]
    option, bad = draw(st.sampled_from(options))
    return base + [option, draw(bad)], option


def _property_bad_option_is_one_line(case: tuple[list[str], str]) -> None:
    _assert_clean_refusal(*case)


@pytest.mark.property
@FAST
@given(corrupted())
def test_a_bad_option_is_one_line_and_status_2(case):
    _property_bad_option_is_one_line(case)


@pytest.mark.fuzz
@pytest.mark.property
@FULL
@given(corrupted())
def test_a_bad_option_is_one_line_and_status_2_full(case):
    _property_bad_option_is_one_line(case)


@pytest.mark.fuzz
@pytest.mark.property
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_each_command_refuses_every_bad_option_full(command):
    @FULL
    @given(corrupted(command))
    def check(case):
        _property_bad_option_is_one_line(case)
    check()


@pytest.mark.exact
@pytest.mark.parametrize("argv, named", NOT_APPLICABLE,
                         ids=[" ".join(argv[:2] + argv[-2:]) for argv, _ in NOT_APPLICABLE])
def test_an_option_that_does_not_apply_is_an_error_naming_it(argv, named):
    _assert_clean_refusal(argv, named)


python_name = st.one_of(garbage, st.just("nocolon"), st.just("nosuch.py:X"), st.just(":X"),
                        st.just("os:"), st.just("os:path.nope"), st.just("math:pi"),
                        st.text(alphabet="abc./:_", min_size=1, max_size=10))
"""Names a --python candidate may be given that import nothing usable."""


def _property_python_name(command: str, name: str) -> None:
    argv = {"audit": ["audit", "--python", name, "--against", "dp-se", "--samples", "100"],
            "audit-semi": ["audit", "--python", name, "--against", "dpucb-mat", "--samples", "100"],
            "validate": ["validate", "--python", name, "--against", "ucb1", "--horizon", "20"],
            "validate-semi": ["validate", "--python", name, "--against", "omm", "--horizon", "20"],
            }[command]
    _assert_clean_refusal(argv + ["--no-progress"], "")


@pytest.mark.property
@FAST
@given(st.sampled_from(["audit", "audit-semi", "validate", "validate-semi"]), python_name)
def test_a_python_candidate_that_names_nothing_usable_is_one_line(command, name):
    _property_python_name(command, name)


param_text = st.text(alphabet="abcdeBQTKv_:=.0123456789-", min_size=0, max_size=14)


def _property_param(value: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        status, _, err = _run_cli(["run", "rnm-ftnl-bq", "--means", "0.6", "0.4", "--horizon", "8",
                                   "--runs", "2", "--epsilon", "1", "--no-progress",
                                   "--param", value, "--out", folder])
        assert status in (0, 2) and "Traceback" not in err
        if status == 2:
            assert len(err.splitlines()) == 1, err


@pytest.mark.property
@FAST
@given(param_text)
def test_any_param_text_runs_or_is_one_line(value):
    _property_param(value)


@pytest.mark.fuzz
@pytest.mark.property
@FULL
@given(param_text)
def test_any_param_text_runs_or_is_one_line_full(value):
    _property_param(value)


def _domain_case_argv(command: str, algorithm: str, pair: str) -> list[str]:
    from dpbandits.reference import registry

    private = ["--epsilon", "1"] if registry.get(algorithm).private else []
    return {"run": ["run", algorithm, "--means", "0.6", "0.4", "--horizon", "20", "--runs", "2",
                    *private, "--no-progress"],
            "audit": ["audit", algorithm, "--samples", "200", "--horizon", "4", "--no-progress"],
            "validate": ["validate", "--command", "true", "--against", algorithm, *private,
                         "--horizon", "20", "--no-progress"]}[command] + ["--param", pair]


@st.composite
def outside_a_domain(draw) -> tuple[list[str], str]:
    """A command that takes --param, a bandit or full-information algorithm (private ones for
    ``audit``) and one of its parameters set outside its declared domain."""
    from dpbandits.reference import registry

    command = draw(st.sampled_from(["run", "audit", "validate"]))
    names = [n for n in registry.ALGORITHMS if registry.get(n).feedback != "semi"
             and (command != "audit" or registry.get(n).private)]
    algorithm = draw(st.sampled_from(names))
    return _domain_case_argv(command, algorithm, draw(bad_param(algorithm))), "--param"


@pytest.mark.property
@FAST
@given(outside_a_domain())
def test_a_parameter_outside_its_domain_is_one_line_and_status_2(case):
    _assert_clean_refusal(*case)


@pytest.mark.fuzz
@pytest.mark.property
@FULL
@given(outside_a_domain())
def test_a_parameter_outside_its_domain_is_one_line_and_status_2_full(case):
    _assert_clean_refusal(*case)


# -- the public checks ----------------------------------------------------------------------

api_value = st.one_of(st.none(), st.booleans(), st.integers(min_value=-10 ** 40, max_value=10 ** 40),
                      st.floats(), st.complex_numbers(), st.text(max_size=8),
                      st.sampled_from([np.complex128(1), np.float64(1.0), np.int64(-3), np.bool_(True),
                                       "1_0", [1], np.random.SeedSequence(1)]))
"""Anything a caller may pass as a seed, a generator or a privacy parameter."""


def _property_api_value(value) -> None:
    from dpbandits.reference import Bernoulli, make, simulate, spec

    calls = [lambda: make("ucb1", 2, rng=value),
             lambda: make("dp-ucb", 2, epsilon=value, rng=0),
             lambda: simulate(spec("ucb1", 2), Bernoulli(np.array([0.2, 0.5])), 3, seed=value),
             lambda: make("hedge", 2, rng=0, eta=value)]
    for call in calls:
        try:
            call()
        except DPBanditsError:
            pass                                # one clear error naming the argument


@pytest.mark.property
@FAST
@given(api_value)
def test_the_api_takes_any_seed_rng_epsilon_or_eta_or_refuses_it_clearly(value):
    _property_api_value(value)


@pytest.mark.fuzz
@pytest.mark.property
@FULL
@given(api_value)
def test_the_api_takes_any_seed_rng_epsilon_or_eta_or_refuses_it_clearly_full(value):
    _property_api_value(value)


anything = st.one_of(st.none(), st.booleans(), st.integers(min_value=-10 ** 400, max_value=10 ** 400),
                     st.floats(), st.text(max_size=50), st.lists(st.integers(), max_size=3))


@pytest.mark.property
@FAST
@given(anything)
def test_check_seed_accepts_exactly_the_integers_below_2_to_128(value):
    ok = (isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 2 ** 128) or \
        (isinstance(value, str) and value.strip().isdigit() and len(value.strip()) <= 60
         and int(value) < 2 ** 128)
    if ok:
        assert check_seed(value) == int(value)
    else:
        with pytest.raises(DPBanditsError):
            check_seed(value)


@pytest.mark.property
@FAST
@given(st.integers(min_value=2 ** 53, max_value=2 ** 128 - 2))
def test_seeds_above_2_to_53_stay_distinct(seed):
    assert check_seed(seed) != check_seed(seed + 1)


@pytest.mark.property
@FAST
@given(st.integers(1, 10 ** 12), st.integers(1, 10 ** 10), st.integers(2, 20_000))
def test_a_simulation_is_refused_exactly_when_it_exceeds_a_budget(runs, T, K):
    too_big = (T > limits.MAX_HORIZON or K > limits.MAX_ARMS or runs > limits.MAX_RUNS
               or limits.simulation_bytes(runs, K) > limits.MEMORY_BUDGET
               or runs * T * K > limits.WORK_BUDGET)
    if too_big:
        with pytest.raises(DPBanditsError):
            limits.check_simulation_size(runs, T, K)
    else:
        limits.check_simulation_size(runs, T, K)


@pytest.mark.property
@FAST
@given(st.integers(1, 10 ** 9), st.integers(1, 10 ** 10), st.integers(2, 20_000))
def test_an_audit_is_refused_exactly_when_it_exceeds_a_budget(samples, T, K):
    too_big = (T > limits.MAX_HORIZON or K > limits.MAX_ARMS or samples > limits.MAX_SAMPLES
               or 2 * samples * T > limits.AUDIT_WORK_BUDGET
               or limits.audit_bytes(samples, T, K) > limits.MEMORY_BUDGET)
    if too_big:
        with pytest.raises(DPBanditsError, match="at most"):
            limits.check_audit_size(samples, T, K)
    else:
        limits.check_audit_size(samples, T, K)


@pytest.mark.property
@FAST
@given(st.integers(20, 10 ** 8), st.integers(1, 10 ** 10), st.integers(2, 20_000))
def test_a_validation_is_refused_exactly_when_it_exceeds_a_budget(runs, T, K):
    too_big = (T > limits.MAX_HORIZON or K > limits.MAX_ARMS or runs > limits.MAX_RUNS
               or limits.simulation_bytes(runs, K) > limits.MEMORY_BUDGET
               or runs * T * K > limits.WORK_BUDGET
               or limits.validation_bytes(runs, T, K) > limits.MEMORY_BUDGET)
    if too_big:
        with pytest.raises(DPBanditsError, match="at most"):
            limits.check_validation_size(runs, T, K, minimum=20)
    else:
        limits.check_validation_size(runs, T, K, minimum=20)


@pytest.mark.property
@FAST
@given(st.one_of(st.integers(min_value=-10, max_value=1), st.integers(10_001, 10 ** 30)))
def test_every_K_outside_2_to_max_arms_is_refused_by_make(K):
    from dpbandits.reference import make

    with pytest.raises(DPBanditsError, match="K must be an integer"):
        make("ucb1", K, rng=0)


@pytest.mark.property
@FAST
@given(st.floats(allow_nan=True, allow_infinity=True))
def test_epsilon_outside_the_supported_range_is_refused_by_every_entry(epsilon):
    from dpbandits.reference import make

    low, high = limits.EPSILON_RANGE
    if low <= epsilon <= high:
        assert make("rnm-ftnl", 3, epsilon=epsilon, rng=0).epsilon == epsilon
    else:
        with pytest.raises(DPBanditsError):
            make("rnm-ftnl", 3, epsilon=epsilon, rng=0)


# -- inputs refused before any work -----------------------------------------------------------

def _property_equal_means(mean: float, K: int) -> None:
    argv = ["validate", "--python", "examples/validate/implementations.py:PlainLazyUCB",
            "--against", "ucb1", "--means", *[repr(mean)] * K, "--no-progress"]
    _assert_clean_refusal(argv, "means are all equal")


@pytest.mark.property
@FAST
@given(st.floats(min_value=0, max_value=1), st.integers(min_value=2, max_value=50))
def test_validate_with_equal_means_is_refused_before_any_work(mean, K):
    _property_equal_means(mean, K)


@pytest.mark.fuzz
@pytest.mark.property
@FULL
@given(st.floats(min_value=0, max_value=1), st.integers(min_value=2, max_value=10_000))
def test_validate_with_equal_means_is_refused_before_any_work_full(mean, K):
    _property_equal_means(mean, K)


# -- hostile candidates ------------------------------------------------------------------------

HOSTILE = Path(__file__).resolve().parent / "data" / "hostile" / "attacks.py"


@pytest.mark.fuzz
@pytest.mark.exact
@pytest.mark.parametrize("name", ["ReachesAuditor", "SignalsAuditor", "WritesPackage",
                                  "WritesPth", "WritesCache", "WritesOut", "ChecksPreload",
                                  "ForgesVerdict", "RaisesVerdict", "NestedReply", "PartialReply",
                                  "TogglesProgress", "AdvancesProgress", "Detaches", "ForksMany"])
def test_a_hostile_candidate_is_follow_the_leader_or_its_own_one_line_error(name, tmp_path,
                                                                           monkeypatch):
    """Each attack of tests/data/hostile/attacks.py (tests/audit/test_hostile.py states what
    each must give): the runs are the candidate's plain ones, or one line naming it; without a
    sandbox only the attacks on the auditor's own process are held."""
    from dpbandits.audit import sandbox
    from dpbandits.candidates import load

    monkeypatch.setenv("HOSTILE_TARGET", str(tmp_path))
    table = Table(np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 0.0], [0.0, 0.0]]))
    mechanism = None
    try:
        mechanism = load(f"{HOSTILE}:{name}", K=2, epsilon=1.0, feedback="full", timeout=3)
        actions = mechanism.sample(table, 10, 0)
    except DPBanditsError as error:
        text = str(error)
        assert "\n" not in text and name in text and "Breached" not in text, text
        assert sandbox.status().available or name not in ("ReachesAuditor", "ChecksPreload")
    else:
        assert (actions == 0).all()
    finally:
        if mechanism is not None:
            mechanism.close()
    assert list(tmp_path.iterdir()) == []


# -- misbehaving external programs --------------------------------------------------------------

def _program(body: str) -> list[str]:
    return [sys.executable, "-c", body]


_TABLE_PROGRAM = """
import sys
K, T = {K}, {T}
for line in sys.stdin:
    words = line.split()
    if not words or words[0] == "quit":
        break
    if words[0] == "run":
        for _ in range(T):
            sys.stdin.readline()
        sys.stdout.write({answer} + "\\n")
        sys.stdout.flush()
"""

MISBEHAVIOURS = {
    "crash": ("import sys; sys.exit(3)", "exited with status 3"),
    "hang": ("import time; time.sleep(60)", "no answer within the timeout"),
    "garbage": (_TABLE_PROGRAM.format(K=2, T=4, answer="'zero one two three'"), ""),
    "wrong length": (_TABLE_PROGRAM.format(K=2, T=4, answer="'0 1'"), ""),
    "out of range": (_TABLE_PROGRAM.format(K=2, T=4, answer="'0 1 5 0'"), ""),
    "endless line": ("import sys\nwhile True: sys.stdout.write('0 ' * 4096)", "longer than"),
    "stderr flood": ("import sys, time\nfor _ in range(40000): sys.stderr.write('x' * 4096)\n"
                     "time.sleep(60)", "standard error"),
    "no newline on stderr": ("import sys, time\nsys.stderr.write('y' * 10 ** 6); sys.stderr.flush()"
                             "\nsys.exit(1)", "bytes in all"),
}
"""Programs that break the table protocol, and a phrase their error message must contain."""


@pytest.mark.smoke
@pytest.mark.parametrize("name", sorted(MISBEHAVIOURS))
def test_a_misbehaving_program_is_one_clear_error(name):
    body, phrase = MISBEHAVIOURS[name]
    mechanism = CommandMechanism(_program(body), 2, 1.0, timeout=3.0)
    table = Table(np.full((4, 2), 0.5))
    with pytest.raises(DPBanditsError) as caught:
        mechanism.sample(table, 3, seed=0)
    assert phrase in str(caught.value)


def _property_answer_line(answer: bytes) -> None:
    body = _TABLE_PROGRAM.format(K=3, T=4, answer=f"{answer!r}.decode('latin-1')")
    body = body.replace("sys.stdout.write(", "sys.stdout.buffer.write((").replace(
        ' + "\\n")', ' + "\\n").encode("latin-1"))')
    mechanism = CommandMechanism(_program(body), 3, 1.0, timeout=5.0)
    try:
        actions = mechanism.sample(Table(np.full((4, 3), 0.5)), 1, seed=0)
    except DPBanditsError as error:
        assert str(error)
    else:
        assert actions.shape == (1, 4) and np.all((actions >= 0) & (actions < 3))


answers = st.one_of(st.binary(min_size=1, max_size=200),
                    st.lists(st.integers(-3, 5), min_size=0, max_size=8).map(
                        lambda xs: " ".join(map(str, xs)).encode()))


@pytest.mark.property
@settings(max_examples=15)
@given(answers)
def test_any_answer_line_is_valid_actions_or_a_clear_error(answer):
    _property_answer_line(answer)


@pytest.mark.fuzz
@pytest.mark.property
@settings(max_examples=200)
@given(answers)
def test_any_answer_line_is_valid_actions_or_a_clear_error_full(answer):
    _property_answer_line(answer)


@pytest.mark.fuzz
@pytest.mark.smoke
@pytest.mark.parametrize("name", sorted(MISBEHAVIOURS))
def test_a_misbehaving_program_is_one_clear_error_interactive(name):
    """The same programs under the interactive protocol: never a hang, never a silent result."""
    body, _ = MISBEHAVIOURS[name]
    mechanism = CommandMechanism(_program(body), 2, 1.0, protocol="interactive", timeout=3.0)
    with pytest.raises(DPBanditsError):
        mechanism.sample(Table(np.full((4, 2), 0.5)), 3, seed=0)


# -- resources -------------------------------------------------------------------------------

@pytest.mark.smoke
@pytest.mark.parametrize("argv", [
    ["run", "ucb1", "--means", "0.5", "0.4", "--horizon", "1000000", "--runs", "10000000"],
    ["audit", "--command", "true", "--arms", "2", "--claim-epsilon", "1",
     "--samples", "100000000", "--horizon", "1000"],
    ["run", "ucb1", "--means", "0.5", "0.4", "--horizon", "1000", "--runs", "1000000000"],
    ["audit", "dp-se", "--epsilon", "0.001"],
    ["audit", "--command", "true", "--arms", "10000", "--claim-epsilon", "1", "--samples", "100",
     "--horizon", "1000000"],
    ["audit", "ucb1", "--samples", "100000000", "--horizon", "50"],
    ["audit", "--all", "--epsilon", "0.000001"],
    ["validate", "--command", "true", "--against", "dp-se", "--epsilon", "0.001"],
    ["validate", "--command", "true", "--against", "ucb1", "--horizon", "100000", "--runs", "20",
     "--means", *(["0.5"] * 9_999), "0.6"],
    ["bounds", "ucb1", "--setting", "tossou2016-10arms", "--horizon", "1000000000", "--runs", "200"],
])
def test_a_request_too_big_is_refused_under_a_memory_limit(argv, tmp_path):
    """Under a 2 GiB address-space limit the refusal comes before any allocation."""
    code = ("import resource, sys; resource.setrlimit(resource.RLIMIT_AS, (2 ** 31, 2 ** 31)); "
            "from dpbandits.cli import main; sys.exit(main(sys.argv[1:]))")
    out = ["--out", str(tmp_path / "o")] if _writes(argv) else []
    completed = subprocess.run([sys.executable, "-c", code, *argv, *out],
                               capture_output=True, text=True, timeout=120,
                               env={**os.environ, "MPLBACKEND": "Agg"})
    assert completed.returncode == 2, completed.stderr
    assert len(completed.stderr.splitlines()) == 1
    assert "at most" in completed.stderr or "must be an integer in" in completed.stderr


# -- audits at the shortest horizons -------------------------------------------------------------

@pytest.mark.fuzz
@pytest.mark.smoke
@pytest.mark.parametrize("T", ["1", "2", "3"])
def test_every_algorithm_audits_at_the_shortest_horizons(T):
    """A worked worst case longer than the horizon is left out, not built past the table's end
    (``audit dp-ucb-int --horizon 1`` and ``rnm-ftnl-bq --horizon 2`` were internal errors)."""
    from dpbandits.reference.registry import ALGORITHMS

    for name in ALGORITHMS:
        status, out, err = _run_cli(["audit", name, "--horizon", T, "--samples", "100",
                                     "--epsilon", "1", "--no-progress"])
        assert status in (0, 1, 2, 3), (name, status, err)
        assert status != 2 or err.count("\n") == 1, (name, err)


no_sandbox_values = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\0"),
                            max_size=12)
"""Values of DPBANDITS_NO_SANDBOX (any text the environment can hold)."""


@pytest.mark.property
@settings(max_examples=25, deadline=None)
@given(no_sandbox_values)
def test_any_no_sandbox_value_is_1_true_unset_or_one_line_exit_2(value):
    """DPBANDITS_NO_SANDBOX takes 1 or true (any case) or nothing; anything else
    is bad input before any work: one line, exit status 2."""
    from dpbandits.audit import sandbox

    saved, probed = os.environ.get(sandbox.NO_SANDBOX), sandbox._STATUS
    os.environ[sandbox.NO_SANDBOX] = value
    sandbox._STATUS = sandbox.Sandbox(0, "not probed in this test")     # refused before work
    try:
        status, out, err = _run_cli(["audit", "--command", "true", "--arms", "2",
                                     "--claim-epsilon", "1", "--require-sandbox",
                                     "--no-progress"])
    finally:
        sandbox._STATUS = probed
        if saved is None:
            os.environ.pop(sandbox.NO_SANDBOX, None)
        else:
            os.environ[sandbox.NO_SANDBOX] = saved
    if value.lower() in ("", "1", "true"):
        assert status == 3 and "DPBANDITS_NO_SANDBOX" not in err, (value, err)
    else:
        assert status == 2 and out == "" and err.count("\n") == 1, (value, status, err)
        assert err.startswith("dpbandits: error: DPBANDITS_NO_SANDBOX must be 1 or true"), err
