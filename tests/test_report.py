"""`dpbandits report` end to end at the tiny budget.

Kinds: smoke (files, resume, errors), exact (the summary's counts equal the parts' own data).
"""

from __future__ import annotations

import json
import re

import pytest

from dpbandits.cli import main
from dpbandits.report import PARTS, report


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    out = tmp_path_factory.mktemp("report")
    messages = []
    index = report(out, budget="tiny", progress=messages.append)
    return out, index, messages


@pytest.mark.smoke
def test_report_writes_markdown_html_and_every_part(finished):
    out, index, messages = finished
    text = index.read_text()
    assert text.startswith("# dpbandits verification report")
    for part in PARTS:
        assert (out / "parts" / f"{part}.json").exists()
    html = (out / "index.html").read_text()
    assert "<table>" in html and "data:image/png;base64," in html
    assert any("audit" in m for m in messages)


@pytest.mark.exact
def test_summary_matches_its_parts(finished):
    out, index, _ = finished
    text = index.read_text()
    summary = text[text.index("## Summary"):text.index("\n## ", text.index("## Summary") + 1)]
    claims = json.loads((out / "audit-claims.json").read_text())
    violated = sorted(r["mechanism"] for r in claims
                      if r["verdict"] == "violation" and not r["mechanism"].startswith(("toy-", "hybrid-counter")))
    line = next(l for l in summary.splitlines() if l.startswith("- **Privacy claims violated**"))
    assert sorted(re.findall(r"`([^`]+)`", line)) == violated
    assert "rnm-ftnl[paper]" in violated and "rnm-ftnl[corrected]" not in violated
    bounds = json.loads((out / "parts" / "bounds.json").read_text())["summary"]
    assert f"{len(bounds['held'])} checks respected" in summary
    reproduced = json.loads((out / "parts" / "reproduce.json").read_text())["summary"]
    assert (f"{len(reproduced['supported'])} supported, {len(reproduced['contradicted'])} "
            "contradicted") in summary
    assert "`tossou2016-fig2a`" in summary            # the tiny budget runs below the paper's size


@pytest.mark.smoke
def test_a_rerun_reuses_finished_parts(finished, capsys):
    out, index, _ = finished
    stamps = {p: (out / "parts" / f"{p}.json").stat().st_mtime_ns for p in PARTS}
    messages = []
    report(out, budget="tiny", progress=messages.append)
    assert all("reused" in m for m in messages if m.startswith("["))
    assert stamps == {p: (out / "parts" / f"{p}.json").stat().st_mtime_ns for p in PARTS}


@pytest.mark.smoke
def test_changed_parameters_recompute(tmp_path):
    report(tmp_path, budget="tiny", parts=("algorithms",))
    messages = []
    report(tmp_path, budget="tiny", seed=1, parts=("algorithms",), progress=messages.append)
    assert not any("reused" in m for m in messages)


@pytest.mark.smoke
def test_cli_prints_the_summary(tmp_path, capsys):
    assert main(["report", "--budget", "tiny", "--part", "algorithms", "--out", str(tmp_path),
                 "--no-progress"]) == 0
    assert "## Summary" in capsys.readouterr().out


@pytest.mark.smoke
def test_cli_bad_budget_is_one_line(tmp_path, capsys):
    assert main(["report", "--budget", "huge", "--out", str(tmp_path)]) == 2
    assert capsys.readouterr().err.count("\n") == 1
