"""Regression tests of the smaller input defects: each case failed (or misled) before its fix.

Kinds: exact (statuses, messages and values worked out by hand), smoke (a command runs and
writes what it says). Each test names the old behaviour it guards against.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from dpbandits.cli import main
from dpbandits.errors import DPBanditsError


def _cli(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(argv)
    return status, out.getvalue(), err.getvalue()


def _refused(argv: list[str], *named: str) -> str:
    status, _, err = _cli(argv)
    lines = err.splitlines()
    assert status == 2 and len(lines) == 1 and lines[0].startswith("dpbandits: error: "), err
    for text in named:
        assert text in lines[0], (text, lines[0])
    return lines[0]


# -- bounds --value ------------------------------------------------------------------------------

BOUNDS = ["bounds", "dp-ucb-int", "--means", "0.6", "0.4", "--horizon", "20", "--runs", "2",
          "--epsilon", "1"]


@pytest.mark.exact
@pytest.mark.parametrize("value, named", [
    ("K=3", "reserved"), ("epsilon=2", "reserved"), ("T=5", "reserved"), ("Delta_min=0.1", "reserved"),
    ("f_0=nan", "finite"), ("f_0=inf", "finite"), ("f_0=-1", "> 0"), ("f_0=0", "> 0"),
    ("f_0=1_0", "underscores"), ("lambda_0=1", "not a symbol"),
])
def test_bounds_value_refuses_instance_symbols_unknown_names_and_bad_numbers(tmp_path, value, named):
    # before: K=3 silently replaced the instance's K (a bound evaluated on another instance),
    # and nan/inf/negative values were evaluated (false verdicts or a crash)
    line = _refused(BOUNDS + ["--value", value, "--out", str(tmp_path)], "--value", named)
    assert "f_0" in line                        # the allowed names are listed
    assert not any(tmp_path.iterdir())


# -- Hedge's learning rate -----------------------------------------------------------------------

@pytest.mark.exact
@pytest.mark.parametrize("eta", [1e300, 1e308, float("inf"), float("nan"), 0.0, -1.0, 1j, True])
def test_hedge_refuses_a_rate_whose_logits_overflow(eta):
    # before: eta = 1e308 made eta * S_j = inf, inf - inf = nan, and every draw action 0
    from dpbandits.reference import make

    with pytest.raises(DPBanditsError, match="eta"):
        make("hedge", 2, rng=0, eta=eta)


@pytest.mark.exact
def test_hedge_at_the_largest_rate_plays_the_leader_at_the_largest_horizon():
    from dpbandits.reference import make
    from dpbandits.reference.fullinfo.hedge import MAX_ETA

    hedge = make("hedge", 3, rng=0, runs=4, eta=MAX_ETA)
    hedge.S[:] = [0.0, 1e9, 1e9 - 1]            # S_j <= T <= MAX_HORIZON: eta S_j stays finite
    assert hedge.act(1).tolist() == [1, 1, 1, 1]


# -- output names and the order of files and printing ---------------------------------------------

LONG_RUN = ["run", "ucb1", "thompson", "dp-ucb-bound", "dp-ucb", "dp-ucb-int", "anytime-lazy-ucb",
            "hybrid-ucb", "lazy-dp-ts", "dp-se", "adap-klucb", "private-ucb", "ftl", "hedge",
            "naive-ftnl", "rnm-ftnl", "rnm-ftnl-bq", "--means", "0.3", "0.6", "--horizon", "100000",
            "--runs", "10", "--epsilon", "1.2345678901234567e-06",
            "--seed", str(2 ** 128 - 1), "--per-run", "--no-progress"]


@pytest.mark.exact
def test_an_output_name_too_long_is_refused_before_any_work(tmp_path):
    # before: 16 x 10 runs of 100 000 rounds were simulated, then writing the per-run CSV
    # (a 252-byte name) failed with a traceback and every result was lost
    _refused(LONG_RUN + ["--out", str(tmp_path)], "cannot write", "bytes", "nothing was run")
    assert not [p for p in tmp_path.rglob("*") if p.is_file()]


@pytest.mark.smoke
def test_run_writes_its_files_before_printing(tmp_path):
    # before: the table was printed first; with standard output closed the command stopped there
    # and wrote no file
    read, write = os.pipe()
    os.close(read)                              # nobody reads standard output
    try:
        status = subprocess.run([sys.executable, "-m", "dpbandits.cli", "run", "ucb1", "--means",
                                 "0.3", "0.6", "--horizon", "20", "--runs", "2", "--no-progress",
                                 "--plot", "--out", str(tmp_path)], stdout=write, stderr=subprocess.PIPE,
                                timeout=120).returncode
    finally:
        os.close(write)
    assert status == 141                        # the reader went away (SIGPIPE's status)
    assert sorted(p.suffix for p in tmp_path.iterdir()) == [".csv", ".png"]


# -- report --part ----------------------------------------------------------------------------------

@pytest.mark.smoke
def test_a_part_not_asked_for_does_not_decide_the_report_status(tmp_path):
    # before: a parts/audit.json with violations, left by an earlier run, made
    # `report --part algorithms` exit 1
    (tmp_path / "parts").mkdir()
    (tmp_path / "parts" / "audit.json").write_text(json.dumps({"summary": {"violations": 3}}))
    status, _, err = _cli(["report", "--budget", "tiny", "--part", "algorithms", "--no-progress",
                           "--out", str(tmp_path)])
    assert status == 0, err


@pytest.mark.exact
def test_found_something_reads_only_the_parts_asked_for(tmp_path):
    from dpbandits.cli.report import found_something

    (tmp_path / "parts").mkdir()
    (tmp_path / "parts" / "bounds.json").write_text(json.dumps({"summary": {"violated": 1}}))
    assert found_something(tmp_path, ("bounds",))
    assert not found_something(tmp_path, ("algorithms", "audit"))


# -- the resume cache of audit --all ----------------------------------------------------------------

@pytest.mark.exact
@pytest.mark.parametrize("content", [b"{not json", b"\xff\xfe\x00", b"[]", b'{"key": {}}',
                                     b'{"key": {"a": 1}, "result": 5}',
                                     b'{"key": {"a": 1}, "result": {"nonsense": 1}}'])
def test_a_damaged_cached_audit_is_not_reused_and_says_so(tmp_path, content):
    # before: bad UTF-8, a list, a missing or damaged result raised (a traceback)
    from dpbandits.audit.runner import _cached

    (tmp_path / "x-paper.json").write_bytes(content)
    said: list[str] = []
    assert _cached(tmp_path, "x-paper", {"a": 1}, said.append) is None
    assert len(said) == 1 and "x-paper.json" in said[0] and "runs again" in said[0]


@pytest.mark.exact
def test_a_missing_or_differently_made_cached_audit_is_silently_not_reused(tmp_path):
    from dpbandits.audit.runner import _cached

    said: list[str] = []
    assert _cached(tmp_path, "absent", {"a": 1}, said.append) is None
    (tmp_path / "other.json").write_text(json.dumps({"key": {"a": 2}, "result": {}}))
    assert _cached(tmp_path, "other", {"a": 1}, said.append) is None
    assert said == []


# -- MovieLens ------------------------------------------------------------------------------------

@pytest.mark.exact
def test_movielens_keeps_negative_ids(tmp_path):
    # before: the (user, movie) key user * width + movie garbled negative ids ("rates movie id 5")
    from dpbandits.reference.matroid.data import load_movielens

    (tmp_path / "movies.dat").write_text("-5::Neg (1999)::Action\n7::Pos (2000)::Comedy|Drama\n"
                                         "9::Other (2001)::War\n")
    (tmp_path / "ratings.dat").write_text("1::-5::4::0\n2::-5::3::0\n1::7::5::0\n-3::9::2::0\n"
                                          "1::-5::2::9\n")
    data = load_movielens(tmp_path, n_movies=3, expected_rank=None)
    assert data.movie_ids.tolist() == [-5, 7, 9]          # -5 has two raters, then by id
    assert data.rated.tolist() == [[0, 0, 1], [1, 1, 0], [1, 0, 0]]   # users -3, 1, 2


# -- the Python API's seeds and types -----------------------------------------------------------------

@pytest.mark.exact
@pytest.mark.parametrize("call, named", [
    (lambda: __import__("dpbandits.reference", fromlist=["make"]).make("ucb1", 2, rng=-3), "rng"),
    (lambda: __import__("dpbandits.reference", fromlist=["make"]).make("ucb1", 2, rng=1.0), "rng"),
    (lambda: __import__("dpbandits.reference", fromlist=["make"]).make("ucb1", 2, rng=2 ** 128), "rng"),
    (lambda: __import__("dpbandits.reference", fromlist=["make"]).make(
        "dp-ucb", 2, epsilon=np.complex128(1), rng=0), "epsilon"),
    (lambda: __import__("dpbandits.reference", fromlist=["spec"]).spec("dp-ucb", 2, epsilon=1j), "epsilon"),
    (lambda: __import__("dpbandits.reference", fromlist=["spec"]).spec("dp-ucb", 2, epsilon=True), "epsilon"),
])
def test_the_api_refuses_bad_seeds_and_types_naming_the_argument(call, named):
    # before: rng=-3 raised numpy's ValueError; a numpy complex epsilon dropped its imaginary part
    with pytest.raises(DPBanditsError, match=named):
        call()


@pytest.mark.exact
@pytest.mark.parametrize("seed", [1.0, -3, True, 2 ** 128, np.float64(2)])
def test_simulate_and_audit_refuse_a_seed_that_is_not_an_exact_integer(seed):
    # before: simulate accepted seed=1.0; audit_algorithm raised TypeError or ValueError
    from dpbandits.audit import audit_algorithm
    from dpbandits.reference import Bernoulli, simulate, spec

    with pytest.raises(DPBanditsError, match="seed"):
        simulate(spec("ucb1", 2), Bernoulli(np.array([0.2, 0.5])), 10, runs=2, seed=seed)
    with pytest.raises(DPBanditsError, match="seed"):
        audit_algorithm("rnm-ftnl", epsilon=1.0, samples=100, seed=seed, T=4)
    with pytest.raises(DPBanditsError, match="epsilon"):
        audit_algorithm("rnm-ftnl", epsilon=np.complex128(1), samples=100, seed=0, T=4)


# -- underscores in numbers -----------------------------------------------------------------------

@pytest.mark.exact
@pytest.mark.parametrize("option, value", [("--epsilon", "1_0"), ("--means", "0.4_0"),
                                           ("--seed", "1_0"), ("--runs", "1_0")])
def test_every_numeric_option_refuses_underscores(tmp_path, option, value):
    # before: --epsilon 1_0 and --means were read as 10 and 5 while --seed 1_0 was refused
    argv = ["run", "dp-ucb", "--means", "0.6", "0.4", "--horizon", "20", "--runs", "2",
            "--epsilon", "1", "--no-progress", "--out", str(tmp_path)]
    if option == "--means":
        argv[argv.index("0.4")] = value
    else:
        argv += [option, value]
    _refused(argv, option)


@pytest.mark.exact
def test_a_parameter_written_with_underscores_is_refused(tmp_path):
    # before: int("1_0") made --param interval=1_0 the number 10
    _refused(["run", "rnm-ftnl-bq", "--means", "0.6", "0.4", "--horizon", "8", "--runs", "2",
              "--epsilon", "1", "--no-progress", "--out", str(tmp_path), "--param", "B=1_0"],
             "--param B", "underscores")


# -- messages -------------------------------------------------------------------------------------

@pytest.mark.exact
def test_an_unreachable_inproc_scheduler_says_why(tmp_path):
    # before: "cannot reach the Dask scheduler ...: not enough values to unpack"
    pytest.importorskip("distributed")
    _refused(["run", "ucb1", "--means", "0.3", "0.6", "--horizon", "10", "--no-progress",
              "--out", str(tmp_path), "--scheduler", "inproc://x"], "inproc://",
             "inside the Python process", "dask scheduler")


@pytest.mark.exact
def test_movielens_messages_name_the_option(tmp_path):
    # before: "chandak-movielens needs path=" (the Python argument) and "path '...' is not a
    # directory"
    base = ["run", "ucb1", "--setting", "chandak-movielens", "--horizon", "10", "--no-progress",
            "--out", str(tmp_path)]
    _refused(base, "--movielens DIR")
    _refused(base + ["--movielens", str(tmp_path / "nothing")], "--movielens", "is not a directory")
    (tmp_path / "empty").mkdir()
    _refused(base + ["--movielens", str(tmp_path / "empty")], "ratings.dat or movies.dat")


@pytest.mark.exact
def test_a_symbolic_link_loop_as_out_is_named(tmp_path):
    # before: "--out '...' is not a writable folder: File exists"
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    for out in ("a", "a/sub"):
        _refused(["run", "ucb1", "--means", "0.3", "0.6", "--horizon", "10", "--no-progress",
                  "--out", str(tmp_path / out)], "loop of symbolic links")
    (tmp_path / "dangling").symlink_to(tmp_path / "nowhere")
    _refused(["run", "ucb1", "--means", "0.3", "0.6", "--horizon", "10", "--no-progress",
              "--out", str(tmp_path / "dangling")], "does not exist")
