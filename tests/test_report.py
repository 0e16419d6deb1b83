"""`dpbandits report` end to end at the tiny budget.

Kinds: smoke (files, resume, errors), exact (the summary's counts equal the parts' own data; the
HTML page's structure), browser (the page rendered in headless Chromium; run with -m browser).
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
    assert f"{len(bounds['respected'])} checks respected" in summary
    assert f"{len(bounds['inconclusive'])} inconclusive at this size" in summary
    start = text.index("## Regret against the papers' bounds")
    part = text[start:text.index("\n## ", start + 1)]
    assert "holds" not in json.dumps(bounds) and "holds" not in part
    reproduced = json.loads((out / "parts" / "reproduce.json").read_text())["summary"]
    assert (f"{len(reproduced['supported'])} supported, {len(reproduced['contradicted'])} "
            "contradicted") in summary
    assert f"{len(reproduced['depends'])} depending on the reading" in summary
    assert f"{len(reproduced['could_not_fail'])} that could not fail" in summary
    assert not any(k in reproduced["supported"] + reproduced["contradicted"]
                   for k in reproduced["our_checks"])
    assert "`tossou2016-fig2a`" in summary            # the tiny budget runs below the paper's size


@pytest.mark.exact
def test_the_summary_counts_six_verdicts_and_keeps_our_checks_apart():
    from dpbandits.report import Part, summary

    s = {"supported": ["e: a", "e: b"], "contradicted": [], "depends": ["e: c"],
         "inconclusive": ["e: d"], "could_not_fail": ["e: g"], "not_testable": ["e: f"],
         "below_paper": [],
         "our_checks": {"e: bound": "supported", "f: bound": "inconclusive at this size"}}
    lines = summary([Part("reproduce", "", s)])
    assert lines[0].startswith("- **The papers' experimental claims** (6,")
    assert "2 supported, 0 contradicted, 1 depending on the reading" in lines[0]
    assert "1 that could not fail" in lines[0]
    assert "bound" not in lines[0]
    assert lines[1].startswith("- **Our own checks beside the experiments** (2; not claims")
    assert "1 supported, 1 inconclusive at this size" in lines[1]


@pytest.mark.exact
def test_the_summary_counts_regret_checks_by_the_checks_rule():
    """The bounds line counts respected, violated and inconclusive checks apart and names the
    inconclusive ones; it never says a bound holds."""
    from dpbandits.report import Part, summary

    s = {"respected": ["a: x", "a: y"], "inconclusive": ["b: z"], "violated": [],
         "vacuous": ["c: w"], "not_simulated": []}
    line = summary([Part("bounds", "", s)])[0]
    assert line.startswith("- **Regret bounds**: 2 checks respected where a run could")
    assert "0 violated, 1 inconclusive at this size" in line and "`b: z`" in line
    assert "1 vacuous" in line and "holds" not in line


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


@pytest.mark.exact
def test_html_is_one_styled_page_with_contents_verdicts_pictures_and_links(finished):
    """One embedded stylesheet and nothing loaded from elsewhere; a table of contents whose links
    all land on headings; every verdict in a table cell carries a symbol and a class beside its
    words; the audit's forest plot and the reproductions' grid are inlined; algorithm names link
    to their docs pages."""
    out, _, _ = finished
    page = (out / "index.html").read_text()
    assert page.count("<style>") == 1 and "<link" not in page and "<script" not in page
    assert not re.search(r'src="(?!data:image/png;base64,)', page)
    toc = page[page.index('<nav class="toc">'):page.index("</nav>")]
    targets = re.findall(r'href="#([^"]+)"', toc)
    assert len(targets) >= 5 and all(f'id="{t}"' in page for t in targets)
    cells = re.findall(r"<td>(respected|inconclusive at this size|violated|vacuous at this size"
                       r"|consistent|violation)</td>", page)
    assert cells == []                                  # every verdict cell is decorated
    assert re.search(r'<span class="verdict bad"><span class="mark" aria-hidden="true">\u2717'
                     r"</span>violation</span>", page)
    alts = re.findall(r'<img alt="([^"]*)" src="data:image/png;base64,', page)
    assert "Each variant's epsilon lower bound (95%) against its claim" in alts
    assert "The papers' claims: verdict of each, by paper and experiment" in alts
    assert '<a href="../docs/algorithms/rnm-ftnl.md"><code>rnm-ftnl[paper]</code></a>' in page
    assert (out / "audit-forest.png").stat().st_size > 10_000


@pytest.mark.browser
def test_the_html_report_renders_in_headless_chromium(finished, tmp_path):
    """Chromium (Debian's) loads the page, decodes every image and reports no error; the
    rendered DOM keeps the contents and the verdicts, and the screenshot is not blank."""
    import shutil
    import subprocess

    from matplotlib.image import imread

    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        pytest.skip("chromium is not installed (.ci/run installs it)")
    out, _, _ = finished
    flags = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
             "--no-first-run", "--disable-background-networking", "--disable-component-update",
             "--disable-sync", f"--user-data-dir={tmp_path / 'profile'}", "--enable-logging=stderr",
             "--v=0"]
    url = (out / "index.html").resolve().as_uri()
    dom = subprocess.run(flags + ["--dump-dom", url], capture_output=True, text=True, timeout=120)
    assert dom.returncode == 0, dom.stderr[-2000:]
    assert '<nav class="toc">' in dom.stdout and 'class="verdict' in dom.stdout
    assert dom.stdout.count("data:image/png;base64,") == (out / "index.html").read_text().count(
        "data:image/png;base64,")
    for problem in ("Uncaught", "Failed to load resource", "net::ERR", "Not allowed to load"):
        assert problem not in dom.stderr, problem
    shot = tmp_path / "report.png"
    taken = subprocess.run(flags + ["--hide-scrollbars", "--window-size=1280,2400",
                                    f"--screenshot={shot}", url],
                           capture_output=True, text=True, timeout=120)
    assert taken.returncode == 0 and shot.is_file(), taken.stderr[-2000:]
    pixels = imread(shot)
    assert pixels.shape[1] == 1280 and float(pixels[..., :3].std()) > 0.05   # not a blank page


@pytest.mark.exact
def test_parts_side_by_side_on_shared_workers_equal_the_parts_one_after_another(finished, tmp_path):
    """--workers 2 builds the parts at the same time on one pool (the bounds part's checks as
    tasks there): the same parts as one worker, and the timing of each task recorded."""
    out, _, _ = finished
    report(tmp_path, budget="tiny", parts=("algorithms", "bounds"), workers=2)
    for part in ("algorithms", "bounds"):
        alone, shared = (json.loads((folder / "parts" / f"{part}.json").read_text())
                         for folder in (out, tmp_path))
        assert {k: v for k, v in alone.items() if k != "seconds"} == \
            {k: v for k, v in shared.items() if k != "seconds"}
    timing = json.loads((tmp_path / "timing.json").read_text())
    assert {name for name, _ in timing["tasks"]} >= {"bounds"}
    assert timing["bounds"]["cpu"] >= timing["bounds"]["thread"] >= 0
