"""The command line.

Kinds: smoke (list, run writes its files), exact (bad input: one line on stderr, exit 2).
"""

from __future__ import annotations

import csv

import pytest

from dpbandits.cli import main
from dpbandits.reference import ALGORITHMS


@pytest.mark.smoke
def test_list_shows_every_algorithm_with_paper_and_claim(capsys):
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    for name in ALGORITHMS:
        assert f"\n{name}  (" in out
    assert "paper:" in out and "DP [row]" in out


@pytest.mark.smoke
def test_run_prints_regret_and_writes_csv_and_png(tmp_path, capsys):
    code = main(["run", "ucb1", "anytime-lazy-ucb", "--means", "0.7", "0.5", "--epsilon", "1",
                 "--horizon", "300", "--runs", "6", "--seed", "1", "--out", str(tmp_path), "--no-progress",
                 "--plot"])
    assert code == 0
    out = capsys.readouterr().out
    assert "anytime-lazy-ucb" in out and "(" in out
    csvs, pngs = list(tmp_path.glob("*.csv")), list(tmp_path.glob("*.png"))
    assert len(csvs) == 1 and len(pngs) == 1 and pngs[0].stat().st_size > 1000
    rows = list(csv.DictReader(csvs[0].open()))
    assert {row["algorithm"] for row in rows} == {"ucb1", "anytime-lazy-ucb"}
    assert int(rows[-1]["t"]) == 300
    assert not list(tmp_path.glob(".*"))  # no temporary files left behind


@pytest.mark.smoke
def test_run_draws_the_png_only_when_asked(tmp_path, capsys):
    # the PNG imports matplotlib (about 1 s of a short run's 1.6 s): drawn with --plot or --log-x
    argv = ["run", "ucb1", "--means", "0.7", "0.5", "--horizon", "30", "--runs", "2",
            "--no-progress"]
    assert main(argv + ["--out", str(tmp_path / "plain")]) == 0
    assert [p.suffix for p in (tmp_path / "plain").iterdir()] == [".csv"]
    assert capsys.readouterr().out.rstrip().endswith(".csv")
    assert main(argv + ["--out", str(tmp_path / "log"), "--log-x"]) == 0
    assert sorted(p.suffix for p in (tmp_path / "log").iterdir()) == [".csv", ".png"]


@pytest.mark.exact
@pytest.mark.parametrize("argv, needle", [
    (["run", "no-such-algo", "--means", "0.5", "0.4", "--horizon", "10"], "unknown algorithm"),
    (["run", "anytime-lazy-ucb", "--means", "0.5", "0.4", "--horizon", "10", "--epsilon", "0"], "epsilon"),
    (["run", "anytime-lazy-ucb", "--means", "0.5", "0.4", "--horizon", "10"], "--epsilon is required"),
    (["run", "ucb1", "--means", "0.5", "1.4", "--horizon", "10"], "means"),
    (["run", "ucb1", "--means", "0.5", "nan", "--horizon", "10"], "means"),
    (["run", "ucb1", "--means", "0.5", "--horizon", "10"], "K >= 2"),
    (["run", "ucb1", "--means", "0.5", "0.4", "--horizon", "0"], "horizon"),
    (["run", "ucb1", "--setting", "nope", "--horizon", "10"], "unknown setting"),
    (["run", "ucb1", "--means", "0.5", "0.4"], "--horizon is required"),
    (["run", "ucb1"], "required"),
    (["frobnicate"], "invalid choice"),
    (["list", "--epsilon", "-2"], "epsilon"),
    (["run", "ucb1", "--means", "0.5", "0.4", "--horizon", "5", "--param", "foo=1"], "unknown parameter"),
    (["run", "ucb1", "--means", "0.5", "0.4", "--horizon", "5", "--param", "oops"], "NAME=VALUE"),
])
def test_bad_input_prints_one_line_and_exits_2(argv, needle, capsys, tmp_path):
    assert main(argv + ["--out", str(tmp_path)] if argv[0] == "run" else argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("dpbandits: error:") and needle in err[0]


@pytest.mark.smoke
def test_run_matroid_setting(tmp_path, capsys):
    assert main(["run", "omm", "dpucb-mat", "--setting", "chandak-synthetic", "--epsilon", "1",
                 "--horizon", "50", "--runs", "3", "--out", str(tmp_path), "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "dpucb-mat[corrected]" in out and "omm" in out


@pytest.mark.exact
@pytest.mark.parametrize("argv, message", [
    (["run", "ucb1", "--setting", "chandak-synthetic", "--horizon", "10"], "not a matroid"),
    (["run", "omm", "--means", "0.5", "0.4", "--horizon", "10"], "needs a matroid setting"),
    (["run", "dpucb-mat", "--setting", "chandak-movielens", "--epsilon", "1", "--horizon", "10",
      "--movielens", "/no/such/folder"], "not a directory"),
])
def test_run_matroid_bad_input(argv, message, tmp_path, capsys):
    assert main(argv + ["--out", str(tmp_path), "--no-progress"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0]


@pytest.mark.smoke
def test_run_on_a_dask_scheduler(tmp_path, capsys):
    """--scheduler ADDRESS runs the blocks on a Dask cluster and prints the same numbers."""
    distributed = pytest.importorskip("distributed")
    argv = ["run", "ucb1", "--means", "0.7", "0.4", "--horizon", "200", "--runs", "30",
            "--out", str(tmp_path), "--no-progress"]
    assert main(argv) == 0
    local = capsys.readouterr().out.splitlines()[2]
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  dashboard_address=None, scheduler_port=0) as cluster:
        assert main(argv + ["--scheduler", cluster.scheduler_address]) == 0
    assert capsys.readouterr().out.splitlines()[2] == local
