"""Every bound in the catalogue, checked generically.

Kinds: property (shape on a grid inside each bound's condition: non-decreasing in T, non-increasing
in epsilon, as each bound declares in ``monotone``; the leading order of its O(.) statement),
smoke (keys, sources, algorithms and printed forms resolve).
The per-paper tests check each theorem's reference values and its special structure.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from dpbandits.bounds import BOUNDS
from dpbandits.reference import get
from dpbandits.reference.registry import ALGORITHMS

# Default values of the symbols that bounds commonly use; bounds needing other symbols either fix
# them in ``settings`` or are skipped by the grid checks (and must be covered by their paper's tests).
POINT = {"K": 8.0, "epsilon": 0.5, "delta": 0.01, "Delta_min": 0.1, "L": 10.0, "m": 3.0, "n": 100.0}
GAPS = [0.0, 0.05, 0.2, 0.4]
ALL = sorted(BOUNDS)


def _evaluable(bound, extra=()):
    names = set(bound.symbols) - {"T", "t", "gaps", *extra}
    return names <= set(POINT)


def _value(bound, **values):
    args = {k: v for k, v in {**POINT, **values}.items() if k in bound.symbols}
    if bound.per_arm is not None:
        args["gaps"] = GAPS
    with np.errstate(all="ignore"):
        return np.asarray(bound.evaluate(**args), dtype=float)


def _horizon(bound):
    return "t" if "t" in bound.symbols and "T" not in bound.symbols else "T"


@pytest.mark.smoke
@pytest.mark.parametrize("key", ALL)
def test_bound_is_documented_and_resolves(key):
    bound = BOUNDS[key]
    assert bound.source and bound.title and bound.quantity
    if bound.printed:
        assert bound.printed in BOUNDS, f"{key} names a printed form that does not exist"
    for tag in bound.algorithms:
        name, _, variant = tag.partition(":")
        assert name in ALGORITHMS, f"{key}: unknown algorithm {name}"
        if variant:
            assert variant in {v.name for v in get(name).variants}, f"{key}: no variant {variant}"


@pytest.mark.property
@pytest.mark.parametrize("key", ALL)
def test_bound_has_its_declared_shape(key):
    bound = BOUNDS[key]
    if (bound.kind not in ("upper", "lower") or bound.constants == "free" or bound.asymptotic
            or not _evaluable(bound)):
        pytest.skip("not a regret bound evaluable at the standard point")
    horizon = _horizon(bound)
    if "T+" in bound.monotone and horizon in bound.symbols:
        grid = np.geomspace(1e2, 1e9, 40)
        values = _value(bound, **{horizon: grid})
        finite = np.isfinite(values)
        assert finite.sum() >= 5, f"{key} is undefined on most of T in [1e2, 1e9]"
        v = values[finite]
        assert np.all(np.diff(v) >= -1e-9 * np.abs(v[1:])), f"{key} decreases in {horizon}"
    if "epsilon-" in bound.monotone and "epsilon" in bound.symbols:
        grid = np.geomspace(0.01, 10, 40)
        values = _value(bound, **{horizon: 1e6, "epsilon": grid})
        v = values[np.isfinite(values)]
        assert np.all(np.diff(v) <= 1e-9 * np.abs(v[:-1])), f"{key} increases in epsilon"


@pytest.mark.property
@pytest.mark.parametrize("key", [k for k in ALL if BOUNDS[k].order is not None])
def test_bound_has_the_leading_order_of_its_statement(key):
    """bound / order stays positive and bounded as T grows (the O(.)'s rate, constants aside)."""
    bound = BOUNDS[key]
    if bound.constants == "free" or not _evaluable(bound):
        pytest.skip("needs values of symbols outside the standard point")
    import sympy as sp

    horizon = _horizon(bound)
    ratios = []
    for power in (20, 40, 80):
        point = {horizon: 10.0 ** power}
        value = float(_value(bound, **point))
        if not np.isfinite(value):
            pytest.skip("condition fails at the test point")
        gaps = [g for g in GAPS if g > 0]
        order = bound.order
        subs = {s: POINT.get(s.name, 10.0 ** power if s.name == horizon else None)
                for s in order.free_symbols}
        if any(v is None for k, v in subs.items() if k.name != "Delta"):
            pytest.skip("order uses a symbol outside the standard point")
        if any(s.name == "Delta" for s in order.free_symbols):
            total = sum(float(order.subs({**{k: v for k, v in subs.items() if k.name != "Delta"},
                                          sp.Symbol("Delta", positive=True): g})) for g in gaps)
        else:
            total = float(order.subs(subs))
        ratios.append(value / total)
    assert all(0 < r < np.inf for r in ratios), f"{key}: ratios {ratios}"
    assert 0.2 < ratios[-1] / ratios[0] < 5, f"{key} grows at another rate than its order: {ratios}"


@pytest.mark.property
def test_each_lower_bound_stays_below_the_upper_bounds_of_its_algorithms():
    """On the standard point and a T grid where both apply (explicit constants only)."""
    lowers = [b for b in BOUNDS.values() if b.kind == "lower" and b.is_explicit() and _evaluable(b)]
    uppers = [b for b in BOUNDS.values() if b.kind == "upper" and b.is_explicit() and _evaluable(b)
              and b.status != "flawed"]
    compared = 0
    for low, up in itertools.product(lowers, uppers):
        if not set(low.algorithms) & set(up.algorithms) or _horizon(low) != _horizon(up):
            continue
        grid = np.geomspace(1e3, 1e9, 13)
        a = np.broadcast_to(_value(low, **{_horizon(low): grid}), grid.shape)
        b = np.broadcast_to(_value(up, **{_horizon(up): grid}), grid.shape)
        if low.instance and up.instance and low.instance != up.instance \
                and "deterministic" not in (low.instance, up.instance):
            continue
        both = np.isfinite(a) & np.isfinite(b)
        assert np.all(a[both] <= b[both]), f"{low.key} exceeds {up.key}"
        compared += int(both.any())
    assert compared >= 1, "no lower bound was compared with an upper bound"


@pytest.mark.exact
def test_the_dp_bandit_lower_bound_is_about_the_registrys_pure_dp_bandits(monkeypatch):
    """The Shariff-Sheffet lower bound holds for every epsilon-DP bandit algorithm: its list is
    read from the registry (bandit feedback, default variant proved epsilon-DP with no delta),
    so DP-UCB-INT ((epsilon, delta)-DP) is not on it, and a new pure-DP bandit algorithm is
    listed by its registry line alone."""
    import sys
    import types

    from dpbandits.bounds import prior
    from dpbandits.reference import registry
    from dpbandits.reference.bandit.anytime_lazy_ucb import AnytimeLazyUCB

    expected = {n for n in ALGORITHMS if get(n).feedback == "bandit" and get(n).private} - {"dp-ucb-int"}
    assert set(BOUNDS["prior.shariff-sheffet-lower"].algorithms) == expected
    module = types.ModuleType("dpbandits.reference.renamed_for_test")
    module.Renamed = type("Renamed", (AnytimeLazyUCB,), {"name": "renamed-lazy-ucb"})
    monkeypatch.setitem(sys.modules, module.__name__, module)
    monkeypatch.setitem(registry.ALGORITHMS, "renamed-lazy-ucb", "renamed_for_test:Renamed")
    assert "renamed-lazy-ucb" in prior.shariff_sheffet_lower().algorithms
