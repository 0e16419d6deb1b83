"""The interval arithmetic of the accountant's proofs over [0, 1] tables
(docs/accountant.md#how-sensitivities-are-bounded), checked against a grid: each map of two
rewards, written with numpy as a policy would, is run on watched arrays under a lockstep tracer
of four {0, 1} tables, and its interval shadow must contain the map's values and bound its
changes on a 41 x 41 grid of [0, 1]^2.

Each bound is also checked against the enumerated changes in a proof: a rule planted wrong is
found as a defect.

Kinds: oracle (the grid is an independent computation of each map's range and changes), exact
(the worked examples' bounds, the planted defect).
"""

from __future__ import annotations

import numpy as np
import pytest

from dpbandits.accountant import traced_upper
from dpbandits.accountant.lockstep import _TableTracer
from dpbandits.reference import intervals, noise
from dpbandits.reference.bandit.anytime_lazy_ucb import AnytimeLazyUCB


def _lockstep():
    """A lockstep tracer over two cells (1, 0), (1, 1): four {0, 1} tables, each with its two
    probes moving one cell to the other end, and the two cells' values as watched arrays."""
    bits = np.array([[b & 1, (b >> 1) & 1] for b in range(4)], float)      # (G, 2)
    h = np.where(bits > 0, -1.0, 1.0)
    tracer = _TableTracer(4, [(1, 0), (1, 1)], h)
    runs = np.repeat(bits[:, None, :], 3, axis=1)                           # (G, S, 2)
    runs[:, 1, 0] += h[:, 0]
    runs[:, 2, 1] += h[:, 1]
    cells = runs.reshape(12, 2)
    return tracer, cells[:, 0].copy().view(noise.Watched), cells[:, 1].copy().view(noise.Watched)


def _in_place(x1, x2):
    a = 0.5 * x1
    a += x2 ** 2
    return a


def _through_a_view(x1, x2):
    b = np.stack([x1, x2], axis=1)
    v = b[:, 0]
    np.multiply(v, 8.0 * (1.0 - v), out=v)          # 0 on {0, 1}: only the rule sees it move
    return b.sum(axis=1)


MAPS = {"floor of a sum": lambda x1, x2: np.floor(x1 + x2),
        "squared reward": lambda x1, x2: x1 ** 2,
        "product": lambda x1, x2: x1 * x2,
        "bump": lambda x1, x2: 8.0 * x1 * (1.0 - x1),
        "square root": lambda x1, x2: np.sqrt(x1 + x2),
        "clip": lambda x1, x2: np.clip(x1 + x2, 0.2, 1.3),
        "maximum": lambda x1, x2: np.maximum(x1, 0.5 * x2),
        "absolute difference": lambda x1, x2: np.abs(x1 - x2),
        "exp and log1p": lambda x1, x2: np.exp(x1) + np.log1p(x1 + x2),
        "round": lambda x1, x2: np.round(3.0 * x1),
        "floor division": lambda x1, x2: (x1 + x2) // 0.5,
        "cube": lambda x1, x2: (x1 - x2) ** 3,
        "power": lambda x1, x2: (x1 + x2) ** 1.5,
        "mean of stacked": lambda x1, x2: np.stack([x1 ** 2, x2], axis=1).mean(axis=1),
        "in place": _in_place,
        "through a view": _through_a_view}
"""Maps of two rewards, each written with numpy as a policy would; the "in place" and "through
a view" ones write into arrays that held affine values before (``a += ...``; ``out=`` into a
view of a stack, whose sum must see the write)."""


@pytest.mark.oracle
@pytest.mark.parametrize("name", list(MAPS))
def test_interval_bounds_hold_on_a_grid_of_unit_tables(name):
    """Each map's interval shadow, on every table group: its range contains the map's values on
    a 41 x 41 grid of [0, 1]^2, and its bound on each cell is at least the largest change of
    the map when that cell alone moves on the grid (the other cell anywhere on it)."""
    f = MAPS[name]
    tracer, x1, x2 = _lockstep()
    with noise.tracing(tracer):
        out = f(x1, x2)
    shadow = out._iv
    assert isinstance(shadow, intervals.Shadow) and not tracer.nonlinear_maps
    grid = np.linspace(0.0, 1.0, 41)
    X1, X2 = np.meshgrid(grid, grid, indexing="ij")
    F = f(X1.ravel(), X2.ravel()).reshape(X1.shape)           # F[i, j] = f(x1 = g_i, x2 = g_j)
    change = [np.max(F.max(axis=0) - F.min(axis=0)), np.max(F.max(axis=1) - F.min(axis=1))]
    s = intervals.per_group(tracer, shadow, out.shape)[:, :, 0]          # (G, cells)
    assert np.all(shadow.lo <= F.min() + 1e-12) and np.all(shadow.hi >= F.max() - 1e-12)
    assert np.all(s >= np.array(change)[None] - 1e-12), (s, change)


NO_RULE = {"median": (lambda x1, x2: np.median(np.stack([x1, x2], axis=1), axis=1), "np.median"),
           "remainder": (lambda x1, x2: (x1 + x2) % 2.0, "np.remainder"),
           "quotient": (lambda x1, x2: x1 / (1.0 + x2), "np.divide"),
           "sine of a square": (lambda x1, x2: np.sin(x1 ** 2), "np.sin")}


@pytest.mark.exact
@pytest.mark.parametrize("name", list(NO_RULE))
def test_a_map_with_no_rule_is_named_and_unbounded(name):
    f, ufunc = NO_RULE[name]
    tracer, x1, x2 = _lockstep()
    with noise.tracing(tracer):
        out = f(x1, x2)
    assert [m.split(" of ")[0] for m in tracer.nonlinear_maps] == [ufunc]
    assert np.all(np.isinf(intervals.per_group(tracer, out._iv, out.shape)[:, 0]))


@pytest.mark.exact
def test_the_floor_of_a_sum_and_a_squared_reward_are_bounded_by_one():
    """The worked examples of docs/accountant.md#how-sensitivities-are-bounded: x1 + x2 in
    [0, 2] changes by 1 per cell, its floor by ceil(1) = 1; x1 squared, by 2 max|x1| * 1 = 2,
    capped by the width of its range [0, 1]: 1."""
    for name in ("floor of a sum", "squared reward"):
        tracer, x1, x2 = _lockstep()
        with noise.tracing(tracer):
            out = MAPS[name](x1, x2)
        s = intervals.per_group(tracer, out._iv, out.shape)[:, :, 0]
        assert np.all(s[:, 0] == 1.0)
        assert np.all(s[:, 1] == (1.0 if name == "floor of a sum" else 0.0))


class Halves(AnytimeLazyUCB):
    """Anytime-Lazy-UCB on rewards rounded down to a multiple of 1/2 (floor(2 x) / 2)."""

    def observe(self, t, actions, feedback):
        super().observe(t, actions, np.floor(2.0 * feedback) / 2.0)


@pytest.mark.exact
def test_an_interval_rule_below_the_enumerated_changes_is_a_defect_not_a_proof(monkeypatch):
    """Honest, the floor's rule gives a proof over [0, 1] tables with eps 1. Planted at half its
    bound, the enumerated {0, 1} changes exceed it: the bound is not a proof, the finding says
    so, and the enumerated change is charged."""
    honest = traced_upper("anytime-lazy-ucb", K=2, T=6, delta=0.0, policy_class=Halves)
    assert honest.proof and honest.epsilon == 1.0 and not honest.findings
    rounded = intervals._rounded
    monkeypatch.setattr(intervals, "_rounded",
                        lambda a, kind: (lambda lo, hi, s: (lo, hi, s / 2))(*rounded(a, kind)))
    bound = traced_upper("anytime-lazy-ucb", K=2, T=6, delta=0.0, policy_class=Halves)
    assert not bound.proof and "a defect of the accountant" in bound.status
    assert bound.epsilon == pytest.approx(1.0)
    assert any(": defect: " in f and "above its interval bound 0.5" in f
               for f in bound.findings), bound.findings
