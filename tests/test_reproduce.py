"""`dpbandits reproduce`: every experiment at the tiny size, claims judged by code, resume.

Kinds: smoke (every target runs and writes its CSV, PNG and page; errors), exact (the claim
checks on hand-made numbers, both verdicts), smoke (resume reuses finished cells).
"""

from __future__ import annotations

import numpy as np
import pytest

from dpbandits.cli import main
from dpbandits.reproduce import (EXPERIMENTS, Cells, Experiment, Line, flat_in_epsilon, highest,
                                 linear_in_inverse_epsilon, lower_than, non_increasing_in_epsilon,
                                 reproduce, within_factor)


@pytest.mark.smoke
@pytest.mark.parametrize("name", list(EXPERIMENTS))
def test_every_experiment_runs_at_the_tiny_size(name, tmp_path):
    result = reproduce(name, tmp_path, size="tiny")
    assert [p.suffix for p in result.paths] == [".csv", ".png", ".md"]
    assert all(p.exists() and p.stat().st_size > 0 for p in result.paths)
    assert len(result.claims) == len(EXPERIMENTS[name].claims) > 0
    for claim in result.claims:        # each verdict is reported on the page with its claim and evidence
        assert claim.verdict in ("supported", "not supported", "not testable")
        assert claim.text in result.page and claim.evidence in result.page, claim
    assert "size `tiny`" in result.page


def _cells(finals: dict[tuple[str, float], tuple[float, float, float]]) -> Cells:
    labels = sorted({k[0] for k in finals})
    epsilons = tuple(sorted({k[1] for k in finals}))
    experiment = Experiment("toy", "paper", "Fig. 0", "hu2021-setting2",
                            tuple(Line(l, "ucb1") for l in labels), epsilons, "time",
                            {"tiny": (10, 2)})
    data = {k: dict(t=[5, 10], mean=[m / 2, m], low=[lo / 2, lo], high=[hi / 2, hi], runs=2, optimal=1.0)
            for k, (m, lo, hi) in finals.items()}
    return Cells(data, experiment)


@pytest.mark.exact
def test_claim_checks_both_ways():
    cells = _cells({("a", 1.0): (10, 9, 11), ("b", 1.0): (20, 19, 21), ("c", 1.0): (10.5, 5, 16)})
    assert lower_than("a", ("b",))(cells)[0] == "supported"
    assert lower_than("b", ("a",))(cells)[0] == "not supported"
    assert lower_than("a", ("c",))(cells)[0] == "not testable"        # intervals overlap
    assert within_factor("a", "b", 2.0)(cells)[0] == "supported"
    assert within_factor("a", "b", 1.5)(cells)[0] == "not supported"
    assert highest("b")(cells)[0] == "supported" and highest("a")(cells)[0] == "not supported"


@pytest.mark.exact
def test_epsilon_trend_checks():
    falling = _cells({("a", 0.5): (30, 29, 31), ("a", 1.0): (20, 19, 21), ("a", 2.0): (10, 9, 11)})
    rising = _cells({("a", 0.5): (10, 9, 11), ("a", 1.0): (20, 19, 21), ("a", 2.0): (30, 29, 31)})
    assert non_increasing_in_epsilon("a")(falling)[0] == "supported"
    assert non_increasing_in_epsilon("a")(rising)[0] == "not supported"
    assert flat_in_epsilon("a", 2.0)(falling)[0] == "not supported"
    assert flat_in_epsilon("a", 3.5)(falling)[0] == "supported"
    linear = _cells({("a", e): (5 / e, 5 / e, 5 / e) for e in (0.5, 1.0, 2.0, 4.0)})
    assert linear_in_inverse_epsilon("a")(linear)[0] == "supported"
    assert linear_in_inverse_epsilon("a")(rising)[0] == "not supported"


@pytest.mark.smoke
def test_a_rerun_reuses_finished_cells(tmp_path):
    reproduce("hu2021-fig1", tmp_path, size="tiny")
    stamps = {p: p.stat().st_mtime_ns for p in (tmp_path / "cells").iterdir()}
    messages = []
    reproduce("hu2021-fig1", tmp_path, size="tiny", progress=messages.append)
    assert messages == []
    assert stamps == {p: p.stat().st_mtime_ns for p in (tmp_path / "cells").iterdir()}
    reproduce("hu2021-fig1", tmp_path, size="tiny", seed=1, progress=messages.append)
    assert len(messages) == 3


@pytest.mark.smoke
def test_cli_list_and_errors(capsys, tmp_path):
    assert main(["reproduce", "--list"]) == 0
    listed = capsys.readouterr().out
    assert all(name in listed for name in EXPERIMENTS)
    assert main(["reproduce", "nope", "--out", str(tmp_path)]) == 2
    assert "unknown experiment" in capsys.readouterr().err
    assert main(["reproduce", "--out", str(tmp_path)]) == 2
