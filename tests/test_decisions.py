"""Decision rules checked by value, and the matroid round 0 that does not read its loops.

``noise.decision`` hands back the inputs of a decision rule and, in tracing mode, checks each one
across the lockstep runs (docs/accountant.md, "What the tracer checks by value"). The private
matroid policies do not read a loop's round-0 weight (``matroid/common.py``, module header): the
bases played are the printed algorithm's, and the accountant's bound on the paper variant is the
proven L' eps / K (docs/algorithms/dpucb-mat.md, step 5 of the proof).

Kinds: exact (deterministic traces and runs, fixed seeds).
"""

from __future__ import annotations

import inspect
import textwrap

import numpy as np
import pytest

from dpbandits.accountant import traced_upper
from dpbandits.reference import make, noise
from dpbandits.reference.matroid import Graphic, Partition, greedy
from dpbandits.reference.matroid.common import PrivateMatroidPolicy
from dpbandits.reference.matroid.data import synthetic_matroid
from dpbandits.reference.registry import get

pytestmark = pytest.mark.exact

SYNTHETIC = synthetic_matroid()           # L = 7, rank 3, one loop (e_7)
WITH_LOOPS = {
    "synthetic": SYNTHETIC,
    "graphic-self-loop": Graphic([(0, 1), (1, 2), (2, 0), (0, 1), (3, 3), (2, 3), (1, 3)]),
    "partition-empty-block": Partition([[0, 3], [1, 2, 6], [4, 5]], [1, 2, 0]),
}


def reading_the_loops(name: str) -> type:
    """``name``'s class with round 0 as printed: w~_e = w_0(e) + Lap on every arm, loops too."""
    function = PrivateMatroidPolicy.observe_private_means
    source = textwrap.dedent(inspect.getsource(function))
    old = "read = np.where(self.is_loop, 0.0, w0)"
    assert source.count(old) == 1
    namespace: dict = {}
    exec(compile(source.replace(old, "read = w0"), "<round 0 as printed>", "exec"),
         function.__globals__, namespace)
    cls = get(name)
    return type(cls.__name__ + "Printed", (cls,), {"observe_private_means": namespace[function.__name__]})


# --- the hook ----------------------------------------------------------------------------------

def test_decision_returns_its_inputs_unchanged():
    a, b = np.arange(3.0), np.ones((2, 2))
    assert noise.decision(a) is a
    assert noise.decision(a, b) == (a, b)


def test_a_decision_input_that_differs_across_runs_leaks_its_cells():
    tracer = noise.Tracer(runs=3, cells=[(1, 0), (1, 1)], h=0.5)
    with noise.tracing(tracer):
        noise.decision(np.array([2, 2, 2]), np.array([[0.5], [0.5], [0.5]]))
        assert tracer.leaks == set()
        noise.decision(np.array([2, 2, 2]), np.array([0.5, 0.5, 1.0]))
    assert tracer.leaks == {(1, 1)}
    assert tracer.findings == ["round 0, cell x1,1: a decision's input that differs across runs"]


def test_a_decision_input_not_one_per_run_is_a_divergence():
    tracer = noise.Tracer(runs=3, cells=[(1, 0), (1, 1)], h=0.5)
    with noise.tracing(tracer), pytest.raises(noise.DivergedRuns):
        noise.decision(np.arange(4))


# --- the matroid round 0 -----------------------------------------------------------------------

@pytest.mark.parametrize("name", ["dpucb-mat", "dpts-mat"])
def test_the_paper_variant_traces_to_the_proven_bound_on_the_synthetic_matroid(name):
    """L' eps / K = 6 * 2 / 3 = 4 (row 0: six non-loop values at Lap(3/2)); the loop's weight,
    when read, cost 2/3 more: 7 * 2 / 3 = 4.667."""
    common = dict(variant="paper", epsilon=2.0, K=7, T=4, seeds=(0,), matroid=SYNTHETIC,
                  enumerate=False)
    upper = traced_upper(name, **common)
    proven = make(name, 7, epsilon=2.0, rng=0, variant="paper", matroid=SYNTHETIC).claim.proven
    assert upper.epsilon == pytest.approx(4.0, rel=1e-12) == proven.epsilon
    assert upper.worst_row == 0
    printed = traced_upper(name, policy_class=reading_the_loops(name), **common)
    assert printed.epsilon == pytest.approx(14.0 / 3.0, rel=1e-12)


@pytest.mark.parametrize("name", ["dpucb-mat", "dpts-mat"])
def test_the_corrected_variant_stays_within_its_claim(name):
    upper = traced_upper(name, variant="corrected", epsilon=2.0, K=7, T=4, seeds=(0,),
                         matroid=SYNTHETIC, enumerate=False)
    assert upper.epsilon <= 2.0 * (1 + 1e-9)
    assert upper.per_row[0] == pytest.approx(6 * 2.0 / 7, rel=1e-12)   # L' values at Lap(L/eps)


@pytest.mark.parametrize("matroid", sorted(WITH_LOOPS))
def test_greedy_never_reads_a_loop_score(matroid):
    m = WITH_LOOPS[matroid]
    assert m.loops
    rng = np.random.default_rng(11)
    scores = rng.normal(size=(200, m.L))
    moved = scores.copy()
    moved[:, list(m.loops)] = rng.normal(scale=10.0, size=(200, len(m.loops)))
    keys = rng.random(scores.shape)
    assert np.array_equal(greedy(m, scores), greedy(m, moved))
    assert np.array_equal(greedy(m, scores, tie_keys=keys), greedy(m, moved, tie_keys=keys))


@pytest.mark.parametrize("tie_break", ["first", "random"])
@pytest.mark.parametrize("variant", ["paper", "corrected"])
@pytest.mark.parametrize("matroid", sorted(WITH_LOOPS))
@pytest.mark.parametrize("name", ["dpucb-mat", "dpts-mat"])
def test_not_reading_the_loops_plays_the_printed_bases(name, matroid, variant, tie_break):
    """Same seed, same weights (uniform in [0, 1], loops included): every basis of every run
    and round is the one the printed round 0 plays, and the draws are the same."""
    m, runs, T = WITH_LOOPS[matroid], 16, 120
    weights = np.random.default_rng(5).random((T + 1, runs, m.L))
    kwargs = dict(epsilon=1.0, runs=runs, variant=variant, matroid=m, tie_break=tie_break)
    ours = get(name)(m.L, rng=np.random.default_rng(9), **kwargs)
    printed = reading_the_loops(name)(m.L, rng=np.random.default_rng(9), **kwargs)
    for policy in (ours, printed):
        policy.observe(0, None, weights[0])
    loops = list(m.loops)
    assert np.array_equal(ours.w_tilde[:, loops] + weights[0][:, loops], printed.w_tilde[:, loops])
    rows = np.arange(runs)[:, None]
    for t in range(1, T + 1):
        a = ours.act(t)
        assert np.array_equal(a, printed.act(t)), t
        for policy in (ours, printed):
            policy.observe(t, a, weights[t][rows, a])
    assert ours.rng.bit_generator.state == printed.rng.bit_generator.state
