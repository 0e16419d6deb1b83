"""`dpbandits reproduce`: every experiment at the tiny size, claims judged by stated tests, resume.

Kinds: smoke (every target runs and writes its CSV, PNG and page; errors; resume), statistical
(each claim check on simulated per-run numbers: two curves drawn from the same distribution are
`inconclusive`, curves separated either way are `supported` / `contradicted`; fixed seed), exact
(the multiplicity correction and the page's statement of sizes).
"""

from __future__ import annotations

import numpy as np
import pytest

from dpbandits.cli import main
from dpbandits.reproduce import (EXPERIMENTS, VERDICTS, Cells, Experiment, Line, flat_in_epsilon,
                                 gap_not_increasing, highest, judge, linear_in_inverse_epsilon,
                                 lower_than, non_increasing_in_epsilon, reproduce, spread_larger,
                                 within_factor)
from dpbandits.reproduce.claims import crossing


@pytest.mark.smoke
@pytest.mark.parametrize("name", list(EXPERIMENTS))
def test_every_experiment_runs_at_the_tiny_size(name, tmp_path):
    result = reproduce(name, tmp_path, size="tiny")
    assert [p.suffix for p in result.paths] == [".csv", ".png", ".md"]
    assert all(p.exists() and p.stat().st_size > 0 for p in result.paths)
    assert len(result.claims) == len(EXPERIMENTS[name].claims) > 0
    for claim in result.claims:        # each verdict is reported on the page with its claim and evidence
        assert claim.verdict in VERDICTS
        assert claim.verdict != "not testable" or claim.evidence
    assert "size `tiny`" in result.page and "below the paper's size" in result.page
    assert "**The paper**" in result.page and result.below_paper


RUNS = 200
RNG_SEED = 20240611


def _cells(curves: dict[tuple[str, float], np.ndarray]) -> Cells:
    """Cells from per-run curves (runs, checkpoints) at checkpoints 1..100."""
    labels = list(dict.fromkeys(k[0] for k in curves))
    epsilons = tuple(sorted({k[1] for k in curves}))
    experiment = Experiment("toy", "paper", "Fig. 0", "hu2021-setting2",
                            tuple(Line(l, "ucb1") for l in labels), epsilons, "time", {"tiny": (100, RUNS)})
    t = list(range(1, 101))
    data = {k: dict(t=t, per_run=v.tolist(), mean=v.mean(0).tolist(), low=v.mean(0).tolist(),
                    high=v.mean(0).tolist(), runs=v.shape[0], optimal=1.0) for k, v in curves.items()}
    return Cells(data, experiment)


def _curve(rng, final: float, sd: float = 1.0, shape=lambda t: t / 100) -> np.ndarray:
    """Per-run curves ``final * shape(t)`` plus noise growing with t."""
    t = np.arange(1, 101)
    return final * shape(t)[None, :] + sd * rng.standard_normal((RUNS, 1)) * np.sqrt(t / 100)[None, :]


def _verdict(check, cells) -> str:
    return judge([("claim", "", check(cells))])[0].verdict


CASES = {
    # name: (check, same-distribution cells, cells in the claim's direction, cells against it)
    "lower_than": (lower_than("a", ("b",)),
                   lambda r: {("a", 1.0): _curve(r, 10), ("b", 1.0): _curve(r, 10)},
                   lambda r: {("a", 1.0): _curve(r, 10), ("b", 1.0): _curve(r, 12)},
                   lambda r: {("a", 1.0): _curve(r, 12), ("b", 1.0): _curve(r, 10)}),
    "highest": (highest("a"),
                lambda r: {("a", 1.0): _curve(r, 10), ("b", 1.0): _curve(r, 10)},
                lambda r: {("a", 1.0): _curve(r, 12), ("b", 1.0): _curve(r, 10)},
                lambda r: {("a", 1.0): _curve(r, 10), ("b", 1.0): _curve(r, 12)}),
    "within_factor": (within_factor("a", "b", 1.5),
                      # the same distribution sits inside the margin: equivalence is supported
                      lambda r: {("a", 1.0): _curve(r, 10, sd=40), ("b", 1.0): _curve(r, 10, sd=40)},
                      lambda r: {("a", 1.0): _curve(r, 10), ("b", 1.0): _curve(r, 11)},
                      lambda r: {("a", 1.0): _curve(r, 10), ("b", 1.0): _curve(r, 30)}),
    "flat_in_epsilon": (flat_in_epsilon("a", 1.5),
                        lambda r: {("a", e): _curve(r, 10, sd=40) for e in (0.5, 1.0, 2.0)},
                        lambda r: {("a", e): _curve(r, 10) for e in (0.5, 1.0, 2.0)},
                        lambda r: {("a", e): _curve(r, 10 / e) for e in (0.5, 1.0, 2.0)}),
    "non_increasing_in_epsilon": (non_increasing_in_epsilon("a"),
                                  lambda r: {("a", e): _curve(r, 10) for e in (0.5, 1.0, 2.0)},
                                  lambda r: {("a", e): _curve(r, 10 / e) for e in (0.5, 1.0, 2.0)},
                                  lambda r: {("a", e): _curve(r, 10 * e) for e in (0.5, 1.0, 2.0)}),
    "linear_in_inverse_epsilon": (linear_in_inverse_epsilon("a"),
                                  lambda r: {("a", e): _curve(r, 10) for e in (0.5, 1.0, 2.0, 4.0)},
                                  lambda r: {("a", e): _curve(r, 5 / e) for e in (0.5, 1.0, 2.0, 4.0)},
                                  lambda r: {("a", e): _curve(r, 5 * e) for e in (0.5, 1.0, 2.0, 4.0)}),
    "gap_not_increasing": (gap_not_increasing("a", "b"),
                           lambda r: {("a", 1.0): _curve(r, 10), ("b", 1.0): _curve(r, 10)},
                           # a constant gap: a = b + 5 from early on
                           lambda r: {("a", 1.0): _curve(r, 10, shape=lambda t: t / 100 + 0.5),
                                      ("b", 1.0): _curve(r, 10)},
                           # a gap linear in t
                           lambda r: {("a", 1.0): _curve(r, 20), ("b", 1.0): _curve(r, 10)}),
    "crossing": (crossing("a", "b"),
                 lambda r: {("a", 1.0): _curve(r, 10), ("b", 1.0): _curve(r, 10)},
                 lambda r: {("a", 1.0): _curve(r, 10, sd=0.2, shape=lambda t: t / 100),
                            ("b", 1.0): _curve(r, 10, sd=0.2, shape=lambda t: 0.5 + t / 200)},
                 lambda r: {("a", 1.0): _curve(r, 10, sd=0.2, shape=lambda t: 0.5 + t / 200),
                            ("b", 1.0): _curve(r, 10, sd=0.2, shape=lambda t: t / 100)}),
    "spread_larger": (spread_larger("a"),
                      lambda r: {("a", 1.0): _curve(r, 10), ("b", 1.0): _curve(r, 10)},
                      lambda r: {("a", 1.0): _curve(r, 10, sd=3), ("b", 1.0): _curve(r, 10)},
                      lambda r: {("a", 1.0): _curve(r, 10), ("b", 1.0): _curve(r, 10, sd=3)}),
}


@pytest.mark.statistical
@pytest.mark.parametrize("name", list(CASES))
def test_each_check_is_inconclusive_on_equal_curves_and_decides_separated_ones(name):
    """Fixed seed. Equal curves: a false `supported`/`contradicted` has probability at most 0.05
    (the family-wise level); separated curves are 10+ standard errors apart, so a miss has
    probability far below 1e-6. Guards verdicts read from bare means and absence of evidence read
    as support."""
    check, same, toward, against = CASES[name]
    rng = np.random.default_rng(RNG_SEED)
    # (equivalence checks get equal curves with a spread too wide for the margin to be shown)
    assert _verdict(check, _cells(same(rng))) == "inconclusive at this size"
    assert _verdict(check, _cells(toward(rng))) == "supported"
    assert _verdict(check, _cells(against(rng))) == "contradicted"


@pytest.mark.statistical
def test_inconclusive_says_how_many_runs_would_decide():
    """Fixed seed; a 0.2-sd difference at 200 runs is under-powered after correction (about 5e-2
    chance of deciding), and the estimate of the runs needed is finite."""
    rng = np.random.default_rng(RNG_SEED)
    cells = _cells({("a", 1.0): _curve(rng, 10, sd=5), ("b", 1.0): _curve(rng, 10.3, sd=5)})
    verdict = judge([("claim", "", lower_than("a", ("b",))(cells))])[0]
    assert verdict.verdict == "inconclusive at this size"
    assert "runs per curve would decide it" in verdict.evidence


@pytest.mark.exact
def test_holm_correction_over_the_page():
    """Holm over 2m p-values: a p-value that decides alone is not enough among many claims."""
    from dpbandits.reproduce.claims import Component, Outcome

    def outcome(p):
        return Outcome((Component("x", 1.0, 1.0, 10, p),), (Component("y", -1.0, 1.0, 10, 1.0),), "t", "e")

    assert judge([("c", "", outcome(0.02))])[0].verdict == "supported"
    many = judge([("c", "", outcome(0.02))] + [("d", "", outcome(0.5))] * 4)
    assert many[0].verdict == "inconclusive at this size"


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
def test_workers_do_not_change_a_number(tmp_path):
    one = reproduce("hu2021-fig9", tmp_path / "one", size="tiny")
    two = reproduce("hu2021-fig9", tmp_path / "two", size="tiny", workers=2)
    assert (tmp_path / "one" / "hu2021-fig9.csv").read_text() == (tmp_path / "two" / "hu2021-fig9.csv").read_text()
    assert [c.evidence for c in one.claims] == [c.evidence for c in two.claims]


@pytest.mark.smoke
def test_cli_list_and_errors(capsys, tmp_path):
    assert main(["reproduce", "--list"]) == 0
    listed = capsys.readouterr().out
    assert all(name in listed for name in EXPERIMENTS)
    assert main(["reproduce", "nope", "--out", str(tmp_path)]) == 2
    assert "unknown experiment" in capsys.readouterr().err
    assert main(["reproduce", "--out", str(tmp_path)]) == 2
