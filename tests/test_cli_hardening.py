"""Regression tests of the hardened command line and the checks below it.

Kinds: exact (statuses, messages, modes and values worked out by hand), smoke (a command runs
and writes what it says).
"""

from __future__ import annotations

import json
import os
import types

import numpy as np
import pytest

from dpbandits.cli import main
from dpbandits.cli.audit import exit_status
from dpbandits.cli.options import FOUND, NOT_TESTED, OK, parse_params
from dpbandits.errors import DPBanditsError
from dpbandits.files import write_atomically
from dpbandits.reference import Bernoulli, simulate, spec


@pytest.mark.exact
@pytest.mark.parametrize("umask, mode", [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_output_files_honour_the_umask(tmp_path, umask, mode):
    previous = os.umask(umask)
    try:
        write_atomically(tmp_path / "result.json", "{}")
    finally:
        os.umask(previous)
    assert (tmp_path / "result.json").stat().st_mode & 0o777 == mode


@pytest.mark.exact
def test_seeds_above_2_to_53_give_different_simulations():
    factory, source = spec("ucb1", 2), Bernoulli(np.array([0.6, 0.5]))
    first = simulate(factory, source, 50, runs=4, seed=2 ** 60)
    second = simulate(factory, source, 50, runs=4, seed=2 ** 60 + 1)
    assert not np.array_equal(first.realised_regret, second.realised_regret)


@pytest.mark.exact
def test_a_seed_of_400_digits_is_one_line(capsys):
    assert main(["run", "ucb1", "--means", "0.6", "0.4", "--horizon", "5", "--seed", "9" * 400]) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "[0, 2^128)" in error


@pytest.mark.exact
def test_param_for_one_algorithm_only():
    chosen = parse_params(["dp-ucb-int:interval=y", "Q=gumbel"], ["dp-ucb-int", "rnm-ftnl-bq"])
    assert chosen == {"dp-ucb-int": {"interval": "y"}, "rnm-ftnl-bq": {"Q": "gumbel"}}
    with pytest.raises(DPBanditsError, match="ambiguous"):
        parse_params(["tie_break=random"], ["dp-ucb-int", "rnm-ftnl-bq"])
    assert parse_params(["rnm-ftnl-bq:Q=gumbel"], ["ucb1", "rnm-ftnl-bq"]) == \
        {"ucb1": {}, "rnm-ftnl-bq": {"Q": "gumbel"}}


@pytest.mark.exact
def test_list_shows_each_algorithms_parameters(capsys):
    assert main(["list"]) == 0
    text = capsys.readouterr().out
    block = text[text.index("rnm-ftnl-bq "):]
    block = block[:block.index("\nomm ")]
    assert "param Q:" in block and "'gumbel'" in block and "param B:" in block
    assert main(["list", "--json"]) == 0
    infos = {i["name"]: i for i in json.loads(capsys.readouterr().out)}
    assert {p["name"] for p in infos["rnm-ftnl-bq"]["parameters"]} == {"B", "Q", "tie_break"}
    assert infos["rnm-ftnl-bq"]["epsilon_range"] == [1e-06, 10000.0]


@pytest.mark.exact
def test_audit_exit_status_for_each_outcome():
    def result(verdict, bound, k0, k1):
        return types.SimpleNamespace(verdict=verdict, epsilon_lower_bound=bound,
                                     counts={"in_S_D0": k0, "in_S_D1": k1})
    assert exit_status(result("violation", 2.0, 10, 900)) == FOUND
    assert exit_status(result("consistent", 0.1, 400, 420)) == OK
    assert exit_status(result("consistent", 0.0, 0, 0)) == NOT_TESTED
    assert exit_status(result("consistent", float("nan"), 5, 5)) == NOT_TESTED


@pytest.mark.smoke
def test_bounds_with_every_mean_equal_is_a_result(tmp_path, capsys):
    status = main(["bounds", "ucb1", "--means", "0.5", "0.5", "--horizon", "64", "--runs", "2",
                   "--out", str(tmp_path)])
    assert status == 3          # a result, not an error: no bound could be tested (all gap-dependent)
    assert "every arm is optimal" in capsys.readouterr().out


@pytest.mark.exact
def test_an_unwritable_out_is_refused_before_any_work(tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    assert main(["run", "ucb1", "--means", "0.6", "0.4", "--horizon", "5",
                 "--out", str(blocker / "sub")]) == 2
    assert "not a writable folder" in capsys.readouterr().err


@pytest.mark.exact
def test_report_recomputes_a_damaged_cached_part(tmp_path, capsys):
    from dpbandits.report import report

    index = report(tmp_path, budget="tiny", parts=("algorithms",))
    part = tmp_path / "parts" / "algorithms.json"
    data = json.loads(part.read_text())
    data["summary"] = {"algorithms": "many"}                 # wrong shape
    part.write_text(json.dumps(data))
    report(tmp_path, budget="tiny", parts=("algorithms",))
    assert "damaged" in capsys.readouterr().err
    assert isinstance(json.loads(part.read_text())["summary"]["algorithms"], int)
    assert index.exists()


@pytest.mark.exact
def test_report_html_escapes_text_from_cached_parts(tmp_path):
    from dpbandits.report import report

    report(tmp_path, budget="tiny", parts=("algorithms",))
    part = tmp_path / "parts" / "algorithms.json"
    data = json.loads(part.read_text())
    data["markdown"] += "\n\n<script>alert(1)</script> [x](javascript:alert(1))"
    part.write_text(json.dumps(data))
    report(tmp_path, budget="tiny", parts=("algorithms",))
    page = (tmp_path / "index.html").read_text()
    assert "<script>" not in page and "javascript:" not in page
    assert "&lt;script&gt;" in page


@pytest.mark.exact
def test_the_report_summary_names_the_errata_page():
    from dpbandits.report import Part, summary

    audit = Part("audit", "", {"audits": 3, "violations": [], "consistent": ["a[paper]"],
                               "controls": {}, "false_but_not_detected": ["a[paper]"]})
    text = "\n".join(summary([audit]))
    assert "docs/errata.md" in text and "spec" not in text


@pytest.mark.smoke
def test_a_closed_output_pipe_ends_quietly_with_the_sigpipe_status():
    """``dpbandits list | head -1``: the reader closes the pipe before the command writes; the
    command stops with status 141 (128 + SIGPIPE) and no traceback."""
    import subprocess
    import sys

    process = subprocess.Popen([sys.executable, "-m", "dpbandits.cli", "list"], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE)
    process.stdout.close()                 # before the interpreter has even started
    _, stderr = process.communicate(timeout=120)
    assert process.returncode == 141
    assert b"Traceback" not in stderr
