"""``dpbandits run --per-run``: every run's final values, the ones behind the printed means.

Kinds: exact (the per-run CSV's means equal the engine's, pulls add up to T).
"""

from __future__ import annotations

import csv

import numpy as np
import pytest

from dpbandits.cli import main
from dpbandits.reference import Bernoulli, simulate, spec


@pytest.mark.exact
def test_per_run_values_are_the_engines(tmp_path):
    assert main(["run", "ucb1", "--means", "0.6", "0.3", "0.2", "--horizon", "60", "--runs", "5",
                 "--seed", "4", "--out", str(tmp_path), "--per-run", "--no-progress"]) == 0
    path = next(tmp_path.glob("*-per-run.csv"))
    rows = list(csv.DictReader(path.open()))
    assert len(rows) == 5 and [int(r["run"]) for r in rows] == list(range(5))
    result = simulate(spec("ucb1", 3), Bernoulli(np.array([0.6, 0.3, 0.2])), 60, runs=5, seed=4)
    np.testing.assert_allclose([float(r["pseudo_regret"]) for r in rows], result.pseudo_regret[:, -1])
    pulls = np.array([[int(r[f"pulls_arm_{a}"]) for a in range(3)] for r in rows])
    np.testing.assert_array_equal(pulls, result.pulls)
    assert (pulls.sum(axis=1) == 60).all()
