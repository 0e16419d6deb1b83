"""Environments, settings and neighbour relations.

Kinds: exact (tables, neighbours, settings, bad input), property (neighbour relations),
statistical (reward laws).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from dpbandits.errors import DPBanditsError
from dpbandits.reference import (CELL, ROW, SETTINGS, Bernoulli, BetaArms, Table, change_cell,
                                 get_setting, replace_row)

tables = st.integers(1, 6).flatmap(lambda T: st.integers(2, 4).flatmap(
    lambda K: arrays(float, (T, K), elements=st.floats(0, 1))))


@pytest.mark.property
@given(tables, st.data())
def test_replace_row_gives_a_row_neighbour(table, data):
    T, K = table.shape
    t = data.draw(st.integers(1, T))
    row = data.draw(arrays(float, (K,), elements=st.floats(0, 1)))
    neighbour = replace_row(table, t, row)
    assert ROW.distance(table, neighbour) <= 1
    assert ROW.are_neighbours(table, neighbour)
    assert CELL.distance(table, neighbour) <= K
    np.testing.assert_array_equal(neighbour[t - 1], row)


@pytest.mark.property
@given(tables, st.data())
def test_change_cell_gives_a_cell_neighbour_which_is_a_row_neighbour(table, data):
    T, K = table.shape
    t, arm = data.draw(st.integers(1, T)), data.draw(st.integers(0, K - 1))
    neighbour = change_cell(table, t, arm, data.draw(st.floats(0, 1)))
    assert CELL.distance(table, neighbour) <= 1
    assert ROW.distance(table, neighbour) <= 1
    assert ROW.implies(CELL) and not CELL.implies(ROW)


@pytest.mark.exact
def test_distance_counts_rows_and_cells():
    x = np.zeros((3, 2))
    y = x.copy()
    y[0] = 1.0
    y[2, 1] = 1.0
    assert ROW.distance(x, y) == 2
    assert CELL.distance(x, y) == 3
    assert not ROW.are_neighbours(x, y)


@pytest.mark.exact
def test_neighbour_builders_refuse_bad_input():
    x = np.zeros((3, 2))
    with pytest.raises(DPBanditsError, match="t must"):
        replace_row(x, 4, [0, 0])
    with pytest.raises(DPBanditsError, match="row"):
        replace_row(x, 1, [0, 0, 0])
    with pytest.raises(DPBanditsError, match=r"\[0, 1\]"):
        replace_row(x, 1, [0, 2])
    with pytest.raises(DPBanditsError, match="arm"):
        change_cell(x, 1, 2, 0.5)
    with pytest.raises(DPBanditsError, match="value"):
        change_cell(x, 1, 0, float("nan"))


@pytest.mark.exact
def test_tables_are_validated():
    with pytest.raises(DPBanditsError, match=r"shape \(T, K\)"):
        Table(np.zeros(3))
    with pytest.raises(DPBanditsError, match="K >= 2"):
        Table(np.zeros((3, 1)))
    with pytest.raises(DPBanditsError, match=r"\[0, 1\]"):
        Table(np.array([[0.0, np.nan]]))
    with pytest.raises(DPBanditsError, match="means"):
        Bernoulli([0.5])
    with pytest.raises(DPBanditsError, match="means"):
        Bernoulli([0.5, -0.1])
    with pytest.raises(DPBanditsError, match="alpha"):
        BetaArms([1.0, 0.0], [1.0, 1.0])


@pytest.mark.exact
def test_settings_by_name():
    assert get_setting("tossou2016-2arms").means == (0.9, 0.6)
    assert get_setting("hu2021-setting1").horizon == 2 ** 22
    assert get_setting("hu-journal-setting2").means == (0.5, 0.4, 0.4, 0.4, 0.4)
    for setting in SETTINGS.values():
        env = setting.environment()
        assert env.K == setting.K and 0 < env.mu_star <= 1
    with pytest.raises(DPBanditsError, match="hu2021-setting1"):
        get_setting("hu2021-setting9")


@pytest.mark.statistical
def test_reward_laws_have_their_means():
    """Column means of 2e5 draws are within 0.01 of the arm means (> 8 sigma: p < 1e-15)."""
    rng = np.random.default_rng(0)
    for env in (Bernoulli([0.2, 0.7]), BetaArms([2.0, 1.0], [3.0, 1.0])):
        table = env.table(200_000, rng)
        assert table.min() >= 0 and table.max() <= 1
        np.testing.assert_allclose(table.mean(axis=0), env.means, atol=0.01)
        pulled = env.rewards(rng, 1, np.ones(200_000, dtype=int))
        assert abs(pulled.mean() - env.means[1]) < 0.01
