"""Exact: the UCB1 and Anytime-Lazy-UCB kernels are bit-identical to their reference algorithms."""

from __future__ import annotations

import numpy as np
import pytest

from dpbandits.errors import DPBanditsError
from dpbandits.reference import Bernoulli, BetaArms, Table, simulate, spec

from .identity import differing_fields

pytestmark = pytest.mark.exact

SOURCES = {
    "bernoulli": Bernoulli([0.5, 0.45, 0.4, 0.5]),
    "beta": BetaArms([2.0, 1.0, 3.0, 1.5], [2.0, 2.0, 1.0, 3.0]),
    "table": Table(Bernoulli([0.6, 0.5, 0.4, 0.3]).table(300, np.random.default_rng(7))),
}


@pytest.mark.parametrize("source", sorted(SOURCES))
@pytest.mark.parametrize("tie_break", ["first", "random"])
@pytest.mark.parametrize("name, kwargs", [("ucb1", {}), ("ucb1", {"log_round": "t-1"}),
                                          ("anytime-lazy-ucb", {"epsilon": 0.5})])
@pytest.mark.parametrize("runs, T", [(1, 300), (33, 200)])
def test_bit_identical(name, kwargs, tie_break, source, runs, T):
    factory = spec(name, 4, tie_break=tie_break, **kwargs)
    assert differing_fields(factory, SOURCES[source], T, runs, seed=11) == []


def test_block_boundary_and_workers_do_not_change_the_result():
    """Two blocks (4096 + 4) on one process and on two give the same compiled result."""
    factory = spec("anytime-lazy-ucb", 3, epsilon=1.0)
    source = Bernoulli([0.7, 0.5, 0.5])
    one = simulate(factory, source, 40, 4100, seed=5, backend="compiled")
    two = simulate(factory, source, 40, 4100, seed=5, backend="compiled", workers=2)
    reference = simulate(factory, source, 40, 4100, seed=5, backend="reference")
    assert np.array_equal(one.pseudo_regret, two.pseudo_regret)
    assert np.array_equal(one.pseudo_regret, reference.pseudo_regret)


def test_backend_choice_is_recorded_and_checked():
    factory = spec("ucb1", 2)
    source = Bernoulli([0.6, 0.4])
    assert simulate(factory, source, 10, 2).backend == "reference"          # short: auto -> reference
    assert simulate(factory, source, 6000, 1).backend == "compiled"         # long: auto -> compiled
    with pytest.raises(DPBanditsError, match="backend must be one of"):
        simulate(factory, source, 10, 2, backend="fast")


def test_compiled_refuses_what_it_cannot_run():
    class Custom(Bernoulli):
        pass

    with pytest.raises(DPBanditsError, match="cannot draw rewards from Custom"):
        simulate(spec("ucb1", 2), Custom([0.6, 0.4]), 10, 2, backend="compiled")
    assert simulate(spec("ucb1", 2), Custom([0.6, 0.4]), 6000, 1).backend == "reference"


def test_same_compiled_result_on_a_dask_cluster():
    """Exact: blocks run on a Dask LocalCluster give the local compiled (and reference) result."""
    distributed = pytest.importorskip("distributed")
    factory = spec("anytime-lazy-ucb", 3, epsilon=1.0)
    source = Bernoulli([0.7, 0.5, 0.5])
    local = simulate(factory, source, 30, 4100, seed=9, backend="compiled")
    with distributed.LocalCluster(n_workers=2, processes=False, dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        remote = simulate(factory, source, 30, 4100, seed=9, backend="compiled", client=client)
    assert remote.backend == "compiled"
    assert np.array_equal(local.pseudo_regret, remote.pseudo_regret)
    assert np.array_equal(local.pulls, remote.pulls)


def test_compiling_is_announced_once_when_the_cache_is_cold(monkeypatch, capsys):
    """Smoke: a kernel with no cached code says that it is compiling, once per process."""
    import dpbandits.compiled as compiled

    module = compiled.kernel_module("ucb1")
    monkeypatch.setattr(compiled, "_announced", set())
    monkeypatch.setattr(compiled, "_cache_present", lambda module: False)
    monkeypatch.setattr(compiled, "_loaded", lambda module: False)
    compiled._announce_compiling("ucb1", module)
    compiled._announce_compiling("ucb1", module)
    assert capsys.readouterr().err.count("compiling the ucb1 kernel") == 1
