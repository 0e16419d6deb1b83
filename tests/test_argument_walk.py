"""Arguments are checked once, then trusted: the engine's blocks do not check epsilon again,
and every direct call of the public API still checks everything.

Kinds: exact (the counts of checking calls under ``tools/argument_walk.py``'s profiler, the
refusals of bad values, identical actions on the trusted and the checked path, the walk's
arithmetic).
"""

from __future__ import annotations

import dataclasses
import importlib.util
import math
import pickle
import sys
from pathlib import Path

import numpy as np
import pytest

from dpbandits.errors import DPBanditsError
from dpbandits.reference import Bernoulli, Table, make, simulate, spec
from dpbandits.reference import registry
from dpbandits.reference.bandit.anytime_lazy_ucb import AnytimeLazyUCB
from dpbandits.reference.bandit.ucb1 import UCB1
from dpbandits.reference.registry import AlgorithmSpec, CheckedArguments, build, check_arguments

_TOOL = Path(__file__).resolve().parent.parent / "tools" / "argument_walk.py"
_loader = importlib.util.spec_from_file_location("argument_walk", _TOOL)
argument_walk = importlib.util.module_from_spec(_loader)
sys.modules.setdefault("argument_walk", argument_walk)     # its dataclasses look themselves up
_loader.loader.exec_module(argument_walk)

MAX_CHECKS_PER_BLOCK = 0
"""Checking calls that receive a factory's epsilon when the engine builds a block's policy."""


def _epsilon_checks(run, epsilon) -> list[str]:
    _, walks = argument_walk.walk(run, {"epsilon": epsilon})
    return walks["epsilon"].checks


def _blocks(factory, n: int = 3) -> None:
    for seed in range(n):
        factory(4, np.random.default_rng(seed))


@pytest.mark.exact
def test_the_engine_builds_blocks_without_checking_epsilon_again():
    epsilon = 0.75
    factory = spec("anytime-lazy-ucb", 3, epsilon=epsilon)
    assert len(_epsilon_checks(lambda: _blocks(factory), epsilon)) <= 3 * MAX_CHECKS_PER_BLOCK
    table = Table(np.random.default_rng(0).random((40, 3)))
    assert _epsilon_checks(lambda: simulate(factory, table, 40, runs=8), epsilon) == []


@pytest.mark.exact
def test_spec_checks_epsilon_once_and_make_checks_it_every_time():
    epsilon = 0.75
    at_spec = _epsilon_checks(lambda: spec("anytime-lazy-ucb", 3, epsilon=epsilon), epsilon)
    assert "dpbandits.limits.check_epsilon_range" in at_spec
    for _ in range(2):
        assert "dpbandits.errors.check_epsilon" in _epsilon_checks(
            lambda: make("anytime-lazy-ucb", 3, epsilon=epsilon, rng=0), epsilon)


@pytest.mark.exact
def test_the_count_fails_when_blocks_check_again(monkeypatch):
    """The detector above, on a planted break: blocks built through make check epsilon."""
    epsilon = 0.75
    factory = spec("anytime-lazy-ucb", 3, epsilon=epsilon)
    monkeypatch.setattr(registry, "build", lambda arguments, runs, rng: make(
        arguments.name, arguments.K, runs=runs, rng=rng, **dict(arguments.kwargs)))
    assert len(_epsilon_checks(lambda: _blocks(factory), epsilon)) > 3 * MAX_CHECKS_PER_BLOCK


BAD_EPSILONS = [0.0, -1.0, math.nan, math.inf, True, 1j, None]


@pytest.mark.exact
@pytest.mark.parametrize("epsilon", BAD_EPSILONS)
def test_direct_calls_still_refuse_a_bad_epsilon(epsilon):
    spec("anytime-lazy-ucb", 3, epsilon=1.0)(2, np.random.default_rng(0))   # a trusted build first
    with pytest.raises(DPBanditsError, match="epsilon"):
        AnytimeLazyUCB(3, epsilon=epsilon, rng=0)
    with pytest.raises(DPBanditsError, match="epsilon"):
        make("anytime-lazy-ucb", 3, epsilon=epsilon, rng=0)
    with pytest.raises(DPBanditsError, match="epsilon"):
        spec("anytime-lazy-ucb", 3, epsilon=epsilon)
    with pytest.raises(DPBanditsError, match="epsilon"):
        AlgorithmSpec("anytime-lazy-ucb", 3, epsilon)(1, np.random.default_rng(0))
    checked = spec("anytime-lazy-ucb", 3, epsilon=1.0)
    with pytest.raises(DPBanditsError, match="epsilon"):
        dataclasses.replace(checked, epsilon=epsilon)(1, np.random.default_rng(0))


@pytest.mark.exact
def test_direct_calls_still_refuse_bad_arms_variants_ties_and_horizons():
    spec("ucb1", 3)(2, np.random.default_rng(0))
    with pytest.raises(DPBanditsError, match="K"):
        UCB1(1, rng=0)
    with pytest.raises(DPBanditsError, match="variant"):
        UCB1(3, rng=0, variant="nope")
    with pytest.raises(DPBanditsError, match="tie_break"):
        make("ucb1", 3, rng=0, tie_break="last")
    with pytest.raises(DPBanditsError, match="T"):
        make("private-ucb", 3, epsilon=1.0, rng=0, T=0)
    with pytest.raises(DPBanditsError, match="T"):
        spec("private-ucb", 3, epsilon=1.0, T=-5)
    with pytest.raises(DPBanditsError, match="runs"):
        spec("ucb1", 3)(0, np.random.default_rng(0))          # a block's own arguments
    with pytest.raises(DPBanditsError, match="rng"):
        spec("ucb1", 3)(2, None)


@pytest.mark.exact
def test_checked_arguments_are_made_by_the_checking_function_only():
    with pytest.raises(DPBanditsError, match="check_arguments"):
        CheckedArguments("ucb1", UCB1, 3, ())
    with pytest.raises(DPBanditsError, match="check_arguments"):
        build({"name": "ucb1"}, 1, np.random.default_rng(0))
    arguments = check_arguments("dp-ucb", 3, epsilon=2.0, T=99)
    with pytest.raises(dataclasses.FrozenInstanceError):
        arguments.K = 1
    with pytest.raises(DPBanditsError, match="check_arguments"):
        dataclasses.replace(arguments, K=1)
    assert (arguments.name, arguments.K, arguments.epsilon, arguments.T) == ("dp-ucb", 3, 2.0, None)
    with pytest.raises(TypeError):
        AlgorithmSpec("ucb1", 3, checked=arguments)           # spec sets it, nothing else
    policy = build(arguments, 2, np.random.default_rng(0))
    assert "_arguments_checked" not in vars(policy) and not policy._arguments_checked


@pytest.mark.exact
@pytest.mark.parametrize("name, params", [("anytime-lazy-ucb", {}), ("dp-ucb", {}),
                                          ("private-ucb", {"gamma_rule": "t"}),
                                          ("ucb1", {"tie_break": "random"}), ("rnm-ftnl", {})])
def test_the_trusted_path_plays_the_checked_paths_actions(name, params):
    epsilon = None if not registry.get(name).private else 0.5
    checked = spec(name, 4, epsilon=epsilon, T=60, **params)
    unchecked = AlgorithmSpec(name, 4, epsilon, None, 60, tuple(sorted(params.items())))
    assert checked.checked is not None and unchecked.checked is None
    source = Bernoulli(np.array([0.8, 0.6, 0.4, 0.2]))
    runs = [simulate(factory, source, 60, runs=16, seed=3, record_actions=True,
                     backend="reference").actions
            for factory in (checked, unchecked, pickle.loads(pickle.dumps(checked)))]
    assert np.array_equal(runs[0], runs[1]) and np.array_equal(runs[0], runs[2])


@pytest.mark.exact
def test_the_walk_counts_modules_and_returns_to_a_module_left():
    walk = argument_walk.Walk("epsilon", [("a", "f"), ("a", "g"), ("b", "h"), ("a", "f"),
                                          ("dpbandits.errors", "check_epsilon"), ("b", "h"),
                                          ("dpbandits.limits", "_check_integer")])
    assert walk.modules == 4
    assert walk.climbs_back == 2                 # a after b, b after errors
    assert walk.checks == ["dpbandits.errors.check_epsilon"]


@pytest.mark.exact
def test_the_walk_counts_by_identity_not_by_value():
    epsilon = 0.75
    same_value = float("0.75")
    assert same_value is not epsilon
    _, walks = argument_walk.walk(lambda: make("anytime-lazy-ucb", 3, epsilon=same_value, rng=0),
                                  {"epsilon": epsilon})
    assert walks["epsilon"].calls == []
    _, walks = argument_walk.walk(lambda: make("anytime-lazy-ucb", 3, epsilon=epsilon, rng=0),
                                  {"epsilon": epsilon})
    assert ("dpbandits.reference.registry", "make") in walks["epsilon"].calls
